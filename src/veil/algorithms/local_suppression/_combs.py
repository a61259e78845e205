"""Local suppression on combinations of keys (sdcMicro's ``localSuppression(combs=...)``).

``combs = (4, 3)`` asks for k-anonymity on every set of 4 keys, then on every set of 3 (not on
all the keys together, unless their number is listed): for tables with many keys, where
k-anonymity on all of them together would blank too much.  Each set of keys is solved in turn by
the search of :mod:`~veil.algorithms.local_suppression._search` on the classes projected onto it,
the cells blanked so far read as a value of their own.  That reading is conservative (a blank
matches any value, so a record has at least the matches counted), and blanking more cells
never takes a match away, so every set solved earlier stays solved.

Solving every set in turn has no view of the whole table and can blank more than solving all the
keys together, which solves every set as well (fewer keys, more matches); the caller keeps the
fewer cells of the two.
"""

from __future__ import annotations

from collections.abc import Sequence
from itertools import combinations
from typing import Any

import numpy as np

from veil.classes import factorize_keys
from veil.errors import ParameterError

__all__ = ["parse_combs", "blanks_by_combinations"]


def parse_combs(combs: Any, n_keys: int) -> tuple[int, ...] | None:
    """``combs`` as a tuple of set sizes in [1, number of keys] (``"4,3"`` or ``[4, 3]``), or None.

    Raises
    ------
    ParameterError
        A size that is not a whole number in [1, number of keys].
    """
    if combs is None:
        return None
    items = str(combs).split(",") if isinstance(combs, (str, int)) else list(combs)
    sizes = []
    for item in items:
        try:
            size = int(str(item).strip())
        except ValueError:
            size = 0
        if not 1 <= size <= n_keys or str(item).strip() != str(size):
            raise ParameterError(f"combs must list sizes of key sets between 1 and {n_keys} (the number of "
                                 f"quasi-identifiers), such as 4,3. Got {combs!r} instead.")
        sizes.append(size)
    return tuple(sizes) or None


def blanks_by_combinations(codes: np.ndarray, counts: np.ndarray, weights: np.ndarray, combs: Sequence[int],
                           solve: Any) -> np.ndarray:
    """Per class, the keys blanked (bit mask) so that every set of keys of a size in ``combs`` is solved;
    ``solve(codes, counts, weights, positions) -> masks`` is the search on one projected table
    (``positions``: the sets' keys, for the importance order).

    A class that ends blanked in every key is a suppressed record, supporting no one: the passes are
    run again from the start without the classes so blanked, until no class is added.
    """
    everything = (1 << codes.shape[1]) - 1
    removed = np.zeros(len(counts), dtype=np.bool_)
    while True:
        blanks = _passes(codes, np.where(removed, 0, counts), np.where(removed, 0.0, weights), combs, solve)
        blanks[removed] = everything
        added = (blanks == everything) & ~removed
        if not added.any():
            return blanks
        removed |= added


def _passes(codes: np.ndarray, counts: np.ndarray, weights: np.ndarray, combs: Sequence[int],
            solve: Any) -> np.ndarray:
    """One run of the passes of :func:`blanks_by_combinations` (classes of no record take part as none)."""
    q = codes.shape[1]
    blank_code = codes.max(axis=0) + 1 if len(codes) else np.ones(q, dtype=np.int64)
    blanks = np.zeros(len(counts), dtype=np.int64)
    for size in combs:
        for subset in combinations(range(q), size):
            cols = list(subset)
            sub = np.array(codes[:, cols], dtype=np.int64)
            done = ((blanks[:, None] >> np.array(cols)) & 1).astype(bool)
            sub = np.where(done, blank_code[cols], sub)  # a blank so far: a value of its own here
            radix = blank_code[cols] + 1
            key = np.zeros(len(sub), dtype=np.int64)
            for i in range(len(cols)):  # renumbered column by column: no overflow
                key = factorize_keys(key * int(radix[i]) + sub[:, i])[0]
            group, _ = factorize_keys(key)
            first = np.unique(group, return_index=True)[1]
            masks = solve(sub[first], np.bincount(group, weights=counts).astype(np.int64),
                          np.bincount(group, weights=weights), cols)
            full = np.zeros(len(masks), dtype=np.int64)
            for i, j in enumerate(cols):
                full |= ((masks >> i) & 1) << j
            blanks |= full[group]
    return blanks
