"""The grouping kernel of the class table: histograms, and rows of codes grouped by one int64 key."""

from __future__ import annotations

import weakref
from collections import OrderedDict
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from functools import cached_property
from typing import Any, NamedTuple

import numpy as np
import pandas as pd

from veil.hierarchy import Hierarchy
from veil.schema import Kind

__all__ = ["SUPPRESSED", "SensitiveHistogram", "all_star_rows", "dense_space", "key_space", "pack_codes", "unpack_codes", "group_keys", "group_codes", "sum_by_key", "sum_by_sorted_key",
           "Regrouping", "regroup_codes", "roll_up_histograms", "KeyedInverse", "SortedInverse",
           "float_weights"]

@dataclass(frozen=True, eq=False)
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
        ``counts[j, v]``: records of class ``j`` with value ``labels[v]``.
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
    counts: np.ndarray
    overall: np.ndarray
    kind: Kind = Kind.CATEGORICAL
    hierarchy: Hierarchy | None = None

    @property
    def n_values(self) -> int:
        return len(self.labels)

    @cached_property
    def packed_weights(self) -> tuple[np.ndarray, int] | None:
        """For two values, each class's counts in one float, ``c0 + c1 * 2**shift``, and ``shift``
        (``2**shift`` above the first value's total): a sum of them over any classes is an
        integer below ``2**53``, exact, that unpacks to both sums (None when it might not be)."""
        if self.counts.shape[1] != 2:
            return None
        first, second = (int(total) for total in self.counts.sum(axis=0))
        shift = max(first.bit_length(), 1)
        if second >= 1 << (53 - shift):
            return None
        return (self.counts[:, 0] + (self.counts[:, 1] << shift)).astype(np.float64), shift

    def with_counts(self, counts: np.ndarray) -> "SensitiveHistogram":
        """The same attribute with other per-class counts (same labels and overall)."""
        return SensitiveHistogram(self.name, self.labels, counts, self.overall, self.kind, self.hierarchy)

    _with_counts = with_counts  # old name, kept for one release


def roll_up_histograms(source: dict[str, SensitiveHistogram], mapping: "np.ndarray | KeyedInverse",
                       n_groups: int) -> dict[str, SensitiveHistogram]:
    """Histograms of ``n_groups`` classes summed from ``source``'s classes: class ``i``
    joins ``mapping[i]`` (-1: suppressed, left out), or the group of its key when
    ``mapping`` is a :class:`KeyedInverse` (summed by key, no index built)."""
    keyed = isinstance(mapping, KeyedInverse)
    every = keyed or len(mapping) == 0 or int(mapping.min()) >= 0
    valid = None if every else mapping >= 0
    rows = mapping if every else mapping[valid]
    out: dict[str, SensitiveHistogram] = {}
    for name, hist in source.items():
        v = hist.n_values
        if n_groups == 0 or v == 0:
            out[name] = hist.with_counts(np.zeros((n_groups, v), dtype=np.int64))
            continue
        weights = hist.counts if every else hist.counts[valid]
        counts = np.empty((n_groups, v), dtype=np.int64)
        packed = hist.packed_weights if keyed else None
        if packed is not None:  # two values in one pass over the classes
            summed = mapping.sums(packed[0]).astype(np.int64)  # type: ignore[union-attr]
            counts[:, 0] = summed & ((1 << packed[1]) - 1)
            counts[:, 1] = summed >> packed[1]
            out[name] = hist.with_counts(counts)
            continue
        for j in range(v):  # one pass per sensitive value (not per row); the float sums of
            # integer counts are exact integers, so the cast to int64 keeps them
            counts[:, j] = mapping.sums(weights[:, j]) if keyed else np.bincount(  # type: ignore[union-attr]
                rows, weights=weights[:, j], minlength=n_groups)
        out[name] = hist.with_counts(counts)
    return out


class KeyedInverse:
    """The class -> group index of a grouping by dense keys (:func:`sum_by_key`), built when
    called; :meth:`sums` sums per-class weights by group straight from the keys, without it.

    Most tables of a search are judged and dropped: their sensitive histograms are summed
    by key, and the index is built only for the few whose rows are asked for.
    """

    __slots__ = ("key", "keys", "space")

    def __init__(self, key: np.ndarray, keys: np.ndarray, space: int) -> None:
        self.key, self.keys, self.space = key, keys, space  # a class's key; the groups' keys, increasing

    def __call__(self) -> np.ndarray:
        ids = np.empty(self.space, dtype=np.int64)  # only the present keys' slots are read
        ids[self.keys] = np.arange(len(self.keys), dtype=np.int64)
        return ids[self.key]

    def sums(self, weights: np.ndarray) -> np.ndarray:
        """Each group's sum of ``weights`` (one per class, in the groups' order), as floats."""
        return np.bincount(self.key, weights=weights, minlength=self.space)[self.keys]


