"""``PrivateTable.group_by_sum`` and ``sum COL by KEY``: per-key clamped grid sums, their noise and charge."""

from __future__ import annotations

import json
import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from typer.testing import CliRunner

from veil.cli import app
from veil.dp import (
    LaplaceMechanism,
    PrivacyAccountant,
    PrivacyBudget,
    PrivateTable,
    parse_query,
)
from veil.dp._sensitivity import clamped_fixed_point_sum
from veil.errors import ColumnNotFoundError, ParameterError, SchemaError


@pytest.fixture
def noise_free(monkeypatch):
    """Laplace releases its input unchanged: the answer is the exact aggregate (scale still computed)."""
    monkeypatch.setattr(LaplaceMechanism, "release", lambda self, value: value)


def _table(frame: pd.DataFrame, epsilon: float = 100.0, composition: str = "basic", **kw) -> PrivateTable:
    slack = {"delta_slack": 1e-6} if composition == "zcdp" else {}
    acc = PrivacyAccountant(budget=PrivacyBudget(epsilon=epsilon, delta=1e-4), composition=composition, **slack)
    return PrivateTable(frame, accountant=acc, **kw)


PEOPLE = pd.DataFrame({
    "sex": ["F", "M", "F", "M", "Z", "F"],
    "income": [10.0, 250.0, 30.25, np.nan, 50.0, -4.0],
    "age": [30, 50, 45, 61, 70, 20],
})


def test_reference_sums_by_hand(noise_free) -> None:
    # clamped to [0, 100]: F = 10 + 30.25 + 0 (-4 -> 0) = 40.25; M = 100 (250 -> 100) + 0 (missing -> 0) = 100;
    # N listed but absent: 0; Z not listed: not released.  All values are on the grid 2^-23 (k for 100: 30 - 7).
    ans = _table(PEOPLE).group_by_sum("income", "sex", categories=["F", "M", "N"], lower=0, upper=100,
                                      epsilon=1.0)
    assert ans.value == {"F": 40.25, "M": 100.0, "N": 0.0}
    # one row per unit: Δ = max(|0|, |100|) = 100, scale Δ/ε = 100
    assert (ans.mechanism, ans.sensitivity, ans.noise_scale) == ("laplace", 100.0, 100.0)
    assert ans.query == "sum income by sex"
    assert ans.details == {"columns": ["sex"], "keys": "public", "sensitivity_norm": "l1",
                           "lower": 0.0, "upper": 100.0}


def test_where_filters_before_the_sums(noise_free) -> None:
    # age > 40 keeps (M, 250), (F, 30.25), (M, nan), (Z, 50): F = 30.25, M = 100 + 0
    ans = _table(PEOPLE).group_by_sum("income", "sex", categories=["M", "F"], lower=0, upper=100,
                                      epsilon=1.0, where="age > 40")
    assert ans.value == {"M": 100.0, "F": 30.25}
    assert ans.query == "sum income by sex where age > 40"


def test_sums_are_exact_on_the_public_grid(noise_free) -> None:
    # bounds [0, 1]: k = 30; 0.1 * 2^30 = 107374182.4 rounds to 107374182 steps; three rows: 322122546 steps
    frame = pd.DataFrame({"g": ["a", "a", "a"], "x": [0.1, 0.1, 0.1]})
    ans = _table(frame).group_by_sum("x", "g", categories=["a"], lower=0, upper=1, epsilon=1.0)
    assert ans.value == {"a": 322122546 / 2**30}  # not 0.1 + 0.1 + 0.1 = 0.30000000000000004


def test_numeric_keys_and_negative_bounds(noise_free) -> None:
    # keys are ages; bounds [-5, 3]: Δ = 5; 30 -> income 10 clamped to 3; 45 -> 3; 61 -> nan -> missing_as,
    # by default the lower bound -5 (0 when asked)
    ans = _table(PEOPLE).group_by_sum("income", "age", categories=[30, 45, 61, 99], lower=-5, upper=3, epsilon=2.0)
    assert ans.value == {30: 3.0, 45: 3.0, 61: -5.0, 99: 0.0} and ans.missing_as == -5.0
    zero = _table(PEOPLE).group_by_sum("income", "age", categories=[61], lower=-5, upper=3, epsilon=2.0, missing_as=0)
    assert zero.value == {61: 0.0} and zero.to_dict()["missing_as"] == 0.0
    assert (ans.sensitivity, ans.noise_scale) == (5.0, 2.5)


