"""Counting by groups gives the counts of comparing every record with every predicate."""

from __future__ import annotations

import numpy as np
import pandas as pd
from hypothesis import given, settings
from hypothesis import strategies as st

from veil.evaluate._columns import encode_tables
from veil.evaluate._group_counts import counts
from veil.evaluate._predicates import EQ, GE, ISNULL, LE, NE, Predicates, match_counts


@settings(max_examples=40, deadline=None)
@given(seed=st.integers(0, 2**31 - 1), n=st.integers(1, 60), width=st.integers(1, 3))
def test_grouped_counts_equal_brute_force(seed, n, width):
    rng = np.random.default_rng(seed)
    frame = pd.DataFrame({"a": rng.choice(["x", "y", "z"], n), "b": rng.choice(["p", "q"], n),
                          "c": rng.choice(["u", "v", "w", "t"], n),
                          "x": np.where(rng.random(n) < 0.1, np.nan, rng.integers(0, 6, n).astype(float))})
    tables = encode_tables(frame, frame.sample(frac=1, random_state=seed % 1000), frame, list(frame.columns))
    b = 50
    column = np.argsort(rng.random((b, 4)), axis=1)[:, :width]
    op = np.where(column == 3, rng.choice([LE, GE, ISNULL], (b, width)), rng.choice([EQ, EQ, NE], (b, width)))
    code = np.where(column == 3, -1, rng.integers(0, 4, (b, width)))
    for c, name in enumerate(["a", "b", "c"]):  # codes that exist in the release
        code[column == c] %= len(tables.columns[name].labels)
    value = np.where(column == 3, rng.integers(-1, 7, (b, width)).astype(float), np.nan)
    preds = Predicates(("a", "b", "c", "x"), column, op, code, value)
    for side in ("release", "original", "control"):
        rows = np.arange(n) if side != "control" else rng.permutation(n)[: max(1, n // 2)]
        assert counts(tables, side, preds, rows).tolist() == match_counts(tables, side, preds, rows).tolist()
