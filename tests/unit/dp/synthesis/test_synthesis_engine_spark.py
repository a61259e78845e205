"""``veil synthesize --engine spark`` past the class-table bound: the class table is counted on
Spark before anything is collected, and past ``max_class_bytes`` every 1-, 2- and 3-way marginal
is summed on Spark (one ``GROUPING SETS`` query) into the same ``MarginalQueries`` as DuckDB's,
equal to DuckDB's and to the local path's; a synthesis completes through that fallback on either
engine (issue #36, item 4)."""

from __future__ import annotations

import itertools
import os
import shutil
from dataclasses import replace

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from veil.data import read_table
from veil.dp.synthesis._api import column_domains, synthesize
from veil.dp.synthesis._chunks import ChunkWriter
from veil.dp.synthesis._domain import ColumnDomain
from veil.dp.synthesis._engine import DuckDBSynthesisSource, MarginalQueries
from veil.dp.synthesis._source import ClassTable, FrameSource

pytest.importorskip("duckdb")

_JAVA = shutil.which("java") is not None or bool(os.environ.get("JAVA_HOME"))

GIVEN = {"age": {"min": 0, "max": 100, "bins": 10}, "sex": ["F", "M"], "member": ["False", "True"],
         "badge": ["A1", "B2", "C3"]}
TINY = 64  # bytes of class table: every table here is past it


def _people(n: int = 2500, seed: int = 3) -> pd.DataFrame:
    """Numbers as text (``"40"``, ``"40.5"``, blank, ``"n/a"``), a text column with a missing value
    and a value outside its domain, a binary (two-valued) column with missing values, a text column
    without a domain."""
    rng = np.random.default_rng(seed)
    age = rng.integers(-5, 110, n).astype(float) + rng.choice([0.0, 0.5], n)
    age_text = np.array([f"{v:g}" for v in age], dtype=object)
    age_text[rng.random(n) < 0.05] = ""
    age_text[rng.random(n) < 0.02] = "n/a"
    sex = rng.choice(["F", "M", "X", ""], n, p=[0.45, 0.45, 0.05, 0.05]).astype(object)
    member = rng.choice(["True", "False", ""], n, p=[0.3, 0.6, 0.1]).astype(object)
    return pd.DataFrame({"age": age_text, "sex": sex, "member": member,
                         "job": rng.choice(["clerk", "nurse", "o'neil, ltd", "pilot"], n),
                         "badge": rng.choice(["A1", "B2", "C3"], n)})


@pytest.fixture(scope="module")
def files(tmp_path_factory):
    """The same people as a CSV (all text) and as Parquet: age text, ``member`` a boolean column
    (nulls for the blanks), ``badge`` text, ``sex`` text with nulls.  (A bytes column is refused on
    every path: tests/unit/dp/synthesis/test_synthesis_parquet.py.)"""
    folder = tmp_path_factory.mktemp("spark_fallback")
    frame = _people()
    frame.to_csv(folder / "people.csv", index=False)
    member = pa.array([None if v == "" else v == "True" for v in frame["member"]], pa.bool_())
    badge = pa.array(frame["badge"].tolist(), pa.string())
    sex = pa.array([None if v == "" else v for v in frame["sex"]], pa.string())
    pq.write_table(pa.table({"age": pa.array(frame["age"].tolist(), pa.string()), "sex": sex, "member": member,
                             "job": pa.array(frame["job"].tolist(), pa.string()), "badge": badge}),
                   folder / "people.parquet")
    return {"csv": folder / "people.csv", "parquet": folder / "people.parquet"}


@pytest.fixture(scope="module")
def spark_session():
    pytest.importorskip("pyspark")
    if not _JAVA:
        pytest.skip("Spark needs Java 17+")
    from veil.engines._spark import SparkEngine

    engine = SparkEngine(master="local[1]", config={"spark.sql.shuffle.partitions": "2"})
    yield engine.spark
    engine.close()


def _spark(path, session, max_class_bytes: int = TINY):
    from veil.dp.synthesis._engine_spark import SparkSynthesisSource

    return SparkSynthesisSource(path, spark=session, max_class_bytes=max_class_bytes)


