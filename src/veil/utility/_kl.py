"""Kullback–Leibler divergence between the original and the anonymized distribution (Kifer & Gehrke 2006).

In bits, computed from class tables only (see :func:`kl_divergence`).

The estimate :math:`\\hat F_2`: each class spreads its records uniformly over
the leaf combinations its generalized values cover (the maximum-entropy
estimate for a single generalized table) and the suppressed records spread
uniformly over the whole QI domain.  In the formula of :func:`kl_divergence`,
:math:`E(x)` is the retained class whose box covers :math:`x` (the first term
is 0 when none does), :math:`\\mathrm{vol}` the number of leaf combinations of
a box (:math:`\\prod_i LN(g_i)`), :math:`\\Omega` the whole QI domain,
:math:`S` the records suppressed by the transformation and :math:`N` the
records with known original values (records suppressed on input are in
neither distribution).  With ``sensitive`` the same holds per sensitive value
:math:`s`, with :math:`|E(x) \\cap s|` and :math:`S_s`.
:math:`\\hat F_2(x) > 0` wherever :math:`\\hat F_1(x) > 0`, so the value is
finite.  Monotone under generalization when no record is suppressed
(block-averaging only loses information); with suppressed records a coarser
table can spread mass back onto suppressed combinations and score lower, so it
is not flagged monotone.
"""

from __future__ import annotations

import numpy as np

from veil.classes import ClassTable
from veil.errors import ParameterError
from veil.utility._inputs import float_counts, label_histogram, match_keys, match_rows, pack_columns, packs

__all__ = ["kl_divergence"]


def _aligned_original(original: ClassTable | None, anonymized: ClassTable) -> ClassTable:
    """The original table at level 0, projected onto the anonymized table's QIs, after checking it matches."""
    base = anonymized.base if original is None else original
    if any(level != 0 for level in base.levels):
        raise ParameterError(
            f"The 'original' parameter of kl_divergence must be a class table at level 0. "
            f"Got levels {base.levels} instead."
        )
    missing = [q for q in anonymized.quasi_identifiers if q not in base.quasi_identifiers]
    if missing:
        raise ParameterError(
            f"The 'original' parameter of kl_divergence lacks the quasi-identifier {missing[0]!r} of "
            "the anonymized table; pass the table it was derived from."
        )
    if base.n_records != anonymized.n_records or base.input_suppressed != anonymized.input_suppressed:
        raise ParameterError(
            f"The 'original' parameter of kl_divergence must hold the records of the anonymized table "
            f"({anonymized.n_records}). Got a table of {base.n_records} records instead."
        )
    if base.quasi_identifiers != anonymized.quasi_identifiers:
        base = base.project(anonymized.quasi_identifiers)
    for h, g in zip(base.hierarchies, anonymized.hierarchies):
        if h.n_values(0) != g.n_values(0):
            raise ParameterError(
                f"The 'original' parameter of kl_divergence must use the anonymized table's hierarchies; "
                f"{h.name!r} has {h.n_values(0)} leaves there and {g.n_values(0)} here."
            )
    return base


def _derived_from(base: ClassTable, anonymized: ClassTable) -> bool:
    """Whether ``anonymized`` was derived from ``base`` itself, along the same hierarchies."""
    return base is anonymized.base and all(h is g for h, g in zip(base.hierarchies, anonymized.hierarchies))


def _boxes_cover(base: ClassTable, anonymized: ClassTable, rows: np.ndarray | None = None) -> np.ndarray:
    """The retained class whose box covers each original combination (-1: none), found by its box
    (only the original classes ``rows``, if given)."""
    # the box of every original combination at the anonymized levels, and its retained class
    hierarchies, levels = anonymized.hierarchies, anonymized.levels
    radices = [h.n_values(l) for h, l in zip(hierarchies, levels)]
    codes = base.codes if rows is None else base.codes.take(rows, axis=0)  # take: faster than indexing
    boxes = (h.maps[l][codes[:, i]] for i, (h, l) in enumerate(zip(hierarchies, levels)))
    if len(codes) and anonymized.n_classes and hierarchies and packs(radices):
        # each box packed into one key as it is mapped, no matrix of boxes (what match_rows does)
        return match_keys(pack_columns(boxes, radices), pack_columns(anonymized.codes.T, radices))
    if len(codes) and hierarchies:
        return match_rows(np.column_stack(list(boxes)), anonymized.codes, radices)
    return match_rows(np.zeros((len(codes), 0), np.int32), anonymized.codes, radices)


def _cover(base: ClassTable, anonymized: ClassTable) -> np.ndarray:
    """The retained class covering each original combination (-1: none)."""
    if not _derived_from(base, anonymized):
        return _boxes_cover(base, anonymized)
    # the classes are the distinct boxes of their records: a retained record's class covers it
    cover = anonymized.base_map
    if len(cover) and cover.min() < 0:
        # a record suppressed at finer levels may lie in the box of a class retained here
        lost = np.flatnonzero(cover < 0)
        cover = cover.copy()
        cover[lost] = _boxes_cover(base, anonymized, lost)
    return cover


