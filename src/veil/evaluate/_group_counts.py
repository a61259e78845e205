"""Counting the records a predicate matches by grouping, not by comparing every record.

A predicate of equalities on plain categorical values matches the records of one group of the
table projected on its columns: its count is that group's size.  With one more half line on a
number (``x >= v`` or ``x <= v``), the count is how many of that group's numbers lie on the
half line: the records sorted by (group, number) answer it with one binary search.  A
:class:`Counter` builds, once per combination of columns, the sorted group keys of one table's
records; every later batch of predicates over that combination costs binary searches only.
Predicates of any other shape (generalized labels on the original, two numeric conditions,
missing-value tests, negations) are counted by :func:`veil.evaluate._predicates.match_counts`.
"""

from __future__ import annotations

import numpy as np

from veil.evaluate._columns import Tables
from veil.evaluate._predicates import EQ, GE, LE, Predicates, match_counts

__all__ = ["Counter", "counts"]


class Counter:
    """Counts of predicates over the records ``rows`` of ``side``, with one index per combination."""

    def __init__(self, tables: Tables, side: str, rows: np.ndarray) -> None:
        self.tables, self.side, self.rows = tables, side, rows
        self.source = getattr(tables, side)
        self._index: dict[tuple[tuple[int, ...], int | None], tuple[np.ndarray, np.ndarray, np.ndarray | None]] = {}

    def __call__(self, predicates: Predicates) -> np.ndarray:
        out = np.zeros(len(predicates), dtype=np.int64)
        fast = self._groupable(predicates)
        numeric = np.array([self.tables.columns[n].numeric for n in predicates.names])
        combos = np.sort(predicates.column, axis=1)
        key = (combos * (len(predicates.names) + 1) ** np.arange(combos.shape[1])[None, :]).sum(axis=1)
        candidates = np.flatnonzero(fast)
        uniques, first, which = np.unique(key[candidates], return_index=True, return_inverse=True)
        for u in range(len(uniques)):  # one index per combination of columns (a few dozen at most)
            idx = candidates[which == u]
            combo = sorted(set(combos[candidates[first[u]]].tolist()))
            done = self._count(predicates, idx, combo, numeric)
            if done is None:
                fast[idx] = False
            else:
                out[idx] = done
        slow = np.flatnonzero(~fast)
        if len(slow):
            out[slow] = match_counts(self.tables, self.side, predicates.subset(slow), self.rows)
        return out

    def _groupable(self, predicates: Predicates) -> np.ndarray:
        """Per predicate: equalities on categorical columns and at most one LE/GE on a numeric one."""
        numeric = np.array([self.tables.columns[n].numeric for n in predicates.names])[predicates.column]
        eq_ok = ~numeric & (predicates.op == EQ)
        half = numeric & ((predicates.op == LE) | (predicates.op == GE)) & ~np.isnan(predicates.value)
        return (eq_ok | half).all(axis=1) & (half.sum(axis=1) <= 1)

    def _values(self, name: str, code: np.ndarray) -> np.ndarray | None:
        """The value codes released labels ``code`` stand for on this side; ``None`` where a label
        covers more than its own value (a generalization): then grouping cannot answer."""
        if self.side == "release":
            return code
        cover = self.tables.columns[name].cover
        if cover.table is not None:
            return None
        out = cover.label_value[code]
        return None if (cover.covers_all[code].any() or (out < 0).any()) else out

    def _radix(self, cats: list[int], names: tuple[str, ...]) -> np.ndarray | None:
        sizes = [max(len(self.tables.columns[names[c]].labels), len(self.tables.columns[names[c]].values), 1) + 1
                 for c in cats]
        if np.prod(np.array(sizes, dtype=np.float64)) >= 2.0 ** 40:
            return None
        return np.cumprod([1] + sizes[:-1]).astype(np.int64)

    def _build(self, names: tuple[str, ...], cats: list[int], num: int | None, radix: np.ndarray):
        """The sorted group keys (and, with a number, the sorted (group, number) keys) of the records."""
        group = np.zeros(len(self.rows), dtype=np.int64)
        for c, r in zip(cats, radix):
            group += self.source[names[c]][self.rows].astype(np.int64) * r
        groups, sizes = np.unique(group, return_counts=True)
        if num is None:
            return groups, sizes, None
        x = self.source[names[num]][self.rows]
        keep = ~np.isnan(x)
        order = np.lexsort((x[keep], group[keep]))
        return groups, sizes, (group[keep][order], x[keep][order])

    def _count(self, predicates: Predicates, idx: np.ndarray, combo: list[int], numeric: np.ndarray
               ) -> np.ndarray | None:
        names = predicates.names
        cats = [c for c in combo if not numeric[c]]
        nums = [c for c in combo if numeric[c]]
        radix = self._radix(cats, names)
        if radix is None:
            return None
        wanted = np.zeros(len(idx), dtype=np.int64)
        for c, r in zip(cats, radix):
            slot = np.argmax(predicates.column[idx] == c, axis=1)
            values = self._values(names[c], predicates.code[idx, slot])
            if values is None:
                return None
            wanted += values.astype(np.int64) * r
        key = (tuple(cats), nums[0] if nums else None)
        if key not in self._index:
            self._index[key] = self._build(names, cats, key[1], radix)
        groups, sizes, pairs = self._index[key]
        at = np.minimum(np.searchsorted(groups, wanted), max(len(groups) - 1, 0))
        found = (groups[at] == wanted) if len(groups) else np.zeros(len(idx), dtype=np.bool_)
        if pairs is None:
            return np.where(found, sizes[at] if len(groups) else 0, 0)
        g, xs = pairs
        slot = np.argmax(predicates.column[idx] == nums[0], axis=1)
        op, value = predicates.op[idx, slot], predicates.value[idx, slot]
        start, end = np.searchsorted(g, wanted, side="left"), np.searchsorted(g, wanted, side="right")
        # within the group's numbers, sorted: a binary search per predicate over (group, number)
        below = _search(g, xs, wanted, value, "right") - start
        above = end - _search(g, xs, wanted, value, "left")
        return np.where(found | (end > start), np.where(op == LE, below, above), 0)


def _search(g: np.ndarray, xs: np.ndarray, group: np.ndarray, value: np.ndarray, side: str) -> np.ndarray:
    """Positions of (group, value) in records sorted by (group, number): a lexicographic binary search."""
    lo = np.searchsorted(g, group, side="left")
    hi = np.searchsorted(g, group, side="right")
    out = lo.copy()
    span = hi - lo
    while np.any(span > 0):  # bisection in every group at once: log2(largest group) rounds
        half = span // 2
        mid = np.minimum(out + half, len(xs) - 1)
        go = (span > 0) & ((xs[mid] < value) if side == "left" else (xs[mid] <= value))
        out = np.where(go, mid + 1, out)
        span = np.where(go, span - half - 1, half)
    return out


def counts(tables: Tables, side: str, predicates: Predicates, rows: np.ndarray) -> np.ndarray:
    """How many records of ``side`` (among ``rows``) each predicate matches."""
    return Counter(tables, side, rows)(predicates)
