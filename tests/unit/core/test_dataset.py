import numpy as np
import pandas as pd
import pytest

from veil.dataset import MISSING, Dataset, read_csv
from veil.errors import ColumnNotFoundError, DataFormatError, SchemaError
from veil.schema import Kind, Schema


def test_csv_separator_detected_and_values_kept_as_text(tmp_path):
    path = tmp_path / "t.csv"
    path.write_text("zip;age\n07401;9\n10001;10\n")
    ds = Dataset.from_csv(path, quasi_identifiers=["zip", "age"], kinds={"age": "numeric"})
    assert ds.frame["zip"].tolist() == ["07401", "10001"]
    enc = ds.encode("age")
    assert enc.labels.tolist() == ["9", "10"]  # numeric order, not text order


def test_csv_latin1_encoding(tmp_path):
    path = tmp_path / "t.csv"
    path.write_bytes("name,city\nA,Zürich\n".encode("latin-1"))
    with pytest.raises(DataFormatError, match="not valid utf-8"):
        read_csv(path)
    assert read_csv(path, encoding="latin-1")["city"].tolist() == ["Zürich"]


@pytest.mark.parametrize("body,line", [("a;b;c\n1;2;3\n4;5\n", 3), ("a;b;c\n1;2;3\n1;2;3\n6;7;8;9\n", 4)])
def test_ragged_csv_names_line(tmp_path, body, line):
    path = tmp_path / "t.csv"
    path.write_text(body)
    with pytest.raises(DataFormatError, match=f"line {line}: expected 3 fields"):
        read_csv(path, sep=";")


def test_duplicate_columns(tmp_path):
    path = tmp_path / "t.csv"
    path.write_text("a,a\n1,2\n")
    with pytest.raises(DataFormatError, match=r"duplicate column names: 'a' \(columns 1 and 2\)"):
        read_csv(path)
    with pytest.raises(SchemaError, match="duplicate"):
        Dataset.from_pandas(pd.DataFrame([[1, 2]], columns=["a", "a"]))


def test_unknown_column():
    with pytest.raises(ColumnNotFoundError, match="'zip' is not in the table"):
        Dataset.from_pandas(pd.DataFrame({"age": [1]}), quasi_identifiers=["zip"])


def test_column_with_two_roles():
    with pytest.raises(SchemaError, match="both as quasi-identifier and as sensitive"):
        Dataset.from_pandas(pd.DataFrame({"age": [1]}), quasi_identifiers=["age"], sensitive=["age"])


def test_missing_values_are_a_value_or_an_error():
    frame = pd.DataFrame({"zip": ["1", None, "2", None]})
    ds = Dataset.from_pandas(frame, quasi_identifiers=["zip"])
    enc = ds.encode("zip")
    assert enc.labels[enc.codes].tolist() == ["1", MISSING, "2", MISSING]
    strict = Dataset.from_pandas(frame, quasi_identifiers=["zip"], missing="error")
    with pytest.raises(SchemaError, match=r"'zip' has 2 missing value\(s\) \(first rows, 0-based: \[1, 3\]\)"):
        strict.encode("zip")


def test_index_labels_ignored():
    frame = pd.DataFrame({"a": ["x", "y"]}, index=[10, 3])
    ds = Dataset.from_pandas(frame, quasi_identifiers=["a"])
    assert ds.frame.index.tolist() == [0, 1]
    assert frame.index.tolist() == [10, 3]  # the caller's frame is untouched


def test_parquet_and_arrow_roundtrip(tmp_path):
    import pyarrow as pa

    frame = pd.DataFrame({"a": ["x", "y"], "b": [1.0, 2.5]})
    path = tmp_path / "t.parquet"
    frame.to_parquet(path)
    ds = Dataset.read(path, quasi_identifiers=["a", "b"])
    assert ds.encode("b").labels.tolist() == ["1", "2.5"]
    ds2 = Dataset.from_arrow(pa.Table.from_pandas(frame), quasi_identifiers=["a"])
    assert len(ds2) == 2


def test_ordinal_domain_orders_codes():
    frame = pd.DataFrame({"grade": ["high", "low", "mid"]})
    ds = Dataset.from_pandas(frame, sensitive=["grade"], kinds={"grade": "ordinal"},
                             domains={"grade": ["low", "mid", "high", "top"]})
    enc = ds.encode("grade")
    assert enc.labels.tolist() == ["low", "mid", "high", "top"]
    assert enc.codes.tolist() == [2, 0, 1]


def test_ordinal_without_domain_is_an_error():
    with pytest.raises(SchemaError, match="ordinal but has no domain"):
        Schema.build(["g"], sensitive=["g"], kinds={"g": Kind.ORDINAL})


def test_describe_counts():
    frame = pd.DataFrame({"age": ["1", "2", None], "c": ["x", "x", "y"]})
    summary = Dataset.from_pandas(frame).describe().set_index("column")
    assert summary.loc["age", "kind"] == "numeric"
    assert summary.loc["age", "missing"] == 1
    assert summary.loc["c", "distinct"] == 2


