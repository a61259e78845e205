"""Counting by groups gives the counts of comparing every record with every predicate."""

from __future__ import annotations

import numpy as np
import pandas as pd
from hypothesis import given, settings
from hypothesis import strategies as st

from veil.evaluate._columns import encode_tables
from veil.evaluate._group_counts import counts
from veil.evaluate._predicates import EQ, GE, ISNULL, LE, NE, Predicates, match_counts, sample_counts


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


@settings(max_examples=30, deadline=None)
@given(seed=st.integers(0, 2**31 - 1), n=st.integers(1, 60), width=st.integers(1, 3), n_samples=st.integers(1, 6))
def test_counts_of_many_samples_at_once_equal_each_sample_counted(seed, n, width, n_samples):
    rng = np.random.default_rng(seed)
    frame = pd.DataFrame({"a": rng.choice(["x", "y", "z"], n), "b": rng.choice(["p", "q"], n),
                          "x": np.where(rng.random(n) < 0.1, np.nan, rng.integers(0, 6, n).astype(float))})
    release = frame.assign(a=np.where(rng.random(n) < 0.3, "*", frame["a"]))  # '*' covers every value
    tables = encode_tables(frame, frame, release, list(frame.columns))
    width = min(width, 3)
    column = np.argsort(rng.random((40, 3)), axis=1)[:, :width]
    op = np.where(column == 2, rng.choice([LE, GE, ISNULL], (40, width)), rng.choice([EQ, EQ, NE], (40, width)))
    code = np.where(column == 2, -1, rng.integers(0, 4, (40, width)))
    for c, name in enumerate(["a", "b"]):
        code[column == c] %= len(tables.columns[name].labels)
    value = np.where(column == 2, rng.integers(-1, 7, (40, width)).astype(float), np.nan)
    preds = Predicates(("a", "b", "x"), column, op, code, value)
    rows = np.flatnonzero(rng.random(n) < 0.8)
    samples = rng.random((n_samples, len(rows))) < 0.5
    together = sample_counts(tables, "control", preds, rows, samples)
    for s in range(n_samples):
        assert together[:, s].tolist() == match_counts(tables, "control", preds, rows[samples[s]]).tolist()
