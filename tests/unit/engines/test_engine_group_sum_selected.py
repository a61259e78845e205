"""``veil query "sum COL by KEY" --delta D --engine``: keys selected from the engine's exact per-key counts,
noisy sums of its exact grid sums; the same measurement, fields and charge as the local path."""

from __future__ import annotations

import json
from pathlib import Path

import pandas as pd
import pytest
from typer.testing import CliRunner

from veil.cli import app
from veil.data import read_table
from veil.dp import PrivacyAccountant, PrivacyBudget, PrivateTable, ZCDPBudget, parse_query
from veil.engines import DuckDBEngine, LocalEngine
from veil.engines._query import engine_answer
from veil.errors import VeilError

ENGINES = {"duckdb": DuckDBEngine, "local": LocalEngine}
#: ε = 100: the selection's ε/2 = 50 gives b = 0.02 and τ = 1 + ⌈0.02 ln(1/((1 + e^-50) 1e-6))⌉ = 2 (one row per
#: unit); the selection's noise is 0 but with probability ≈ 4e-22 per key, so exactly the keys of >= 2 rows pass.
HUGE_EPSILON = 100.0


def _accountant(**kw) -> PrivacyAccountant:
    return PrivacyAccountant(budget=PrivacyBudget(epsilon=1e5, delta=0.5), **kw)


def _answer(engine, path, query: str, *, epsilon: float = HUGE_EPSILON, accountant=None, **kw):
    return engine_answer(engine, path, parse_query(query), accountant=accountant or _accountant(), epsilon=epsilon,
                         **kw)


@pytest.mark.parametrize("engine", sorted(ENGINES))
def test_adult_sums_by_occupation_equal_pandas_and_the_local_private_table(noise_free, engine: str, adult_csv: str,
                                                                             adult_frame: pd.DataFrame) -> None:
    # every occupation (the smallest, Armed-Forces, has 9 rows) has >= 2 rows: all 14 pass τ = 2; ages are integers
    # in [17, 90], inside [0, 100] and on the grid: each kept key's sum is pandas' integer sum
    ans = _answer(ENGINES[engine](), adult_csv, "sum age by occupation", lower=0, upper=100, delta=1e-6)
    ages = adult_frame["age"].astype(int).groupby(adult_frame["occupation"]).sum()
    assert ans.value == {k: float(v) for k, v in ages.items()} and len(ans.value) == 14
    frame = read_table(adult_csv, typed=True).to_pandas()
    local = PrivateTable(frame, accountant=_accountant()).group_by_sum("age", "occupation", lower=0, upper=100,
                                                                         epsilon=HUGE_EPSILON, delta=1e-6)
    assert ans.value == local.value and list(ans.value) == list(local.value)
    for field in ("query", "epsilon", "delta", "mechanism", "noise_scale", "sensitivity", "details",
                  "privacy_unit", "contribution_bounds"):
        assert getattr(ans, field) == getattr(local, field), field
    assert ans.details["threshold"] == 2 and ans.noise_scale == 2.0  # Δ = 100, scale 100/(ε/2) = 2


def test_a_key_of_one_row_is_dropped_in_the_engine(noise_free, tmp_path: Path) -> None:
    # rows (a, 1.5), (b, 2), (a, 3), (c, 9), (b, 4), ( , 7): a and b have 2 rows (kept, 4.5 and 6), c one (dropped:
    # τ = 2), the missing key is no group; where x < 8 drops (c, 9) before the selection
    path = tmp_path / "t.csv"
    path.write_text("g,x\na,1.5\nb,2\na,3\nc,9\nb,4\n,7\n")
    for engine in (DuckDBEngine(), LocalEngine()):
        ans = _answer(engine, path, "sum x by g", lower=0, upper=10, delta=1e-6)
        assert ans.value == {"a": 4.5, "b": 6.0}
        filtered = _answer(engine, path, "sum x by g where x < 3.5", lower=0, upper=10, delta=1e-6)
        assert filtered.value == {"a": 4.5}  # b keeps one row (2)
        assert filtered.query == "sum x by g where x < 3.5"


@pytest.mark.parametrize("composition", ["basic", "zcdp"])
def test_the_ledger_is_charged_once(adult_csv: str, composition: str) -> None:
    slack = {"delta_slack": 1e-6} if composition == "zcdp" else {}
    accountant = PrivacyAccountant(budget=PrivacyBudget(epsilon=10.0, delta=1e-4), composition=composition, **slack)
    _answer(DuckDBEngine(), adult_csv, "sum age by occupation", epsilon=0.5, accountant=accountant, lower=0,
            upper=100, delta=1e-6)
    (entry,) = accountant.ledger
    assert entry.label == "sum age by occupation"
    if composition == "basic":
        assert entry.cost == PrivacyBudget(epsilon=0.5, delta=1e-6)
    else:  # (ε/2)²/2 + (ε/2)²/2 = ε²/4 = 0.0625, δ-approximate
        assert entry.cost == ZCDPBudget(rho=0.0625, delta=1e-6)


@pytest.mark.parametrize("query, kw, needle", [
    ("sum age by sex", {"delta": 0.0}, "--delta in veil query"),
    ("sum age by sex", {"delta": 1e-6, "upper": None}, "upper"),
    ("sum age by age", {"delta": 1e-6}, "other than the summed one"),
    ("sum age by city", {"delta": 1e-6}, "'city'"),
    ("sum age by sex", {"delta": 1e-6, "epsilon": 1.5}, "budget"),  # an overspend: refused before the noise
])
def test_a_refused_selection_spends_nothing(adult_csv: str, query: str, kw: dict, needle: str) -> None:
    accountant = PrivacyAccountant(budget=PrivacyBudget(epsilon=1.0, delta=1e-4))
    args = {"lower": 0, "upper": 100, "epsilon": 0.5, **kw}
    with pytest.raises(VeilError, match=needle):
        _answer(DuckDBEngine(), adult_csv, query, accountant=accountant, **args)
    assert accountant.ledger == () and accountant.spent.epsilon == 0.0


def test_cli_engine_and_local_agree_in_everything_but_the_noise(adult_csv: str) -> None:
    args = ["query", adult_csv, "sum age by occupation", "sum age by race where age > 40", "--epsilon", "1",
            "--lower", "0", "--upper", "100", "--delta", "1e-6", "--budget", "5", "--budget-delta", "1e-5", "--json"]
    runner = CliRunner()
    local = [json.loads(line) for line in runner.invoke(app, args).output.splitlines()]
    duck = [json.loads(line) for line in runner.invoke(app, [*args, "--engine", "duckdb"]).output.splitlines()]
    assert len(local) == len(duck) == 2
    for a, b in zip(local, duck):
        a.pop("value"), b.pop("value")
        assert a == b
    # τ at ε/2 = 0.5, δ = 1e-6: 1 + ⌈2 ln(1/((1 + e^-0.5) 1e-6))⌉ = 28; scale 100/0.5 = 200; (1, 1e-6) each of (5, 1e-5)
    assert (duck[1]["details"]["threshold"], duck[1]["noise_scale"]) == (28, 200.0)
    assert duck[1]["budget_remaining"] == {"epsilon": pytest.approx(3.0), "delta": pytest.approx(8e-6)}