def _domains(source) -> list[ColumnDomain]:
    """The given domains, ``job`` learned (its categories as DP might choose them: one left out)."""
    doms = column_domains(source, GIVEN, None, (), 100)
    return [replace(d, categories=("clerk", "o'neil, ltd", "pilot")) if d.learned else d for d in doms]


def _all_combos(d: int):
    return [c for w in (1, 2, 3) for c in itertools.combinations(range(d), w)]


def _assert_same(actual: MarginalQueries, expected, combos) -> None:
    for cols in combos:
        for a, b in zip(actual.sparse(cols), expected.sparse(cols)):
            np.testing.assert_array_equal(a, b, err_msg=str(cols))


@pytest.mark.slow
@pytest.mark.spark
@pytest.mark.parametrize("which", ["csv", "parquet"])
def test_spark_past_the_bound_gives_duckdbs_and_the_local_marginals(which, files, spark_session):
    path = files[which]
    spark, duck = _spark(path, spark_session), DuckDBSynthesisSource(path, max_class_bytes=TINY)
    doms = _domains(duck)
    assert [d.name for d in doms] == ["age", "sex", "member", "job", "badge"] and doms[3].learned
    assert [(d.name, d.categories) for d in _domains(spark)] == [(d.name, d.categories) for d in doms]
    ours, theirs = spark.class_table(doms), duck.class_table(doms)
    assert isinstance(ours, MarginalQueries) and isinstance(theirs, MarginalQueries)
    assert ours.sizes == theirs.sizes == (10, 2, 2, 4, 3)
    _assert_same(ours, theirs, _all_combos(5))
    local = FrameSource(read_table(path, typed=False).to_pandas())
    d = 5
    expected = local.class_table(doms)
    assert 0 < expected.total < 2500 and ours.total == expected.total
    _assert_same(ours, expected, _all_combos(d))
    # by hand: the records kept are those with an age that reads as a number, sex F or M, member set
    frame = _people()
    kept = (pd.to_numeric(frame["age"], errors="coerce").notna() & frame["sex"].isin(["F", "M"])
            & frame["member"].isin(["True", "False"]))
    assert ours.total == kept.sum()
    np.testing.assert_array_equal(ours.marginal([2]), [(kept & (frame["member"] == v)).sum() for v in GIVEN["member"]])


def _spy_collections(monkeypatch, frame_class) -> list[tuple[tuple[str, ...], int, bool]]:
    """Every DataFrame brought to the driver (by ``collect``, ``toPandas``, ``toArrow``,
    ``toLocalIterator``): its columns, its rows, and whether its plan read the persisted class
    table (the file is not scanned again)."""
    seen: list[tuple[tuple[str, ...], int, bool]] = []

    def spy(name):
        original = getattr(frame_class, name)

        def wrapper(self, *args, **kwargs):
            out = original(self, *args, **kwargs)
            if name == "toLocalIterator":
                out = list(out)
            rows = out.num_rows if hasattr(out, "num_rows") else len(out)
            cached = "InMemoryTableScan" in self._jdf.queryExecution().executedPlan().toString()
            seen.append((tuple(self.columns), rows, cached))
            return iter(out) if name == "toLocalIterator" else out
        return wrapper

    for name in ("collect", "toPandas", "toArrow", "toLocalIterator"):
        if hasattr(frame_class, name):
            monkeypatch.setattr(frame_class, name, spy(name))
    return seen


@pytest.mark.spark
def test_the_bound_is_checked_before_the_class_table_is_collected(files, spark_session, monkeypatch):
    path = files["csv"]
    doms = _domains(DuckDBSynthesisSource(path))
    local = FrameSource(read_table(path, typed=False).to_pandas()).class_table(doms)
    classes = ("c0", "c1", "c2", "c3", "c4", "n")
    source = _spark(path, spark_session)
    seen = _spy_collections(monkeypatch, type(source.frame()))
    fallback = source.class_table(doms)
    assert isinstance(fallback, MarginalQueries)
    # only the marginals, never the classes, summed from the persisted class table
    assert [(cols, cached) for cols, _, cached in seen] == [(classes[:-1] + ("g", "n"), True)]
    # the rows collected: one per non-empty cell of the 5 + 10 + 10 marginals
    cells = sum(int(np.count_nonzero(local.marginal(c))) for c in _all_combos(5))
    assert seen[0][1] == cells
    seen.clear()  # the control: under the bound the class table itself is collected, once
    table = _spark(path, spark_session, max_class_bytes=1 << 28).class_table(doms)
    assert isinstance(table, ClassTable) and len(table.codes) == len(local.codes)
    assert seen == [(classes, len(local.codes), True)]
    assert not spark_session.catalog.listTables()  # no view left behind


