"""Grouping integer columns for top-down specialization (the only row-like work it does)."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import pandas as pd

from veil.classes import dense_space

_KEY_LIMIT = 1 << 62


def _group_columns(columns: Sequence[np.ndarray], radices: Sequence[int]) -> tuple[np.ndarray, int]:
    """Group rows by several integer columns: (group id of each row, number of groups).

    The columns are packed into one int64 key (mixed radix); when the key space
    would overflow, the partial key is factorized first.  Small key spaces are
    grouped with a presence array (linear time), others with a hash table.
    """
    n = len(columns[0])
    if n == 0:
        return np.zeros(0, dtype=np.int64), 0
    key = np.asarray(columns[0], dtype=np.int64)
    space = int(radices[0])
    for column, radix in zip(columns[1:], radices[1:]):
        if space * int(radix) >= _KEY_LIMIT:
            codes, uniques = pd.factorize(key, sort=False)
            key, space = codes.astype(np.int64), len(uniques)
        key = key * int(radix) + column
        space *= int(radix)
    if dense_space(space, n):
        present = np.zeros(space, dtype=np.bool_)
        present[key] = True
        ids = np.cumsum(present, dtype=np.int64) - 1
        return ids[key], int(ids[-1]) + 1
    codes, uniques = pd.factorize(key, sort=False)
    return codes.astype(np.int64, copy=False), len(uniques)


def _representatives(ids: np.ndarray, n_groups: int) -> np.ndarray:
    """The index of one row of each group (any row: they agree on the grouped columns)."""
    rows = np.empty(n_groups, dtype=np.int64)
    rows[ids] = np.arange(len(ids), dtype=np.int64)
    return rows


def _group_sums(ids: np.ndarray, n_groups: int, values: np.ndarray) -> np.ndarray:
    """Per-group sums of a weight vector (int64)."""
    return np.rint(np.bincount(ids, weights=values, minlength=n_groups)).astype(np.int64)


