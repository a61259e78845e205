"""``veil query "histogram ..." --engine``: the engine's exact grouped counts, the local path's noise and charge."""

from __future__ import annotations

import json
import math
import os
import shutil
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from typer.testing import CliRunner

from veil.cli import app
from veil.data import read_table
from veil.dp import PrivacyAccountant, PrivacyBudget, PrivateTable, parse_query
from veil.engines import DuckDBEngine, LocalEngine
from veil.engines._query import engine_answer
from veil.errors import VeilError

ENGINES = {"duckdb": DuckDBEngine, "local": LocalEngine}
#: ε so large that the geometric noise is 0 but with probability 2e^{-50}/(1+e^{-50}) ≈ 4e-22 per cell:
#: the noisy answer is the exact aggregate.
EXACT_EPSILON = 50.0


def _answer(engine, path, query: str, *, epsilon: float, accountant=None, **kw):
    accountant = accountant or PrivacyAccountant(budget=PrivacyBudget(epsilon=1e5, delta=0.5))
    return engine_answer(engine, path, parse_query(query), accountant=accountant, epsilon=epsilon, **kw)


@pytest.mark.parametrize("engine", sorted(ENGINES))
def test_public_histogram_counts_equal_pandas_on_adult(engine: str, adult_csv: str, adult_frame: pd.DataFrame) -> None:
    # every listed key gets a count, the absent key 'Other' 0; no key outside the list is released
    ans = _answer(ENGINES[engine](), adult_csv, "histogram race", epsilon=EXACT_EPSILON,
                  categories=["White", "Black", "Other", "Martian"])
    expected = adult_frame["race"].value_counts()
    assert ans.value == {"White": expected["White"], "Black": expected["Black"], "Other": expected["Other"],
                         "Martian": 0}
    # geometric noise, L1 sensitivity 1 (one row per unit, in one cell), scale Δ/ε
    assert (ans.mechanism, ans.sensitivity, ans.noise_scale) == ("geometric", 1, 1 / EXACT_EPSILON)


@pytest.mark.parametrize("engine", sorted(ENGINES))
def test_partition_selection_equals_the_local_private_table(engine: str, adult_csv: str) -> None:
    """Same measurement as PrivateTable.group_by_count: same τ, scale, label, and (noise ~0) the same groups."""
    ans = _answer(ENGINES[engine](), adult_csv, "histogram race, sex", epsilon=EXACT_EPSILON, delta=1e-6)
    frame = read_table(adult_csv, typed=True).to_pandas()
    table = PrivateTable(frame, accountant=PrivacyAccountant(budget=PrivacyBudget(epsilon=100, delta=0.5)))
    local = table.group_by_count(["race", "sex"], epsilon=EXACT_EPSILON, delta=1e-6)
    assert ans.value == local.value
    assert sum(ans.value.values()) == 30_162  # all 10 race x sex groups (the smallest has 88 rows) pass τ
    for field in ("query", "epsilon", "delta", "mechanism", "noise_scale", "sensitivity", "details"):
        assert getattr(ans, field) == getattr(local, field), field


def test_noise_has_the_documented_scale(adult_csv: str, adult_frame: pd.DataFrame) -> None:
    """Geometric noise of scale b = 1/ε = 2: with q = e^{-1/b} = 0.6065, E|Z| = 2q/(1-q²) = 1.919 and
    Var|Z| = E[Z²] - E|Z|² = 2q/(1-q)² - 1.919² = 7.836 - 3.684 = 4.15; over 20 x 73 ages the mean |Z|
    has a standard error of sqrt(4.15/1460) = 0.053: a tolerance of 0.27 is five of them."""
    ages = sorted(adult_frame["age"].unique(), key=int)
    exact = adult_frame["age"].value_counts()
    engine = DuckDBEngine()
    errors = []
    for _ in range(20):
        ans = _answer(engine, adult_csv, "histogram age", epsilon=0.5, categories=ages)
        assert ans.noise_scale == 2.0
        errors.extend(ans.value[a] - int(exact[a]) for a in ages)
    q = math.exp(-0.5)
    assert np.mean(np.abs(errors)) == pytest.approx(2 * q / (1 - q * q), abs=0.27)
    assert abs(np.mean(errors)) < 0.5  # centred: sd of the mean sqrt(7.836/1460) = 0.073


