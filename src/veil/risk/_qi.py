"""Quasi-identifier discovery: distinction and separation ratios, α-distinct QIs, a ranking.

Both ratios are functions of the class sizes ``f_j`` of an attribute subset,
so each subset costs one regroup of a parent subset's class table
(:meth:`ClassTable.project`), never a pass over rows or pairs of rows.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from itertools import combinations
from typing import Any

import numpy as np

from veil._validation import check_int, check_real
from veil.classes import ClassTable
from veil.risk._common import as_classes

__all__ = [
    "QuasiIdentifierScore",
    "distinction",
    "separation",
    "quasi_identifier_ranking",
    "alpha_distinct",
]


def _retained(classes: ClassTable) -> int:
    return int(classes.counts.sum())


def distinction(classes: Any, attributes: Sequence[str] | None = None) -> float:
    """Distinction ratio of a set of attributes: distinct value combinations per record.

    Parameters
    ----------
    classes : ClassTable, Dataset or DataFrame
        The table (a Dataset or DataFrame is grouped once).
    attributes : sequence of str, optional
        A subset of the quasi-identifiers; default: all of them.

    Returns
    -------
    float in [0, 1]
        :math:`|K| / n` (0 for a table whose records are all suppressed).

    Notes
    -----
    With :math:`K` the classes of the attributes and :math:`n` the records not
    suppressed, :math:`\\mathrm{distinction} = |K| / n`.  A subset with
    distinction :math:`\\alpha` is an *α-distinct* quasi-identifier: removing a
    fraction :math:`1 - \\alpha` of the records (all but one of each class)
    makes it a key (Motwani & Xu 2007).  Never decreases when attributes are
    added, never increases under generalization.

    References
    ----------
    R. Motwani and Y. Xu, "Efficient algorithms for masking and finding
    quasi-identifiers", SDM/VLDB workshop, 2007 (Definition 2, α-distinct).
    ARX, "Quasi-identifiers" risk view (distinction column).

    Examples
    --------
    >>> from veil.datasets import load_age_sex_state
    >>> distinction(load_age_sex_state(), ["age"])
    0.6
    """
    table = as_classes(classes, owner="distinction")
    if attributes is not None and tuple(attributes) != table.quasi_identifiers:
        table = table.project(attributes)
    n = _retained(table)
    return table.n_classes / n if n else 0.0


def _separation_from_counts(counts: np.ndarray) -> float:
    n = float(counts.sum())
    if n < 2:
        return 0.0
    f = counts.astype(np.float64)
    together = float(np.dot(f, f - 1.0)) / 2.0
    return 1.0 - together / (n * (n - 1.0) / 2.0)


def separation(classes: Any, attributes: Sequence[str] | None = None) -> float:
    """Separation ratio of a set of attributes: the fraction of record pairs it tells apart.

    Parameters
    ----------
    classes : ClassTable, Dataset or DataFrame
    attributes : sequence of str, optional
        A subset of the quasi-identifiers; default: all of them.

    Returns
    -------
    float in [0, 1]
        0 for fewer than two records.

    Notes
    -----
    A subset separates a pair of records when they differ in at least one of
    its attributes.  Two records are *not* separated exactly when they share a
    class, so, from the class sizes :math:`f_j` alone (no pair is enumerated):

    .. math:: \\mathrm{separation} = 1 - \\frac{\\sum_j \\binom{f_j}{2}}{\\binom{n}{2}}.

    References
    ----------
    R. Motwani and Y. Xu, "Efficient algorithms for masking and finding
    quasi-identifiers", 2007 (Definition 3, α-separation).

    Examples
    --------
    >>> from veil.datasets import load_age_sex_state
    >>> separation(load_age_sex_state(), ["sex", "state"])
    0.9
    """
    table = as_classes(classes, owner="separation")
    if attributes is not None and tuple(attributes) != table.quasi_identifiers:
        table = table.project(attributes)
    return _separation_from_counts(table.counts)


@dataclass(frozen=True)
class QuasiIdentifierScore:
    """Distinction and separation of one attribute subset.

    Attributes
    ----------
    attributes : tuple of str
    distinction : float in [0, 1]
    separation : float in [0, 1]
    classes : int
        Distinct value combinations of the subset.
    """

    attributes: tuple[str, ...]
    distinction: float
    separation: float
    classes: int

    def to_dict(self) -> dict[str, Any]:
        return {
            "attributes": list(self.attributes),
            "distinction": self.distinction,
            "separation": self.separation,
            "classes": self.classes,
        }


def _regroup(codes: np.ndarray, counts: np.ndarray, radices: Sequence[int]) -> tuple[np.ndarray, np.ndarray]:
    """Merge the classes of ``codes`` (one row per class) that agree on every column.

    Like :meth:`ClassTable.project` but sized to the parent's classes, not to
    the key space: the parent has few classes while a key space can be large,
    and the ranking regroups hundreds of times.
    """
    g, s = codes.shape
    space = 1
    for r in radices:
        space *= max(int(r), 1)
    if space >= 1 << 62:
        uniq, inverse = np.unique(codes, axis=0, return_inverse=True)
        return uniq, np.bincount(inverse.reshape(-1), weights=counts, minlength=len(uniq)).astype(np.int64)
    key = codes[:, 0].astype(np.int64)
    for i in range(1, s):
        key = key * int(radices[i]) + codes[:, i]
    if space <= 4 * g + 1024:
        sums = np.bincount(key, weights=counts, minlength=space)
        keys = np.flatnonzero(sums)
        new_counts = sums[keys]
    else:
        keys, inverse = np.unique(key, return_inverse=True)
        new_counts = np.bincount(inverse.reshape(-1), weights=counts, minlength=len(keys))
    uniq = np.empty((len(keys), s), dtype=np.int64)
    rest = keys
    for i in range(s - 1, 0, -1):
        uniq[:, i] = rest % int(radices[i])
        rest = rest // int(radices[i])
    uniq[:, 0] = rest
    return uniq, np.rint(new_counts).astype(np.int64)


def _subset_counts(table: ClassTable, max_size: int) -> dict[tuple[int, ...], np.ndarray]:
    """Class sizes of every QI subset of size 1..max_size (keys: QI index tuples).

    The subsets of the largest size are regrouped from the full table; each
    smaller subset from its smallest already-computed parent (one attribute
    more), which has the fewest classes to regroup.
    """
    q = len(table.quasi_identifiers)
    radix = [h.n_values(level) for h, level in zip(table.hierarchies, table.levels)]
    top = min(max_size, q)
    full_codes = table.codes.astype(np.int64)
    groups: dict[tuple[int, ...], tuple[np.ndarray, np.ndarray]] = {}
    if top == q:
        groups[tuple(range(q))] = (full_codes, table.counts)
    else:
        for subset in combinations(range(q), top):
            groups[subset] = _regroup(full_codes[:, list(subset)], table.counts, [radix[i] for i in subset])
    result = {key: counts for key, (_, counts) in groups.items()}
    for size in range(top - 1, 0, -1):
        for subset in combinations(range(q), size):
            best: tuple[tuple[int, ...], tuple[np.ndarray, np.ndarray]] | None = None
            for extra in range(q):
                if extra in subset:
                    continue
                key = tuple(sorted(subset + (extra,)))
                parent = groups.get(key)
                if parent is not None and (best is None or len(parent[1]) < len(best[1][1])):
                    best = (key, parent)
            assert best is not None
            parent_key, (codes, counts) = best
            columns = [parent_key.index(i) for i in subset]
            groups[subset] = _regroup(codes[:, columns], counts, [radix[i] for i in subset])
            result[subset] = groups[subset][1]
        for key in [k for k in groups if len(k) == size + 2]:
            del groups[key]  # grandparents are no longer needed
    return result


def quasi_identifier_ranking(
    classes: Any, *, max_size: int | None = None, quasi_identifiers: Sequence[str] | None = None
) -> tuple[QuasiIdentifierScore, ...]:
    """Distinction and separation of every QI subset up to ``max_size``, most separating first.

    Parameters
    ----------
    classes : ClassTable, Dataset or DataFrame
    max_size : int in [1, n_qi], optional
        The largest subset size; default: all sizes (:math:`2^q - 1` subsets).
    quasi_identifiers : sequence of str, optional
        The candidate attributes (needed for a DataFrame; default: the table's QIs).

    Returns
    -------
    tuple of QuasiIdentifierScore
        Sorted by separation, then distinction (both descending), then fewer
        attributes, then names: the likeliest quasi-identifiers first.

    Notes
    -----
    Each subset's classes are regrouped from those of its smallest superset
    one attribute larger (the regroup of :meth:`ClassTable.project`, on the
    class codes and sizes only), so the cost per subset is proportional to
    that parent's number of classes, not to the rows.

    References
    ----------
    R. Motwani and Y. Xu, "Efficient algorithms for masking and finding
    quasi-identifiers", 2007.

    Examples
    --------
    >>> from veil.datasets import load_age_sex_state
    >>> top = quasi_identifier_ranking(load_age_sex_state(), max_size=1)[0]
    >>> top.attributes, top.separation
    (('age',), 0.8)
    """
    table = as_classes(classes, quasi_identifiers=quasi_identifiers, owner="quasi_identifier_ranking")
    q = len(table.quasi_identifiers)
    if q == 0:
        return ()
    size = q if max_size is None else check_int("max_size", max_size, "quasi_identifier_ranking", low=1)
    size = min(size, q)
    n = _retained(table)
    scores = []
    for subset, counts in _subset_counts(table, size).items():
        scores.append(
            QuasiIdentifierScore(
                attributes=tuple(table.quasi_identifiers[i] for i in subset),
                distinction=len(counts) / n if n else 0.0,
                separation=_separation_from_counts(counts),
                classes=len(counts),
            )
        )
    scores.sort(key=lambda s: (-s.separation, -s.distinction, len(s.attributes), s.attributes))
    return tuple(scores)


def alpha_distinct(
    classes: Any, *, alpha: float, max_size: int | None = None,
    quasi_identifiers: Sequence[str] | None = None,
) -> tuple[QuasiIdentifierScore, ...]:
    """The attribute subsets that are α-distinct quasi-identifiers (distinction ≥ α).

    Parameters
    ----------
    classes : ClassTable, Dataset or DataFrame
    alpha : float in [0, 1]
    max_size : int, optional
        The largest subset size considered; default: all.

    Returns
    -------
    tuple of QuasiIdentifierScore
        The minimal ones first (fewest attributes), then by distinction.

    Notes
    -----
    A subset is α-distinct when it becomes a key after removing at most a
    fraction :math:`1-\\alpha` of the records, i.e. when :math:`|K|/n \\ge \\alpha`.

    References
    ----------
    R. Motwani and Y. Xu, 2007 (Definition 2).

    Examples
    --------
    >>> from veil.datasets import load_age_sex_state
    >>> [s.attributes for s in alpha_distinct(load_age_sex_state(), alpha=0.8, max_size=2)][:2]
    [('age', 'sex'), ('age', 'state')]
    """
    alpha = check_real("alpha", alpha, "alpha_distinct", low=0.0, high=1.0)
    ranking = quasi_identifier_ranking(classes, max_size=max_size, quasi_identifiers=quasi_identifiers)
    chosen = [s for s in ranking if s.distinction >= alpha - 1e-12]
    chosen.sort(key=lambda s: (len(s.attributes), -s.distinction, -s.separation, s.attributes))
    return tuple(chosen)
