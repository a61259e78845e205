"""Predicates over records, evaluated many at a time: the queries of the singling-out attack.

A batch of ``B`` predicates, each a conjunction of ``m`` conditions, is held as
``B × m`` arrays: the column, the operator, a released label (categorical) or a
number (numeric).  :func:`match_counts` counts the records each predicate
matches, one column and one operator at a time over blocks of records, so the
work is ``B × records × m`` vectorised comparisons and memory is bounded by the
block.

On the release, a categorical condition compares labels; on the original and
the control, it asks whether the label *covers* the record's value, so ``age ==
[30, 40)`` matches every original age from 30 to 39.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from veil.evaluate._columns import Tables

__all__ = ["Predicates", "match_counts", "sample_counts", "EQ", "NE", "LT", "GT", "LE", "GE", "ISNULL", "NOTNULL"]

EQ, NE, LT, GT, LE, GE, ISNULL, NOTNULL = range(8)
_BLOCK_CELLS = 1 << 24


@dataclass(frozen=True)
class Predicates:
    """``B`` conjunctions of ``m`` conditions over the columns ``names`` (``column`` indexes them)."""

    names: tuple[str, ...]
    column: np.ndarray
    op: np.ndarray
    code: np.ndarray
    value: np.ndarray

    def __len__(self) -> int:
        return len(self.column)

    def subset(self, keep: np.ndarray) -> "Predicates":
        return Predicates(self.names, self.column[keep], self.op[keep], self.code[keep], self.value[keep])

    def keys(self) -> np.ndarray:
        """One hashable text per predicate (its conditions, sorted by column), to drop repeats."""
        order = np.argsort(self.column, axis=1, kind="stable")
        parts = [np.take_along_axis(a, order, axis=1).astype(str) for a in (self.column, self.op, self.code)]
        values = np.take_along_axis(self.value, order, axis=1).astype(str)
        joined = np.char.add(np.char.add(np.char.add(parts[0], ":"), np.char.add(parts[1], ":")),
                             np.char.add(np.char.add(parts[2], ":"), values))
        out = joined[:, 0].astype(object)
        for j in range(1, joined.shape[1]):
            out = out + "|" + joined[:, j].astype(object)
        return out

    @staticmethod
    def concat(parts: Sequence["Predicates"]) -> "Predicates":
        first = parts[0]
        return Predicates(first.names, *(np.concatenate([getattr(p, f) for p in parts])
                                         for f in ("column", "op", "code", "value")))


def _numeric(x: np.ndarray, op: np.ndarray, value: np.ndarray) -> np.ndarray:
    """``len(op) × len(x)``: each numeric condition on the records' numbers."""
    out = np.zeros((len(op), len(x)), dtype=np.bool_)
    nan = np.isnan(x)
    for code, compare in ((EQ, np.equal), (NE, np.not_equal), (LT, np.less), (GT, np.greater),
                          (LE, np.less_equal), (GE, np.greater_equal)):
        pick = np.flatnonzero(op == code)  # one block per operator (at most six)
        if len(pick):
            with np.errstate(invalid="ignore"):
                out[pick] = compare(x[None, :], value[pick][:, None]) & ~nan[None, :]
    for code, want in ((ISNULL, True), (NOTNULL, False)):
        pick = np.flatnonzero(op == code)
        if len(pick):
            out[pick] = nan[None, :] == want
    return out


def _categorical(tables: Tables, side: str, name: str, rows: np.ndarray, op: np.ndarray,
                 code: np.ndarray) -> np.ndarray:
    """``len(op) × len(rows)``: each categorical condition (``EQ``/``NE`` a label) on the records."""
    column = tables.columns[name]
    records = getattr(tables, side)[name][rows]
    if side == "release":
        hit = code[:, None] == records[None, :]
    else:
        hit = column.cover.covers(records, code).T
    flip = op == NE
    if flip.any():
        hit[flip] = ~hit[flip]
    return hit


def _hits(tables: Tables, side: str, predicates: Predicates, part: np.ndarray) -> np.ndarray:
    """``len(predicates) × len(part)``: does each predicate match each record ``part`` of ``side``?"""
    source = getattr(tables, side)
    b, m = predicates.column.shape
    hit = np.ones((b, len(part)), dtype=np.bool_)
    for j in range(m):  # one condition slot at a time (m is the attacker's n_cols)
        for c, name in enumerate(predicates.names):
            pick = np.flatnonzero(predicates.column[:, j] == c)
            if not len(pick):
                continue
            op, code = predicates.op[pick, j], predicates.code[pick, j]
            if tables.columns[name].numeric:
                cond = _numeric(source[name][part], op, predicates.value[pick, j])
            else:
                cond = _categorical(tables, side, name, part, op, code)
            hit[pick] &= cond
    return hit


def _all_rows(tables: Tables, side: str, rows: np.ndarray | None) -> np.ndarray:
    return np.arange(len(next(iter(getattr(tables, side).values())))) if rows is None else rows


def match_counts(tables: Tables, side: str, predicates: Predicates, rows: np.ndarray | None = None) -> np.ndarray:
    """How many records of ``side`` (``original``, ``control`` or ``release``) each predicate matches.

    ``rows`` restricts the records (positions); default: all of them.
    """
    rows = _all_rows(tables, side, rows)
    counts = np.zeros(len(predicates), dtype=np.int64)
    block = max(1, _BLOCK_CELLS // max(len(predicates), 1))
    for lo in range(0, len(rows), block):  # blocks of records, each one vectorised pass
        counts += _hits(tables, side, predicates, rows[lo:lo + block]).sum(axis=1)
    return counts


def sample_counts(tables: Tables, side: str, predicates: Predicates, rows: np.ndarray,
                  samples: np.ndarray) -> np.ndarray:
    """``len(predicates) × len(samples)``: how many records of each sample each predicate matches.

    ``samples`` is a ``samples × len(rows)`` 0/1 matrix (which of ``rows`` each sample holds): every
    record is compared with every predicate once, and each sample's counts are one matrix product.
    """
    counts = np.zeros((len(predicates), len(samples)), dtype=np.float64)
    block = max(1, (_BLOCK_CELLS // 4) // max(len(predicates), len(samples), 1))
    for lo in range(0, len(rows), block):  # blocks of records; float32 sums of 0/1 below 2^24 are exact
        hit = _hits(tables, side, predicates, rows[lo:lo + block]).astype(np.float32)
        counts += hit @ samples[:, lo:lo + block].T.astype(np.float32)
    return np.rint(counts).astype(np.int64)
