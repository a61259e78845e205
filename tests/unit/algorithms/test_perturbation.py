"""Perturbation (sdcMicro's addNoise, rankSwap, microaggregation) and its measures (dUtility, dRisk)."""

from __future__ import annotations

import json

import numpy as np
import pandas as pd
import pytest
from typer.testing import CliRunner

from veil.algorithms.perturbation import disclosure_risk, information_loss, perturb
from veil.cli import app


def _frame(n: int = 4000) -> pd.DataFrame:
    rng = np.random.default_rng(0)
    x = rng.multivariate_normal([10.0, 50.0], [[4.0, 3.0], [3.0, 9.0]], size=n)
    return pd.DataFrame({"a": x[:, 0], "b": x[:, 1], "g": rng.choice(list("xy"), n)})


def test_il1s_and_eigen_by_hand():
    x = np.array([[1.0, 2.0], [3.0, 5.0], [5.0, 4.0]])
    z = x + np.array([[1.0, 0.0], [0.0, 0.0], [0.0, -1.5]])
    # sd of the columns: 2 and sqrt(7/3); IL1s = 1/(2 sqrt 2) + 1.5/(sqrt(7/3) sqrt 2)
    expected = 1 / (2 * np.sqrt(2)) + 1.5 / (np.sqrt(7 / 3) * np.sqrt(2))
    loss = information_loss(x, z)
    assert loss["il1s"] == pytest.approx(expected) and loss["il1s_per_cell"] == pytest.approx(expected / 6)
    assert information_loss(x, x)["eigen"] == pytest.approx(0.0, abs=1e-12)


def test_interval_disclosure_and_linkage_by_hand():
    x = np.array([[0.0], [10.0], [20.0], [30.0]])
    # released sd: sd(0, 10, 20, 40) = 17.08; interval half width 0.05 * 17.08 = 0.854
    z = np.array([[0.5], [10.0], [20.0], [40.0]])
    risk = disclosure_risk(x, z)
    assert risk["interval_disclosure"] == 0.75  # the last record's original (30) is 10 away
    assert risk["record_linkage"] == 1.0  # each released value is still nearest its own original
    z2 = np.array([[10.0], [0.0], [20.0], [30.0]])  # two records swapped: they link to each other
    assert disclosure_risk(x, z2)["record_linkage"] == 0.5


def test_noise_scales_the_variance():
    frame = _frame()
    z = perturb(frame, ["a", "b"], method="noise", noise=100, seed=1).data
    # additive noise of 100% of the sd: the variance doubles (tolerance: 4,000 draws, about 5 s.e.)
    assert z["a"].var() / frame["a"].var() == pytest.approx(2.0, rel=0.12)
    assert z["g"].tolist() == frame["g"].tolist()  # other columns untouched


def test_correlated_noise_keeps_means_and_variances():
    frame = _frame()
    z = perturb(frame, ["a", "b"], method="correlated-noise", delta=0.3, seed=2).data
    for name in ("a", "b"):
        assert z[name].mean() == pytest.approx(frame[name].mean(), abs=0.15)
        assert z[name].var() == pytest.approx(frame[name].var(), rel=0.1)
    # covariance scaled by 1 - delta^2 = 0.91
    ratio = np.cov(z["a"], z["b"])[0, 1] / np.cov(frame["a"], frame["b"])[0, 1]
    assert ratio == pytest.approx(0.91, abs=0.08)


def test_rank_swap_moves_values_at_most_p_percent_of_ranks():
    frame = pd.DataFrame({"v": np.arange(1000.0)})
    z = perturb(frame, ["v"], method="rank-swap", p=2, seed=3).data["v"].to_numpy()
    assert sorted(z) == list(range(1000))  # the same values, reassigned
    assert np.abs(z - np.arange(1000)).max() <= 20 and (z != np.arange(1000)).mean() > 0.9


def test_mdav_reachable_the_same_way():
    result = perturb(_frame(300), ["a", "b"], method="mdav", k=5)
    counts = result.data.groupby(["a", "b"]).size()
    assert counts.min() >= 5 and result.details["groups"] == len(counts)


def test_command_writes_release_and_report(tmp_path):
    data = tmp_path / "data.csv"
    frame = _frame(200)
    frame.to_csv(data, index=False)
    out, report = tmp_path / "out.csv", tmp_path / "r.json"
    result = CliRunner().invoke(app, ["perturb", str(data), "--method", "rank-swap", "--columns", "a,b",
                                      "-o", str(out), "--json", str(report), "--seed", "9"])
    assert result.exit_code == 0, result.output
    assert "Not differential privacy" in result.output
    r = json.loads(report.read_text())
    assert {"method", "columns", "information_loss", "disclosure_risk"} <= set(r) and r["differential_privacy"] is False
    assert r["withheld"] == ["g"] and "seed" not in json.dumps(r)
    released = pd.read_csv(out)
    assert released.columns.tolist() == ["a", "b"] and sorted(released["a"]) == sorted(frame["a"])