#: The label written for a suppressed QI value.
SUPPRESSED = "*"


def all_star_rows(encodings: Sequence[Any], n: int) -> np.ndarray:
    """The rows whose every one of ``encodings`` (encoded QI columns) reads :data:`SUPPRESSED`:
    records released suppressed before.  None when a column has no ``*`` at all."""
    stars = [np.flatnonzero(encoded.labels == SUPPRESSED) for encoded in encodings]
    rows = np.zeros(n, dtype=np.bool_)
    if stars and all(len(star) for star in stars):
        rows[:] = True
        for encoded, star in zip(encodings, stars):
            rows &= encoded.codes == star[0]
    return rows


def key_space(radices: Iterable[int]) -> int:
    """The number of keys the radices span: their product (a radix below 1 counts as 1)."""
    space = 1
    for r in radices:  # a plain loop: called a few times per roll-up of a search
        if r > 1:
            space *= int(r)
    return space


def pack_codes(columns: Iterable[np.ndarray], radices: Sequence[int], space: int | None = None) -> np.ndarray | None:
    """Pack code columns into one integer key (mixed radix), or None if it would overflow.

    The key is int32 when the key space fits in 31 bits, else int64.  ``columns``
    may be a generator: each column is read once, when it is packed, so only the
    key is held whole.  ``space``: the radices' :func:`key_space`, when the caller has it.
    """
    space = key_space(radices) if space is None else space
    if space >= 1 << 62:
        return None
    # int32 keys when they fit: half the memory traffic of the multiply-adds
    it = iter(columns)
    key = np.array(next(it), dtype=np.int32 if space < 1 << 31 else np.int64)
    for column, r in zip(it, radices[1:]):
        key *= int(r)
        key += column
    return key


def unpack_codes(keys: np.ndarray, radices: Sequence[int], maps: Sequence[np.ndarray] | None = None) -> np.ndarray:
    """Decode packed keys back to a ``(n, q)`` int32 code matrix; with ``maps``, each attribute's
    codes read through its map (``maps[i][code]``, gathered as the column is unpacked).

    A floor division by a scalar and a subtraction per attribute, which numpy vectorizes (a
    third of ``np.divmod``'s time).
    """
    q = len(radices)
    rows = np.empty((q, len(keys)), dtype=np.int32)  # one contiguous row per attribute, then transposed
    rest = keys.astype(np.int32) if key_space(radices) < 1 << 31 else keys  # int32 division is faster
    for i in range(q - 1, 0, -1):
        r = int(radices[i])
        if r == 1:  # one value: code 0, nothing to divide
            rows[i] = 0 if maps is None else maps[i][0]
            continue
        above = rest // r
        column = rest - above * r
        if maps is None:
            rows[i] = column
        else:
            np.take(maps[i], column, out=rows[i])
        rest = above
    if q:
        rows[0] = rest if maps is None else maps[0].take(rest)
    return np.ascontiguousarray(rows.T)