def _volumes(anonymized: ClassTable) -> tuple[np.ndarray, float]:
    """Each class's volume (leaf combinations of its box) and the volume of the whole QI domain."""
    # float64: exact up to 2**53, then relative error 1e-16
    volume = np.ones(anonymized.n_classes)
    domain = 1.0
    for i, (h, l) in enumerate(zip(anonymized.hierarchies, anonymized.levels)):
        if l:  # a leaf covers itself: times 1 changes no volume
            volume *= h.leaf_counts(l)[anonymized.codes[:, i]]
        domain *= h.n_values(0)
    return volume, domain


def _masses(
    base: ClassTable, anonymized: ClassTable, sensitive: str | None, n: int
) -> tuple[np.ndarray, np.ndarray]:
    """:math:`N \\hat F_1` and :math:`N \\hat F_2` per original combination (by sensitive value)."""
    volume, domain = _volumes(anonymized)
    if sensitive is None:
        f1 = float_counts(base)[:, None]
        density = (anonymized.counts / volume)[:, None]
        spread = np.array([float(n - anonymized.n_retained)])
    else:
        f1 = label_histogram(base, sensitive, "kl_divergence").counts.astype(np.float64)
        mass = label_histogram(anonymized, sensitive, "kl_divergence").counts
        density = mass / volume[:, None]
        spread = f1.sum(axis=0) - mass.sum(axis=0)
    return f1, _estimate(_cover(base, anonymized), density, np.maximum(spread, 0.0) / domain)


def _estimate(cover: np.ndarray, density: np.ndarray, share: np.ndarray) -> np.ndarray:
    """:math:`N \\hat F_2` per original combination: the density of its covering class (0 when
    none) plus the suppressed records' ``share``; broadcasts against :math:`N \\hat F_1`."""
    if not len(density):  # no class retained
        covered = np.zeros((len(cover), len(share)))
    elif len(cover) and cover.min() >= 0:
        covered = density.take(cover, axis=0)  # rows of a matrix: faster than indexing it with an array
    else:
        covered = density.take(np.maximum(cover, 0), axis=0)
        np.copyto(covered, 0.0, where=(cover < 0)[:, None])  # faster than setting the rows of a mask
    if share.any():  # adding +0.0 leaves every density (all >= +0.0) as it is
        covered += share
    return covered


def _weighted_log_ratio(f1: np.ndarray, f2: np.ndarray) -> float:
    """:math:`\\sum f_1 \\log_2 (f_1 / f_2)` over the entries with :math:`f_1 > 0` (``f2`` broadcasts to
    ``f1``; when it has ``f1``'s shape, its memory is reused)."""
    if f1.size and f1.min() > 0:  # every entry counts: the same terms in the same order, none selected
        # a new array of this size costs more than the division into it
        terms = np.divide(f1, f2, out=f2 if f2.shape == f1.shape else None).ravel()
        np.log2(terms, out=terms)
        terms *= f1.ravel()
    else:
        positive = f1 > 0
        terms = f1[positive] * np.log2(f1[positive] / np.broadcast_to(f2, f1.shape)[positive])
    return float(terms.sum())


def kl_divergence(original: ClassTable | None, anonymized: ClassTable, *, sensitive: str | None = None) -> float:
    """Kullback–Leibler divergence (bits) from the original distribution to the anonymized table's estimate.

    :math:`\\hat F_1`: the original QI combinations (and ``sensitive``); :math:`\\hat F_2`: the
    maximum-entropy estimate the anonymized table supports (the module docstring defines it).

    Parameters
    ----------
    original : ClassTable or None
        The original table at level 0 (``None``: ``anonymized.base``), with the
        records and hierarchies ``anonymized`` was derived from (QIs may be a superset).
    anonymized : ClassTable
        A table derived from ``original`` by :meth:`~ClassTable.generalize`,
        :meth:`~ClassTable.project` and :meth:`~ClassTable.suppress`.
    sensitive : str, optional
        Include this attribute of ``anonymized.sensitive`` in the joint
        distribution (kept as is in both tables; per-class histograms).

    Returns
    -------
    float, in [0, inf)
        0 for the original table itself.

    Raises
    ------
    ParameterError
        ``original`` is not at level 0, or not the same records or domain.
    ColumnNotFoundError
        ``sensitive`` has no histogram.

    Notes
    -----
    .. math::

        KL(\\hat F_1 \\,\\|\\, \\hat F_2) = \\sum_x \\hat F_1(x) \\log_2
        \\frac{\\hat F_1(x)}{\\hat F_2(x)}, \\qquad
        \\hat F_2(x) = \\frac{|E(x)|}{N\\,\\mathrm{vol}(E(x))} + \\frac{S}{N\\,\\mathrm{vol}(\\Omega)}

    References
    ----------
    D. Kifer and J. Gehrke, "Injecting utility into anonymized datasets", SIGMOD 2006, Sections 3–4.

    Examples
    --------
    >>> import pandas as pd
    >>> from veil.classes import ClassTable
    >>> frame = pd.DataFrame({"sex": ["F", "F", "F", "M"]})
    >>> classes = ClassTable.from_pandas(frame, quasi_identifiers=["sex"])
    >>> round(kl_divergence(classes, classes.generalize((1,))), 4)  # F2 = (1/2, 1/2): 3/4 log2(3/2) + 1/4 log2(1/2)
    0.1887
    """
    base = _aligned_original(original, anonymized)
    n = base.n_retained
    if n == 0:
        return 0.0
    return max(_weighted_log_ratio(*_masses(base, anonymized, sensitive, n)) / n, 0.0)
