"""Nearest released records of attack targets, by a Gower-type distance (Gower 1971).

The distance between a target and a released record is a sum over the columns
the attacker knows, added in their order:

* numeric column: ``|a - b| / range`` (the range over the three tables), so a
  term lies in ``[0, 1]``;
* categorical column: 0 where the released value covers the target's value
  (equal, or a generalization of it), else 1;
* a missing value is 0 from a missing value and 1 from anything else.

This is Anonymeter's distance (``mixed_types_kneighbors``), except that two
missing values are at distance 0 there 1, and that generalized values match
what they cover.  Ties are broken by the release's row order, which veil
shuffles: distances within ``2**-20`` of each other count as ties.

The search runs over the release's *distinct* patterns of the known columns, in
blocks whose size is set from memory before anything is allocated.  Each block
is first measured by :mod:`veil.evaluate._approx` (integer mismatch counts from
lookup tables, numeric gaps in float32, within a known slack); the exact
distance, term by term in column order, is then computed only for the pairs the
slack cannot rule out (:func:`pair_distances`).  The answers are those of the
exact distance over every pair: the same neighbours, ties broken the same way.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import pandas as pd

from veil.evaluate._approx import approximation, block_size
from veil.evaluate._columns import Tables

__all__ = ["matches", "nearest", "nearest_and_ties", "pair_distances", "patterns"]

_QUANTUM = 2.0 ** 20
_INDEX_BITS = 31
_NONE = np.iinfo(np.int64).max


def pair_distances(tables: Tables, names: Sequence[str], targets: dict[str, np.ndarray],
                   candidates: dict[str, np.ndarray], ti: np.ndarray, ci: np.ndarray) -> np.ndarray:
    """The distance of target ``ti[j]`` to candidate ``ci[j]``, for each ``j``: its terms added in
    the order of ``names``."""
    total = np.zeros(len(ti), dtype=np.float64)
    for name in names:  # one vectorised term per known column
        column = tables.columns[name]
        a, b = targets[name][ti], candidates[name][ci]
        if column.numeric:
            gap = np.abs(a - b) / column.scale
            a_nan, b_nan = np.isnan(a), np.isnan(b)
            gap = np.where(a_nan | b_nan, np.where(a_nan & b_nan, 0.0, 1.0), gap)
            total += gap
        else:
            cover = column.cover
            hit = cover.table[a, b] if cover.table is not None else (cover.label_value[b] == a) | cover.covers_all[b]
            total += ~hit
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


def _joined(tables: Tables, names: Sequence[str], targets: dict[str, np.ndarray],
            codes: dict[str, np.ndarray]) -> tuple[np.ndarray, np.ndarray] | None:
    """The pairs (target, pattern) that agree on every categorical column, by a hash join, when each
    such column's labels cover one value each (no generalization) and the join stays within one block;
    else ``None``."""
    joined = [n for n in names if not tables.columns[n].numeric]
    covers = [tables.columns[n].cover for n in joined]
    if not joined or any(c.table is not None or c.covers_all[codes[n]].any() for n, c in zip(joined, covers)):
        return None
    left = pd.DataFrame({n: targets[n] for n in joined})
    right = pd.DataFrame({n: c.label_value[codes[n]] for n, c in zip(joined, covers)})
    per_key = right.groupby(joined, sort=False).size().rename("count").reset_index()
    total = left.merge(per_key, on=joined, how="left")["count"].fillna(0).sum()
    n_targets = len(left)
    if total > n_targets * block_size(n_targets):
        return None
    pairs = left.assign(target=np.arange(n_targets)).merge(right.assign(pattern=np.arange(len(right))), on=joined)
    return pairs["target"].to_numpy(dtype=np.int64), pairs["pattern"].to_numpy(dtype=np.int64)


def matches(tables: Tables, names: Sequence[str], targets: dict[str, np.ndarray],
            codes: dict[str, np.ndarray]) -> tuple[np.ndarray, np.ndarray]:
    """The pairs (target, pattern) at distance exactly 0, in target order."""
    joined = _joined(tables, names, targets, codes)
    if joined is not None:  # the exact-match shortcut: candidates agree on every categorical column
        candidates = iter([joined])
    else:  # candidates within the slack of 0, block by block
        approx = approximation(tables, names, targets, codes)
        candidates = ((ti, pi + lo) for lo, block in approx.blocks() for ti, pi in [np.nonzero(block <= approx.slack)])
    found_t, found_p = [np.zeros(0, np.int64)], [np.zeros(0, np.int64)]
    for ti, pi in candidates:
        zero = pair_distances(tables, names, targets, codes, ti, pi) == 0
        found_t.append(ti[zero])
        found_p.append(pi[zero])
    ti, pi = np.concatenate(found_t), np.concatenate(found_p)
    order = np.argsort(ti, kind="stable")
    return ti[order], pi[order]


def _first_k(ti: np.ndarray, keys: np.ndarray, ids: np.ndarray, n_targets: int,
             k: int) -> tuple[np.ndarray, np.ndarray]:
    """The ``k`` smallest keys of each target, from entries that hold at least ``k`` per target."""
    order = np.lexsort((keys, ti))
    ti, keys, ids = ti[order], keys[order], ids[order]
    starts = np.searchsorted(ti, np.arange(n_targets))
    keep = (np.arange(len(ti)) - starts[ti]) < k
    return keys[keep].reshape(n_targets, k), ids[keep].reshape(n_targets, k)


def _at_least(ti: np.ndarray, d: np.ndarray, weights: np.ndarray, n_targets: int) -> tuple[np.ndarray, np.ndarray]:
    """Per target: the smallest ``d`` of its entries, and the total weight of the entries at it."""
    low = np.full(n_targets, np.inf)
    np.minimum.at(low, ti, d)
    here = np.bincount(ti, weights=np.where(d == low[ti], weights, 0), minlength=n_targets).astype(np.int64)
    return low, here


def _search(tables: Tables, names: Sequence[str], targets: dict[str, np.ndarray], codes: dict[str, np.ndarray],
            first: np.ndarray, sizes: np.ndarray, k: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Per target: the ``k`` smallest keys (quantized distance, first record) and their patterns, and
    the number of records at exactly the smallest distance."""
    approx = approximation(tables, names, targets, codes)
    n = approx.n_targets
    best_keys, best_ids = np.full((n, k), _NONE, dtype=np.int64), np.full((n, k), -1, dtype=np.int64)
    best, at_best = np.full(n, np.inf), np.zeros(n, dtype=np.int64)
    for lo, block in approx.blocks():
        least = block.min(axis=1).astype(np.float64)
        if k == 1 or block.shape[1] < k:
            kth = least if k == 1 else np.full(n, np.inf)
        else:
            kth = np.partition(block, k - 1, axis=1)[:, k - 1].astype(np.float64)
        known = np.where(best_keys[:, -1] == _NONE, np.inf, (best_keys[:, -1] >> _INDEX_BITS).astype(np.float64))
        bound = np.minimum(known, np.rint((kth + approx.slack) * _QUANTUM))
        # candidates: may be among the k nearest (by key), or at the block's smallest exact distance
        limit = np.maximum((bound + 1) / _QUANTUM, least + approx.slack) + approx.slack
        ti, pi = np.nonzero(block <= limit[:, None])
        pi = pi + lo
        d = pair_distances(tables, names, targets, codes, ti, pi)
        keys = (np.rint(d * _QUANTUM).astype(np.int64) << _INDEX_BITS) | first[pi]
        best_keys, best_ids = _first_k(np.concatenate([np.repeat(np.arange(n), k), ti]),
                                       np.concatenate([best_keys.reshape(-1), keys]),
                                       np.concatenate([best_ids.reshape(-1), pi]), n, k)
        low, here = _at_least(ti, d, sizes[pi], n)
        at_best = np.where(low < best, here, np.where(low == best, at_best + here, at_best))
        best = np.minimum(best, low)
    return best_keys, best_ids, at_best


