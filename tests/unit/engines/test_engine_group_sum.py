"""``veil query "sum COL by KEY" --engine``: the engine's exact per-key grid sums, the local path's noise and charge."""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from typer.testing import CliRunner

from veil.cli import app
from veil.data import read_table
from veil.dp import PrivacyAccountant, PrivacyBudget, PrivateTable, parse_query
from veil.engines import DuckDBEngine, LocalEngine
from veil.engines._query import engine_answer
from veil.errors import VeilError

ENGINES = {"duckdb": DuckDBEngine, "local": LocalEngine}


def _accountant(**kw) -> PrivacyAccountant:
    return PrivacyAccountant(budget=PrivacyBudget(epsilon=1e5, delta=0.5), **kw)


def _answer(engine, path, query: str, *, epsilon: float = 1.0, accountant=None, **kw):
    return engine_answer(engine, path, parse_query(query), accountant=accountant or _accountant(), epsilon=epsilon,
                         **kw)


@pytest.mark.parametrize("engine", sorted(ENGINES))
def test_exact_sums_equal_pandas_and_the_local_private_table_on_adult(noise_free, engine: str, adult_csv: str,
                                                                        adult_frame: pd.DataFrame) -> None:
    # ages are integers in [17, 90], inside [0, 100] and on the grid: the exact sum is pandas' integer sum
    keys = ["Male", "Female", "Martian"]
    ans = _answer(ENGINES[engine](), adult_csv, "sum age by sex", lower=0, upper=100, categories=keys)
    ages = adult_frame["age"].astype(int).groupby(adult_frame["sex"]).sum()
    assert ans.value == {"Male": float(ages["Male"]), "Female": float(ages["Female"]), "Martian": 0.0}
    frame = read_table(adult_csv, typed=True).to_pandas()
    local = PrivateTable(frame, accountant=_accountant()).group_by_sum("age", "sex", categories=keys, lower=0,
                                                                         upper=100, epsilon=1.0)
    assert ans.value == local.value
    for field in ("query", "epsilon", "delta", "mechanism", "noise_scale", "sensitivity", "details",
                  "privacy_unit", "contribution_bounds"):
        assert getattr(ans, field) == getattr(local, field), field


def test_where_and_clamping_in_the_engine(noise_free, adult_csv: str, adult_frame: pd.DataFrame) -> None:
    # ages clamped to [20, 40], rows with race = 'Black' only: per sex, sum(clip(age, 20, 40))
    ans = _answer(DuckDBEngine(), adult_csv, "sum age by sex where race = 'Black'", lower=20, upper=40,
                  categories=["Female", "Male"])
    black = adult_frame[adult_frame["race"] == "Black"]
    expected = black["age"].astype(int).clip(20, 40).groupby(black["sex"]).sum()
    assert ans.value == {"Female": float(expected["Female"]), "Male": float(expected["Male"])}
    assert (ans.query, ans.sensitivity, ans.noise_scale) == ("sum age by sex where race = 'Black'", 40.0, 40.0)


def test_noise_has_the_documented_scale(adult_csv: str, adult_frame: pd.DataFrame) -> None:
    """Laplace of scale b = Δ/ε = 100/0.5 = 200 on each of the 41 countries and 30 absent keys (71 keys), 10 runs:
    |Z| is exponential with mean b and sd b, so the mean of 710 |Z| has a standard error 200/sqrt(710) = 7.5; a
    tolerance of 38 is five of them (the scale 2b would give 400).  Z has sd sqrt(2) b = 283: the mean of 710 has
    a standard error 10.6, tolerance 53."""
    exact = adult_frame["age"].astype(int).groupby(adult_frame["native-country"]).sum()
    keys = sorted(exact.index) + [f"absent-{i}" for i in range(30)]
    assert len(keys) == 71
    engine = DuckDBEngine()
    errors = []
    for _ in range(10):
        ans = _answer(engine, adult_csv, "sum age by native-country", epsilon=0.5, lower=0, upper=100,
                      categories=keys)
        assert ans.noise_scale == 200.0
        errors.extend(ans.value[k] - float(exact.get(k, 0)) for k in keys)
    assert np.mean(np.abs(errors)) == pytest.approx(200.0, abs=38)
    assert abs(np.mean(errors)) < 53


