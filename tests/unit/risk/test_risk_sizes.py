"""The risk summary's fast path (class sizes from the codes) against the class-table path."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from veil.classes import ClassTable
from veil.dataset import Dataset
from veil.errors import HierarchyError, SchemaError
from veil.hierarchy import Hierarchy
from veil.risk import assess
from veil.risk._sizes import class_sizes
from veil.testing import datasets

# values include "*" (a fully starred record is input-suppressed) and None (a missing value)
_CELL = st.sampled_from(["a", "b", "c", "10", "*", None])


@st.composite
def _plain_datasets(draw: st.DrawFn) -> Dataset:
    """Tables of 1-60 rows and 1-4 QIs without hierarchies, plus one sensitive column."""
    n_qi = draw(st.integers(1, 4))
    n = draw(st.integers(1, 60))
    columns = {f"q{i}": draw(st.lists(_CELL, min_size=n, max_size=n)) for i in range(n_qi)}
    columns["s"] = draw(st.lists(st.sampled_from(["x", "y"]), min_size=n, max_size=n))
    return Dataset.from_pandas(pd.DataFrame(columns, dtype=object), quasi_identifiers=[f"q{i}" for i in range(n_qi)],
                               sensitive=["s"])


def _both(dataset: Dataset, **options) -> tuple[dict, dict]:
    fast = assess(dataset, **options).to_dict()
    slow = assess(ClassTable.from_dataset(dataset), **options).to_dict()
    return fast, slow


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(dataset=_plain_datasets(), threshold=st.sampled_from([0.0, 0.2, 0.5, 1.0]),
       subsets=st.sampled_from([None, 0]))
def test_fast_path_equals_class_table_without_hierarchies(dataset, threshold, subsets):
    fast, slow = _both(dataset, threshold=threshold, qi_subsets_max_size=subsets)
    assert fast == slow


@settings(max_examples=100, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(dataset=datasets(missing=True, max_rows=50), subsets=st.sampled_from([None, 0]),
       fraction=st.sampled_from([None, 0.1, 1.0]))
def test_fast_path_equals_class_table_with_hierarchies(dataset, subsets, fraction):
    fast, slow = _both(dataset, qi_subsets_max_size=subsets, population_fraction=fraction)
    assert fast == slow


@settings(max_examples=60, deadline=None)
@given(dataset=_plain_datasets())
def test_class_sizes_are_the_class_tables(dataset):
    sizes = class_sizes(dataset)
    table = ClassTable.from_dataset(dataset)
    assert sorted(sizes.counts.tolist()) == sorted(table.counts.tolist())
    assert (sizes.n_records, sizes.input_suppressed) == (table.n_records, table.input_suppressed)


def test_sizes_by_hand():
    # rows (a,x) (a,x) (a,y) (b,y) (*,*): classes {a,x}:2 {a,y}:1 {b,y}:1, one record input-suppressed
    frame = pd.DataFrame({"q0": ["a", "a", "a", "b", "*"], "q1": ["x", "x", "y", "y", "*"]})
    sizes = class_sizes(Dataset.from_pandas(frame, quasi_identifiers=["q0", "q1"]))
    assert sorted(sizes.counts.tolist()) == [1, 1, 2]
    assert (sizes.n_records, sizes.input_suppressed, sizes.n_classes) == (5, 1, 3)
    # q0 alone over the 4 retained records: a:3, b:1
    assert sorted(sizes.project_counts(0).tolist()) == [1, 3]


def test_fast_path_builds_no_hierarchy(monkeypatch):
    frame = pd.DataFrame({"q0": ["a", "a", "b"], "q1": ["x", "y", "y"], "s": ["1", "2", "3"]})
    dataset = Dataset.from_pandas(frame, quasi_identifiers=["q0", "q1"], sensitive=["s"])

    def refuse(*args, **kwargs):
        raise AssertionError("the risk summary built a flat hierarchy")

    monkeypatch.setattr(Hierarchy, "flat", refuse)
    report = assess(dataset, qi_subsets_max_size=0)
    # three classes of one record each: prosecutor risk 1 everywhere, all records unique
    assert (report.prosecutor.highest, report.prosecutor.average, report.sample_uniques_count) == (1.0, 1.0, 3)


def test_fast_path_keeps_the_hierarchy_error():
    frame = pd.DataFrame({"q0": ["a", "b", "c"]})
    hierarchy = Hierarchy.from_rows([["a", "*"], ["b", "*"]], name="q0")
    dataset = Dataset.from_pandas(frame, quasi_identifiers=["q0"], hierarchies={"q0": hierarchy})
    with pytest.raises(HierarchyError, match="'c'"):
        assess(dataset, qi_subsets_max_size=0)


def test_fast_path_keeps_the_missing_value_error():
    frame = pd.DataFrame({"q0": ["a", None, "c"]})
    dataset = Dataset.from_pandas(frame, quasi_identifiers=["q0"], missing="error")
    with pytest.raises(SchemaError, match="'q0'"):
        assess(dataset, qi_subsets_max_size=0)


def test_no_qi_is_one_class():
    frame = pd.DataFrame({"s": ["1", "2", "3", "4"]})
    dataset = Dataset.from_pandas(frame, sensitive=["s"])
    fast, slow = _both(dataset)
    # one class of 4 records: prosecutor highest = lowest = average = 1/4
    assert fast == slow and fast["prosecutor"]["highest"] == 0.25 and np.isclose(fast["prosecutor"]["average"], 0.25)


@st.composite
def _sparse_datasets(draw: st.DrawFn) -> Dataset:
    """Tables of 1-80 rows and 5-7 QIs of 12 values each: a key space of at least 12**5, far
    past 4 keys per row, so the sizes come from sorting the keys, not a dense count."""
    n_qi = draw(st.integers(5, 7))
    n = draw(st.integers(1, 80))
    values = st.sampled_from([f"v{i}" for i in range(11)] + [None])
    columns = {f"q{i}": draw(st.lists(values, min_size=n, max_size=n)) for i in range(n_qi)}
    return Dataset.from_pandas(pd.DataFrame(columns, dtype=object), quasi_identifiers=list(columns))


@settings(max_examples=80, deadline=None)
@given(dataset=_sparse_datasets())
def test_sizes_of_a_sparse_key_space_are_the_groups_of_equal_rows(dataset):
    sizes = class_sizes(dataset)
    frame = dataset.frame.fillna("<none>")
    by_hand = frame.groupby(list(frame.columns), sort=False).size()
    assert sorted(sizes.counts.tolist()) == sorted(by_hand.tolist())
    assert sorted(sizes.counts.tolist()) == sorted(ClassTable.from_dataset(dataset).counts.tolist())
