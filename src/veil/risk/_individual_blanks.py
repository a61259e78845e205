"""Frequencies under sdcMicro's missing-value rule: a blanked cell matches any value.

sdcMicro's ``freqCalc`` (and so ``measure_risk`` and ``localSuppression``)
counts, for a record, every record that agrees with it on each key variable
where neither of the two is missing.  Two records are *compatible* when, for
every key :math:`a`, :math:`x_a = y_a` or one of them is blank:

.. math:: f_i = |\\{ j : \\forall a \\notin B_i \\cup B_j,\\ x_{ia} = x_{ja} \\}|

where :math:`B_i` are the blanked keys of record :math:`i` (the record itself
counted).  Compatibility is not transitive, so these are not the sizes of a
partition; they are what k-anonymity under this rule bounds (every
:math:`f_i \\ge k`).

The records are grouped by their blank pattern :math:`B`; for each pair of
patterns :math:`(B, B')` the records of :math:`B'` are counted by their
values on the keys outside :math:`B \\cup B'` and looked up for the records of
:math:`B` (sorted keys, ``searchsorted``): no loop over records.
"""

from __future__ import annotations

import numpy as np


__all__ = ["blank_matching_frequencies", "smallest_over_combinations"]


def _weights(radices: list[int], columns: list[int]) -> np.ndarray | None:
    """Mixed-radix multipliers of ``columns`` (an int64 key per row is ``codes[:, columns] @ weights``),
    or None when the key would overflow."""
    out, space = [], 1
    for j in reversed(columns):
        out.append(space)
        space *= max(radices[j], 1)
    return None if space >= 1 << 62 else np.array(out[::-1], dtype=np.int64)


def _matching_sums(key_a: np.ndarray, key_b: np.ndarray, counts_b: np.ndarray) -> np.ndarray:
    """For each key of ``key_a``, the sum of ``counts_b`` over the equal keys of ``key_b``."""
    order = np.argsort(key_b, kind="stable")
    ordered = key_b[order]
    running = np.concatenate([[0], np.cumsum(counts_b[order])])
    return running[np.searchsorted(ordered, key_a, "right")] - running[np.searchsorted(ordered, key_a, "left")]


def _pair_sums(codes_a: np.ndarray, codes_b: np.ndarray, counts_b: np.ndarray, columns: list[int],
               radices: list[int]) -> np.ndarray:
    """For each row of ``codes_a``, the records of ``codes_b`` equal to it on ``columns``."""
    weights = _weights(radices, columns)
    if weights is None:  # number the distinct rows of both tables together
        both = np.concatenate([codes_a[:, columns], codes_b[:, columns]])
        key = np.unique(both, axis=0, return_inverse=True)[1].ravel().astype(np.int64)
        return _matching_sums(key[:len(codes_a)], key[len(codes_a):], counts_b)
    return _matching_sums(codes_a[:, columns] @ weights, codes_b[:, columns] @ weights, counts_b)


def blank_matching_frequencies(codes: np.ndarray, counts: np.ndarray, blank: np.ndarray) -> np.ndarray:
    """Per row of ``codes`` (a class of ``counts`` records), how many records are compatible with it.

    Parameters
    ----------
    codes : array of int, shape (m, q)
        Each row's key codes (a blanked cell's code is ignored).
    counts : array of int or float, shape (m,)
        Records per row (or their summed sampling weights: the result is then :math:`F_i`).
    blank : array of bool, shape (m, q)
        Which cells are blank (match any value).

    Returns
    -------
    numpy.ndarray of int64 (float64 for float counts), shape (m,)
        :math:`f_i`, the record itself included (see the module docstring).

    Examples
    --------
    >>> codes = np.array([[0, 0], [0, 1], [1, 1], [0, 0]])
    >>> blank = np.array([[False, False], [False, True], [False, False], [True, False]])
    >>> blank_matching_frequencies(codes, np.ones(4, dtype=np.int64), blank).tolist()
    [3, 3, 1, 3]
    """
    codes = np.asarray(codes)
    counts = np.asarray(counts)
    counts = counts.astype(np.float64 if counts.dtype.kind == "f" else np.int64, copy=False)
    blank = np.asarray(blank, dtype=np.bool_)
    m, q = codes.shape
    out = np.zeros(m, dtype=counts.dtype)
    if m == 0:
        return out
    codes = codes.astype(np.int64, copy=False)
    radices = [int(codes[:, j].max()) + 1 for j in range(q)]
    pattern = (blank.astype(np.int64) << np.arange(q, dtype=np.int64)).sum(axis=1) if q else np.zeros(m, np.int64)
    patterns, group = np.unique(pattern, return_inverse=True)
    members = [np.flatnonzero(group == g) for g in range(len(patterns))]
    tables = [(codes[rows], counts[rows]) for rows in members]
    for a, rows_a, (codes_a, _) in zip(patterns.tolist(), members, tables):
        total = np.zeros(len(rows_a), dtype=counts.dtype)
        for b, (codes_b, counts_b) in zip(patterns.tolist(), tables):
            columns = [j for j in range(q) if not ((a | b) >> j) & 1]
            if columns:
                total += _pair_sums(codes_a, codes_b, counts_b, columns, radices)
            else:
                total += counts_b.sum()
        out[rows_a] = total
    return out


def smallest_over_combinations(codes: np.ndarray, counts: np.ndarray, blank: np.ndarray,
                               combs: "tuple[int, ...] | None" = None) -> np.ndarray:
    """Per row, the fewest compatible records over every set of keys of a size in ``combs``
    (sdcMicro's ``localSuppression(combs=...)``: k-anonymity on each combination of that many keys);
    ``None``: all the keys together (:func:`blank_matching_frequencies`).

    Examples
    --------
    >>> codes = np.array([[0, 0], [0, 1], [1, 1]])
    >>> blank = np.zeros((3, 2), dtype=bool)
    >>> smallest_over_combinations(codes, np.ones(3, dtype=np.int64), blank, (1,)).tolist()
    [1, 2, 1]
    """
    from itertools import combinations

    codes = np.asarray(codes)
    if combs is None:
        return blank_matching_frequencies(codes, counts, blank)
    out = np.full(len(codes), np.iinfo(np.int64).max, dtype=np.int64)
    for size in combs:
        for subset in combinations(range(codes.shape[1]), size):
            cols = list(subset)
            out = np.minimum(out, blank_matching_frequencies(codes[:, cols], counts, np.asarray(blank)[:, cols]))
    return out
