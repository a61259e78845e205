"""The population fraction's lower bound (n / fraction <= 2**53) and the estimators' accuracy up to it.

``veil risk --population-fraction 1e-15`` on Adult overflowed int64 in the
Zayatz estimate (a TypeError traceback), and Pitman's expected singletons lost
every digit from N = 1e14 on (two huge log-gammas subtracted): 1e-12 "worked"
with a Pitman estimate of 1 population unique.
"""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest
from typer.testing import CliRunner

from veil.classes import ClassTable
from veil.cli import app
from veil.dataset import Dataset
from veil.datasets import load_din_table
from veil.errors import ParameterError
from veil.risk import MAX_POPULATION_SIZE, assess, population_uniqueness
from veil.risk._estimators import (
    _frequencies,
    _log_hypergeom_one,
    _pitman_expected_singletons,
    shlosser_population_classes,
    snb_uniques,
)

runner = CliRunner()
SIZES = [1] * 40 + [2] * 12 + [3] * 5 + [5] * 2  # 89 records, 40 sample uniques


def _table(sizes):
    values = np.repeat([f"v{i}" for i in range(len(sizes))], sizes)
    return ClassTable.from_pandas(pd.DataFrame({"q": values}), quasi_identifiers=["q"])


@pytest.fixture()
def din_csv(tmp_path):
    path = tmp_path / "din.csv"
    load_din_table().frame.to_csv(path, index=False)
    return path


def test_the_bound_is_two_to_the_53():
    assert MAX_POPULATION_SIZE == 2**53 == 9007199254740992


@pytest.mark.parametrize("fraction", ["1e-15", "1e-20", "5e-324"])
def test_cli_refuses_a_fraction_implying_a_population_beyond_the_bound(din_csv, fraction):
    result = runner.invoke(app, ["risk", str(din_csv), "--qi", "Gender,YOB", "--population-fraction", fraction])
    assert result.exit_code == 2, result.output
    assert isinstance(result.exception, SystemExit) and "Traceback" not in result.output
    message = " ".join(result.output.split())
    assert "'population_fraction'" in message and "2**53" in message and "11 records" in message
    assert "at least 1.23e-15" in message  # 11 / 2**53 = 1.2212e-15, rounded up


def test_cli_accepts_the_smallest_fraction(din_csv, tmp_path):
    out = tmp_path / "risk.json"
    result = runner.invoke(app, ["risk", str(din_csv), "--qi", "Gender,YOB", "--population-fraction", "1.23e-15",
                                 "--json", str(out)])
    assert result.exit_code == 0, result.output


@pytest.mark.parametrize("fraction", [1e-15, 1e-20, 5e-324])
def test_api_refuses_a_fraction_implying_a_population_beyond_the_bound(fraction):
    with pytest.raises(ParameterError, match=r"population_fraction.*too small for 89 records.*2\*\*53"):
        assess(_table(SIZES), population_fraction=fraction)
    with pytest.raises(ParameterError, match=r"sampling_fraction.*too small for 89 records.*2\*\*53"):
        population_uniqueness(_table(SIZES), sampling_fraction=fraction)


def test_assess_on_a_dataset_refuses_1e_minus_20():
    data = Dataset.from_pandas(load_din_table().frame, quasi_identifiers=["Gender", "YOB"])
    with pytest.raises(ParameterError, match="2\\*\\*53"):
        assess(data, population_fraction=1e-20)


def test_a_population_size_beyond_the_bound_is_refused():
    with pytest.raises(ParameterError, match="population_size"):
        population_uniqueness(_table(SIZES), population_size=10**20)


def test_at_the_bound_every_model_is_finite():
    n = sum(SIZES)
    fraction = n / 2**53
    result = population_uniqueness(_table(SIZES), sampling_fraction=fraction)
    assert result.population_size == 2**53
    for estimate in (result.pitman, result.zayatz, result.dankar):
        assert estimate.valid and math.isfinite(estimate.uniques) and 0 <= estimate.uniques <= 2**53
    report = assess(_table(SIZES), population_fraction=fraction).to_dict()
    assert report["population_uniques"]["population_size"] == 2**53


mpmath = pytest.importorskip("mpmath")


def _reference_pitman(theta, alpha, big_n):
    mp = mpmath.mp
    with mpmath.workdps(50):
        n, t, a = mp.mpf(big_n), mp.mpf(theta), mp.mpf(alpha)
        return float(mp.exp(mp.log(n) + mp.loggamma(t + 1) - mp.loggamma(t + a)
                            + mp.loggamma(t + a + n - 1) - mp.loggamma(t + n)))


def _reference_log_h(i, n, big_n):
    mp = mpmath.mp
    with mpmath.workdps(50):
        big = mp.mpf(big_n)
        return float(mp.log(i * n) + mp.loggamma(big - i + 1) - mp.loggamma(big + 1)
                     + mp.loggamma(big - n + 1) - mp.loggamma(big - i - n + 2))


@pytest.mark.parametrize("big_n", [10**6, 10**10, 10**12, 10**14, 2**53])
def test_pitman_expected_singletons_match_a_high_precision_reference(big_n):
    for theta, alpha in ((30.0, 0.4), (2.5, 0.05), (1e3, 0.9)):
        ours = _pitman_expected_singletons(theta, alpha, big_n)
        assert ours == pytest.approx(_reference_pitman(theta, alpha, big_n), rel=1e-9)


@pytest.mark.parametrize("big_n", [30_162, 10**6, 10**10, 10**14, 2**53])
def test_zayatz_hypergeometric_weights_match_a_high_precision_reference(big_n):
    n, sizes = 30_000, np.array([1, 2, 7, 150, 3000])
    ours = _log_hypergeom_one(sizes, n, big_n)
    for value, i in zip(ours, sizes):
        reference = _reference_log_h(int(i), n, big_n) if i <= big_n - n + 1 else -math.inf
        assert value == pytest.approx(reference, rel=1e-10, abs=1e-10)


@pytest.mark.parametrize("q", [1e-3, 1e-9, 1e-13])
def test_shlosser_matches_a_high_precision_reference_at_small_fractions(q):
    sizes, freq = np.array([1, 2, 3, 5]), np.array([40.0, 12.0, 5.0, 2.0])
    with mpmath.workdps(60):
        Q = mpmath.mpf(q)
        num1 = sum(f * i * Q**2 * (1 - Q**2) ** (i - 1) for i, f in zip(sizes, freq))
        den1 = sum(f * ((1 - Q**2) ** i - (1 - Q) ** i) for i, f in zip(sizes, freq))
        num2 = sum(f * (1 - Q) ** i for i, f in zip(sizes, freq))
        den2 = sum(f * i * Q * (1 - Q) ** (i - 1) for i, f in zip(sizes, freq))
        reference = float(59 + 40 * (num1 / den1) * (num2 / den2) ** 2)
    assert shlosser_population_classes(sizes, freq, q) == pytest.approx(reference, rel=1e-9)


def test_snb_stays_consistent_as_the_fraction_shrinks():
    # K beta^alpha with beta underflowing to 0: the estimate is K * exp(alpha log beta), not 0
    sizes, freq = _frequencies(np.array(SIZES))
    for fraction in (1e-5, 1e-6, 1e-8):
        big_n = int(round(89 / fraction))
        estimate = snb_uniques(sizes, freq, 89, big_n)
        assert estimate.valid, estimate.message
        assert 0.5 * estimate.parameters["K"] < estimate.uniques <= estimate.parameters["K"]
