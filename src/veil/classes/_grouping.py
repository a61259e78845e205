"""The grouping kernel of the class table: rows of codes grouped by one int64 key, and codes counted."""

from __future__ import annotations

import weakref
from collections import OrderedDict
from collections.abc import Callable, Iterable, Sequence
from typing import Any, NamedTuple

import numpy as np
import pandas as pd

__all__ = ["SUPPRESSED", "COUNT_BY_COMPARING", "all_star_rows", "code_counts", "dense_space", "key_space", "pack_codes",
           "unpack_codes", "group_keys", "group_codes", "sum_by_key", "sum_by_sorted_key", "Regrouping", "regroup_codes",
           "KeyedInverse", "SortedInverse", "float_weights", "KEPT_BYTES"]

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


#: While the codes times their width in bytes stay within this, a column's codes are counted by
#: comparing them with each code (a compare per row each) rather than by ``np.bincount``, which
#: casts every code to a machine int first.  One compare against one bincount (2026-11-27, 2
#: cores): int8 2.4 us / 33 us at 30k rows, 51 us / 1.19 ms at 905k; int32 3.3 us / 32 us,
#: 172 us / 1.28 ms.
COUNT_BY_COMPARING = 12


def code_counts(codes: np.ndarray, n_codes: int) -> np.ndarray:
    """The rows of each of the codes ``0..n_codes-1`` (int64; ``codes`` are all in that range)."""
    if n_codes * codes.itemsize <= COUNT_BY_COMPARING:
        return np.array([np.count_nonzero(codes == code) for code in range(n_codes)], dtype=np.int64)
    return np.bincount(codes, minlength=n_codes).astype(np.int64, copy=False)


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
#: The bytes of float copies (:func:`float_weights`) and row positions (:func:`positions`) kept, each.
KEPT_BYTES = 64 << 20


def float_weights(weights: np.ndarray) -> np.ndarray:
    """``weights`` as float64, the copy kept while the array lives (the 16 last used, of 1024
    weights or more, within :data:`KEPT_BYTES`).

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
    while len(_FLOATS) > _FLOATS_KEPT or len(_FLOATS) > 1 and sum(f.nbytes for _, f in _FLOATS.values()) > KEPT_BYTES:
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
    used (within :data:`KEPT_BYTES`): a search's sorted roll-ups come from a few source tables, dozens of times each."""
    kept = _POSITIONS.get(n)
    if kept is None:
        kept = np.arange(n, dtype=np.int64)
        kept.setflags(write=False)
        _POSITIONS[n] = kept
        while len(_POSITIONS) > 8 or len(_POSITIONS) > 1 and sum(p.nbytes for p in _POSITIONS.values()) > KEPT_BYTES:
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