@pytest.mark.spark
def test_without_to_arrow_the_marginals_come_through_pandas_the_same(files, spark_session, monkeypatch):
    """PySpark before 4.0 has no ``DataFrame.toArrow``: the marginals then come through ``toPandas``
    (the codes of the columns not grouped are nulls there), and are the same."""
    path = files["csv"]
    doms = _domains(DuckDBSynthesisSource(path))
    source = _spark(path, spark_session)
    for cls in type(source.frame()).__mro__:
        if "toArrow" in vars(cls):
            monkeypatch.delattr(cls, "toArrow")
    assert not hasattr(source.frame(), "toArrow")
    _assert_same(source.class_table(doms), DuckDBSynthesisSource(path, max_class_bytes=TINY).class_table(doms),
                 _all_combos(5))


WIDE = "age,sex,member,job;sex,badge"  # a workload marginal of 4 columns: counted past the bound too


@pytest.mark.parametrize("workload", [None, WIDE])
@pytest.mark.parametrize("algorithm", ["mst", "aim"])
def test_a_synthesis_completes_through_duckdbs_fallback(files, algorithm, workload, tmp_path):
    _completes(DuckDBSynthesisSource(files["parquet"], max_class_bytes=TINY), algorithm, tmp_path, workload)


@pytest.mark.spark
@pytest.mark.parametrize("algorithm, workload", [("mst", None), ("aim", WIDE)])
def test_a_synthesis_completes_through_sparks_fallback(files, spark_session, algorithm, workload, tmp_path):
    _completes(_spark(files["parquet"], spark_session), algorithm, tmp_path, workload)


def test_past_the_bound_a_wide_workload_marginal_is_counted(files):
    doms = _domains(DuckDBSynthesisSource(files["csv"]))
    local = FrameSource(read_table(files["csv"], typed=False).to_pandas()).class_table(doms)
    fallback = DuckDBSynthesisSource(files["csv"], max_class_bytes=TINY).class_table(doms, cliques=[(0, 1, 2, 3)])
    np.testing.assert_array_equal(fallback.marginal([0, 1, 2, 3]), local.marginal([0, 1, 2, 3]))
    assert fallback.tally().combos[-1] == (0, 1, 2, 3)  # the synthetic rows are tallied on it too
    with pytest.raises(ValueError, match="not counted"):
        fallback.marginal([0, 1, 2, 4])


def _completes(source, algorithm: str, folder, workload=None) -> None:
    """A synthesis through the fallback: the rows written in chunks, the report's errors in [0, 1]."""
    with ChunkWriter(folder / "out.csv") as sink:
        result = synthesize(source, epsilon=1.0, algorithm=algorithm, domain=GIVEN, seed=5, sink=sink,
                            chunk_rows=500, max_categories=10, workload=workload)
    report = result.report
    out = pd.read_csv(folder / "out.csv", dtype=str, keep_default_na=False)
    assert list(out.columns) == ["age", "sex", "member", "job", "badge"] and len(out) == report["rows"] > 0
    assert set(out["sex"]) <= {"F", "M"} and set(out["member"]) <= {"False", "True"}
    assert set(out["badge"]) <= {"A1", "B2", "C3"}
    assert report["domain_source"]["job"] == "dp" and report["domain_source"]["age"] == "user"
    errors = [report["marginal_error"][k] for k in ("1way", "2way", "3way")] + [report["workload_error"]]
    assert all(0.0 <= e <= 1.0 for e in errors), errors
