"""Per-class counts of a sensitive attribute as the (class, value, count) triples that occur.

A sensitive attribute with many values (an income, a postcode of residence) spreads a few
records over each of thousands of values: a classes x values matrix of it is almost all zeros,
and summing one per generalization costs classes x values.  :class:`ClassValueCounts` keeps
only the pairs that occur, sorted by class then value (a CSR matrix whose row index is built
when asked), so that building, rolling up, suppressing and every model's arithmetic follow
the number of pairs: at most the number of records, whatever the number of values.
"""

from __future__ import annotations

import numpy as np

from veil.classes._grouping import dense_space, float_weights, sum_by_sorted_key

__all__ = ["ClassValueCounts"]


def _index_type(n: int) -> type:
    """int32 for indices below ``2**31``, else int64 (half the bytes of the usual case)."""
    return np.int32 if n < 1 << 31 else np.int64


class ClassValueCounts:
    """The (class, value, count) triples of a classes x values count matrix with a count above 0.

    Attributes
    ----------
    classes : numpy.ndarray of int32 (int64 past ``2**31`` classes), shape (P,)
        Each pair's class, non-decreasing.
    values : numpy.ndarray of int32 (int64 past ``2**31`` values), shape (P,)
        Each pair's value code, increasing within a class.
    counts : numpy.ndarray of int64, shape (P,)
        Records of that class with that value, every one above 0.
    n_classes, n_values : int
        The shape of the matrix the pairs stand for.

    Do not modify the arrays: tables derived from one another share them.

    Examples
    --------
    >>> pairs = ClassValueCounts.from_dense(np.array([[2, 0, 1], [0, 0, 4]]))
    >>> pairs.classes.tolist(), pairs.values.tolist(), pairs.counts.tolist()
    ([0, 0, 1], [0, 2, 2], [2, 1, 4])
    >>> pairs.roll_up(np.array([0, 0]), 1).to_dense().tolist()
    [[2, 0, 5]]
    """

    __slots__ = ("classes", "values", "counts", "n_classes", "n_values", "_starts")

    def __init__(self, classes: np.ndarray, values: np.ndarray, counts: np.ndarray, n_classes: int,
                 n_values: int) -> None:
        self.classes = classes.astype(_index_type(n_classes), copy=False)
        self.values = values.astype(_index_type(n_values), copy=False)
        self.counts = counts.astype(np.int64, copy=False)
        self.n_classes, self.n_values = int(n_classes), int(n_values)
        self._starts: np.ndarray | None = None

    # ------------------------------------------------------------------ make
    @classmethod
    def from_dense(cls, matrix: np.ndarray) -> "ClassValueCounts":
        """The pairs of a ``(n_classes, n_values)`` count matrix (row-major order is class then value)."""
        matrix = np.asarray(matrix, dtype=np.int64)
        g, v = matrix.shape
        classes, values = np.nonzero(matrix)
        return cls(classes, values, matrix[classes, values], g, v)

    @classmethod
    def from_keys(cls, key: np.ndarray, weights: np.ndarray | None, n_classes: int,
                  n_values: int) -> "ClassValueCounts":
        """The pairs of ``key = class * n_values + value`` (one per record, or per row of
        ``weights`` records, every weight above 0): their counts summed.

        A key space of at most about four slots per key is counted in a dense array (one
        pass); a larger one is sorted (one sort of plain integers), so the memory is a few
        words per key either way.
        """
        key = np.asarray(key, dtype=np.int64)
        space = n_classes * n_values
        if len(key) == 0 or space == 0:
            empty = np.zeros(0, dtype=np.int64)
            return cls(empty, empty, empty, n_classes, n_values)
        if dense_space(space, len(key)):
            total = np.bincount(key, weights=None if weights is None else float_weights(weights), minlength=space)
            keys = np.flatnonzero(total)
            sums = total[keys].astype(np.int64) if weights is None else np.rint(total[keys]).astype(np.int64)
        else:
            keys, sums = _sum_sorted(key, space, weights)
        classes = keys // n_values
        return cls(classes, keys - classes * n_values, sums, n_classes, n_values)

    # ----------------------------------------------------------------- facts
    @property
    def n_pairs(self) -> int:
        return len(self.counts)

    @property
    def nbytes(self) -> int:
        """Bytes held by the pairs (and their row index once built)."""
        held = self.classes.nbytes + self.values.nbytes + self.counts.nbytes
        return held + (0 if self._starts is None else self._starts.nbytes)

    @property
    def starts(self) -> np.ndarray:
        """``(n_classes + 1,)`` int64: class ``j``'s pairs are ``starts[j]:starts[j + 1]`` (built once)."""
        if self._starts is None:
            starts = np.zeros(self.n_classes + 1, dtype=np.int64)
            np.cumsum(np.bincount(self.classes, minlength=self.n_classes), out=starts[1:])
            self._starts = starts
        return self._starts

    def class_sizes(self) -> np.ndarray:
        """Records per class (int64)."""
        return self.class_sums(self.counts)

    def distinct(self) -> np.ndarray:
        """Distinct values per class (int64): its pairs."""
        return np.bincount(self.classes, minlength=self.n_classes).astype(np.int64, copy=False)

    def value_totals(self) -> np.ndarray:
        """Records per value over every class (int64, ``n_values``)."""
        return np.rint(np.bincount(self.values, weights=self.counts.astype(np.float64),
                                   minlength=self.n_values)).astype(np.int64)

    # ------------------------------------------------------- per-class sums
    def class_sums(self, x: np.ndarray) -> np.ndarray:
        """Per class, the sum of ``x`` (one number per pair) over its pairs, exact for integers
        (0 for a class without pairs)."""
        out = np.zeros(self.n_classes, dtype=x.dtype)
        if len(x):
            begin = self.starts[:-1]
            held = begin < self.starts[1:]
            out[held] = np.add.reduceat(x, begin[held])
        return out

    def class_float_sums(self, x: np.ndarray) -> np.ndarray:
        """Per class, the sum of the floats ``x`` over its pairs added one by one in value
        order (so that a dense row summed left to right, zeros and all, gives the same double)."""
        return np.bincount(self.classes, weights=x, minlength=self.n_classes)

    def class_max(self, x: np.ndarray, initial: float) -> np.ndarray:
        """Per class, the largest of ``initial`` and ``x`` over its pairs (float64)."""
        out = np.full(self.n_classes, initial, dtype=np.float64)
        if len(x):
            begin = self.starts[:-1]
            held = begin < self.starts[1:]
            out[held] = np.maximum(np.maximum.reduceat(x, begin[held]), initial)
        return out

    def class_any(self, flags: np.ndarray) -> np.ndarray:
        """Per class, whether any of its pairs' ``flags`` is true."""
        return np.bincount(self.classes[flags], minlength=self.n_classes) > 0

    # ------------------------------------------------------------- transform
    def roll_up(self, mapping: np.ndarray, n_groups: int) -> "ClassValueCounts":
        """The pairs of ``n_groups`` groups: class ``i`` joins group ``mapping[i]`` (-1: left out)."""
        group = np.asarray(mapping, dtype=np.int64).take(self.classes)
        counts = self.counts
        if len(group) and int(group.min()) < 0:
            kept = group >= 0
            group, counts, values = group[kept], counts[kept], self.values[kept]
        else:
            values = self.values
        return ClassValueCounts.from_keys(group * self.n_values + values, counts, n_groups, self.n_values)

    def take(self, keep: np.ndarray) -> "ClassValueCounts":
        """The classes where ``keep`` (bool, per class) is true, renumbered in order."""
        renumber = np.cumsum(keep, dtype=np.int64) - 1
        rows = keep.take(self.classes)
        return ClassValueCounts(renumber.take(self.classes[rows]), self.values[rows], self.counts[rows],
                                int(np.count_nonzero(keep)), self.n_values)

    def with_values(self, position: np.ndarray, n_values: int) -> "ClassValueCounts":
        """Value ``v`` renamed ``position[v]`` among ``n_values`` (-1: dropped), re-sorted when needed."""
        code = np.asarray(position, dtype=np.int64).take(self.values)
        kept = code >= 0
        classes, counts = self.classes, self.counts
        if not kept.all():
            classes, code, counts = classes[kept], code[kept], counts[kept]
        return ClassValueCounts.from_keys(classes.astype(np.int64) * n_values + code, counts, self.n_classes,
                                          n_values)

    def to_dense(self) -> np.ndarray:
        """The ``(n_classes, n_values)`` int64 matrix (classes x values bytes: for small ones)."""
        dense = np.zeros((self.n_classes, self.n_values), dtype=np.int64)
        dense[self.classes, self.values] = self.counts
        return dense

    def columns(self, values: np.ndarray) -> np.ndarray:
        """The dense ``(n_classes, len(values))`` columns of the given value codes."""
        slot = np.full(self.n_values, -1, dtype=np.int64)
        slot[np.asarray(values, dtype=np.int64)] = np.arange(len(values))
        where = slot.take(self.values)
        held = where >= 0
        out = np.zeros((self.n_classes, len(values)), dtype=np.int64)
        out[self.classes[held], where[held]] = self.counts[held]
        return out

    def __repr__(self) -> str:
        return f"ClassValueCounts({self.n_pairs} pairs, {self.n_classes} classes x {self.n_values} values)"


def _sum_sorted(key: np.ndarray, space: int, weights: np.ndarray | None) -> tuple[np.ndarray, np.ndarray]:
    """The distinct keys, increasing, and their summed weights (one each when None), by sorting."""
    ones = np.ones(len(key), dtype=np.int64) if weights is None else weights
    ordered = sum_by_sorted_key(key, space, ones)
    if ordered is not None:
        return ordered[0], ordered[1]
    keys, inverse = np.unique(key, return_inverse=True)
    return keys, np.rint(np.bincount(inverse.reshape(-1), weights=ones.astype(np.float64),
                                     minlength=len(keys))).astype(np.int64)
