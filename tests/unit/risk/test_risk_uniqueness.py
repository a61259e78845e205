"""Population-uniqueness models: exact cases, hand-derived values, monotonicity, Adult range."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest
from scipy import special

from veil.classes import ClassTable
from veil.errors import ParameterError
from veil.risk import assess, population_uniqueness
from veil.risk._uniqueness import pitman_uniques, shlosser_population_classes, snb_uniques, zayatz_uniques


def _table(sizes):
    values = np.repeat([f"v{i}" for i in range(len(sizes))], sizes)
    return ClassTable.from_pandas(pd.DataFrame({"q": values}), quasi_identifiers=["q"])


def test_fraction_one_gives_sample_uniques():
    result = population_uniqueness(_table([1, 1, 1, 2, 5]), sampling_fraction=1.0)
    # the sample is the population: 3 uniques of 10 records
    for name in ("pitman", "zayatz", "snb", "dankar"):
        assert getattr(result, name).uniques == 3.0 and getattr(result, name).fraction == 0.3
    assert result.model_used == "sample"


def test_no_sample_uniques_gives_zero():
    result = population_uniqueness(_table([2, 3, 4]), sampling_fraction=0.05)
    assert result.dankar.uniques == 0.0 and result.model_used == "none" and result.dankar.valid


def test_zayatz_by_hand():
    # sizes {1: 2 classes, 2: 1 class}, n = 4, N = 8 (pi = 1/2).
    # h(1; 8, 1, 4) = 4/8 = 1/2;  h(1; 8, 2, 4) = C(2,1) C(6,3) / C(8,4) = 2*20/70 = 4/7.
    # P = 2 * 1/2 / (2 * 1/2 + 1 * 4/7) = 1 / (11/7) = 7/11;  uniques = 2 * 7/11 / (1/2) = 28/11.
    estimate = zayatz_uniques(np.array([1, 2]), np.array([2.0, 1.0]), 4, 8)
    assert estimate.valid
    assert estimate.uniques == pytest.approx(28 / 11, rel=1e-12)
    assert estimate.fraction == pytest.approx(28 / 11 / 8, rel=1e-12)


def test_zayatz_is_monotone_in_sampling_fraction():
    classes = _table([1] * 30 + [2] * 10 + [3] * 5 + [7] * 2)
    fractions = [population_uniqueness(classes, sampling_fraction=f).zayatz.fraction
                 for f in (0.01, 0.05, 0.1, 0.3, 0.6, 0.9, 1.0)]
    # a smaller sample makes a sample unique less likely to be a population unique
    assert all(a < b for a, b in zip(fractions, fractions[1:]))


def _pitman_score(theta, alpha, sizes, freq):
    n, u = int(np.dot(sizes, freq)), int(freq.sum())
    k = np.arange(1, u)
    d_theta = np.sum(1 / (theta + k * alpha)) - np.sum(1 / (theta + np.arange(1, n)))
    d_alpha = np.sum(k / (theta + k * alpha)) - sum(
        f * np.sum(1 / (np.arange(1, s) - alpha)) for s, f in zip(sizes, freq) if s > 1)
    return d_theta, d_alpha


def test_pitman_at_the_ewens_boundary_satisfies_kkt():
    # few large classes: the likelihood grows as alpha decreases, so the MLE sits at alpha = 0
    sizes, freq = np.array([1, 2, 3, 5]), np.array([40.0, 12.0, 5.0, 2.0])
    n = int(np.dot(sizes, freq))
    estimate = pitman_uniques(sizes, freq, n, 100 * n)
    assert estimate.valid and estimate.parameters["alpha"] == 0.0
    d_theta, d_alpha = _pitman_score(estimate.parameters["theta"], 0.0, sizes, freq)
    assert abs(d_theta) < 1e-4 and d_alpha < 0


def test_pitman_fit_is_a_stationary_point_of_the_likelihood():
    sizes, freq = np.array([1, 2, 3, 5, 8, 20]), np.array([40.0, 12.0, 5.0, 2.0, 3.0, 1.0])
    n = int(np.dot(sizes, freq))
    estimate = pitman_uniques(sizes, freq, n, 100 * n)
    assert estimate.valid
    theta, alpha = estimate.parameters["theta"], estimate.parameters["alpha"]
    assert 0 < alpha < 1
    # score equations (Hoshino 2001): d/dtheta and d/dalpha of the log-likelihood vanish
    d_theta, d_alpha = _pitman_score(theta, alpha, sizes, freq)
    assert abs(d_theta) < 1e-4 and abs(d_alpha) < 1e-3
    # and the estimate is the expected number of singletons of a population of N records
    big_n = 100 * n
    expected = big_n * math.exp(special.gammaln(theta + 1) - special.gammaln(theta + alpha)
                                + special.gammaln(theta + alpha + big_n - 1) - special.gammaln(theta + big_n))
    assert estimate.uniques == pytest.approx(expected, rel=1e-9)


def test_snb_solves_its_moment_equations():
    sizes, freq = np.array([1, 2, 3, 4]), np.array([50.0, 20.0, 8.0, 3.0])
    n = int(np.dot(sizes, freq))
    big_n = 5 * n
    estimate = snb_uniques(sizes, freq, n, big_n)
    assert estimate.valid
    a, b, k = (estimate.parameters[x] for x in ("alpha", "beta", "K"))
    pi = n / big_n
    d = (1 - pi) * (1 - b)
    e1 = k * pi * (b / (1 - d)) ** a * (1 + a * d / (1 - d))
    e2 = k * a * b**a * pi**2 * (1 - b) / (2 * (1 - d) ** (a + 2)) * (2 - (1 - a) * d)
    assert e1 == pytest.approx(50.0, rel=1e-8) and e2 == pytest.approx(20.0, rel=1e-8)
    assert estimate.uniques == pytest.approx(k * b**a, rel=1e-12)


def test_snb_without_classes_of_size_two_fails_cleanly():
    estimate = snb_uniques(np.array([1, 3]), np.array([5.0, 2.0]), 11, 110)
    assert not estimate.valid and estimate.uniques is None and estimate.fraction is None
    assert "size 2" in estimate.message


def test_dankar_rule_small_fraction_uses_pitman():
    result = population_uniqueness(_table([1] * 40 + [2] * 12 + [3] * 5 + [5] * 2), sampling_fraction=0.05)
    assert result.pitman.valid and result.model_used == "pitman"
    assert result.dankar.fraction == result.pitman.fraction


def test_dankar_rule_large_fraction_takes_the_smaller_of_zayatz_and_snb():
    result = population_uniqueness(_table([1] * 40 + [2] * 12 + [3] * 5 + [5] * 2), sampling_fraction=0.5)
    assert result.snb.valid and result.zayatz.valid
    smaller = min(result.zayatz.uniques, result.snb.uniques)
    assert result.dankar.uniques == smaller
    assert result.model_used == ("zayatz" if result.zayatz.uniques < result.snb.uniques else "snb")


def test_dankar_falls_back_to_zayatz_when_snb_fails():
    result = population_uniqueness(_table([1] * 10 + [3] * 4), sampling_fraction=0.5)
    assert not result.snb.valid and result.model_used == "zayatz"
    data = result.to_dict()
    assert data["snb"] is None and data["valid"]["snb"] is False and data["dankar"] == data["zayatz"]


def test_estimates_are_fractions_of_the_population_never_nan():
    result = population_uniqueness(_table([1] * 10 + [3] * 4), sampling_fraction=0.2)
    for value in result.to_dict().values():
        if isinstance(value, float):
            assert math.isfinite(value)
    assert result.population_size == 110  # round(22 / 0.2)


@pytest.mark.parametrize("fraction", [0.0, 1.5, -1.0, float("nan")])
def test_bad_sampling_fraction(fraction):
    with pytest.raises(ParameterError, match="sampling_fraction"):
        population_uniqueness(_table([1, 2]), sampling_fraction=fraction)


def test_population_smaller_than_sample_size():
    with pytest.raises(ParameterError, match=r"at least the sample size \(3\)"):
        population_uniqueness(_table([1, 2]), population_size=2)
    with pytest.raises(ParameterError, match="exactly one"):
        population_uniqueness(_table([1, 2]))


def test_adult_estimates_are_plausible(adult):
    classes = ClassTable.from_dataset(adult)
    sample_uniques = 14021 / 30162
    previous = None
    for fraction in (0.01, 0.1, 0.5):
        result = population_uniqueness(classes, sampling_fraction=fraction)
        for name in ("pitman", "zayatz", "snb"):
            estimate = getattr(result, name)
            assert estimate.valid, (fraction, name, estimate.message)
            # a population unique is a sample unique if sampled: the fraction cannot exceed the sample's
            assert 0 < estimate.fraction < sample_uniques
        if previous is not None:
            assert result.dankar.fraction > previous  # larger samples: uniques closer to the sample's
        previous = result.dankar.fraction
    assert population_uniqueness(classes, sampling_fraction=0.01).model_used == "pitman"


def test_report_contract_keys(adult):
    data = assess(ClassTable.from_dataset(adult), population_fraction=0.1).to_dict()
    assert set(data["population_uniques"]) >= {"pitman", "zayatz", "snb", "dankar", "model_used"}
    assert data["population_uniques"]["model_used"] == "pitman"


def test_shlosser_in_log_space_has_no_overflow_for_a_class_of_2000():
    # sizes [1, 2, 3, 2000], one class each, q = 0.5, u = 4, f_1 = 1. The 2000-class terms are
    # (3/4)^1999 and (1/2)^2000: ~1e-250 and ~1e-602, i.e. 0 to double precision.
    # num1 = 1*.25 + 2*.25*.75 + 3*.25*.5625 = 1.046875
    # den1 = (.75-.5) + (.5625-.25) + (.421875-.125) = .859375     [(1-q^2)^i - (1-q)^i]
    # num2 = .5 + .25 + .125 = .875 ;  den2 = 1*.5 + 2*.5*.5 + 3*.5*.25 = 1.375
    # K = 4 + 1 * (1.046875/.859375) * (.875/1.375)^2 = 4 + 1.2181818 * 0.4049587 = 4.4933133
    with np.errstate(over="raise", invalid="raise", divide="raise"):  # overflow or NaN fails the test
        k = shlosser_population_classes(np.array([1, 2, 3, 2000]), np.ones(4), 0.5)
    expected = 4 + (1.046875 / 0.859375) * (0.875 / 1.375) ** 2
    assert k == pytest.approx(expected, rel=1e-12)
    assert expected == pytest.approx(4.4933133, abs=1e-7)


def test_population_uniqueness_reports_a_finite_population_class_estimate_for_large_classes():
    result = population_uniqueness(_table([1, 2, 3, 2000]), sampling_fraction=0.5)
    assert result.population_classes == pytest.approx(4 + (1.046875 / 0.859375) * (0.875 / 1.375) ** 2)
    assert result.to_dict()["population_classes"] == result.population_classes
    for name in ("pitman", "zayatz", "snb", "dankar"):
        estimate = getattr(result, name)
        assert estimate.uniques is None or math.isfinite(estimate.uniques)


def test_shlosser_exact_cases():
    # q = 1: the sample is the population, K = u; no sample uniques: K = u as well (f_1 = 0)
    assert shlosser_population_classes(np.array([1, 2]), np.array([3.0, 4.0]), 1.0) == 7.0
    assert shlosser_population_classes(np.array([2, 5]), np.array([3.0, 4.0]), 0.1) == 7.0


def test_snb_with_a_given_population_class_count_solves_the_same_equations():
    sizes, freq = np.array([1, 2, 3]), np.array([10.0, 5.0, 2.0])
    estimate = snb_uniques(sizes, freq, 26, 260, population_classes=300.0)
    assert estimate.parameters["K"] == 300.0
    assert estimate.valid
