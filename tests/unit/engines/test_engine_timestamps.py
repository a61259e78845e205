"""Timestamps keep their time of day: every engine labels them to the microsecond, alike.

A Parquet timestamp column was labelled by its date, so ``veil check``/``risk`` grouped every
record of one day into one class: 30,159 distinct instants read as 1,158 classes and k=8 where the
column's k is 1.
"""

from __future__ import annotations

import json

import pandas as pd
import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from typer.testing import CliRunner

from veil.cli import app
from veil.data import timestamp_labels
from veil.engines import DuckDBEngine, LocalEngine

from .conftest import canonical_counts

pytest.importorskip("duckdb")

INSTANTS = ["2021-03-04 00:00:00", "2021-03-04 08:15:00", "2021-03-04 08:15:00.000250", "2021-03-04 23:59:59",
            "1969-12-31 23:59:59.500000", "2021-03-05 00:00:00"]


def timestamp_table(path, nanoseconds=True):
    """A Parquet file of naive µs, naive ns (unless not ``nanoseconds``: Spark cannot read them) and
    time-zone-aware timestamps and a date, each value 3 times."""
    stamps = pd.to_datetime(INSTANTS * 3, format="ISO8601")
    table = pa.table({
        "t_us": pa.array(stamps, type=pa.timestamp("us")),
        "t_ns": pa.array(stamps, type=pa.timestamp("ns")),
        "t_tz": pa.array(stamps.tz_localize("Europe/Paris"), type=pa.timestamp("us", tz="Europe/Paris")),
        "d": pa.array(stamps.date, type=pa.date32()),
    })
    pq.write_table(table if nanoseconds else table.drop_columns(["t_ns"]), path)
    return path


def expected_labels(column: str) -> list[str]:
    stamps = pd.Series(pd.to_datetime(INSTANTS, format="ISO8601"))
    if column == "t_tz":
        stamps = stamps.dt.tz_localize("Europe/Paris")
    return sorted(timestamp_labels(stamps).tolist())


@pytest.mark.parametrize("column", ["t_us", "t_ns", "t_tz"])
def test_the_engines_label_timestamps_to_the_microsecond_alike(tmp_path, column):
    path = timestamp_table(tmp_path / "t.parquet")
    local = LocalEngine().group_count(path, [column], [])
    duckdb = DuckDBEngine().group_count(path, [column], [])
    pd.testing.assert_frame_equal(canonical_counts(local), canonical_counts(duckdb), check_dtype=False)
    assert sorted(local[column]) == expected_labels(column)
    assert len(local) == len(INSTANTS) and set(local["count"]) == {3}


def test_labels_keep_midnight_as_a_date_and_utc_for_an_aware_timestamp():
    stamps = pd.Series(pd.to_datetime(["2021-03-04 00:00", "2021-03-04 12:30"]).tz_localize("Europe/Paris"))
    assert timestamp_labels(stamps).tolist() == ["2021-03-03 23:00:00", "2021-03-04 11:30:00"]
    assert timestamp_labels(pd.Series(pd.to_datetime(["2021-03-04"]))).tolist() == ["2021-03-04"]


@pytest.mark.parametrize("engine", ["local", "duckdb"])
def test_check_sees_every_instant(tmp_path, engine):
    rows = pd.DataFrame({"visit": pd.date_range("2021-01-01 09:00", periods=100, freq="1ms")})
    path = tmp_path / "visits.parquet"
    rows.to_parquet(path)
    report = tmp_path / "check.json"
    result = CliRunner().invoke(app, ["check", str(path), "--qi", "visit", "--require", "k>=5", "--engine", engine,
                                      "--json", str(report)])
    assert result.exit_code == 1, result.output  # 100 distinct instants: k=1, the requirement fails
    figures = json.loads(report.read_text())
    assert (figures["classes"], figures["k"]) == (100, 1)
