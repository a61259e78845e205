"""``PrivateTable.group_by_sum`` without public keys: keys selected privately (ε/2, δ), then noisy sums (ε/2)."""

from __future__ import annotations

import json
import math

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from typer.testing import CliRunner

import veil.dp._grouped_sum as grouped_sum_module
from veil.cli import app
from veil.dp import LaplaceMechanism, PrivacyAccountant, PrivacyBudget, PrivateTable, ZCDPBudget
from veil.dp._sensitivity import clamped_fixed_point_sum
from veil.errors import BudgetExceededError, ColumnNotFoundError, ParameterError, SchemaError


@pytest.fixture
def noise_free(monkeypatch):
    """The sums' Laplace releases its input unchanged (the selection's noise is OpenDP's, not patched)."""
    monkeypatch.setattr(LaplaceMechanism, "release", lambda self, value: value)


def _table(frame: pd.DataFrame, epsilon: float = 1e3, composition: str = "basic", **kw) -> PrivateTable:
    slack = {"delta_slack": 1e-6} if composition == "zcdp" else {}
    acc = PrivacyAccountant(budget=PrivacyBudget(epsilon=epsilon, delta=0.5), composition=composition, **slack)
    return PrivateTable(frame, accountant=acc, **kw)


PEOPLE = pd.DataFrame({
    "sex": ["F", "M", "F", "M", "Z", "F", None],
    "income": [10.0, 250.0, 30.25, np.nan, 50.0, -4.0, 70.0],
    "age": [30, 50, 45, 61, 70, 20, 33],
})
#: ε = 100: the selection gets ε/2 = 50, one row per unit (ℓ0 = ℓ1 = ℓ∞ = 1), so b = 1/50 = 0.02 and
#: τ = 1 + ⌈0.02 · ln(1 / ((1 + e^-50) · 1e-6))⌉ = 1 + ⌈0.02 · 13.8155⌉ = 1 + ⌈0.276⌉ = 2.  A key of one row is
#: released iff 1 + Z ≥ 2, P[Z ≥ 1] = e^-50 / (1 + e^-50) ≈ 2e-22; a key of two rows is dropped iff Z ≤ -1, as rare.
HUGE_EPSILON = 100.0


def test_reference_by_hand(noise_free) -> None:
    # rows per key: F 3, M 2, Z 1 (the missing key is no group): τ = 2 keeps F and M, drops Z.
    # clamped to [0, 100]: F = 10 + 30.25 + 0 (-4 -> 0) = 40.25; M = 100 (250 -> 100) + 0 (missing -> 0) = 100
    ans = _table(PEOPLE).group_by_sum("income", "sex", lower=0, upper=100, epsilon=HUGE_EPSILON, delta=1e-6)
    assert ans.value == {"F": 40.25, "M": 100.0}
    # sums: Δ = 1 row · max(|0|, |100|) = 100, scale Δ/(ε/2) = 100/50 = 2
    assert (ans.epsilon, ans.delta, ans.mechanism) == (100.0, 1e-6, "laplace_threshold+laplace")
    assert (ans.sensitivity, ans.noise_scale, ans.query) == (100.0, 2.0, "sum income by sex")
    assert ans.details == {"columns": ["sex"], "keys": "private partition selection", "sensitivity_norm": "l1",
                           "lower": 0.0, "upper": 100.0, "threshold": 2, "selection_epsilon": 50.0,
                           "selection_noise_scale": pytest.approx(0.02, rel=1e-9), "selection_sensitivity": 1,
                           "sum_epsilon": 50.0}


def test_where_filters_before_the_selection(noise_free) -> None:
    # age > 40 keeps (M, 250), (F, 30.25), (M, nan), (Z, 50): M has 2 rows (kept, 100 + 0), F and Z one each (dropped)
    ans = _table(PEOPLE).group_by_sum("income", "sex", lower=0, upper=100, epsilon=HUGE_EPSILON, delta=1e-6,
                                      where="age > 40")
    assert ans.value == {"M": 100.0}
    assert ans.query == "sum income by sex where age > 40"


