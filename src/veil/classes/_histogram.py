"""A sensitive attribute's per-class counts: :class:`SensitiveHistogram`, and their roll-up.

A histogram of a few values is a dense classes x values matrix (its bytes at most
:data:`DENSE_VALUES` words per class); one of more values is held as the (class, value,
count) pairs that occur (:class:`~veil.classes._sparse.ClassValueCounts`), whose bytes
follow the records, not classes x values.  Either way :attr:`SensitiveHistogram.counts`
reads as the dense matrix (built on demand: for small tables and the callers that need
it) and :attr:`SensitiveHistogram.pairs` as the pairs; the models read the pairs.
"""

from __future__ import annotations

import weakref
from collections import OrderedDict
from dataclasses import dataclass
from functools import cached_property
from typing import Any

import numpy as np

from veil.classes._grouping import KeyedInverse
from veil.classes._sparse import ClassValueCounts
from veil.hierarchy import Hierarchy
from veil.schema import Kind

__all__ = ["DENSE_VALUES", "DENSE_READ_BYTES", "DERIVED_HISTOGRAM_BYTES", "DERIVED_HISTOGRAMS", "HistogramBudget",
           "SensitiveHistogram", "roll_up_histograms"]

#: Up to this many values a histogram is held dense (classes x values int64: 128 bytes a class at most).
DENSE_VALUES = 16

#: A dense matrix built from pairs (:attr:`SensitiveHistogram.counts`) is kept with the histogram up to
#: this many bytes; a larger one is built at every reading and dropped (no cache grows with values).
DENSE_READ_BYTES = 32 << 20

_KEEP = object()  # "unchanged" for an optional argument that may be None


class _Counts:
    """The ``counts`` field: given as a dense matrix or as pairs, read as the dense matrix.

    Stored as :func:`_stored` decides from the number of values, so the same histogram
    has one form whatever it was built from.
    """

    def __get__(self, hist: Any, owner: type | None = None) -> np.ndarray:
        if hist is None:
            raise AttributeError("counts")  # a field without a default
        return hist.dense()

    def __set__(self, hist: Any, value: Any) -> None:
        hist.__dict__["_stored"] = _stored(value)


def _stored(value: Any) -> np.ndarray | ClassValueCounts:
    """Dense for at most :data:`DENSE_VALUES` values, else pairs."""
    if isinstance(value, ClassValueCounts):
        return value.to_dense() if value.n_values <= DENSE_VALUES else value
    matrix = np.asarray(value)
    if matrix.ndim == 2 and matrix.shape[1] > DENSE_VALUES:
        return ClassValueCounts.from_dense(matrix)
    return matrix


