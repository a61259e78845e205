"""Dataset.frame_of: some columns as the frame has them, without converting the others."""

import pandas as pd
import pyarrow as pa
import pytest

from veil import Dataset
from veil.errors import ColumnNotFoundError


def _table() -> pa.Table:
    return pa.table({"zip": ["1230", "1231", None], "age": ["31", "45", "52"], "job": ["a", "b", "a"]})


def test_the_columns_read_as_the_whole_frame_reads_them():
    dataset = Dataset.from_arrow(_table(), quasi_identifiers=["zip", "age"])
    part = dataset.frame_of(["job", "zip"])
    expected = Dataset.from_arrow(_table(), quasi_identifiers=["zip", "age"]).frame.loc[:, ["job", "zip"]]
    pd.testing.assert_frame_equal(part, expected)
    pd.testing.assert_frame_equal(dataset.frame_of(["job", "zip"]), dataset.frame.loc[:, ["job", "zip"]])


def test_only_the_columns_asked_for_are_converted():
    # a column pandas cannot hold (an Arrow union) is never converted when it is not asked for
    union = pa.UnionArray.from_dense(pa.array([0, 1, 0], type=pa.int8()), pa.array([0, 0, 1], type=pa.int32()),
                                     [pa.array([1, 2]), pa.array(["x"])])
    dataset = Dataset.from_arrow(_table().append_column("odd", union), quasi_identifiers=["zip"])
    assert dataset.frame_of(["age", "zip"])["age"].tolist() == ["31", "45", "52"]
    with pytest.raises(pa.ArrowNotImplementedError):
        _ = dataset.frame  # the whole frame would convert it


def test_an_unknown_column_is_named():
    dataset = Dataset.from_arrow(_table(), quasi_identifiers=["zip"])
    with pytest.raises(ColumnNotFoundError, match="'salary'"):
        dataset.frame_of(["zip", "salary"])


def test_columns_of_gives_the_frames_columns_by_name():
    # the same Series as frame_of's, without the frame; a name given twice is given once
    for dataset in (Dataset.from_arrow(_table(), quasi_identifiers=["zip"]),
                    Dataset.from_pandas(_table().to_pandas(), quasi_identifiers=["zip"])):
        parts = dataset.columns_of(["job", "zip", "job"])
        assert list(parts) == ["job", "zip"]
        frame = dataset.frame_of(["job", "zip"])
        for name, column in parts.items():
            pd.testing.assert_series_equal(column, frame[name])
    with pytest.raises(ColumnNotFoundError, match="'salary'"):
        dataset.columns_of(["salary"])


def test_frame_of_with_a_name_twice_keeps_both():
    dataset = Dataset.from_arrow(_table(), quasi_identifiers=["zip"])
    assert list(dataset.frame_of(["job", "job"]).columns) == ["job", "job"]


def test_a_name_twice_converts_only_the_columns_asked_for():
    union = pa.UnionArray.from_dense(pa.array([0, 1, 0], type=pa.int8()), pa.array([0, 0, 1], type=pa.int32()),
                                     [pa.array([1, 2]), pa.array(["x"])])
    dataset = Dataset.from_arrow(_table().append_column("odd", union), quasi_identifiers=["zip"])
    part = dataset.frame_of(["age", "age"])
    assert list(part.columns) == ["age", "age"] and part.iloc[:, 1].tolist() == ["31", "45", "52"]