def test_per_unit_bounds_set_the_threshold_and_the_sensitivity() -> None:
    # L0 = 2, L∞ = 3, one ε = 2: the selection's ε/2 = 1 gives b = L1/1 = 6 and, as for group_by_count at ε = 1,
    # δ1 = 1 - (1 - 1e-5)^(1/2) = 5.0000125e-6, τ = 3 + ⌈6 ln(1/((1 + e^(-1/6)) δ1))⌉ = 3 + ⌈69.557⌉ = 73.
    # The sums: Δ1 = L0·L∞ = 6 rows of at most B = 10: sensitivity 60, scale 60/(ε/2) = 60.
    frame = pd.DataFrame({"uid": np.arange(400) // 2, "g": np.where(np.arange(400) < 300, "a", "b"),
                          "x": np.ones(400)})
    ans = _table(frame, privacy_unit="uid", max_groups=2, max_rows_per_group=3).group_by_sum(
        "x", "g", lower=0, upper=10, epsilon=2.0, delta=1e-5)
    assert ans.details["threshold"] == 73
    assert ans.details["selection_noise_scale"] == pytest.approx(6.0, rel=1e-9)
    assert (ans.sensitivity, ans.noise_scale) == (60.0, 60.0)
    assert ans.contribution_bounds.max_groups == 2


def test_keys_emptied_by_the_bounds_or_filter_are_not_candidates(record_selection) -> None:
    # unit 99 alone holds "rare" and "solo"; with max_groups=1 it keeps one of them: the other has no bounded row
    # and must not reach the threshold with a count 0 (one unit would then reveal more than max_groups keys)
    seen = record_selection(grouped_sum_module)
    frame = pd.DataFrame({"uid": [99, 99] + list(range(20)), "g": ["rare", "solo"] + ["big"] * 20,
                          "x": [1.0, 2.0] + [3.0] * 20})
    kept = set()
    for seed in range(12):
        t = _table(frame, privacy_unit="uid", max_groups=1, max_rows_per_group=1, selection_seed=seed)
        t.group_by_sum("x", "g", lower=0, upper=5, epsilon=1.0, delta=1e-6)
        assert seen[-1]["big"] == 20 and len({"rare", "solo"} & set(seen[-1])) == 1
        assert all(v > 0 for v in seen[-1].values())
        kept |= {"rare", "solo"} & set(seen[-1])
        t.group_by_sum("x", "g", lower=0, upper=5, epsilon=1.0, delta=1e-6, where="g == 'big'")
        assert set(seen[-1]) == {"big"}
    assert kept == {"rare", "solo"}   # both choices occur over the seeds (2^-11 chance otherwise)


def _unit_only_leak(tau: int, linf: int, l0: int, b: float) -> float:
    """P[some key held by one unit alone is released]: such a key has count <= linf and is released iff
    linf + Z >= tau, Z discrete Laplace of scale b: P[Z >= k] = e^(-k/b) / (1 + e^(-1/b)); <= l0 such keys."""
    p = math.exp(-(tau - linf) / b) / (1 + math.exp(-1 / b))
    return 1 - (1 - p) ** l0