@dataclass(frozen=True, eq=False, repr=False)
class SensitiveHistogram:
    """Per-class counts of one sensitive attribute's values.

    Attributes
    ----------
    name : str
        The attribute.
    labels : numpy.ndarray of str
        The value domain in the attribute's order (declared domain values that
        do not occur included).
    counts : numpy.ndarray of int64, shape (n_classes, n_values)
        ``counts[j, v]``: records of class ``j`` with value ``labels[v]``.  Given as a
        matrix or as :class:`~veil.classes._sparse.ClassValueCounts`; read as the matrix,
        which for more than :data:`DENSE_VALUES` values is built on reading (kept up to
        :data:`DENSE_READ_BYTES`): read :attr:`pairs`, :meth:`distinct`, :meth:`value_totals`,
        :meth:`class_top` or :meth:`modes` instead, whose cost follows the pairs.
    overall : numpy.ndarray of int64, shape (n_values,)
        Counts over the whole table (all records, suppressed ones included):
        the distribution t-closeness and δ-disclosure compare against.
    kind : Kind
        Categorical, ordinal, numeric or date (ordered distances need order).
    hierarchy : Hierarchy or None
        The attribute's hierarchy, for hierarchical distances.
    """

    name: str
    labels: np.ndarray
    counts: np.ndarray = _Counts()  # type: ignore[assignment]
    overall: np.ndarray  # type: ignore[misc]  # (counts has no default: its descriptor says so)
    kind: Kind = Kind.CATEGORICAL
    hierarchy: Hierarchy | None = None

    @property
    def n_values(self) -> int:
        return len(self.labels)

    @property
    def n_classes(self) -> int:
        stored = self.__dict__["_stored"]
        return stored.n_classes if isinstance(stored, ClassValueCounts) else len(stored)

    @property
    def is_dense(self) -> bool:
        """Whether the counts are held as a dense matrix (few values)."""
        return not isinstance(self.__dict__["_stored"], ClassValueCounts)

    @property
    def nbytes(self) -> int:
        """Bytes of the per-class counts as held (pairs, or the dense matrix)."""
        return int(self.__dict__["_stored"].nbytes)

    def dense(self) -> np.ndarray:
        """The ``(n_classes, n_values)`` matrix (see :attr:`counts`)."""
        stored = self.__dict__["_stored"]
        if not isinstance(stored, ClassValueCounts):
            return stored
        kept = self.__dict__.get("_dense")
        if kept is None:
            kept = stored.to_dense()
            if kept.nbytes <= DENSE_READ_BYTES:
                self.__dict__["_dense"] = kept
        return kept

    @property
    def pairs(self) -> ClassValueCounts:
        """The (class, value, count) pairs that occur, sorted by class then value."""
        stored = self.__dict__["_stored"]
        if isinstance(stored, ClassValueCounts):
            return stored
        made = self.__dict__.get("_pairs")
        if made is None:
            made = self.__dict__["_pairs"] = ClassValueCounts.from_dense(stored)
        return made

    def columns(self, values: "np.ndarray | list[int]") -> np.ndarray:
        """The dense ``(n_classes, len(values))`` counts of a few value codes."""
        stored = self.__dict__["_stored"]
        if isinstance(stored, ClassValueCounts):
            return stored.columns(np.asarray(values, dtype=np.int64))
        return stored[:, list(values)]

    def distinct(self) -> np.ndarray:
        """Distinct values per class (int64)."""
        stored = self.__dict__["_stored"]
        if isinstance(stored, ClassValueCounts):
            return stored.distinct()
        return np.count_nonzero(stored, axis=1).astype(np.int64, copy=False)

    def modes(self) -> np.ndarray:
        """Per class, the code of its most frequent value (the first in value order on a tie, as
        ``argmax`` of a dense row; 0 for an empty class)."""
        stored = self.__dict__["_stored"]
        if not isinstance(stored, ClassValueCounts):
            return np.argmax(stored, axis=1) if stored.shape[1] else np.zeros(len(stored), dtype=np.int64)
        order = np.lexsort((stored.values, -stored.counts, stored.classes))  # the classes keep their places
        begin = stored.starts[:-1]
        held = begin < stored.starts[1:]
        out = np.zeros(stored.n_classes, dtype=np.int64)
        out[held] = stored.values[order[begin[held]]]
        return out

    def class_top(self) -> np.ndarray:
        """Per class, the count of its most frequent value (int64; 0 for none)."""
        stored = self.__dict__["_stored"]
        if not isinstance(stored, ClassValueCounts):
            return stored.max(axis=1) if stored.shape[1] else np.zeros(len(stored), dtype=np.int64)
        return stored.class_max(stored.counts.astype(np.float64), 0.0).astype(np.int64)

    def value_totals(self) -> np.ndarray:
        """Records per value over the classes (int64)."""
        stored = self.__dict__["_stored"]
        return stored.value_totals() if isinstance(stored, ClassValueCounts) else stored.sum(axis=0)

    @cached_property
    def packed_weights(self) -> tuple[np.ndarray, int] | None:
        """For two values, each class's counts in one float, ``c0 + c1 * 2**shift``, and ``shift``
        (``2**shift`` above the first value's total): a sum of them over any classes is an
        integer below ``2**53``, exact, that unpacks to both sums (None when it might not be)."""
        counts = self.__dict__["_stored"]
        if not self.is_dense or counts.shape[1] != 2:
            return None
        first, second = (int(total) for total in counts.sum(axis=0))
        shift = max(first.bit_length(), 1)
        if second >= 1 << (53 - shift):
            return None
        return (counts[:, 0] + (counts[:, 1] << shift)).astype(np.float64), shift

    # -------------------------------------------------------------- derive
    def with_counts(self, counts: "np.ndarray | ClassValueCounts") -> "SensitiveHistogram":
        """The same attribute with other per-class counts (same labels and overall)."""
        return SensitiveHistogram(self.name, self.labels, counts, self.overall, self.kind, self.hierarchy)

    _with_counts = with_counts  # old name, kept for one release

    def with_overall(self, overall: np.ndarray) -> "SensitiveHistogram":
        """The same counts judged against another overall distribution (no dense copy made)."""
        return SensitiveHistogram(self.name, self.labels, self.__dict__["_stored"], overall, self.kind,
                                  self.hierarchy)

    def with_domain(self, labels: np.ndarray, position: np.ndarray, *, overall: np.ndarray | None = None,
                    hierarchy: Any = _KEEP) -> "SensitiveHistogram":
        """The counts over another value domain ``labels``: value ``v`` is ``labels[position[v]]``
        (-1: dropped, its counts with it); ``overall`` and ``hierarchy`` replaced when given."""
        position = np.asarray(position, dtype=np.int64)
        stored = self.__dict__["_stored"]
        if isinstance(stored, ClassValueCounts):
            counts: np.ndarray | ClassValueCounts = stored.with_values(position, len(labels))
        else:
            counts = np.zeros((len(stored), len(labels)), dtype=np.int64)
            kept = position >= 0
            counts[:, position[kept]] = stored[:, kept]
        return SensitiveHistogram(self.name, labels, counts, self.overall if overall is None else overall,
                                  self.kind, self.hierarchy if hierarchy is _KEEP else hierarchy)

    def take_classes(self, keep: np.ndarray) -> "SensitiveHistogram":
        """The classes where ``keep`` is true (a suppression's)."""
        stored = self.__dict__["_stored"]
        taken = stored.take(keep) if isinstance(stored, ClassValueCounts) else np.compress(keep, stored, axis=0)
        return self.with_counts(taken)

    def remainder(self) -> "SensitiveHistogram":
        """One class holding what :attr:`overall` counts beyond the classes (the suppressed records')."""
        rest = (self.overall - self.value_totals()).astype(np.int64)
        if self.is_dense:
            return self.with_counts(rest.reshape(1, -1))
        values = np.flatnonzero(rest)
        return self.with_counts(ClassValueCounts(np.zeros(len(values), dtype=np.int64), values, rest[values], 1,
                                                 len(rest)))

    def __repr__(self) -> str:
        return (f"SensitiveHistogram({self.name!r}, {self.n_classes} classes x {self.n_values} values, "
                f"{'dense' if self.is_dense else f'{self.pairs.n_pairs} pairs'})")


