"""The released rows' classes, found per class (``_release_index``), are the rows' own.

Each released row reads its class, or one past the last when it is suppressed (its base
class suppressed, or it arrived with '*' in every QI); the classes read are those of the
rows released, worked out per class when every row is released.
"""

import numpy as np
import pandas as pd
from hypothesis import given, settings
from hypothesis import strategies as st

from veil.classes import ClassTable
from veil.classes._release import _release_index, release_rows, row_slots
from veil.dataset import MISSING, Dataset
from veil.hierarchy import Hierarchy

CELL = st.one_of(st.none(), st.sampled_from(["a", "b", "c"]))
ROW = st.one_of(st.tuples(CELL, CELL, st.sampled_from(["x", "y"])),
                st.tuples(st.just("*"), st.just("*"), st.sampled_from(["x", "y"])))  # arrived suppressed


def _table(rows, node, k):
    rows = [("a", "b", "x"), *rows]  # one row in a class (with none, the base has no class to map)
    frame = pd.DataFrame(rows, columns=["q", "r", "s"])
    flat = Hierarchy.flat(["a", "b", "c"])
    dataset = Dataset.from_pandas(frame, quasi_identifiers=["q", "r"], sensitive=["s"],
                                  hierarchies={"q": flat.renamed("q"), "r": flat.renamed("r")})
    table = ClassTable.from_dataset(dataset).generalize(node)
    return dataset, table.suppress(table.counts < k)


@settings(max_examples=80, deadline=None)
@given(rows=st.lists(ROW, min_size=1, max_size=25), node=st.tuples(st.integers(0, 1), st.integers(0, 1)),
       k=st.integers(1, 4), seed=st.integers(0, 2**16), subset=st.booleans())
def test_release_index_is_each_rows_class_and_the_classes_read(rows, node, k, seed, subset):
    _, table = _table(rows, node, k)
    order = np.random.default_rng(seed).permutation(table.n_records)
    if subset:
        order = order[: len(order) // 2]
    index, read = _release_index(table, order, row_slots(table))
    expected = np.where(table.row_classes() < 0, table.n_classes, table.row_classes())[order]
    assert index.tolist() == expected.tolist()
    assert read.tolist() == np.bincount(expected, minlength=table.n_classes + 1).astype(bool).tolist()


@settings(max_examples=40, deadline=None)
@given(rows=st.lists(ROW, min_size=1, max_size=25), node=st.tuples(st.integers(0, 1), st.integers(0, 1)),
       k=st.integers(1, 4), seed=st.integers(0, 2**16))
def test_rows_that_arrived_suppressed_are_released_as_such(rows, node, k, seed):
    dataset, table = _table(rows, node, k)
    order = np.random.default_rng(seed).permutation(table.n_records)
    columns = ["s", "q", "r"]
    expected = table.apply(dataset).iloc[order][columns].reset_index(drop=True)
    for name in ("q", "r"):
        expected[name] = expected[name].where(expected[name] != MISSING, None)
    released = release_rows(table, dataset, order, columns)
    for name in ("q", "r", "s"):  # only the labels some row shows are categories
        assert set(released[name].cat.categories) == set(released[name].dropna())
    pd.testing.assert_frame_equal(released.astype({"q": "str", "r": "str", "s": "str"}), expected)


def test_columns_published_as_they_are_keep_their_dtypes_and_cells():
    rows = [("a", "b", "x"), ("b", "b", "y"), ("a", "c", "x"), ("*", "*", "y")]
    dataset, table = _table(rows, (1, 0), 1)
    frame = dataset.frame.assign(n=np.arange(5), f=np.linspace(0, 1, 5), o=pd.Series([{"i": i} for i in range(5)]),
                                 d=pd.Timestamp("2020-01-01") + pd.to_timedelta(np.arange(5), unit="D"))
    dataset = Dataset.from_pandas(frame, quasi_identifiers=["q", "r"], sensitive=["s"],
                                  hierarchies=dict(dataset.hierarchies))
    table = ClassTable.from_dataset(dataset).generalize((1, 0))
    order = np.array([3, 0, 4, 1, 2])
    released = release_rows(table, dataset, order, ["n", "q", "f", "o", "s", "d"])
    expected = frame.iloc[order][["n", "f", "o", "s", "d"]].reset_index(drop=True)
    assert isinstance(released["s"].dtype, pd.CategoricalDtype)  # the sensitive column: from its codes
    pd.testing.assert_frame_equal(released[["n", "f", "o", "s", "d"]].astype({"s": "str"}), expected)
    assert list(released.columns) == ["n", "q", "f", "o", "s", "d"]