def test_per_unit_bounds_scale_the_sensitivity(noise_free) -> None:
    # patient 1: three rows of 10 in F; patient 2: (F, 5) and (M, 7).  max_groups=1, max_rows_per_group=2:
    # patient 1 keeps two of its F rows (20), patient 2 one of its two keys.  Δ1 = L0 * L∞ = 2 rows, Δ = 2 * 100.
    frame = pd.DataFrame({"patient": [1, 1, 1, 2, 2], "sex": ["F", "F", "F", "F", "M"],
                          "income": [10.0, 10.0, 10.0, 5.0, 7.0]})
    ans = _table(frame, privacy_unit="patient", max_groups=1, max_rows_per_group=2).group_by_sum(
        "income", "sex", categories=["F", "M"], lower=0, upper=100, epsilon=0.5)
    assert (ans.value["F"], ans.value["M"]) in {(25.0, 0.0), (20.0, 7.0)}
    assert (ans.sensitivity, ans.noise_scale) == (200.0, 400.0)
    # only a total bound m = 3: Δ1 = 3 rows (patient 1 keeps its 3 rows, patient 2 both): Δ = 300
    total = _table(frame, privacy_unit="patient", max_rows_per_unit=3).group_by_sum(
        "income", "sex", categories=["F", "M"], lower=0, upper=100, epsilon=0.5)
    assert total.value == {"F": 35.0, "M": 7.0}
    assert total.sensitivity == 300.0


@pytest.mark.parametrize("composition", ["basic", "zcdp"])
def test_charged_once(composition: str) -> None:
    table = _table(PEOPLE, epsilon=10.0, composition=composition)
    table.group_by_sum("income", "sex", categories=["F", "M"], lower=0, upper=100, epsilon=0.5)
    assert [e.label for e in table.accountant.ledger] == ["sum income by sex"]
    if composition == "basic":
        assert table.accountant.spent.epsilon == pytest.approx(0.5)
    else:  # ρ = ε²/2 = 0.125
        assert table.accountant.spent_rho == pytest.approx(0.125)


def test_zero_bounds_release_the_constant_zero_and_spend_nothing() -> None:
    table = _table(PEOPLE)
    ans = table.group_by_sum("income", "sex", categories=["F", "M"], lower=0, upper=0, epsilon=1.0)
    assert ans.value == {"F": 0.0, "M": 0.0} and ans.mechanism == "none"
    assert table.accountant.spent.epsilon == 0.0


@pytest.mark.parametrize("kw, error, needle", [
    ({"categories": None}, ParameterError, "listed as public keys"),
    ({"categories": []}, ParameterError, "must not be empty"),
    ({"lower": None}, ParameterError, "lower"),
    ({"column": "sex"}, SchemaError, "not numeric"),
    ({"by": "city"}, ColumnNotFoundError, "'city'"),
    ({"epsilon": 0.0}, ParameterError, "epsilon"),
])
def test_refusals_spend_nothing(kw: dict, error: type, needle: str) -> None:
    table = _table(PEOPLE)
    args = {"column": "income", "by": "sex", "categories": ["F"], "lower": 0, "upper": 100, "epsilon": 1.0}
    args.update(kw)
    with pytest.raises(error, match=needle) as info:
        table.group_by_sum(args.pop("column"), args.pop("by"), **args)
    assert "\n" not in str(info.value)
    assert table.accountant.ledger == () and table.accountant.spent.epsilon == 0.0


def test_noise_has_the_documented_scale() -> None:
    """Laplace of scale b = Δ/ε = 100/0.5 = 200 on each of 50 keys (48 absent: noisy 0s), 20 runs: |Z| is
    exponential with mean b and sd b, so the mean of 1000 |Z| has a standard error 200/sqrt(1000) = 6.3;
    a tolerance of 32 is five of them (the scale 2b would give 400).  Z itself has sd sqrt(2) b = 283:
    the mean of 1000 has a standard error 8.9, tolerance 45."""
    keys = ["F", "M"] + [f"k{i}" for i in range(48)]
    exact = {"F": 40.25, "M": 100.0}
    table = _table(PEOPLE, epsilon=1e3)
    errors = []
    for _ in range(20):
        ans = table.group_by_sum("income", "sex", categories=keys, lower=0, upper=100, epsilon=0.5)
        assert ans.noise_scale == 200.0
        errors.extend(ans.value[k] - exact.get(k, 0.0) for k in keys)
    assert np.mean(np.abs(errors)) == pytest.approx(200.0, abs=32)
    assert abs(np.mean(errors)) < 45


