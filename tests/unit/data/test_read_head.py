"""``read_table(max_rows=N)``: the first N rows of a file, read from its head (an engine release's
identifier scan); the same rows as a whole read, the same refusals."""

import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import veil.data._reader as reader
from veil.data import read_table
from veil.errors import DataFormatError

CELLS = st.text(alphabet="ab,;\"\n é", max_size=6)


@settings(max_examples=60, deadline=None)
@given(rows=st.lists(st.tuples(CELLS, CELLS), min_size=1, max_size=40), max_rows=st.integers(1, 50),
       head=st.integers(8, 200))
def test_the_head_is_the_whole_reads_first_rows(tmp_path_factory, rows, max_rows, head):
    # quoted values hold separators, quotes and line breaks, so a head may cut a row: it is read again larger
    path = tmp_path_factory.mktemp("head") / "t.csv"
    pd.DataFrame(rows, columns=["x", "y"]).to_csv(path, index=False)
    whole = read_table(path, na_values=())
    original = reader._HEAD_BYTES
    reader._HEAD_BYTES = head
    try:
        sample = read_table(path, na_values=(), max_rows=max_rows)
    finally:
        reader._HEAD_BYTES = original
    assert sample.equals(whole.slice(0, max_rows))


def test_a_bad_row_is_refused_with_its_line_as_a_whole_read_does(tmp_path, monkeypatch):
    path = tmp_path / "t.csv"
    path.write_text("a,b\n1,2\n3,4,5\n" + "6,7\n" * 5000, encoding="utf-8")
    monkeypatch.setattr(reader, "_HEAD_BYTES", 16)
    with pytest.raises(DataFormatError, match="line 3: expected 2 fields"):
        read_table(path, max_rows=10)


def test_a_parquet_head(tmp_path):
    path = tmp_path / "t.parquet"
    pd.DataFrame({"a": [str(i) for i in range(100)]}).to_parquet(path)
    assert read_table(path, max_rows=7).column("a").to_pylist() == [str(i) for i in range(7)]
    assert read_table(path, max_rows=1000).num_rows == 100
