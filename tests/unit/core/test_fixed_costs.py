"""The shortcuts that cut veil's fixed cost give what the long way gives."""

import numpy as np
import pandas as pd
import pytest

from veil.classes import ClassTable
from veil.dataset import Dataset
from veil.errors import HierarchyError
from veil.hierarchy import Hierarchy
from veil.sanitize._detect import _pattern_shares


def test_flat_hierarchy_is_the_one_from_rows():
    flat = Hierarchy.flat(["b", "a", "b", 3], name="x")
    rows = Hierarchy.from_rows([["b", "*"], ["a", "*"], ["3", "*"]], name="x")
    assert [l.tolist() for l in flat.labels] == [["b", "a", "3"], ["*"]]
    assert [m.tolist() for m in flat.maps] == [m.tolist() for m in rows.maps] == [[0, 1, 2], [0, 0, 0]]
    assert flat.leaf_index(np.array(["3", "b"], dtype=object)).tolist() == [2, 0]


def test_empty_flat_hierarchy_is_refused():
    with pytest.raises(HierarchyError, match="no rows"):
        Hierarchy.flat([])


def test_class_table_of_flat_labels():
    # no hierarchy: each QI is its own labels; rows (a,x) (b,x) (a,x) (a,y) give 3 classes of 2, 1, 1
    frame = pd.DataFrame({"q": ["a", "b", "a", "a"], "r": ["x", "x", "x", "y"]})
    table = ClassTable.from_dataset(Dataset.from_pandas(frame, quasi_identifiers=["q", "r"]))
    assert sorted(table.counts.tolist()) == [1, 1, 2]
    assert table.hierarchies[0].labels[0].tolist() == ["a", "b"]


def test_pattern_shares_count_each_value_as_often_as_it_occurs():
    # 3 of 4 values are e-mail addresses: share 3/4; matched once per distinct value
    shares = _pattern_shares(pd.Series(["a@b.org", "a@b.org", "c@d.com", "x"], dtype=object))
    assert shares["email"] == (0.75, 0.75)


def test_pattern_shares_weight_the_check_by_occurrences():
    # 4111 1111 1111 1111 passes Luhn (the standard test number), ...1112 does not:
    # 3 of 4 values have a card's shape (3/4), 2 of 4 also pass the check (1/2)
    good, bad = "4111111111111111", "4111111111111112"
    shares = _pattern_shares(pd.Series([good, good, bad, "abc"], dtype="str"))
    assert shares["credit_card"] == (0.75, 0.5)
