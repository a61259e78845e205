"""``veil.data.write_frame`` writes the bytes pandas writes, faster where it can."""

from __future__ import annotations

import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from veil.data import read_table, write_frame

TEXT = st.text(alphabet=st.sampled_from(list("ab *-+<=>9 ,;\"\n\ré")), max_size=5)


@st.composite
def frames(draw):
    n_rows = draw(st.integers(0, 6))
    n_cols = draw(st.integers(1, 4))
    columns = {}
    for i in range(n_cols):
        kind = draw(st.sampled_from(["str", "category", "int", "Int64", "float", "object"]))
        if kind == "category":  # a release's labels (some categories read by no row)
            values = draw(st.lists(st.one_of(TEXT, st.none()), min_size=n_rows, max_size=n_rows))
            extra = draw(st.lists(TEXT, max_size=2))
            categories = list(dict.fromkeys([v for v in values if v is not None] + extra))
            columns[f"c{i}"] = pd.Series(pd.Categorical(values, categories=pd.Index(categories, dtype="str")))
        elif kind == "str":
            values = draw(st.lists(st.one_of(TEXT, st.none()), min_size=n_rows, max_size=n_rows))
            columns[f"c{i}"] = pd.Series(values, dtype="str")
        elif kind == "int":
            columns[f"c{i}"] = pd.Series(draw(st.lists(st.integers(-10**12, 10**12), min_size=n_rows,
                                                       max_size=n_rows)), dtype="int64")
        elif kind == "Int64":
            columns[f"c{i}"] = pd.Series(draw(st.lists(st.one_of(st.integers(-99, 99), st.none()), min_size=n_rows,
                                                       max_size=n_rows)), dtype="Int64")
        elif kind == "float":
            columns[f"c{i}"] = pd.Series(draw(st.lists(st.floats(allow_nan=True, allow_infinity=False, width=32),
                                                       min_size=n_rows, max_size=n_rows)), dtype="float64")
        else:
            columns[f"c{i}"] = pd.Series(draw(st.lists(st.one_of(TEXT, st.integers(0, 9)), min_size=n_rows,
                                                       max_size=n_rows)), dtype=object)
    return pd.DataFrame(columns)


@settings(max_examples=150, deadline=None)
@given(frame=frames(), sep=st.sampled_from([",", ";", "\t"]))
def test_csv_bytes_equal_pandas(tmp_path_factory, frame, sep):
    folder = tmp_path_factory.mktemp("out")
    frame.to_csv(folder / "pandas.csv", sep=sep, index=False)
    write_frame(frame, folder / "veil.csv", sep=sep)
    assert (folder / "veil.csv").read_bytes() == (folder / "pandas.csv").read_bytes()


def test_plain_text_goes_through_arrow_and_reads_back(tmp_path, monkeypatch):
    frame = pd.DataFrame({"age": pd.Series(["30-39", "*", None], dtype="str"), "n": [1, 2, 3]})
    # the fast path must not fall back to pandas here
    monkeypatch.setattr(pd.DataFrame, "to_csv", lambda *a, **k: pytest.fail("pandas writer used"))
    write_frame(frame, tmp_path / "out.csv")
    assert (tmp_path / "out.csv").read_text() == "age,n\n30-39,1\n*,2\n,3\n"
    back = read_table(tmp_path / "out.csv", typed=False).to_pandas()
    assert back["age"].tolist()[:2] == ["30-39", "*"]


def test_released_categories_go_through_arrow(tmp_path, monkeypatch):
    codes = pd.Categorical.from_codes([1, 0, -1, 1], categories=pd.Index(["30-39", "*"], dtype="str"))
    frame = pd.DataFrame({"age": pd.Series(codes), "n": [1, 2, 3, 4]})
    monkeypatch.setattr(pd.DataFrame, "to_csv", lambda *a, **k: pytest.fail("pandas writer used"))
    write_frame(frame, tmp_path / "out.csv")
    assert (tmp_path / "out.csv").read_text() == "age,n\n*,1\n30-39,2\n,3\n*,4\n"


def test_a_value_holding_the_separator_is_quoted(tmp_path):
    frame = pd.DataFrame({"a": pd.Series(["x,y", "z"], dtype="str"), "b": pd.Series(["1", "2"], dtype="str")})
    write_frame(frame, tmp_path / "out.csv")
    assert (tmp_path / "out.csv").read_text() == 'a,b\n"x,y",1\nz,2\n'


def test_parquet_keeps_mixed_object_columns_as_text(tmp_path):
    frame = pd.DataFrame({"age": pd.Series(["*", 34], dtype=object), "n": [1, 2]})
    write_frame(frame, tmp_path / "out.parquet")
    back = pd.read_parquet(tmp_path / "out.parquet")
    assert back["age"].tolist() == ["*", "34"]


@settings(max_examples=200, deadline=None)
@given(values=st.lists(st.one_of(TEXT, st.none()), max_size=8), start=st.integers(0, 8), stop=st.integers(0, 8),
       mark=st.sampled_from([",", ";", '"', "\n", "\r", "é", "§"]))
def test_the_byte_search_answers_as_a_substring_search_per_value(values, start, stop, mark):
    # on a slice too: bytes of the rows outside it must not count
    import pyarrow as pa

    from veil.data._table_out import _holds_any

    array = pa.array(values, type=pa.large_string())[start:max(start, stop)]
    expected = any(v is not None and mark in v for v in array.to_pylist())
    assert _holds_any(array, (mark,)) == expected


def test_a_slice_of_a_frame_is_written_as_pandas_writes_it(tmp_path):
    frame = pd.DataFrame({"a": pd.Series(["x,y", "z", "w"], dtype="str"), "b": pd.Series(["1", "2", "3"], dtype="str")})
    part = frame.iloc[1:]
    write_frame(part, tmp_path / "veil.csv")
    part.to_csv(tmp_path / "pandas.csv", index=False)
    assert (tmp_path / "veil.csv").read_bytes() == (tmp_path / "pandas.csv").read_bytes() == b"a,b\nz,2\nw,3\n"
