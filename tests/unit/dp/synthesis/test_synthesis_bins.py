"""Which columns take bounds (``--bins``) in ``veil synthesize`` (issue #36): a column with a present
value that reads as a number (stored as numbers or as text; a record whose value is not one, e.g.
``n/a``, is left out) takes them; a date, a timestamp or text (no present value a number) is refused
by :func:`veil.dp.synthesis._domain.resolve_domains` with its kind, the same answer on a pandas frame
and on DuckDB, where a stored number is not scanned."""

from __future__ import annotations

import datetime as dt

import pandas as pd
import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from veil.dp.synthesis._domain import ColumnFacts, parse_bins, resolve_domains
from veil.dp.synthesis._source import FrameSource
from veil.errors import ParameterError

BINS = parse_bins({"age": "0:100:10"})


def _frame() -> pd.DataFrame:
    return pd.DataFrame({"age": ["34", "51", None, "29"], "sex": ["F", "M", "F", "M"],
                         "mixed": ["3", "n/a", "4", "5"], "empty": [None] * 4})


def test_a_column_of_numbers_as_text_takes_bins_even_with_a_value_that_is_not_one():
    domains = resolve_domains(_frame(), {**BINS, **parse_bins({"mixed": "0:10:2"})}, identifiers=("empty",))
    assert [(d.name, d.numeric) for d in domains] == [("age", True), ("sex", False), ("mixed", True)]


@pytest.mark.parametrize("column", ["sex", "empty"])
def test_bins_for_a_column_that_is_not_numeric_are_refused_as_text(column):
    bins = {**BINS, **parse_bins({column: "0:10:2"})}
    with pytest.raises(ParameterError, match=rf"^The column '{column}' holds text .*--domain"):
        resolve_domains(_frame(), bins, identifiers=tuple(c for c in ("mixed", "empty") if c != column))
    facts = FrameSource(_frame()).column_facts(["age", "sex", "mixed", "empty"], 10)
    assert [(f.numeric, f.some_number) for f in facts.values()] == [(True, True), (False, False), (False, True),
                                                                    (False, False)]


@pytest.mark.parametrize("column, kind", [("day", "dates"), ("at", "timestamps"), ("zoned", "timestamps")])
def test_bins_for_a_date_or_timestamp_are_refused_with_its_kind_on_pandas_and_duckdb(tmp_path, column, kind):
    pytest.importorskip("duckdb")
    from veil.data import read_table
    from veil.dp.synthesis._engine import DuckDBSynthesisSource

    path = tmp_path / "t.parquet"
    stamp = dt.datetime(2021, 3, 4, 12, 30)
    pq.write_table(pa.table({"age": pa.array([30, 40], pa.int64()),
                             "day": pa.array([dt.date(2021, 3, 4), None], pa.date32()),
                             "at": pa.array([stamp, stamp], pa.timestamp("ns")),
                             "zoned": pa.array([stamp, None], pa.timestamp("us", tz="UTC"))}), path)
    domains = {**BINS, **parse_bins({column: "0:10:2"})}
    others = tuple(c for c in ("day", "at", "zoned") if c != column)
    for source in (read_table(path, typed=False).to_pandas(), DuckDBSynthesisSource(path)):
        with pytest.raises(ParameterError, match=rf"^The column '{column}' holds {kind}, .*cast the column"):
            resolve_domains(source, domains, identifiers=others)


def test_duckdb_answers_a_stored_number_without_scanning_it(tmp_path):
    pytest.importorskip("duckdb")
    from veil.dp.synthesis._engine import DuckDBSynthesisSource

    path = tmp_path / "t.parquet"
    pq.write_table(pa.table({"age": pa.array([30, None], pa.int64()), "sex": pa.array(["F", "M"])}), path)
    source = DuckDBSynthesisSource(path)
    scans = []
    query = source.query
    source.query = lambda sql, setup=(): scans.append(sql) or query(sql, setup)
    assert source.column_facts(["age"], 1) == {"age": ColumnFacts(True, False, True)}
    assert scans == []
    assert source.column_facts(["age", "sex"], 1) == {"age": ColumnFacts(True, False, True),
                                                      "sex": ColumnFacts(False, True, False)}
    assert len(scans) == 1 and '"age"' not in scans[0]
