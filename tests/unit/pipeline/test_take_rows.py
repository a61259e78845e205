"""``take_rows`` equals ``iloc`` on every kind of column, on the dictionary path and off it."""

from __future__ import annotations

import numpy as np
import pandas as pd

from veil.pipeline._rows import take_rows


def test_take_rows_equals_iloc_for_repeated_distinct_and_missing_text():
    rng = np.random.default_rng(7)
    n = 10_000  # above the size where repeated text goes through its dictionary
    repeated = rng.choice(["a", "bb", "ccc", "*"], size=n).astype(object)
    repeated[rng.random(n) < 0.1] = None
    frame = pd.DataFrame({
        "repeated": pd.Series(repeated, dtype="str"),
        "distinct": pd.Series([f"id{i}" for i in range(n)], dtype="str"),
        "number": rng.integers(0, 100, size=n),
    })
    rows = rng.permutation(n)[: n - 123]
    expected = frame.iloc[rows].reset_index(drop=True)
    got = take_rows(frame, rows)
    pd.testing.assert_frame_equal(got, expected)
