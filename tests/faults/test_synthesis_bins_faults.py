"""Fault corpus of ``veil synthesize`` (issue #36): bounds (``--bins COL=lo:hi:n`` or
``{"min", "max", "bins"}`` in ``--domain``) for a column whose values are not numbers, a Parquet
date, a Parquet timestamp or text, are refused with one line naming the column, what it holds and
what to give instead (its categories in --domain, or the column cast to numbers), exit 2, nothing
written, the ledger neither created nor charged, on every engine (local, DuckDB, Spark).  Before,
every engine read none of the column's values as a number, left every record out of every count,
and wrote a table of noise (exit 0)."""

from __future__ import annotations

import datetime as dt
import json
import os
import shutil

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

pytest.importorskip("duckdb")

NO_JAVA = shutil.which("java") is None and not os.environ.get("JAVA_HOME")
ENGINES = ["local", "duckdb", pytest.param("spark", marks=[pytest.mark.spark, pytest.mark.slow,
                                                            pytest.mark.skipif(NO_JAVA, reason="no Java")])]
FIX = "give its categories in --domain"
CAST = "cast the column to numbers"


def _people(folder):
    n = 240
    day = [None if i % 11 == 0 else dt.date(2021, 3, 4) + dt.timedelta(days=i % 4) for i in range(n)]
    at = [dt.datetime(2021, 3, 4, 12, 30) + dt.timedelta(seconds=i % 3) for i in range(n)]
    pq.write_table(pa.table({
        "sex": pa.array(["F" if i % 2 else "M" for i in range(n)]),
        "day": pa.array(day, pa.date32()),
        "at": pa.array(at, pa.timestamp("us")),
        "age": pa.array([18 + i % 60 for i in range(n)], pa.int64()),
    }), folder / "people.parquet")
    with open(folder / "people.csv", "w", encoding="utf-8") as out:
        out.write("sex,age\n" + "".join(f"{'F' if i % 2 else 'M'},{18 + i % 60}\n" for i in range(n)))
    (folder / "day.json").write_text(json.dumps({"day": {"min": 0, "max": 10, "bins": 2}}), encoding="utf-8")


CASES = {
    "bins for a date": ("people.parquet", ["--bins", "day=0:10:2"], "The column 'day' holds dates"),
    "domain bounds for a date": ("people.parquet", ["--domain", "day.json"], "The column 'day' holds dates"),
    "bins for a timestamp": ("people.parquet", ["--bins", "at=0:10:2"], "The column 'at' holds timestamps"),
    "bins for Parquet text": ("people.parquet", ["--bins", "sex=0:1:2"], "The column 'sex' holds text"),
    "bins for CSV text": ("people.csv", ["--bins", "sex=0:1:2"], "The column 'sex' holds text"),
}


@pytest.mark.parametrize("engine", ENGINES)
@pytest.mark.parametrize("case", list(CASES))
def test_bounds_for_a_column_of_no_numbers_are_refused_on_every_engine(tmp_path, faults, case, engine):
    _people(tmp_path)
    name, args, mention = CASES[case]
    args = [tmp_path / a if a.endswith(".json") else a for a in args]
    if name.endswith(".parquet") and "--domain" not in args:
        args += ["--domain", tmp_path / "rest.json"]
    (tmp_path / "rest.json").write_text(json.dumps({"at": ["2021-03-04 12:30:00"], "day": ["2021-03-04"]}),
                                        encoding="utf-8")
    before = faults.snapshot(tmp_path)
    out = faults.invoke("synthesize", tmp_path / name, "--epsilon", "1", *args, "--bins", "age=0:100:5",
                        "-o", tmp_path / "out.csv", "--json", tmp_path / "report.json",
                        "--budget-file", tmp_path / "ledger.json", "--budget", "3", "--dataset-name", "people",
                        "--engine", engine)
    faults.assert_refused(out, before, faults.snapshot(tmp_path), mention, FIX, CAST, "--bins")
    assert not (tmp_path / "ledger.json").exists()  # refused before the ledger opens


def test_a_refusal_leaves_an_existing_ledger_uncharged(tmp_path, faults):
    _people(tmp_path)
    common = ["--epsilon", "1", "--bins", "age=0:100:5", "--json", tmp_path / "report.json",
              "--budget-file", tmp_path / "ledger.json", "--budget", "3", "--dataset-name", "people"]
    first = faults.invoke("synthesize", tmp_path / "people.csv", *common, "-o", tmp_path / "first.csv")
    assert first.exit_code == 0, first.text
    ledger = json.loads((tmp_path / "ledger.json").read_text(encoding="utf-8"))
    before = faults.snapshot(tmp_path)
    out = faults.invoke("synthesize", tmp_path / "people.csv", *common, "--bins", "sex=0:1:2",
                        "-o", tmp_path / "out.csv")
    faults.assert_refused(out, before, faults.snapshot(tmp_path), "The column 'sex' holds text", FIX)
    assert json.loads((tmp_path / "ledger.json").read_text(encoding="utf-8")) == ledger