@pytest.mark.parametrize("composition", ["basic", "zcdp"])
def test_the_ledger_is_charged_once(adult_csv: str, composition: str) -> None:
    slack = {"delta_slack": 1e-6} if composition == "zcdp" else {}
    accountant = PrivacyAccountant(budget=PrivacyBudget(epsilon=10.0, delta=1e-4), composition=composition, **slack)
    _answer(DuckDBEngine(), adult_csv, "sum age by sex", epsilon=0.5, accountant=accountant, lower=0, upper=100,
            categories=["Male", "Female"])
    assert [entry.label for entry in accountant.ledger] == ["sum age by sex"]
    if composition == "basic":
        assert accountant.spent.epsilon == pytest.approx(0.5)
    else:  # ρ = ε²/2 = 0.125
        assert accountant.spent_rho == pytest.approx(0.125)


@pytest.mark.parametrize("query, kw, needle", [
    ("sum age by sex", {}, "listed as public keys"),
    ("sum age by sex", {"categories": ["Male"], "upper": None}, "upper"),
    ("sum sex by race", {"categories": ["White"]}, "sex"),  # duckdb's conversion error names the column
    ("sum age by age", {"categories": ["39"]}, "other than the summed one"),
    ("sum age by city", {"categories": ["Bonn"]}, "'city'"),
])
def test_a_refused_grouped_sum_spends_nothing(adult_csv: str, query: str, kw: dict, needle: str) -> None:
    accountant = PrivacyAccountant(budget=PrivacyBudget(epsilon=1.0))
    args = {"lower": 0, "upper": 100, **kw}
    with pytest.raises(VeilError, match=needle):
        _answer(DuckDBEngine(), adult_csv, query, epsilon=0.5, accountant=accountant, **args)
    assert accountant.ledger == () and accountant.spent.epsilon == 0.0


def test_cli_engine_and_local_grouped_sums_agree_in_everything_but_the_noise(adult_csv: str) -> None:
    args = ["query", adult_csv, "sum age by sex", "sum age by race where age > 40", "--epsilon", "1",
            "--lower", "0", "--upper", "100", "--categories", "sex=Male,Female,White", "--categories",
            "race=Male,Female,White", "--budget", "5", "--json"]
    runner = CliRunner()
    # the answers on stdout (each column is given its keys by name)
    local = [json.loads(line) for line in runner.invoke(app, args).stdout.splitlines()]
    duck = [json.loads(line) for line in runner.invoke(app, [*args, "--engine", "duckdb"]).stdout.splitlines()]
    assert len(local) == len(duck) == 2
    assert list(duck[0]["value"]) == ["Male", "Female", "White"]
    for a, b in zip(local, duck):
        a.pop("value"), b.pop("value")
        assert a == b
    assert duck[1]["budget_remaining"]["epsilon"] == pytest.approx(3.0)


def test_numeric_keys_match_the_engine_labels(noise_free, tmp_path: Path) -> None:
    # ages 20 and 21 as keys of a numeric column: rows (20, 1.5), (21, 2), (20, 3), (22, 9): 20 -> 4.5, 21 -> 2
    path = tmp_path / "t.csv"
    path.write_text("age,income\n20,1.5\n21,2\n20,3\n22,9\n")
    for engine in (DuckDBEngine(), LocalEngine()):
        ans = _answer(engine, path, "sum income by age", lower=0, upper=10, categories=["20", "21", "23"])
        assert ans.value == {"20": 4.5, "21": 2.0, "23": 0.0}


@pytest.mark.spark
@pytest.mark.skipif(shutil.which("java") is None and not os.environ.get("JAVA_HOME"), reason="Spark needs Java 17+")
def test_spark_grouped_sums_equal_pandas(noise_free, tmp_path: Path, adult_frame: pd.DataFrame) -> None:
    pytest.importorskip("pyspark")
    from veil.engines import SparkEngine

    path = tmp_path / "adult_frame.parquet"
    frame = adult_frame.assign(age=adult_frame["age"].astype(int))  # a numeric column in the Parquet file
    frame.to_parquet(path, index=False)
    config = {"spark.sql.shuffle.partitions": "2", "spark.ui.enabled": "false"}
    with SparkEngine(master="local[2]", config=config) as spark:
        ans = _answer(spark, path, "sum age by sex where race = 'White'", lower=0, upper=60,
                      categories=["Male", "Female", "x"])
        # keys selected privately: ε = 100, τ = 2 (tests/unit/engines/test_engine_group_sum_selected.py)
        selected = _answer(spark, path, "sum age by occupation where race = 'White'", epsilon=100.0, lower=0,
                           upper=60, delta=1e-6)
    white = frame[frame["race"] == "White"]
    expected = white["age"].clip(0, 60).groupby(white["sex"]).sum()
    assert ans.value == {"Male": float(expected["Male"]), "Female": float(expected["Female"]), "x": 0.0}
    by_job = white["age"].clip(0, 60).groupby(white["occupation"]).sum()
    assert selected.value == {k: float(v) for k, v in by_job.items() if (white["occupation"] == k).sum() >= 2}
