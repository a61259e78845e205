"""What a synthesis reads of the data: a weighted class table of the encoded records.

Every figure MST (and AIM) computes from the data is a marginal count, so the
data enters a synthesis once, as a *class table*: the distinct encoded records
(``codes``, an (m, d) int array) and how many records share each
(``weights``).  Locally it is built from the encoded rows; an engine builds
it with one ``GROUP BY`` over the encoded columns (:mod:`._engine`), or, when
that table would be too large, answers each marginal with its own group count
(:class:`MarginalQueries` there).  Both answer :meth:`ClassTable.marginal`
(a dense count table, for measuring) and :meth:`ClassTable.sparse` (the
non-zero cells, for the report's total-variation errors).

A pandas frame is a data source too (:class:`FrameSource`): the same three
questions an engine answers (:meth:`FrameSource.column_facts` and
:meth:`FrameSource.stored_kinds` for the domain checks, :meth:`FrameSource.value_counts` for learning a text
column's categories, :meth:`FrameSource.class_table` for the counts).
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass
from typing import Any, Mapping, Sequence

import numpy as np
import pandas as pd

from veil.data import format_labels
from veil.dp.synthesis._domain import ColumnDomain, ColumnFacts, encode, local_facts, local_kinds
from veil.dp.synthesis._mst import marginal

__all__ = ["marginal", "ClassTable", "class_table", "pack", "unpack", "ClassTally", "FrameSource", "as_source",
           "category_counts", "tv_errors", "MAX_KEY"]

#: Codes are packed into one int64 key when the product of the domain sizes stays below this.
MAX_KEY = 2 ** 62
#: A marginal of at most this many cells is counted densely (``bincount``) rather than sorted.
DENSE_CELLS = 1 << 22


def pack(codes: np.ndarray, sizes: Sequence[int]) -> np.ndarray | None:
    """Each row of ``codes`` as one int64 key (mixed radix ``sizes``), or None when the
    domain is too large for int64."""
    if float(np.prod([float(k) for k in sizes])) >= MAX_KEY:
        return None
    if not len(codes):
        return np.zeros(0, dtype=np.int64)
    return np.ravel_multi_index(tuple(np.asarray(codes, dtype=np.int64).T), tuple(int(k) for k in sizes))


def unpack(keys: np.ndarray, sizes: Sequence[int]) -> np.ndarray:
    """The (m, d) codes of packed ``keys``."""
    if not len(sizes):
        return np.zeros((len(keys), 0), dtype=np.int64)
    return np.column_stack(np.unravel_index(keys, tuple(int(k) for k in sizes))).astype(np.int64)


@dataclass(frozen=True, slots=True)
class ClassTable:
    """The distinct encoded records ``codes`` (m × d), their counts ``weights`` (None: 1 each)
    and the domain size of each column."""

    codes: np.ndarray
    weights: np.ndarray | None
    sizes: tuple[int, ...]

    @property
    def total(self) -> float:
        """The number of records."""
        return float(len(self.codes) if self.weights is None else np.sum(self.weights, dtype=float))

    def marginal(self, cols: Sequence[int]) -> np.ndarray:
        """The dense count table of ``cols`` (shape ``sizes[cols]``)."""
        return marginal(self.codes, self.weights, list(self.sizes), cols)

    def tally(self) -> "ClassTally":
        """An empty tally of the same domain (for the synthetic rows)."""
        return ClassTally(self.sizes)

    def sparse(self, cols: Sequence[int]) -> tuple[np.ndarray, np.ndarray]:
        """The non-empty cells of the marginal of ``cols``: their keys (``ravel_multi_index``
        over ``sizes[cols]``) and counts, keys sorted."""
        cols = [int(c) for c in cols]
        dims = tuple(self.sizes[c] for c in cols)
        if not len(self.codes):
            return np.zeros(0, dtype=np.int64), np.zeros(0)
        key = np.ravel_multi_index(tuple(self.codes[:, cols].T), dims)
        w = None if self.weights is None else np.asarray(self.weights, dtype=float)
        cells = float(np.prod([float(k) for k in dims]))
        if cells <= max(DENSE_CELLS, 4.0 * len(key)):  # a dense count: no sort
            dense = np.bincount(key, weights=w, minlength=int(cells)).astype(float)
            keys = np.nonzero(dense)[0]
            return keys, dense[keys]
        keys, inverse = np.unique(key, return_inverse=True)
        return keys, np.bincount(inverse, weights=w, minlength=keys.size).astype(float)


def class_table(codes: np.ndarray, sizes: Sequence[int]) -> ClassTable:
    """The class table of encoded rows: their distinct records and counts (``np.unique`` of the
    packed keys; rows of a domain too large for one int64 key are grouped row-wise)."""
    sizes = tuple(int(k) for k in sizes)
    keys = pack(codes, sizes)
    if keys is None:
        distinct, counts = np.unique(np.asarray(codes, dtype=np.int64), axis=0, return_counts=True)
        return ClassTable(distinct, counts.astype(np.int64), sizes)
    distinct, counts = np.unique(keys, return_counts=True)
    return ClassTable(unpack(distinct, sizes), counts.astype(np.int64), sizes)


class ClassTally:
    """A class table accumulated chunk by chunk (the synthetic rows, never all held at once)."""

    def __init__(self, sizes: Sequence[int]) -> None:
        self.sizes = tuple(int(k) for k in sizes)
        self._tables: list[ClassTable] = []

    def add(self, codes: np.ndarray) -> None:
        """Count the rows ``codes`` (merged with what was counted before)."""
        self._tables.append(class_table(codes, self.sizes))
        if len(self._tables) > 1:
            self._tables = [self._merged()]

    def _merged(self) -> ClassTable:
        codes = np.concatenate([t.codes for t in self._tables])
        weights = np.concatenate([t.weights for t in self._tables])
        keys = pack(codes, self.sizes)
        if keys is None:
            distinct, inverse = np.unique(codes, axis=0, return_inverse=True)
        else:
            uniq, inverse = np.unique(keys, return_inverse=True)
            distinct = unpack(uniq, self.sizes)
        total = np.bincount(inverse.ravel(), weights=weights, minlength=len(distinct))
        return ClassTable(distinct, np.rint(total).astype(np.int64), self.sizes)

    def table(self) -> ClassTable:
        """Everything counted so far."""
        if not self._tables:
            return ClassTable(np.zeros((0, len(self.sizes)), dtype=np.int64), np.zeros(0, dtype=np.int64), self.sizes)
        return self._tables[0]


def category_counts(values: pd.Series) -> dict[str, int]:
    """The count of each present value of a column, by its label (:func:`veil.data.format_labels`)."""
    counts = format_labels(values).dropna().value_counts()
    return {str(k): int(v) for k, v in counts.items()}


@dataclass(frozen=True, slots=True)
class FrameSource:
    """A pandas frame (read as text) as the data of a synthesis."""

    frame: pd.DataFrame

    @property
    def columns(self) -> list[str]:
        return [str(c) for c in self.frame.columns]

    def column_facts(self, names: Sequence[str], max_categories: int) -> dict[str, ColumnFacts]:
        """For each column: whether it is numeric and whether it has more than ``max_categories`` values."""
        return {name: local_facts(self.frame[name], max_categories) for name in names}

    def stored_kinds(self, names: Sequence[str]) -> dict[str, str]:
        """The columns that hold booleans or bytes (:func:`veil.dp.synthesis._domain.local_kinds`)."""
        return local_kinds(self.frame, list(names))

    def value_counts(self, name: str) -> dict[str, int]:
        return category_counts(self.frame[name])

    def class_table(self, domains: list[ColumnDomain], cliques: Sequence[Sequence[int]] = ()) -> ClassTable:
        """The class table (``cliques``, the workload's marginals, matter only to an engine's fallback)."""
        codes = encode(self.frame, domains)
        return class_table(codes, [d.size for d in domains])


def as_source(data: Any) -> Any:
    """``data`` as a synthesis source: a frame is wrapped; an engine source is returned as is."""
    if isinstance(data, pd.DataFrame):
        return FrameSource(data)
    if isinstance(data, Mapping):
        return FrameSource(pd.DataFrame(data))
    return data


def _tv(real: tuple[np.ndarray, np.ndarray], synth: tuple[np.ndarray, np.ndarray]) -> float:
    """Total-variation distance of two sparse count tables (sorted keys, counts)."""
    keys = np.union1d(real[0], synth[0])
    p, q = np.zeros(keys.size), np.zeros(keys.size)
    p[np.searchsorted(keys, real[0])] = real[1]
    q[np.searchsorted(keys, synth[0])] = synth[1]
    return float(0.5 * np.abs(p / max(p.sum(), 1e-300) - q / max(q.sum(), 1e-300)).sum())


def tv_errors(real: Any, synth: Any, d: int, *, max_way: int = 3) -> dict:
    """The average total-variation distance between the 1-, 2- and 3-way marginals of two
    tables (objects with ``sparse(cols)`` and ``total``, e.g. :class:`ClassTable`); ``None``
    for an order above ``d`` (or ``max_way``), 1.0 for a marginal when either table is empty."""
    out: dict[str, float | None] = {}
    empty = real.total <= 0 or synth.total <= 0
    for way in (1, 2, 3):
        combos = list(itertools.combinations(range(d), way)) if way <= max_way else []
        errs = [1.0 if empty else _tv(real.sparse(cols), synth.sparse(cols)) for cols in combos]
        out[f"{way}way"] = float(np.mean(errs)) if errs else None
    return out
