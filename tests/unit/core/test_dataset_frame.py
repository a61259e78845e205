"""A Dataset's frame has text column names and a 0..n-1 index, whatever the caller's frame has.

The Dataset relabels only what needs it (a frame that has both is wrapped as it is,
shallow-copied), and never the caller's frame.
"""

import pandas as pd

from veil.dataset import Dataset


def test_column_names_become_text_and_the_callers_frame_keeps_its_own():
    frame = pd.DataFrame({1: ["a", "b"], "x": ["c", "d"]})
    ds = Dataset.from_pandas(frame, quasi_identifiers=["1"])
    assert ds.columns == ["1", "x"] and list(ds.frame.columns) == ["1", "x"]
    assert ds.encode("1").labels.tolist() == ["a", "b"]
    assert list(frame.columns) == [1, "x"]


def test_a_named_or_shifted_index_is_replaced_by_positions():
    for index in (pd.RangeIndex(0, 2, name="id"), pd.RangeIndex(5, 7), pd.Index([1, 0])):
        frame = pd.DataFrame({"a": ["x", "y"]}, index=index)
        ds = Dataset.from_pandas(frame, quasi_identifiers=["a"])
        assert ds.frame.index.equals(pd.RangeIndex(2)) and ds.frame.index.name is None
        assert frame.index.equals(index) and frame.index.name == index.name  # untouched


def test_a_frame_with_text_names_and_positions_is_wrapped_as_it_is():
    frame = pd.DataFrame({"a": ["x", "y"], "b": ["1", "2"]})
    ds = Dataset.from_pandas(frame, quasi_identifiers=["a"])
    assert ds.frame is not frame and ds.frame.equals(frame)
    ds.frame.loc[0, "a"] = "z"  # a shallow copy under copy-on-write: the caller's frame is not changed
    assert frame.loc[0, "a"] == "x"