@pytest.mark.parametrize("composition", ["basic", "zcdp"])
def test_the_ledger_is_charged_once_per_query(adult_csv: str, composition: str) -> None:
    slack = {"delta_slack": 1e-6} if composition == "zcdp" else {}
    accountant = PrivacyAccountant(budget=PrivacyBudget(epsilon=10.0, delta=1e-4), composition=composition, **slack)
    engine = DuckDBEngine()
    _answer(engine, adult_csv, "histogram sex", epsilon=0.5, accountant=accountant, categories=["Male", "Female"])
    _answer(engine, adult_csv, "histogram race", epsilon=0.5, accountant=accountant, delta=1e-6)
    assert [entry.label for entry in accountant.ledger] == ["histogram sex", "group_by_count race"]
    if composition == "basic":  # 0.5 + 0.5 of ε; δ 0 + 1e-6
        assert accountant.spent.epsilon == pytest.approx(1.0)
        assert accountant.spent.delta == pytest.approx(1e-6)
    else:  # ρ = ε²/2 = 0.125 each
        assert accountant.spent_rho == pytest.approx(0.25)


@pytest.mark.parametrize("query, kw, needle", [
    ("histogram race", {}, "--categories"),                                # no public keys, no δ
    ("histogram race, sex", {"categories": ["White"]}, "one-column"),
    ("histogram race where age = 'old'", {"categories": ["White"]}, "'age' is numeric"),
    ("histogram race where sex > 1", {"categories": ["White"]}, "'sex' holds text"),
])
def test_a_refused_histogram_spends_nothing(adult_csv: str, query: str, kw: dict, needle: str) -> None:
    accountant = PrivacyAccountant(budget=PrivacyBudget(epsilon=1.0))
    with pytest.raises(VeilError, match=needle):
        _answer(DuckDBEngine(), adult_csv, query, epsilon=0.5, accountant=accountant, **kw)
    assert accountant.ledger == () and accountant.spent.epsilon == 0.0


LABELS = st.sampled_from(["a", "b", "c", "d", "", "NA"])  # "" and "NA" are read as missing


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(cells=st.lists(st.tuples(LABELS, LABELS), min_size=1, max_size=40),
       categories=st.lists(st.sampled_from(["a", "b", "c", "z"]), min_size=1, max_size=4, unique=True))
def test_released_keys_are_the_public_ones_or_present_ones(tmp_path_factory, cells, categories) -> None:
    """With public keys exactly those keys are released (absent ones too); with partition selection
    only groups present in the data with no missing key; the counts (noise ~0) are pandas'."""
    path = tmp_path_factory.mktemp("h") / "t.csv"
    path.write_text("x,y\n" + "".join(f"{x},{y}\n" for x, y in cells))
    frame = pd.DataFrame(cells, columns=["x", "y"]).replace({"": None, "NA": None})
    for engine in (DuckDBEngine(), LocalEngine()):
        public = _answer(engine, path, "histogram x", epsilon=EXACT_EPSILON, categories=categories)
        assert list(public.value) == categories
        assert public.value == {c: int((frame["x"] == c).sum()) for c in categories}
        selected = _answer(engine, path, "histogram x, y", epsilon=EXACT_EPSILON, delta=1e-3)
        present = frame.dropna().groupby(["x", "y"]).size()
        assert set(selected.value) <= set(present.index)
        threshold = selected.details["threshold"]  # released iff the (noise-free) count reaches tau
        assert selected.value == {k: int(n) for k, n in present.items() if n >= threshold}


def _cli(args: list[str]):
    return CliRunner().invoke(app, args)


