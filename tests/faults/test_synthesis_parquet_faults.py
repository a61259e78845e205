"""Fault corpus of ``veil synthesize`` on Parquet's stored types (issue #36, item 4): a column of bytes,
and bounds (``--bins``) for a boolean column, are refused with the same one line, exit 2, nothing
written, on every engine (local, DuckDB, Spark), before the ledger opens.  Before, the local path
crashed with a UnicodeDecodeError on the bytes and the engines wrote them as different texts; a
boolean binned locally while the engines left every record out."""

from __future__ import annotations

import os
import shutil

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

pytest.importorskip("duckdb")

NO_JAVA = shutil.which("java") is None and not os.environ.get("JAVA_HOME")
ENGINES = ["local", "duckdb", pytest.param("spark", marks=[pytest.mark.spark, pytest.mark.slow,
                                                            pytest.mark.skipif(NO_JAVA, reason="no Java")])]


def _files(folder):
    n = 300
    sex = pa.array(["F" if i % 2 else "M" for i in range(n)])
    badge = pa.array([b"\xff" if i % 3 else b"A1" for i in range(n)], pa.binary())
    member = pa.array([None if i % 7 == 0 else i % 2 == 0 for i in range(n)], pa.bool_())
    pq.write_table(pa.table({"sex": sex, "badge": badge}), folder / "bytes.parquet")
    pq.write_table(pa.table({"sex": sex, "member": member}), folder / "bools.parquet")
    return {
        "bytes": (folder / "bytes.parquet", [], "The column 'badge' holds bytes (a binary column)"),
        "bytes with a domain": (folder / "bytes.parquet", ["--domain", folder / "badge.json"],
                                "store it as text (a UTF-8 string column)"),
        "bins for a boolean": (folder / "bools.parquet", ["--bins", "member=0:1:2"],
                               "The column 'member' holds booleans"),
    }


@pytest.mark.parametrize("engine", ENGINES)
@pytest.mark.parametrize("case", ["bytes", "bytes with a domain", "bins for a boolean"])
def test_a_stored_type_refusal_is_one_line_on_every_engine(tmp_path, faults, case, engine):
    (tmp_path / "badge.json").write_text('{"badge": ["A1", "\\\\xFF"]}', encoding="utf-8")
    path, args, mention = _files(tmp_path)[case]
    before = faults.snapshot(tmp_path)
    out = faults.invoke("synthesize", path, "--epsilon", "1", *args, "-o", tmp_path / "out.csv",
                        "--json", tmp_path / "report.json", "--budget-file", tmp_path / "ledger.json",
                        "--budget", "3", "--dataset-name", "people", "--engine", engine)
    faults.assert_refused(out, before, faults.snapshot(tmp_path), mention)
    assert not (tmp_path / "ledger.json").exists()  # refused before the ledger opens