def test_empirical_release_probability_of_unit_only_keys() -> None:
    # 20000 units, each alone in 3 keys with 4 rows each; bounded to 2 keys x 3 rows.  ε = 12: the selection
    # gets 6 -> b = L1/6 = 1; δ = 0.05 -> τ = 3 + ⌈ln(1/(1.3679 · 0.02532))⌉ = 3 + ⌈3.365⌉ = 7 (δ1 = 1 - 0.95^(1/2)),
    # per key p = e^-4 / (1 + e^-1) = 0.01339, per unit 1 - (1 - p)^2 = 0.02660 <= 0.05.
    n = 20_000
    unit = np.repeat(np.arange(n), 12)
    key = np.char.add(np.char.add(unit.astype(str), "-"), (np.arange(unit.size) // 4 % 3).astype(str))
    t = _table(pd.DataFrame({"uid": unit, "g": key, "x": np.ones(unit.size)}), privacy_unit="uid",
               max_groups=2, max_rows_per_group=3, selection_seed=1)
    ans = t.group_by_sum("x", "g", lower=0, upper=1, epsilon=12.0, delta=0.05)
    tau = ans.details["threshold"]
    assert tau == 7
    expected = _unit_only_leak(tau, 3, 2, ans.details["selection_noise_scale"])
    assert expected <= 0.05
    released_units = pd.Series([k.split("-")[0] for k in ans.value]).value_counts()
    assert released_units.max() <= 2                       # never more than max_groups keys
    rate = released_units.size / n
    se = math.sqrt(expected * (1 - expected) / n)          # ~0.00114
    assert rate == pytest.approx(expected, abs=5 * se)
    assert rate <= 0.05


def test_kept_sums_have_the_documented_noise_scale() -> None:
    """40 keys of 100 rows each (count 100 >> τ = 28 at ε/2 = 0.5: always kept), x = 1 clamped to [0, 100]: each
    exact sum is 100.  Laplace of scale b = 100/(ε/2) = 200, 25 runs: |Z| is exponential with mean b and sd b, so the
    mean of 1000 |Z| has a standard error 200/sqrt(1000) = 6.3; a tolerance of 32 is five of them (a scale of
    100, i.e. the whole ε on the sums, or 400 would fail).  Z has sd sqrt(2) b = 283: its mean has a standard
    error 8.9, tolerance 45."""
    frame = pd.DataFrame({"g": np.repeat([f"k{i:02d}" for i in range(40)], 100), "x": np.ones(4000)})
    table = _table(frame)
    errors = []
    for _ in range(25):
        ans = table.group_by_sum("x", "g", lower=0, upper=100, epsilon=1.0, delta=1e-6)
        assert len(ans.value) == 40 and ans.noise_scale == 200.0
        errors.extend(v - 100.0 for v in ans.value.values())
    assert np.mean(np.abs(errors)) == pytest.approx(200.0, abs=32)
    assert abs(np.mean(errors)) < 45


@settings(max_examples=40, deadline=None)
@given(rows=st.lists(st.tuples(st.sampled_from("abcd"), st.one_of(st.none(), st.floats(-1e3, 1e3))),
                     min_size=1, max_size=30),
       bounds=st.tuples(st.floats(-50, 0), st.floats(0, 50)))
def test_kept_keys_are_those_reaching_tau_with_their_clamped_sums(rows, bounds) -> None:
    """With ε = 100 (τ = 2, selection noise 0 but with probability ~4e-22 per key) and the sums' noise removed:
    exactly the keys with at least two rows are released, each with the grid sum of its rows alone."""
    frame = pd.DataFrame(rows, columns=["g", "x"]).astype({"x": float})
    lo, hi = bounds
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(LaplaceMechanism, "release", lambda self, value: value)
        ans = _table(frame).group_by_sum("x", "g", lower=lo, upper=hi, epsilon=HUGE_EPSILON, delta=1e-6)
    sizes = frame["g"].value_counts()
    assert set(ans.value) == {k for k, n in sizes.items() if n >= 2}
    for key, value in ans.value.items():
        expected, _ = clamped_fixed_point_sum(frame.loc[frame["g"] == key, "x"].to_numpy(), lo, hi, 1)
        assert value == expected


@pytest.mark.parametrize("composition", ["basic", "zcdp"])
def test_charged_once_with_its_delta(composition: str) -> None:
    table = _table(PEOPLE, epsilon=10.0, composition=composition)
    ans = table.group_by_sum("income", "sex", lower=0, upper=100, epsilon=0.5, delta=1e-6)
    (entry,) = table.accountant.ledger
    assert entry.label == "sum income by sex"
    if composition == "basic":   # (ε, δ) = (0.5, 1e-6) exactly, one entry
        assert entry.cost == PrivacyBudget(epsilon=0.5, delta=1e-6)
        assert table.accountant.spent == PrivacyBudget(epsilon=0.5, delta=1e-6)
    else:  # δ-approximate ρ: (0.25)²/2 selection + (0.25)²/2 sums = 0.0625 = ε²/4
        assert entry.cost == ZCDPBudget(rho=0.0625, delta=1e-6)
        assert table.accountant.spent_rho == 0.0625 and ans.rho == 0.0625


def test_zero_bounds_charge_only_the_selection(noise_free) -> None:
    # bounds [0, 0]: every sum is the constant 0, no noise: the selection's (ε/2, δ) = (50, 1e-6) is all it costs
    table = _table(PEOPLE)
    ans = table.group_by_sum("income", "sex", lower=0, upper=0, epsilon=HUGE_EPSILON, delta=1e-6)
    assert ans.value == {"F": 0.0, "M": 0.0} and ans.mechanism == "laplace_threshold"
    assert (ans.epsilon, ans.noise_scale, ans.details["sum_epsilon"]) == (50.0, 0.0, 0.0)
    assert table.accountant.spent == PrivacyBudget(epsilon=50.0, delta=1e-6)


@pytest.mark.parametrize("kw, error, needle", [
    ({"delta": None}, ParameterError, "listed as public keys .* or a 'delta' in \\(0, 1\\)"),
    ({"delta": 0.0}, ParameterError, "delta"),
    ({"delta": 1.5}, ParameterError, "delta"),
    ({"categories": ["F"]}, ParameterError, "only used without 'categories'"),
    ({"upper": None}, ParameterError, "upper"),
    ({"column": "sex"}, SchemaError, "not numeric"),
    ({"by": "city"}, ColumnNotFoundError, "'city'"),
    ({"where": "age > 'x'"}, SchemaError, "'age'"),
    ({"epsilon": 0.0}, ParameterError, "epsilon"),
])
def test_refusals_spend_nothing(kw: dict, error: type, needle: str) -> None:
    table = _table(PEOPLE)
    args = {"column": "income", "by": "sex", "lower": 0, "upper": 100, "epsilon": 1.0, "delta": 1e-6, **kw}
    with pytest.raises(error, match=needle) as info:
        table.group_by_sum(args.pop("column"), args.pop("by"), **args)
    assert "\n" not in str(info.value)
    assert table.accountant.ledger == () and table.accountant.spent.epsilon == 0.0


def test_an_overspend_is_refused_before_any_noise(monkeypatch) -> None:
    drawn = []

    def spy(epsilon, delta, d_in):
        return (lambda counts: drawn.append(counts) or counts), 2, d_in[1] / epsilon

    monkeypatch.setattr(grouped_sum_module, "partition_selection", spy)
    monkeypatch.setattr(LaplaceMechanism, "release", lambda self, value: drawn.append(value) or value)
    table = _table(PEOPLE, epsilon=1.0)
    with pytest.raises(BudgetExceededError):
        table.group_by_sum("income", "sex", lower=0, upper=100, epsilon=1.5, delta=1e-6)
    assert drawn == [] and table.accountant.ledger == ()


# -- veil query ------------------------------------------------------------------------------------------

runner = CliRunner()


@pytest.fixture
def csv(tmp_path):
    # 300 people: job "a" 120 rows, "b" 120, "c" 59, "rare" 1
    p = tmp_path / "people.csv"
    jobs = ["a"] * 120 + ["b"] * 120 + ["c"] * 59 + ["rare"]
    p.write_text("name,age,sex,income,job\n" + "".join(
        f"P{i},{20 + i % 60},{'FM'[i % 2]},{i % 7 * 1000},{jobs[i]}\n" for i in range(300)))
    return p


def test_cli_sum_by_key_without_categories(csv, tmp_path) -> None:
    ledger = tmp_path / "budget.json"
    args = ["query", str(csv), "sum income by job", "--lower", "0", "--upper", "5000", "--delta", "1e-6",
            "--epsilon", "1", "--budget", "5", "--budget-delta", "1e-5", "--budget-file", str(ledger), "--json"]
    result = runner.invoke(app, args)
    assert result.exit_code == 0, result.output
    answer = json.loads(result.output.splitlines()[-1])
    # τ = 28 at ε/2 = 0.5, δ = 1e-6 (one row per unit: b = 2, τ = 1 + ⌈2 ln(1/((1 + e^-0.5) 1e-6))⌉ = 1 + ⌈26.68⌉);
    # "rare" (1 row) passes only if its noise reaches 27: P = e^(-13.5)/(1 + e^(-0.5)) ≈ 9e-7
    assert set(answer["value"]) == {"a", "b", "c"}
    # Δ = 5000, scale 5000/(1/2) = 10000; charged (1, 1e-6) of (5, 1e-5)
    assert (answer["sensitivity"], answer["noise_scale"], answer["delta"]) == (5000.0, 10000.0, 1e-6)
    assert answer["details"]["threshold"] == 28 and answer["details"]["keys"] == "private partition selection"
    assert answer["budget_remaining"] == {"epsilon": pytest.approx(4.0), "delta": pytest.approx(9e-6)}


@pytest.mark.parametrize("engine", ["local", "duckdb"])
def test_cli_refusals_before_any_spend(csv, tmp_path, engine: str) -> None:
    """Each batch starts with a count that would be spent first: a refusal at the grouped query's turn would leave
    that spend saved and nothing printed, so the whole batch is refused before any spend."""
    ledger = tmp_path / "budget.json"
    base = ["query", str(csv), "count", "--epsilon", "1", "--budget", "5", "--budget-delta", "0.9",
            "--budget-file", str(ledger), "--dataset-name", "people", "--engine", engine]
    cases = [(["sum income by job", "--lower", "0", "--upper", "1"], "--delta in veil query"),
             (["sum income by job", "--delta", "1e-6", "--upper", "1"], "clamping bounds"),
             (["sum income by job", "--delta", "1e-6", "--lower", "2", "--upper", "1"], "at least 'lower'"),
             (["sum income by job", "--delta", "1.5", "--lower", "0", "--upper", "1"], "in (0, 1). Got 1.5"),
             (["histogram job", "--delta", "1.5"], "in (0, 1). Got 1.5")]
    if engine == "local":  # an engine learns a column's type from the file, at the query's turn
        cases.append((["sum name by job", "--delta", "1e-6", "--lower", "0", "--upper", "1"], "numeric"))
    for extra, needle in cases:
        result = runner.invoke(app, [*base, *extra])
        assert result.exit_code == 2 and "Traceback" not in result.output, result.output
        assert needle in result.output
        journal = tmp_path / "budget.json.journal"
        assert not journal.exists() or '"spend"' not in journal.read_text()