def test_cli_histogram_with_public_categories(adult_csv: str, tmp_path: Path) -> None:
    ledger = tmp_path / "ledger.json"
    args = ["query", adult_csv, "histogram sex", "--epsilon", "1", "--engine", "duckdb",
            "--categories", "Male,Female", "--budget", "5", "--budget-file", str(ledger), "--dataset-name", "adult"]
    result = _cli([*args, "--json"])
    assert result.exit_code == 0, result.output
    answer = json.loads(result.output.splitlines()[-1])
    assert sorted(answer["value"]) == ["Female", "Male"]
    assert (answer["epsilon"], answer["noise_scale"], answer["budget_remaining"]["epsilon"]) == (1.0, 1.0, 4.0)
    # the spend was saved: a second run sees 5 - 1 - 1 = 3
    again = _cli([*args, "--json"])
    assert json.loads(again.output.splitlines()[-1])["budget_remaining"]["epsilon"] == pytest.approx(3.0)


def test_cli_engine_and_local_histograms_agree_in_everything_but_the_noise(adult_csv: str) -> None:
    args = ["query", adult_csv, "histogram sex", "histogram race, sex", "--epsilon", "1", "--delta", "1e-6",
            "--budget", "5", "--budget-delta", "1e-5", "--json"]
    local = [json.loads(line) for line in _cli(args).output.splitlines()]
    duck = [json.loads(line) for line in _cli([*args, "--engine", "duckdb"]).output.splitlines()]
    assert len(local) == len(duck) == 2
    for a, b in zip(local, duck):
        a.pop("value"), b.pop("value")
        assert a == b


def test_cli_refused_histogram_batch_spends_nothing(adult_csv: str, tmp_path: Path) -> None:
    ledger = tmp_path / "ledger.json"
    result = _cli(["query", adult_csv, "count", "histogram race", "--epsilon", "1", "--engine", "duckdb",
                   "--budget", "5", "--budget-file", str(ledger), "--dataset-name", "adult"])
    assert result.exit_code == 2 and "--categories" in result.output and "Traceback" not in result.output
    assert not ledger.exists()


@pytest.mark.spark
@pytest.mark.skipif(shutil.which("java") is None and not os.environ.get("JAVA_HOME"), reason="Spark needs Java 17+")
def test_spark_histograms_equal_local_on_adult_x10(tmp_path: Path, adult_frame: pd.DataFrame) -> None:
    pytest.importorskip("pyspark")
    from veil.engines import SparkEngine

    path = tmp_path / "adult10.parquet"
    pd.concat([adult_frame] * 10, ignore_index=True).to_parquet(path, index=False)  # 301,620 rows
    local = LocalEngine().aggregate(path, ["race", "sex"], {})
    config = {"spark.sql.shuffle.partitions": "2", "spark.ui.enabled": "false"}
    with SparkEngine(master="local[2]", config=config) as spark:
        exact = spark.aggregate(path, ["race", "sex"], {})
        public = _answer(spark, path, "histogram race", epsilon=EXACT_EPSILON, categories=["White", "Other", "x"])
        selected = _answer(spark, path, "histogram race, sex", epsilon=EXACT_EPSILON, delta=1e-6)
        filtered = _answer(spark, path, "histogram sex where age > 40 and not (race = 'White')",
                           epsilon=EXACT_EPSILON, categories=["Male", "Female"])
        with pytest.raises(VeilError, match="'race' holds text"):
            _answer(spark, path, "count where race > 2", epsilon=1.0)
    key = ["race", "sex"]
    pd.testing.assert_frame_equal(exact.sort_values(key).reset_index(drop=True)[local.columns],
                                  local.sort_values(key).reset_index(drop=True), check_dtype=False)
    counts = adult_frame["race"].value_counts() * 10
    assert public.value == {"White": counts["White"], "Other": counts["Other"], "x": 0}
    assert selected.value == {(r, s): int(n) * 10 for (r, s), n in adult_frame.groupby(key).size().items()}
    inside = adult_frame[(adult_frame["age"].astype(int) > 40) & (adult_frame["race"] != "White")]["sex"].value_counts() * 10
    assert filtered.value == {"Male": inside["Male"], "Female": inside["Female"]}
