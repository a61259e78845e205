"""SUDA2's minimal sample uniques equal those found by enumerating every attribute subset."""

from __future__ import annotations

from itertools import combinations

import numpy as np
import pandas as pd
from hypothesis import given, settings
from hypothesis import strategies as st

from veil.classes import ClassTable
from veil.risk import suda2


def _brute_force(frame: pd.DataFrame, max_size: int) -> np.ndarray:
    """Per record, its MSUs of each size: every subset checked, minimality by every proper subset."""
    cols = list(frame.columns)
    n = len(frame)
    unique: dict[tuple[str, ...], np.ndarray] = {}
    for size in range(1, len(cols) + 1):
        for subset in combinations(cols, size):
            unique[subset] = frame.groupby(list(subset))[cols[0]].transform("size").to_numpy() == 1
    out = np.zeros((n, max_size), dtype=np.int64)
    for size in range(1, max_size + 1):
        for subset in combinations(cols, size):
            smaller = [unique[s] for k in range(1, size) for s in combinations(subset, k)]
            minimal = unique[subset] & ~np.logical_or.reduce(smaller) if smaller else unique[subset]
            out[:, size - 1] += minimal
    return out


tables = st.integers(1, 4).flatmap(lambda q: st.lists(
    st.tuples(*[st.integers(0, 2) for _ in range(q)]), min_size=1, max_size=25))


@settings(max_examples=80, deadline=None)
@given(rows=tables, data=st.data())
def test_msus_equal_brute_force(rows, data):
    frame = pd.DataFrame(rows, columns=[f"q{i}" for i in range(len(rows[0]))]).astype(str)
    q = frame.shape[1]
    max_size = data.draw(st.integers(1, q))
    table = ClassTable.from_pandas(frame, quasi_identifiers=list(frame.columns))
    result = suda2(table, max_size=max_size)
    got = result.msu_counts[table.row_classes()]
    np.testing.assert_array_equal(got, _brute_force(frame, max_size))
    # the score is the weighted count of MSUs; every attribute contributes at most 100%
    assert all(0.0 <= v <= 100.0 + 1e-9 for v in result.attribute_contribution().values())
