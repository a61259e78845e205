"""Nearest released records of attack targets, by a Gower-type distance (Gower 1971).

The distance between a target and a released record is a sum over the columns
the attacker knows:

* numeric column: ``|a - b| / range`` (the range over the three tables), so a
  term lies in ``[0, 1]``;
* categorical column: 0 where the released value covers the target's value
  (equal, or a generalization of it), else 1;
* a missing value is 0 from a missing value and 1 from anything else.

This is Anonymeter's distance (``mixed_types_kneighbors``), except that two
missing values are at distance 0 there 1, and that generalized values match
what they cover.  Ties are broken by the release's row order, which veil
shuffles: distances within ``2**-20`` of each other count as ties.

The search is brute force over the release's *distinct* patterns of the known
columns, in chunks, with one ``argpartition`` per chunk: memory is bounded by
``targets × chunk`` and no Python loop runs over records or targets.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import pandas as pd

from veil.evaluate._columns import Tables

__all__ = ["distances", "nearest", "patterns"]

_QUANTUM = 2.0 ** 20
_INDEX_BITS = 31
_CHUNK_CELLS = 1 << 23  # targets × patterns per chunk: 8M float64 (64 MB)


def distances(tables: Tables, names: Sequence[str], targets: dict[str, np.ndarray],
              candidates: dict[str, np.ndarray]) -> np.ndarray:
    """The ``len(targets) × len(candidates)`` distance matrix over ``names``.

    ``targets`` holds original-side codes or floats, ``candidates`` release-side ones.
    """
    n_t = len(next(iter(targets.values())))
    n_c = len(next(iter(candidates.values())))
    total = np.zeros((n_t, n_c), dtype=np.float64)
    for name in names:  # one vectorised term per known column
        column = tables.columns[name]
        a, b = targets[name], candidates[name]
        if column.numeric:
            gap = np.abs(a[:, None] - b[None, :]) / column.scale
            a_nan, b_nan = np.isnan(a)[:, None], np.isnan(b)[None, :]
            gap = np.where(a_nan | b_nan, np.where(a_nan & b_nan, 0.0, 1.0), gap)
            total += gap
        else:
            total += ~column.cover.covers(a, b)
    return total


def patterns(tables: Tables, names: Sequence[str]) -> tuple[dict[str, np.ndarray], np.ndarray, np.ndarray, np.ndarray]:
    """The release's distinct patterns over ``names``: their codes, each record's pattern, each
    pattern's records in row order (``order``) and where each pattern starts in it (``starts``)."""
    frame = pd.DataFrame({name: tables.release[name] for name in names})
    pattern_of = frame.groupby(list(names), sort=False, dropna=False).ngroup().to_numpy(dtype=np.int64)
    n = int(pattern_of.max()) + 1 if len(pattern_of) else 0
    order = np.argsort(pattern_of, kind="stable")
    counts = np.bincount(pattern_of, minlength=n)
    starts = np.concatenate([[0], np.cumsum(counts)[:-1]]) if n else np.zeros(0, np.int64)
    first = order[starts] if n else np.zeros(0, np.int64)
    codes = {name: tables.release[name][first] for name in names}
    return codes, pattern_of, order, starts


def nearest(tables: Tables, names: Sequence[str], targets: dict[str, np.ndarray], k: int = 1) -> np.ndarray:
    """The ``k`` nearest released records (positions among the unsuppressed release) of each target.

    Returns an ``n_targets × k`` array; fewer than ``k`` released records give ``-1`` in the rest.
    """
    codes, pattern_of, order, starts = patterns(tables, names)
    n_targets = len(next(iter(targets.values())))
    n_patterns = len(starts)
    if n_patterns == 0:
        return np.full((n_targets, k), -1, dtype=np.int64)
    first = order[starts]
    counts = np.diff(np.append(starts, len(order)))
    chunk = max(1, _CHUNK_CELLS // max(n_targets, 1))
    best_keys = np.zeros((n_targets, 0), dtype=np.int64)
    best_ids = np.zeros((n_targets, 0), dtype=np.int64)
    for lo in range(0, n_patterns, chunk):  # chunks of patterns, each a vectorised block
        hi = min(lo + chunk, n_patterns)
        part = {name: codes[name][lo:hi] for name in names}
        d = distances(tables, names, targets, part)
        keys = (np.rint(d * _QUANTUM).astype(np.int64) << _INDEX_BITS) | first[lo:hi][None, :]
        ids = np.broadcast_to(np.arange(lo, hi), keys.shape)
        keys, ids = np.concatenate([best_keys, keys], axis=1), np.concatenate([best_ids, ids], axis=1)
        if keys.shape[1] > k:
            pick = np.argpartition(keys, k - 1, axis=1)[:, :k]
            keys, ids = np.take_along_axis(keys, pick, axis=1), np.take_along_axis(ids, pick, axis=1)
        best_keys, best_ids = keys, ids
    # the k nearest records lie among the first k records of the k nearest patterns
    j = np.arange(k)
    rec = np.where(j[None, None, :] < counts[best_ids][:, :, None],
                   order[np.minimum(starts[best_ids][:, :, None] + j[None, None, :], len(order) - 1)], -1)
    qd = best_keys >> _INDEX_BITS
    rec_keys = np.where(rec >= 0, (qd[:, :, None] << _INDEX_BITS) | np.maximum(rec, 0), np.iinfo(np.int64).max)
    rec_keys, rec = rec_keys.reshape(n_targets, -1), rec.reshape(n_targets, -1)
    pick = np.argsort(rec_keys, axis=1, kind="stable")[:, :k]
    out = np.take_along_axis(rec, pick, axis=1)
    if out.shape[1] < k:
        out = np.pad(out, ((0, 0), (0, k - out.shape[1])), constant_values=-1)
    return out
