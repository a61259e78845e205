"""Checks and lookups shared by the utility metrics (label histograms, weights, leaf frequencies)."""

from __future__ import annotations

import math
import numbers
import weakref
from collections.abc import Callable, Hashable, Iterable, Mapping, Sequence
from typing import Any, TypeVar

import numpy as np
import pandas as pd

from veil._validation import check_int
from veil.classes import ClassTable, SensitiveHistogram, float_weights
from veil.errors import ColumnNotFoundError, ParameterError

__all__ = [
    "label_histogram", "attribute_weights", "per_base", "leaf_counts", "covered_beyond_leaf", "float_counts", "check_k", "match_rows", "packs",
    "pack_columns", "match_keys",
]

_T = TypeVar("_T")
#: What :func:`per_base` computed, by base table (dropped with it) and key.
_PER_BASE: weakref.WeakKeyDictionary[ClassTable, dict[Hashable, Any]] = weakref.WeakKeyDictionary()


def label_histogram(classes: ClassTable, label: str, owner: str) -> SensitiveHistogram:
    """The per-class histogram of ``label`` (built by the caller as a sensitive attribute)."""
    if not isinstance(label, str):
        raise ParameterError(
            f"The 'label' parameter of {owner} must be the name of an attribute of the class "
            f"table's sensitive histograms. Got {label!r} instead."
        )
    try:
        return classes.sensitive[label]
    except KeyError:
        known = ", ".join(repr(k) for k in classes.sensitive) or "none"
        raise ColumnNotFoundError(
            f"The label {label!r} of {owner} has no histogram in the class table (its sensitive "
            f"attributes are: {known}); build the table with the label as a sensitive attribute."
        ) from None


def attribute_weights(
    classes: ClassTable, weights: Mapping[str, float] | Sequence[float] | None, owner: str
) -> np.ndarray:
    """One non-negative finite weight per QI (default 1; a mapping may omit QIs, which get 1)."""
    q = len(classes.quasi_identifiers)
    if weights is None:
        return np.ones(q)
    if isinstance(weights, Mapping):
        unknown = [name for name in weights if name not in classes.quasi_identifiers]
        if unknown:
            raise ColumnNotFoundError(
                f"The 'weights' parameter of {owner} names {unknown[0]!r}, which is not a "
                f"quasi-identifier of the class table ({', '.join(classes.quasi_identifiers)})."
            )
        values = [weights.get(name, 1.0) for name in classes.quasi_identifiers]
    else:
        values = list(weights)
        if len(values) != q:
            raise ParameterError(
                f"The 'weights' parameter of {owner} must have one weight per quasi-identifier "
                f"({q}). Got {len(values)} instead."
            )
    for value in values:
        if (
            isinstance(value, bool) or not isinstance(value, numbers.Real)
            or not math.isfinite(float(value)) or float(value) < 0
        ):
            raise ParameterError(
                f"The 'weights' parameter of {owner} must hold floats in [0, inf). Got {value!r} instead."
            )
    return np.asarray(values, dtype=np.float64)


def check_k(k: object, owner: str) -> int:
    return check_int("k", k, owner, low=1)


def per_base(base: ClassTable, key: Hashable, compute: Callable[[], _T]) -> _T:
    """``compute()``, computed once per base table and ``key``, then shared (a base table never changes)."""
    memo = _PER_BASE.setdefault(base, {})
    if key not in memo:
        memo[key] = compute()
    return memo[key]


def leaf_counts(classes: ClassTable, i: int) -> np.ndarray:
    """QI ``i``'s count of every leaf in the original table (records with known values), float64.

    Read from the base table's classes (level-0 leaf codes and their counts),
    never from the rows.  Records suppressed on input have no known value and
    are not counted.  Counted once per base table and shared: a read-only array.
    """
    base, h = classes.base, classes.hierarchies[i]
    name, n_leaves = classes.quasi_identifiers[i], h.n_values(0)

    def count() -> np.ndarray:
        column = base.codes[:, base.quasi_identifiers.index(name)]
        return _read_only(np.bincount(column, weights=float_counts(base), minlength=n_leaves))

    return per_base(base, ("leaf counts", name, n_leaves), count)


def covered_beyond_leaf(classes: ClassTable, i: int) -> int:
    """Over the records ``classes`` keeps, the sum of :math:`LN - 1` for QI ``i`` at its level: the
    leaves beyond one that each record's value covers (what ILoss and ARX's Loss read).

    An exact integer, whatever way it is found: a value covers one leaf at level 0, and every
    leaf where the level has one value (no class read then).
    """
    h, level = classes.hierarchies[i], classes.levels[i]
    if level == 0:
        return 0
    if h.n_values(level) == 1:
        return classes.n_retained * (h.n_values(0) - 1)
    return int(np.dot(classes.counts, h.leaf_counts(level)[classes.codes[:, i]] - 1))


def float_counts(base: ClassTable) -> np.ndarray:
    """``base.counts`` as float64 (bincount's weights): the grouping's copy, made once while the
    counts live (:func:`veil.classes.float_weights`; read-only), or converted here when short."""
    floats = float_weights(base.counts)
    return floats if floats.dtype == np.float64 else _read_only(floats.astype(np.float64))


def _read_only(array: np.ndarray) -> np.ndarray:
    array.flags.writeable = False
    return array


def packs(radices: Sequence[int]) -> bool:
    """Whether rows of codes with these radices pack into one int64 key (:func:`pack_columns`)."""
    space = 1
    for r in radices:
        space *= max(int(r), 1)
    return space < 1 << 62


def pack_columns(columns: Iterable[np.ndarray], radices: Sequence[int]) -> np.ndarray:
    """Each row's codes (one array per column) as one int64 key, mixed radix; see :func:`packs`."""
    key: np.ndarray | None = None
    for column, radix in zip(columns, radices):
        key = column.astype(np.int64) if key is None else key * int(radix) + column
    assert key is not None
    return key


def match_keys(queries: np.ndarray, table: np.ndarray) -> np.ndarray:
    """For each key of ``queries``, the index of the equal key of ``table`` (unique keys), or -1.

    A hash lookup: linear time, no sort.
    """
    return pd.Index(table).get_indexer(queries).astype(np.int64)


def match_rows(queries: np.ndarray, table: np.ndarray, radices: Sequence[int]) -> np.ndarray:
    """For each row of ``queries``, the index of the equal row of ``table`` (unique rows), or -1."""
    n, q = queries.shape
    if q == 0:
        return np.zeros(n, dtype=np.int64) if len(table) else np.full(n, -1, dtype=np.int64)
    if len(table) == 0:
        return np.full(n, -1, dtype=np.int64)
    if packs(radices):
        return match_keys(pack_columns(queries.T, radices), pack_columns(table.T, radices))
    both = np.concatenate([table, queries])
    _, ids = np.unique(both, axis=0, return_inverse=True)
    ids = ids.reshape(-1)
    owner = np.full(len(both), -1, dtype=np.int64)
    owner[ids[: len(table)]] = np.arange(len(table))
    return owner[ids[len(table):]]
