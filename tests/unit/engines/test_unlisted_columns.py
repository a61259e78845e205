"""Columns with no declared role, and identifiers, through the engines as in memory.

The release policy (:class:`veil.pipeline.ReleasePolicy`) withholds a column
with no declared role unless ``keep_unlisted`` is set, and drops an identifier
column always.  A release through DuckDB or Spark publishes the same columns as
the in-memory release: the same header, the same rows (up to their order), the
same report ``columns`` and the same summary; a withheld column's name and
values are in no byte of the written file.
"""

from __future__ import annotations

import json
import os
import shutil

import numpy as np
import pandas as pd
import pytest
from typer.testing import CliRunner

from veil.cli import app
from veil.errors import ColumnNotFoundError, ParameterError, VerificationError

runner = CliRunner()

N = 60
QIS = ["zip", "age", "sex"]
PUBLISHED = ["zip", "age", "sex", "disease"]
#: The identifier and the unlisted column: distinctive names and values that no other cell holds.
IDENTIFIER, UNLISTED = "person_name", "free_memo"
NAMES = [f"Ident{i:03d}Xq" for i in range(N)]
MEMOS = [f"Memo{i:03d}Zk" for i in range(N)]
HIERARCHIES = ["--hierarchy", "age=interval:10,20", "--hierarchy", "zip=mask:1,2,5", "--hierarchy", "sex=suppress"]


@pytest.fixture
def data(tmp_path):
    rng = np.random.default_rng(3)
    path = tmp_path / "data.csv"
    pd.DataFrame({
        IDENTIFIER: NAMES,
        "zip": rng.choice(["47677", "47678", "47602", "47905"], size=N),
        "age": rng.integers(20, 60, size=N).astype(str),
        "sex": rng.choice(["F", "M"], size=N),
        "disease": rng.choice(["flu", "cancer", "hiv"], size=N),
        UNLISTED: MEMOS,
    }).to_csv(path, index=False)
    return path


def _anonymize(data, engine, *extra, suffix="csv"):
    out = data.parent / f"{engine}-{len(extra)}.{suffix}"
    report = data.parent / f"{engine}-{len(extra)}.json"
    result = runner.invoke(app, [
        "anonymize", str(data), "--qi", ",".join(QIS), "--sensitive", "disease", "--identifier", IDENTIFIER,
        *HIERARCHIES, "-k", "3", "--suppression", "0.1", "--engine", engine, "-o", str(out), "--json", str(report),
        "-q", *extra,
    ])
    assert result.exit_code == 0, result.output
    return result, out, json.loads(report.read_text())


def _rows(path):
    frame = pd.read_csv(path, dtype=str, keep_default_na=False)
    return list(frame.columns), sorted(map(tuple, frame.to_numpy()))


def _assert_never_written(path, *names):
    content = path.read_bytes()
    assert IDENTIFIER.encode() not in content and not any(v.encode() in content for v in NAMES)
    for name in names:  # the withheld unlisted column
        assert name.encode() not in content and not any(v.encode() in content for v in MEMOS)


def _columns_line(output):
    """The summary's line for the unlisted column (its row of the Columns table)."""
    lines = [line for line in output.splitlines() if UNLISTED in line and line.startswith("│")]
    assert len(lines) == 1, output
    return lines[0]


def test_duckdb_withholds_an_unlisted_column_as_in_memory(data):
    local, local_out, local_report = _anonymize(data, "local")
    duck, duck_out, duck_report = _anonymize(data, "duckdb")
    assert _rows(duck_out) == _rows(local_out)
    assert _rows(duck_out)[0] == PUBLISHED
    assert duck_report["columns"] == local_report["columns"]
    columns = {c["name"]: c for c in duck_report["columns"]}
    assert columns[UNLISTED] == {"name": UNLISTED, "role": "unlisted", "treatment": "dropped"}
    assert columns[IDENTIFIER] == {"name": IDENTIFIER, "role": "identifier", "treatment": "dropped"}
    assert duck_report["transformation"] == local_report["transformation"]
    # the same notice: the Columns table's row reads "dropped" in both summaries
    assert _columns_line(duck.output) == _columns_line(local.output)
    assert "dropped" in _columns_line(duck.output)
    # the report says it was withheld, through the engine as in memory
    assert [w for w in duck_report["warnings"] if UNLISTED in w] == [w for w in local_report["warnings"] if UNLISTED in w]
    assert any("withheld" in w for w in duck_report["warnings"] if UNLISTED in w)
    _assert_never_written(duck_out, UNLISTED)
    _assert_never_written(local_out, UNLISTED)


