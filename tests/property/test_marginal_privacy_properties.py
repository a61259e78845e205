"""Property tests of k-combinatorial anonymity (Kifer & Gehrke 2006, Definition 4.2) on random small tables.

For marginals computed from a table, the table itself is consistent with them, so the most records a
combination can hold is at least its count in the table; no consistent table can put more records in a
combination than any marginal's cell containing it holds (the Fréchet bound); hence the k achieved is at
most the k-link level.
"""

from __future__ import annotations

import itertools

import numpy as np
import pandas as pd
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from veil.classes import ClassTable
from veil.marginals import achieved_k_link, k_combinatorial, marginal


@st.composite
def tables_and_marginals(draw):
    n = draw(st.integers(min_value=1, max_value=25))
    names = ["a", "b", "c"]
    frame = pd.DataFrame({name: draw(st.lists(st.sampled_from(["0", "1", "2"][: draw(st.integers(1, 3))]),
                                              min_size=n, max_size=n)) for name in names})
    pairs = [list(p) for p in itertools.combinations(names, 2)] + [[x] for x in names]
    chosen = draw(st.lists(st.sampled_from(pairs), min_size=1, max_size=3, unique_by=tuple))
    return frame, chosen


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=tables_and_marginals())
def test_most_records_lie_between_the_data_and_the_frechet_bound(data):
    frame, chosen = data
    classes = ClassTable.from_pandas(frame, quasi_identifiers=["a", "b", "c"])
    ms = [marginal(classes, attrs) for attrs in chosen]
    result = k_combinatorial(ms)
    names = result.attributes
    counts = frame.groupby(list(names)).size()
    for index in np.ndindex(result.most.shape):
        values = [classes.hierarchy(name).labels[0][i] for name, i in zip(names, index)]
        here = int(counts.get(tuple(values) if len(values) > 1 else values[0], 0))
        bound = min(int(((frame[list(m.attributes)] == [values[names.index(a)] for a in m.attributes])
                         .all(axis=1)).sum()) for m in ms)
        assert here <= result.most[index] <= bound, (values, here, result.most[index], bound)
    assert result.k <= achieved_k_link(ms)
