"""The hierarchical EMD (Li et al., ICDE 2007, Section 4.3) equals its definition, node by node."""

from fractions import Fraction

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from veil.classes import SensitiveHistogram
from veil.hierarchy import Hierarchy
from veil.models._t_closeness import hierarchical_distances


@st.composite
def histograms(draw):
    """A random hierarchy over 1-7 leaves (1-3 levels above them) and 1-5 classes' counts."""
    m = draw(st.integers(1, 7))
    leaves = [f"v{i}" for i in range(m)]
    rows = [[leaf] for leaf in leaves]
    groups = list(range(m))
    for level in range(draw(st.integers(0, 2))):
        fan = draw(st.integers(1, 3))
        groups = [g // fan for g in groups]
        for row, g in zip(rows, groups):
            row.append(f"L{level + 1}_{g}")
    for row in rows:
        row.append("*")
    hierarchy = Hierarchy.from_rows(rows, name="s")
    g = draw(st.integers(1, 5))
    counts = np.array(draw(st.lists(st.lists(st.integers(0, 6), min_size=m, max_size=m), min_size=g, max_size=g)),
                      dtype=np.int64)
    extra = np.array(draw(st.lists(st.integers(0, 6), min_size=m, max_size=m)), dtype=np.int64)
    overall = counts.sum(axis=0) + extra
    if overall.sum() == 0:
        overall[0] = 1
    return SensitiveHistogram("s", np.array(leaves, dtype=object), counts, overall, hierarchy=hierarchy)


def _definition(hist: SensitiveHistogram, j: int) -> Fraction:
    """Every internal node N at height h(N) costs h(N)/H * min(pos_extra(N), neg_extra(N)), where the
    extras are p - q summed up the tree: exact fractions, one node and one class at a time."""
    h = hist.hierarchy
    n_j, total = int(hist.counts[j].sum()), int(hist.overall.sum())
    extra = {}
    for v, label in enumerate(hist.labels):
        p = Fraction(int(hist.counts[j, v]), n_j) if n_j else Fraction(0)
        extra[(0, h.leaf_index([label])[0])] = p - Fraction(int(hist.overall[v]), total)
    cost = Fraction(0)
    for level in range(1, h.height + 1):
        parent = h.rollup(level - 1, level)
        summed = {}
        for code in range(h.n_values(level)):
            children = [extra.get((level - 1, c), Fraction(0)) for c in np.flatnonzero(parent == code)]
            pos = sum((x for x in children if x > 0), Fraction(0))
            neg = -sum((x for x in children if x < 0), Fraction(0))
            cost += Fraction(level, h.height) * min(pos, neg)
            summed[(level, code)] = sum(children, Fraction(0))
        extra = summed
    return cost


@settings(max_examples=300, deadline=None)
@given(hist=histograms())
def test_the_vectorized_distance_is_the_definition(hist):
    got = hierarchical_distances(hist)
    for j in range(hist.counts.shape[0]):
        expected = _definition(hist, j) if hist.counts[j].sum() else Fraction(0)
        assert abs(got[j] - float(expected)) <= 1e-12, (j, got[j], expected)