def test_duckdb_keeps_an_unlisted_column_with_keep_unlisted_as_in_memory(data):
    # a memo unique per row is flagged by the identifier scan once published: allowed by name
    keep = ("--keep-unlisted", "--allow-identifier", UNLISTED)
    local, local_out, local_report = _anonymize(data, "local", *keep)
    duck, duck_out, duck_report = _anonymize(data, "duckdb", *keep)
    assert _rows(duck_out) == _rows(local_out)
    assert _rows(duck_out)[0] == [*PUBLISHED, UNLISTED]
    assert duck_report["columns"] == local_report["columns"]
    assert {"name": UNLISTED, "role": "unlisted", "treatment": "unchanged"} in duck_report["columns"]
    assert any(UNLISTED in w for w in duck_report["warnings"]) and any(UNLISTED in w for w in local_report["warnings"])
    assert _columns_line(duck.output) == _columns_line(local.output)
    assert "released unchanged" in _columns_line(duck.output)
    _assert_never_written(duck_out)  # the identifier still never written


def test_duckdb_parquet_output_holds_only_the_published_columns(data):
    import pyarrow.parquet as pq

    _, out, report = _anonymize(data, "duckdb", suffix="parquet")
    assert pq.read_schema(out).names == PUBLISHED
    _assert_never_written(out, UNLISTED)
    assert report["columns"][-1]["treatment"] == "dropped"


def test_a_release_config_through_duckdb_withholds_the_unlisted_column(data):
    config = _release_config(data, "engine: duckdb\noutput: {path: out.csv, report: out.json}\n")
    result = runner.invoke(app, ["anonymize", str(config), "-q"])
    assert result.exit_code == 0, result.output
    out = data.parent / "out.csv"
    assert _rows(out)[0] == PUBLISHED
    _assert_never_written(out, UNLISTED)
    report = json.loads((data.parent / "out.json").read_text())
    assert {c["name"]: c["treatment"] for c in report["columns"]} == {
        IDENTIFIER: "dropped", "zip": "generalized", "age": "generalized", "sex": "generalized",
        "disease": "unchanged", UNLISTED: "dropped"}
    config.write_text(config.read_text().replace(
        "engine: duckdb\n", f"engine: duckdb\nkeep_unlisted: true\nallow_identifiers: [{UNLISTED}]\n"))
    result = runner.invoke(app, ["anonymize", str(config), "-q"])
    assert result.exit_code == 0, result.output
    assert _rows(out)[0] == [*PUBLISHED, UNLISTED]
    _assert_never_written(out)


@pytest.mark.parametrize("engine", ["local", "duckdb"])
def test_engine_apply_writes_only_the_selected_columns(data, engine):
    from veil.engines import get_engine

    out = data.parent / f"apply-{engine}.csv"
    mapping = {"zip": {v: v[:3] + "**" for v in ["47677", "47678", "47602", "47905"]}}
    result = get_engine(engine).apply(data, mapping, [], out, shuffle_seed=1, columns=["zip", "sex", "disease"])
    frame = pd.read_csv(out, dtype=str, keep_default_na=False)
    assert list(frame.columns) == ["zip", "sex", "disease"] and result.records_out == N
    _assert_never_written(out, UNLISTED)