def factorize_keys(key: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """``pandas.factorize(key, sort=False)`` of integer keys: (each key's group as int64, the distinct
    keys as int64), the groups numbered in order of first appearance.

    (Arrow's dictionary encoding hashes 905k keys faster on fresh memory, 12-14 against 20-21 ms,
    but the steps after it then ran slower by as much: Adult x30's whole call 206-210 against
    203-207 ms, 2026-11-27.)
    """
    inverse, distinct = pd.factorize(key, sort=False)
    return inverse.astype(np.int64, copy=False), np.asarray(distinct, dtype=np.int64)


def dense_space(space: int, n: int) -> bool:
    """Whether ``n`` keys below ``space`` are grouped through a dense array of ``space`` slots (at
    most 4 per key, plus 4,096) rather than by hashing or sorting them: the one rule of every
    grouping."""
    return space <= 4 * n + 4096


def group_keys(key: np.ndarray, space: int) -> tuple[np.ndarray, np.ndarray]:
    """Group int64 keys: (distinct keys, inverse index).

    Uses a dense presence array when the key space is small next to the number
    of keys (linear time), otherwise a hash table (``pandas.factorize``).
    """
    if dense_space(space, len(key)):
        present = np.zeros(space, dtype=np.bool_)
        present[key] = True
        keys = np.flatnonzero(present)
        ids = np.empty(space, dtype=np.int64)  # only the present keys' slots are read
        ids[keys] = np.arange(len(keys), dtype=np.int64)
        return keys, ids[key]
    inverse, keys = factorize_keys(key)
    return keys, inverse


#: Float copies of integer weights, by the id of their array (see :func:`float_weights`).
_FLOATS: OrderedDict[int, tuple[weakref.ref, np.ndarray]] = OrderedDict()
_FLOATS_KEPT, _FLOATS_MIN = 16, 1024


def float_weights(weights: np.ndarray) -> np.ndarray:
    """``weights`` as float64, the copy kept while the array lives (the 16 last used, of 1024
    weights or more).

    ``numpy.bincount`` converts integer weights to floats at every call, and a search sums
    the class sizes of one hub or base table for dozens of roll-ups.  A copy is used only
    for the very array it was made from (held weakly, dropped with it); the grouping never
    writes weights, nor does anything write a class table's sizes once it is built.
    """
    if weights.dtype == np.float64 or len(weights) < _FLOATS_MIN:
        return weights
    ident = id(weights)
    kept = _FLOATS.get(ident)
    if kept is not None and kept[0]() is weights:
        _FLOATS.move_to_end(ident)
        return kept[1]
    floats = weights.astype(np.float64)
    floats.flags.writeable = False  # shared by every caller while ``weights`` lives
    _FLOATS[ident] = (weakref.ref(weights, lambda _: _FLOATS.pop(ident, None)), floats)
    while len(_FLOATS) > _FLOATS_KEPT:
        _FLOATS.popitem(last=False)
    return floats


def sum_by_key(
    key: np.ndarray, space: int, weights: np.ndarray
) -> tuple[np.ndarray, np.ndarray, Callable[[], np.ndarray]] | None:
    """Group int keys and sum positive integer ``weights`` per key, in one pass.

    Returns (distinct keys, their summed weights as int64, a function giving
    the inverse index on demand), or ``None`` when the key space is too large
    next to the number of keys for a dense array (use :func:`group_keys`).
    A search judges most nodes from their class sizes alone, so the inverse
    index (one int per source class) is built only for the nodes that need it.
    Every weight must be positive: a key whose weights sum to 0 would vanish.
    """
    if not dense_space(space, len(key)):
        return None
    total = np.bincount(key, weights=float_weights(weights), minlength=space)
    keys = (total > 0).nonzero()[0]  # a boolean scan: 5-20x faster than one over the floats
    sums = total[keys].astype(np.int64)  # float sums of integers are exact integers
    return keys, sums, KeyedInverse(key, keys, space)


class SortedInverse:
    """The row -> group index of a grouping by sorted keys (:func:`sum_by_sorted_key`), built
    when called, from the rows in key order and the flags of each group's first row."""

    __slots__ = ("order", "first", "starts")

    def __init__(self, order: np.ndarray, first: np.ndarray, starts: np.ndarray) -> None:
        self.order, self.first, self.starts = order, first, starts

    def __call__(self) -> np.ndarray:
        index = np.empty(len(self.order), dtype=np.int64)
        index[self.order] = np.cumsum(self.first, dtype=np.int64) - 1
        return index

    def members(self) -> np.ndarray:
        """One row of each group (its first in the original order), group by group."""
        return self.order[self.starts]


#: Row positions ``0 .. n-1`` (read-only int64) by ``n``, the 8 last used (see :func:`positions`).
_POSITIONS: OrderedDict[int, np.ndarray] = OrderedDict()


def positions(n: int) -> np.ndarray:
    """``np.arange(n)`` as read-only int64, made once per ``n`` while it is among the 8 last
    used: a search's sorted roll-ups come from a few source tables, dozens of times each."""
    kept = _POSITIONS.get(n)
    if kept is None:
        kept = np.arange(n, dtype=np.int64)
        kept.setflags(write=False)
        _POSITIONS[n] = kept
        while len(_POSITIONS) > 8:
            _POSITIONS.popitem(last=False)
    else:
        _POSITIONS.move_to_end(n)
    return kept


def sum_by_sorted_key(
    key: np.ndarray, space: int, weights: np.ndarray
) -> tuple[np.ndarray, np.ndarray, SortedInverse] | None:
    """:func:`sum_by_key` for a key space too large for a dense array: each key and its
    position are packed into one int64 (the position in the low bits) and sorted, so
    that one sort of plain integers groups the keys and gives the order of their rows.

    Returns the distinct keys in increasing order (as :func:`sum_by_key` does), their
    summed weights (int64) and the inverse index (:class:`SortedInverse`, built when
    called), or ``None`` when a key and a position do not fit in 62 bits together.
    """
    n = len(key)
    bits = max((n - 1).bit_length(), 1)
    if n == 0 or space >= 1 << (62 - bits):
        return None
    packed = np.left_shift(key, bits, dtype=np.int64)
    packed |= positions(n)
    packed.sort()
    grouped = packed >> bits
    order = packed & ((1 << bits) - 1)  # the rows, sorted by key
    first = np.empty(n, dtype=np.bool_)
    first[0] = True
    np.not_equal(grouped[1:], grouped[:-1], out=first[1:])
    starts = np.flatnonzero(first)
    sums = np.add.reduceat(weights[order], starts).astype(np.int64, copy=False)
    return grouped[starts], sums, SortedInverse(order, first, starts)


def group_codes(codes: np.ndarray, radices: Sequence[int]) -> tuple[np.ndarray, np.ndarray]:
    """Group the rows of ``codes``: return (unique rows, inverse index).

    Packs each row into one int64 key; when the product of radices does not
    fit in 62 bits it falls back to ``np.unique(axis=0)``.
    """
    n, q = codes.shape
    if q == 0:
        return np.zeros((1 if n else 0, 0), dtype=np.int32), np.zeros(n, dtype=np.int64)
    key = pack_codes((codes[:, i] for i in range(q)), radices)
    if key is None:
        uniq, inverse = np.unique(codes, axis=0, return_inverse=True)
        return uniq.astype(np.int32), inverse.reshape(-1).astype(np.int64)
    keys, inverse = group_keys(key, key_space(radices))
    return unpack_codes(keys, radices), inverse


class Regrouping(NamedTuple):
    """Classes grouped by their codes at new levels (:func:`regroup_codes`).

    ``codes`` and ``inverse`` (class -> group) may be functions that build them on
    first use; ``counts`` is ``None`` when the caller sums the class sizes itself.
    """

    codes: np.ndarray | Callable[[], np.ndarray]
    inverse: np.ndarray | Callable[[], np.ndarray]
    counts: np.ndarray | None
    n_groups: int


def regroup_codes(column: Callable[[int], np.ndarray], radices: Sequence[int], counts: np.ndarray, *,
                  positive: bool) -> Regrouping:
    """Group classes by their codes: ``column(i)`` gives attribute ``i``'s code per class
    (int32), ``radices[i]`` its number of values, ``counts`` the class sizes (all
    ``positive``, or the dense one-pass sum is not used).

    An attribute with one value adds nothing to the key.  A dense key space sums the
    sizes in one pass and builds the inverse only on demand; a sparse one is sorted (or
    hashed) and each group's codes are read at one of its members.
    """
    q = len(radices)
    varying = [i for i, r in enumerate(radices) if r > 1]
    columns = [column(i) for i in varying]
    space = key_space(radices)  # that of the varying attributes: the others' radices are 1
    key = (pack_codes(columns, [radices[i] for i in varying], space) if columns
           else np.zeros(len(counts), dtype=np.int32))
    if key is None:
        matrix = np.zeros((len(counts), q), dtype=np.int32)
        for i, values in zip(varying, columns):
            matrix[:, i] = values
        codes, inverse = group_codes(matrix, radices)
        return Regrouping(codes, inverse, None, len(codes))
    dense = sum_by_key(key, space, counts) if positive else None
    if dense is not None:
        keys, sums, regrouping = dense
        return Regrouping(lambda: unpack_codes(keys, radices), regrouping, sums, len(keys))
    ordered = sum_by_sorted_key(key, space, counts) if positive else None
    if ordered is not None:
        keys, sums, inverse = ordered
        return Regrouping(lambda: _member_codes(columns, varying, q, inverse.members()), inverse, sums, len(keys))
    keys, index = group_keys(key, space)
    return Regrouping(lambda: _member_codes(columns, varying, q, _members(index, len(keys))), index, None, len(keys))


def _members(inverse: np.ndarray, n_groups: int) -> np.ndarray:
    """One row of each group of ``inverse`` (row -> group), group by group."""
    member = np.empty(n_groups, dtype=np.int64)
    member[inverse] = np.arange(len(inverse), dtype=np.int64)
    return member


def _member_codes(columns: Sequence[np.ndarray], varying: Sequence[int], q: int, member: np.ndarray) -> np.ndarray:
    """Each group's codes, read at one of its members (all members share them): ``q`` gathers
    of the groups instead of a division and a remainder per attribute over the packed keys."""
    codes = np.zeros((len(member), q), dtype=np.int32)
    for i, values in zip(varying, columns):
        codes[:, i] = values[member]
    return codes
