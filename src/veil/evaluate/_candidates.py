"""The multivariate singling-out candidates: a released record's values on ``n_cols`` columns.

A candidate is a pair (distinct released record, set of ``n_cols`` columns); its predicate is an
equality on each categorical column and a half line through the value, away from the median, on
each numeric one (``ISNULL`` for a missing number).  The predicate always matches its own record,
so it singles out when it matches no other distinct released record, and two different candidates
that single out are different predicates.

Drawing candidates uniformly at random and keeping each new one that singles out, until ``n`` are
kept, yields a uniform random sample of ``n`` of those that single out (all of them when there are
fewer).  :func:`singling_out_candidates` finds every candidate that singles out at once, on the
class table of each set of columns: one grouping of the distinct released records per set of
columns (a few dozen), never a comparison per record.  The work is bounded before it starts:
``records × C(columns, n_cols)`` candidates (:func:`enumerable`).
"""

from __future__ import annotations

from collections.abc import Sequence
from itertools import combinations
from math import comb

import numpy as np

from veil.evaluate._columns import Tables
from veil.evaluate._predicates import EQ, GE, ISNULL, LE, Predicates

__all__ = ["record_predicates", "enumerable", "singling_out_candidates", "draw_singling_out", "MAX_CANDIDATES"]

#: The most candidates (distinct released records × sets of columns) found by grouping (one byte each).
MAX_CANDIDATES = 50_000_000
_KEY_LIMIT = 1 << 40


def record_predicates(tables: Tables, names: Sequence[str], picks: np.ndarray, column: np.ndarray,
                      medians: np.ndarray) -> Predicates:
    """The predicates of the released records ``picks`` on the columns ``column`` (one row each)."""
    n_cols = column.shape[1]
    op = np.full(column.shape, EQ)
    code = np.full(column.shape, -1, dtype=np.int64)
    value = np.full(column.shape, np.nan)
    for c, name in enumerate(names):  # one vectorised pass per column
        at = column == c
        records = tables.release[name][picks][:, None].repeat(n_cols, axis=1)[at]
        if tables.columns[name].numeric:
            value[at] = records
            op[at] = np.where(np.isnan(records), ISNULL, np.where(records > medians[c], GE, LE))
        else:
            code[at] = records
    return Predicates(tuple(names), column, op, code, value)


def enumerable(tables: Tables, names: Sequence[str], n_records: int, n_cols: int) -> bool:
    """Whether every candidate can be counted by grouping: at most :data:`MAX_CANDIDATES` of them,
    and no set of columns holds two numeric ones (two half lines are not a group)."""
    numeric = sum(tables.columns[name].numeric for name in names)
    return n_records * comb(len(names), n_cols) <= MAX_CANDIDATES and (numeric <= 1 or n_cols == 1)


def _groups(parts: Sequence[np.ndarray]) -> np.ndarray:
    """Dense group ids of the records by the integer columns ``parts`` (a mixed radix, re-densified
    before it could overflow)."""
    key = np.zeros(len(parts[0]) if parts else 0, dtype=np.int64)
    top = 1
    for codes in parts:
        size = int(codes.max()) + 1 if len(codes) else 1
        if top * size >= _KEY_LIMIT:
            key = np.unique(key, return_inverse=True)[1].astype(np.int64)
            top = int(key.max()) + 1 if len(key) else 1
        key, top = key * size + codes, top * size
    return np.unique(key, return_inverse=True)[1].astype(np.int64).reshape(-1)


def _ranks(x: np.ndarray) -> tuple[np.ndarray, int]:
    """Dense ranks of the numbers ``x`` and, after them, one slot for a missing number; the slots."""
    finite = ~np.isnan(x)
    ranks = np.unique(x[finite], return_inverse=True)[1].reshape(-1)
    width = int(ranks.max()) + 2 if len(ranks) else 1
    rank = np.full(len(x), width - 1, dtype=np.int64)
    rank[finite] = ranks
    return rank, width


def _singles(group: np.ndarray, rank: np.ndarray | None, width: int, op: np.ndarray | None) -> np.ndarray:
    """Per record: does its predicate (its group, and its half line or ``ISNULL`` on a number of
    rank ``rank``) match it only?"""
    if rank is None:
        return np.bincount(group)[group] == 1
    base = group * width
    key = base + rank
    ordered = np.sort(key)  # by group, then number, missing numbers last
    low, high = np.searchsorted(ordered, key, "left"), np.searchsorted(ordered, key, "right")
    start, missing = np.searchsorted(ordered, base, "left"), np.searchsorted(ordered, base + width - 1, "left")
    count = np.where(op == GE, missing - low, np.where(op == LE, high - start, high - low))
    return count == 1


def singling_out_candidates(tables: Tables, names: Sequence[str], rows: np.ndarray, n_cols: int,
                            medians: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Every candidate that singles out a distinct released record: the sets of columns
    (``sets × n_cols``) and, per set, which records of ``rows`` it singles out (``sets × len(rows)``)."""
    sets = np.array(list(combinations(range(len(names)), n_cols)), dtype=np.int64).reshape(-1, n_cols)
    single = np.zeros((len(sets), len(rows)), dtype=np.bool_)
    numeric = np.array([tables.columns[name].numeric for name in names])
    ranks, ops = {}, {}
    for c in np.flatnonzero(numeric):  # each numeric column ranked once
        x = tables.release[names[c]][rows]
        ranks[c] = _ranks(x)
        ops[c] = np.where(np.isnan(x), ISNULL, np.where(x > medians[c], GE, LE))
    for s, chosen in enumerate(sets):  # one grouping per set of columns (C(columns, n_cols) of them)
        cats = [tables.release[names[c]][rows].astype(np.int64) for c in chosen if not numeric[c]]
        group = _groups(cats) if cats else np.zeros(len(rows), dtype=np.int64)
        nums = [c for c in chosen if numeric[c]]
        if not nums:
            single[s] = _singles(group, None, 1, None)
        else:
            single[s] = _singles(group, *ranks[nums[0]], ops[nums[0]])
    return sets, single


def draw_singling_out(tables: Tables, names: Sequence[str], rows: np.ndarray, n: int, n_cols: int,
                      rng: np.random.Generator, medians: np.ndarray) -> Predicates:
    """``n`` candidates that single out, drawn uniformly without replacement (all when fewer)."""
    sets, single = singling_out_candidates(tables, names, rows, n_cols, medians)
    per_set = single.sum(axis=1)
    total = int(per_set.sum())
    if total <= n:
        which, record = np.nonzero(single)
    else:  # the ordinals of n of the total, then each one's set and record
        ordinal = np.sort(rng.choice(total, size=n, replace=False))
        starts = np.cumsum(per_set) - per_set
        which = np.searchsorted(starts + per_set, ordinal, side="right")
        record = np.empty(n, dtype=np.int64)
        for s in np.unique(which):  # one pass per set of columns that holds a chosen candidate
            at = which == s
            record[at] = np.flatnonzero(single[s])[ordinal[at] - starts[s]]
    return record_predicates(tables, names, rows[record], sets[which], medians)