def test_parquet_date_objects_are_encoded_as_iso_dates(tmp_path):
    """Regression: datetime.date objects (Parquet date32 columns) were looked up as objects
    after their labels had become strings, and every code was -1."""
    import datetime

    frame = pd.DataFrame({"d": [datetime.date(2020, 1, 2), datetime.date(2021, 3, 4), None, datetime.date(2020, 1, 2)]})
    path = tmp_path / "dates.parquet"
    frame.to_parquet(path)
    encoded = Dataset.from_parquet(path, quasi_identifiers=["d"]).encode("d")
    assert encoded.labels.tolist() == ["2020-01-02", "2021-03-04", "<missing>"]
    assert encoded.codes.tolist() == [0, 1, 2, 0]


def test_object_columns_of_other_python_values_become_text():
    from decimal import Decimal

    frame = pd.DataFrame({"v": pd.Series([Decimal("1.5"), 2, None], dtype=object)})
    encoded = Dataset.from_pandas(frame, quasi_identifiers=["v"]).encode("v")
    assert sorted(encoded.labels.tolist()) == ["1.5", "2", "<missing>"]


# ---------------------------------------------------------------- the Arrow encoding
from hypothesis import given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402

from veil.data import encode_values, format_labels, sort_labels  # noqa: E402


def _reference_encoding(series: pd.Series, kind: Kind):
    """The encoding before Arrow: text labels row by row, factorize, sort (kept here as the oracle)."""
    raw, uniques = pd.factorize(format_labels(series), use_na_sentinel=True)
    ordered = sort_labels(np.asarray(uniques, dtype=object), kind, None, "c")
    if (raw < 0).any():
        ordered = np.append(ordered, np.array([MISSING], dtype=object))
    labels = np.append(np.asarray(uniques, dtype=object), MISSING)[raw]  # -1 reads MISSING
    return ordered.tolist(), labels.tolist()


@settings(max_examples=60, deadline=None)
@given(st.lists(st.one_of(st.none(), st.sampled_from(["a", "b", "07401", "7401", "", "Zürich", "10", "9"])),
                min_size=1, max_size=30))
def test_arrow_encoding_equals_the_row_by_row_encoding_on_text(values):
    series = pd.Series(values, dtype=object)
    encoded = encode_values(series, column="c")
    labels, per_row = _reference_encoding(series, Kind.CATEGORICAL)
    assert encoded.labels.tolist() == labels
    assert encoded.labels[encoded.codes].tolist() == per_row


@settings(max_examples=60, deadline=None)
@given(st.lists(st.one_of(st.none(), st.integers(-5, 300), st.floats(-10, 10, width=32), st.just(float("nan"))),
                min_size=1, max_size=30))
def test_arrow_encoding_equals_the_row_by_row_encoding_on_numbers(values):
    series = pd.Series([np.nan if v is None else v for v in values], dtype=float)
    encoded = encode_values(series, column="c", kind=Kind.NUMERIC)
    labels, per_row = _reference_encoding(series, Kind.NUMERIC)
    assert encoded.labels.tolist() == labels
    assert encoded.labels[encoded.codes].tolist() == per_row


def test_arrow_table_and_pandas_frame_encode_alike(tmp_path):
    path = tmp_path / "t.csv"
    path.write_text("zip,age,when\n07401,9,2020-01-02\n,10,2020-01-01\n10001,9,\n")
    from_file = Dataset.read(path, quasi_identifiers=["zip", "age", "when"], kinds={"age": "numeric", "when": "date"})
    from_frame = Dataset.from_pandas(from_file.frame, quasi_identifiers=["zip", "age", "when"],
                                     kinds={"age": "numeric", "when": "date"})
    for column in ("zip", "age", "when"):
        a, b = from_file.encode(column), from_frame.encode(column)
        assert a.labels.tolist() == b.labels.tolist() and a.codes.tolist() == b.codes.tolist()
    assert from_file.encode("age").labels.tolist() == ["9", "10"]
    assert from_file.encode("when").labels.tolist() == ["2020-01-01", "2020-01-02", MISSING]


def test_categorical_and_datetime_columns_encode_to_their_labels():
    cat = pd.Series(pd.Categorical(["b", "a", None, "b"], categories=["c", "b", "a"]))
    encoded = encode_values(cat, column="c")
    assert encoded.labels.tolist() == ["a", "b", MISSING]  # the unused category "c" is not a value
    assert encoded.codes.tolist() == [1, 0, 2, 1]
    stamps = pd.Series(pd.to_datetime(["2020-01-01 10:00", "2020-01-01 12:00", "2019-05-05 00:00"]))
    encoded = encode_values(stamps, column="d", kind=Kind.DATE)
    # two times of one day are two labels (a midnight reads as its date), ordered in time
    assert encoded.labels.tolist() == ["2019-05-05", "2020-01-01 10:00:00", "2020-01-01 12:00:00"]
    assert encoded.codes.tolist() == [1, 2, 0]


def test_one_column_file_keeps_commas_in_values(tmp_path):
    path = tmp_path / "names.csv"
    path.write_text("name\nSmith, John\nLee, Ann\n")
    assert read_csv(path)["name"].tolist() == ["Smith, John", "Lee, Ann"]


def test_matrix_corner_cell_may_be_empty_only_when_asked(tmp_path):
    path = tmp_path / "m.csv"
    path.write_text(",a,b\na,0.9,0.1\nb,0.2,0.8\n")
    with pytest.raises(DataFormatError, match="column 1 has an empty name"):
        read_csv(path)
    assert read_csv(path, row_labels=True).shape == (2, 3)
