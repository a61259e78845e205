"""``take_rows`` equals ``iloc`` on every kind of column, on the dictionary path and off it."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from veil.pipeline import _rows
from veil.pipeline._rows import take_rows


@pytest.mark.parametrize("through_dictionary", [True, False])
def test_take_rows_equals_iloc_for_repeated_distinct_and_missing_text(monkeypatch, through_dictionary):
    # both paths: the dictionary take (large tables) and the plain gather
    monkeypatch.setattr(_rows, "DICTIONARY_TAKE_ROWS", 0 if through_dictionary else 10**9)
    rng = np.random.default_rng(7)
    n = 10_000
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