def test_engine_apply_refuses_a_selection_without_a_qi_or_with_an_unknown_column(data):
    from veil.engines import DuckDBEngine

    out = data.parent / "apply.csv"
    mapping = {"zip": {v: "*" for v in ["47677", "47678", "47602", "47905"]}}
    with pytest.raises(ParameterError, match="zip"):
        DuckDBEngine().apply(data, mapping, [], out, columns=["sex", "disease"])
    with pytest.raises(ColumnNotFoundError, match="nope"):
        DuckDBEngine().apply(data, mapping, [], out, columns=["zip", "nope"])
    with pytest.raises(ParameterError, match="disease"):
        DuckDBEngine().apply(data, mapping, [], out, columns=["zip"], blank=["disease"])
    assert not out.exists()


def test_an_engine_that_writes_a_withheld_column_is_caught(data):
    """The verification of the written file expects only the published columns."""
    from veil.engines import DuckDBEngine, anonymize_file
    from veil.hierarchy import build
    from veil.models import KAnonymity

    class Leaky(DuckDBEngine):  # forgets the selection: writes every column
        def apply(self, source, transformation, suppressed, output, **options):
            options.pop("columns", None)
            return super().apply(source, transformation, suppressed, output, **options)

    frame = pd.read_csv(data, dtype=str, keep_default_na=False)
    hierarchies = {q: build(spec, frame[q].unique().tolist(), name=q, kind=kind) for q, spec, kind in
                   (("zip", "mask:1,2,5", None), ("age", "interval:10,20", "numeric"), ("sex", "suppress", None))}
    out = data.parent / "leaky.csv"
    with pytest.raises(VerificationError, match="columns"):
        anonymize_file(data, engine=Leaky(), quasi_identifiers=QIS, sensitive=["disease"], hierarchies=hierarchies,
                       models=[KAnonymity(k=3)], suppression_limit=0.1, output=out, columns=PUBLISHED,
                       kinds={"age": "numeric"})
    assert not out.exists() and sorted(p.name for p in data.parent.iterdir()) == ["data.csv"]


@pytest.mark.spark
@pytest.mark.skipif(shutil.which("java") is None and not os.environ.get("JAVA_HOME"), reason="Spark needs Java 17+")
def test_spark_withholds_the_unlisted_column_as_duckdb(data, monkeypatch):
    pytest.importorskip("pyspark")
    from veil.engines import SparkEngine

    _, duck_out, duck_report = _anonymize(data, "duckdb")
    from veil.config import load_config
    from veil.release import run_config

    config = _release_config(data, "engine: spark\noutput: {path: spark.csv}\n")
    import veil.engines as engines

    spark = SparkEngine(master="local[2]", config={"spark.sql.shuffle.partitions": "2", "spark.ui.enabled": "false"})
    original = engines.get_engine
    monkeypatch.setattr(engines, "get_engine", lambda name, **options: spark if name == "spark" else original(name, **options))
    try:
        result, _ = run_config(load_config(config))
    finally:
        spark.close()
    out = data.parent / "spark.csv"
    assert _rows(out) == _rows(duck_out)
    assert result.report["columns"] == duck_report["columns"]
    _assert_never_written(out, UNLISTED)


def _release_config(data, tail: str):
    """A release config of the test's table (its identifier declared, the memo column unlisted), then ``tail``."""
    config = data.parent / "release.yaml"
    config.write_text(
        "input: {path: data.csv, sep: ','}\n"
        "attributes:\n"
        f"  {IDENTIFIER}: {{role: identifier}}\n"
        "  zip: {role: quasi-identifier, hierarchy: {spec: 'mask:1,2,5'}}\n"
        "  age: {role: quasi-identifier, kind: numeric, hierarchy: {spec: 'interval:10,20'}}\n"
        "  sex: {role: quasi-identifier, hierarchy: {spec: suppress}}\n"
        "  disease: {role: sensitive}\n"
        "models: [{type: k-anonymity, k: 3}]\n"
        "suppression_limit: 0.1\n" + tail,
        encoding="utf-8",
    )
    return config