def roll_up_histograms(source: dict[str, SensitiveHistogram], mapping: "np.ndarray | KeyedInverse",
                       n_groups: int) -> dict[str, SensitiveHistogram]:
    """Histograms of ``n_groups`` classes summed from ``source``'s classes: class ``i``
    joins ``mapping[i]`` (-1: suppressed, left out), or the group of its key when
    ``mapping`` is a :class:`KeyedInverse` (summed by key, no index built for a dense one).

    A histogram of pairs is rolled up pair by pair (:meth:`ClassValueCounts.roll_up`): its
    cost follows the pairs, not the values."""
    out: dict[str, SensitiveHistogram] = {}
    index: np.ndarray | None = None
    for name, hist in source.items():
        if hist.is_dense:
            out[name] = hist.with_counts(_roll_up_dense(hist, mapping, n_groups))
            continue
        if index is None:
            index = mapping() if isinstance(mapping, KeyedInverse) else mapping
        out[name] = hist.with_counts(hist.pairs.roll_up(index, n_groups))
    return out


def _roll_up_dense(hist: SensitiveHistogram, mapping: "np.ndarray | KeyedInverse", n_groups: int) -> np.ndarray:
    """A dense histogram's counts summed by group, one pass per value (a few: :data:`DENSE_VALUES`)."""
    keyed = isinstance(mapping, KeyedInverse)
    every = keyed or len(mapping) == 0 or int(mapping.min()) >= 0
    v = hist.dense().shape[1]
    if n_groups == 0 or v == 0:
        return np.zeros((n_groups, v), dtype=np.int64)
    valid = None if every else mapping >= 0
    rows = mapping if every else mapping[valid]
    weights = hist.dense() if every else hist.dense()[valid]
    counts = np.empty((n_groups, v), dtype=np.int64)
    packed = hist.packed_weights if keyed else None
    if packed is not None:  # two values in one pass over the classes
        summed = mapping.sums(packed[0]).astype(np.int64)  # type: ignore[union-attr]
        counts[:, 0] = summed & ((1 << packed[1]) - 1)
        counts[:, 1] = summed >> packed[1]
        return counts
    for j in range(v):  # one pass per sensitive value (not per row); the float sums of
        # integer counts are exact integers, so the cast to int64 keeps them
        counts[:, j] = mapping.sums(weights[:, j]) if keyed else np.bincount(  # type: ignore[union-attr]
            rows, weights=weights[:, j], minlength=n_groups)
    return counts


#: The bytes of derived tables' histograms kept at once (see :class:`HistogramBudget`).
DERIVED_HISTOGRAM_BYTES = 256 << 20


class HistogramBudget:
    """The histograms that derived class tables keep, their bytes bounded.

    A search keeps dozens of tables (its cached nodes and hub tables), each with the
    histograms it rolled up: past ``limit`` bytes the histograms of the table that
    derived them longest ago are dropped from it (it rolls them up again from its base if
    they are asked for again).  A base table's histograms, built from the rows, are never
    held here nor dropped; neither are the last table's.
    """

    def __init__(self, limit: int) -> None:
        self.limit = limit
        self.total = 0
        self.held: OrderedDict[int, tuple[weakref.ref, int]] = OrderedDict()

    def keep(self, table: Any, histograms: dict[str, SensitiveHistogram]) -> dict[str, SensitiveHistogram]:
        """Count ``histograms`` (``table``'s, derived) and drop the oldest past the limit; returns them."""
        size = sum(h.nbytes for h in histograms.values())
        ident = id(table)
        self._forget(ident)
        self.held[ident] = (weakref.ref(table, lambda _: self._forget(ident)), size)
        self.total += size
        while self.total > self.limit and len(self.held) > 1:
            oldest, (ref, _) = next(iter(self.held.items()))
            self._forget(oldest)
            held = ref()
            if held is not None:
                held.__dict__.pop("sensitive", None)
        return histograms

    def _forget(self, ident: int) -> None:
        entry = self.held.pop(ident, None)
        if entry is not None:
            self.total -= entry[1]


#: The one budget of every derived table's histograms.
DERIVED_HISTOGRAMS = HistogramBudget(DERIVED_HISTOGRAM_BYTES)