@settings(max_examples=40, deadline=None)
@given(rows=st.lists(st.tuples(st.sampled_from("abc"), st.one_of(st.none(), st.floats(-1e3, 1e3))),
                     min_size=1, max_size=30),
       bounds=st.tuples(st.floats(-50, 0), st.floats(0, 50)))
def test_each_key_equals_the_clamped_sum_of_its_rows(rows, bounds) -> None:
    """Noise aside, each listed key's value is the whole-table grid sum of the key's rows alone."""
    frame = pd.DataFrame(rows, columns=["g", "x"]).astype({"x": float})
    lo, hi = bounds
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(LaplaceMechanism, "release", lambda self, value: value)
        ans = _table(frame).group_by_sum("x", "g", categories=["a", "b", "z"], lower=lo, upper=hi, epsilon=1.0)
    for key in ("a", "b", "z"):
        expected, _ = clamped_fixed_point_sum(frame.loc[frame["g"] == key, "x"].to_numpy(), lo, hi, 1)
        assert ans.value[key] == expected


def test_parse_sum_by() -> None:
    spec = parse_query("sum income by sex where age > 40")
    assert (spec.kind, spec.columns, spec.by, str(spec.where)) == ("sum", ("income",), ("sex",), "age > 40")
    assert parse_query("sum income").by == ()
    assert parse_query("sum `by` by `where`").by == ("where",)  # quoted names may be keywords
    for text, needle in [("count by sex", "applies to a sum"), ("histogram sex by race", "applies to a sum"),
                         ("sum income by sex, race", "one key column"), ("sum income by", "ends too early")]:
        with pytest.raises(ParameterError, match=needle):
            parse_query(text)


# -- veil query ------------------------------------------------------------------------------------------

runner = CliRunner()


@pytest.fixture
def csv(tmp_path):
    p = tmp_path / "people.csv"
    p.write_text("name,age,sex,income\n" + "".join(f"P{i},{20 + i % 60},{'FM'[i % 2]},{i % 7 * 1000}\n"
                                                 for i in range(300)))
    return p


def test_cli_sum_by_key(csv, tmp_path) -> None:
    ledger = tmp_path / "budget.json"
    args = ["query", str(csv), "sum income by sex where age > 40", "--categories", "F,M,X", "--lower", "0",
            "--upper", "5000", "--epsilon", "1", "--budget", "5", "--budget-file", str(ledger), "--json"]
    result = runner.invoke(app, args)
    assert result.exit_code == 0, result.output
    answer = json.loads(result.output.splitlines()[-1])
    assert list(answer["value"]) == ["F", "M", "X"]
    # Δ = 5000 (bounds [0, 5000], one row per person), scale 5000/1 = 5000; charged 1 of 5
    assert (answer["query"], answer["sensitivity"], answer["noise_scale"]) == \
        ("sum income by sex where age > 40", 5000.0, 5000.0)
    assert answer["budget_remaining"]["epsilon"] == pytest.approx(4.0)


def test_cli_numeric_keys(csv) -> None:
    args = ["query", str(csv), "sum income by age", "--lower", "0", "--upper", "5000", "--epsilon", "1",
            "--budget", "5", "--json"]
    result = runner.invoke(app, [*args, "--categories", "20,21"])
    assert result.exit_code == 0, result.output
    assert list(json.loads(result.output.splitlines()[-1])["value"]) == ["20", "21"]
    refused = runner.invoke(app, [*args, "--categories", "20,F"])
    assert refused.exit_code == 2 and "'age' is numeric" in refused.output and "Traceback" not in refused.output


@pytest.mark.parametrize("engine", ["local", "duckdb"])
def test_cli_without_categories_is_refused_before_any_spend(csv, tmp_path, engine: str) -> None:
    ledger = tmp_path / "budget.json"
    result = runner.invoke(app, ["query", str(csv), "count", "sum income by sex", "--lower", "0", "--upper", "10",
                                 "--epsilon", "1", "--budget", "5", "--budget-file", str(ledger),
                                 "--dataset-name", "people", "--engine", engine])
    assert result.exit_code == 2 and "Traceback" not in result.output
    assert "listed as public keys" in result.output
    assert not ledger.exists()  # not even the count before it was spent
