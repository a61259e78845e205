"""The hierarchical EMD of a few sensitive values (summed column by column, telescoped over
the levels) gives the same doubles as the general matrix path."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from veil.classes import SensitiveHistogram
from veil.errors import HierarchyError
from veil.hierarchy import Hierarchy
from veil.testing import hierarchies
from veil.models._t_closeness import hierarchical_distances

#: Values that occur nowhere: a histogram padded with them has more than 8 values and takes
#: the general path, which leaves them out (they are not looked up in the hierarchy).
_PAD = 9


@st.composite
def few_values(draw):
    """A hierarchy over 1-8 leaves with 0-3 levels between them and the top, and 1-6 classes'
    counts (empty classes and values absent from the table included)."""
    m = draw(st.integers(1, 8))
    leaves = [f"v{i}" for i in range(m)]
    hierarchy = draw(hierarchies(leaves, max_height=4, name="s"))
    g = draw(st.integers(1, 6))
    cell = st.integers(0, 40)
    counts = np.array(draw(st.lists(st.lists(cell, min_size=m, max_size=m), min_size=g, max_size=g)), dtype=np.int64)
    extra = np.array(draw(st.lists(cell, min_size=m, max_size=m)), dtype=np.int64)
    overall = counts.sum(axis=0) + extra
    return SensitiveHistogram("s", np.array(leaves, dtype=object), counts, overall, hierarchy=hierarchy)


def _padded(hist: SensitiveHistogram) -> SensitiveHistogram:
    g = hist.counts.shape[0]
    labels = np.concatenate([hist.labels, np.array([f"absent{i}" for i in range(_PAD)], dtype=object)])
    return SensitiveHistogram("s", labels, np.hstack([hist.counts, np.zeros((g, _PAD), np.int64)]),
                              np.concatenate([hist.overall, np.zeros(_PAD, np.int64)]), hierarchy=hist.hierarchy)


@settings(max_examples=400, deadline=None)
@given(hist=few_values())
def test_few_values_give_the_general_paths_doubles(hist):
    fast, general = hierarchical_distances(hist), hierarchical_distances(_padded(hist))
    assert np.array_equal(fast, general), (fast, general)


def test_a_two_level_hierarchy_is_the_equal_distance():
    """Adult's salary-class: two values under one top.  A class's distance is
    :math:`|p_1 - q_1|`, against q = (5, 15)/20: (3, 1) -> |3/4 - 1/4| = 1/2; an empty class
    -> 0; (1, 3) -> 0; (2, 12) -> |1/7 - 1/4| = 3/28."""
    hierarchy = Hierarchy.from_rows([["<=50K", "*"], [">50K", "*"]], name="s")
    counts = np.array([[3, 1], [0, 0], [1, 3], [2, 12]], dtype=np.int64)
    hist = SensitiveHistogram("s", np.array(["<=50K", ">50K"], dtype=object), counts, np.array([5, 15]),
                              hierarchy=hierarchy)
    assert hierarchical_distances(hist).tolist() == [0.5, 0.0, 0.0, 3 / 28]


def test_a_value_the_hierarchy_misses_is_named():
    hierarchy = Hierarchy.from_rows([["a", "*"], ["b", "*"]], name="s")
    hist = SensitiveHistogram("s", np.array(["a", "c"], dtype=object), np.array([[1, 1]]), np.array([2, 2]),
                              hierarchy=hierarchy)
    with pytest.raises(HierarchyError, match="'c'"):
        hierarchical_distances(hist)