def nearest_and_ties(tables: Tables, names: Sequence[str], targets: dict[str, np.ndarray],
                     k: int = 1) -> tuple[np.ndarray, np.ndarray]:
    """The ``k`` nearest released records (positions among the unsuppressed release) of each target,
    and the number of released records at exactly its smallest distance.

    The first is ``n_targets × k``; fewer than ``k`` released records give ``-1`` in the rest.
    """
    codes, pattern_of, order, starts = patterns(tables, names)
    n_targets = len(next(iter(targets.values())))
    if len(starts) == 0:
        return np.full((n_targets, k), -1, dtype=np.int64), np.zeros(n_targets, dtype=np.int64)
    counts = np.diff(np.append(starts, len(order)))
    best_keys, best_ids, at_best = _search(tables, names, targets, codes, order[starts], counts, k)
    # the k nearest records lie among the first k records of the k nearest patterns
    j = np.arange(k)
    ids = np.maximum(best_ids, 0)  # -1: no pattern (fewer than k), holding no record
    held = np.where(best_ids >= 0, counts[ids], 0)
    rec = np.where(j[None, None, :] < held[:, :, None],
                   order[np.minimum(starts[ids][:, :, None] + j[None, None, :], len(order) - 1)], -1)
    qd = best_keys >> _INDEX_BITS
    rec_keys = np.where(rec >= 0, (qd[:, :, None] << _INDEX_BITS) | np.maximum(rec, 0), _NONE)
    rec_keys, rec = rec_keys.reshape(n_targets, -1), rec.reshape(n_targets, -1)
    pick = np.argsort(rec_keys, axis=1, kind="stable")[:, :k]
    return np.take_along_axis(rec, pick, axis=1), at_best


def nearest(tables: Tables, names: Sequence[str], targets: dict[str, np.ndarray], k: int = 1) -> np.ndarray:
    """The ``k`` nearest released records (positions among the unsuppressed release) of each target.

    Returns an ``n_targets × k`` array; fewer than ``k`` released records give ``-1`` in the rest.
    """
    return nearest_and_ties(tables, names, targets, k)[0]
