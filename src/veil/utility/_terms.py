"""Each attribute's term of an additive metric's loss, read from one marginal (issue #16).

An additive metric's loss of a node's table without suppression (beyond its base's) is a
constant plus one term per QI that depends only on that QI's level
(:attr:`~veil.utility.Metric.additive`).  The lattice search precomputes every node's bound
from these terms (:func:`veil.algorithms._bounds.loss_bounds`).  A metric that declares its
terms (:meth:`~veil.utility.Metric.terms`) gives them here from the attribute's marginal (its
records per value at the base table's level) and its hierarchy, with no table generalized; the
search measures the terms of the others on one-attribute generalizations.

Each function returns attribute ``i``'s term at each of ``levels`` (at least the base table's
level of ``i``), up to a constant per attribute: only the differences between levels are used.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import numpy as np

from veil.classes import ClassTable, float_weights
from veil.utility._arx import arx_share, arx_weights
from veil.utility._inputs import attribute_weights, leaf_counts

__all__ = ["height_terms", "precision_terms", "iloss_terms", "arx_loss_terms", "covered_leaves"]

Weights = Mapping[str, float] | Sequence[float] | None


def covered_leaves(classes: ClassTable, i: int, levels: Sequence[int]) -> np.ndarray:
    """Over the records ``classes`` keeps, the sum of :math:`LN - 1` at each of ``levels``:
    the leaves beyond one that each record's value of QI ``i`` covers (an exact integer, as float).

    The sum :func:`veil.utility._inputs.covered_beyond_leaf` reads from the classes of a table at
    that level (for ILoss and ARX's Loss); here from the marginal of ``i`` at its base level.

    Examples
    --------
    >>> import pandas as pd
    >>> from veil.hierarchy import masking
    >>> frame = pd.DataFrame({"zip": ["47677", "47602", "47678", "47905"]})
    >>> classes = ClassTable.from_pandas(frame, quasi_identifiers=["zip"], hierarchies={"zip": masking(frame["zip"])})
    >>> covered_leaves(classes, 0, [0, 1, 2, 5]).tolist()
    [0.0, 2.0, 6.0, 12.0]

    At level 1, 4767* covers two leaves (1 beyond one for each of its 2 records); at level 2,
    476** covers three (2 for each of 3 records); at the top, ***** covers all four (3 for each of 4).
    """
    h, base_level = classes.hierarchies[i], classes.levels[i]
    if base_level == 0 and classes.base is classes:
        marginal = leaf_counts(classes, i)  # counted once per base table, shared with the reports
    else:
        marginal = np.bincount(classes.codes[:, i], weights=float_weights(classes.counts),
                               minlength=h.n_values(base_level))
    return np.array([float(np.dot(marginal, h.leaf_counts(level)[h.rollup(base_level, level)] - 1))
                     for level in levels], dtype=np.float64)


def height_terms(classes: ClassTable, i: int, levels: Sequence[int], *, weights: Weights = None) -> np.ndarray:
    """:func:`~veil.utility.height`'s term: the level itself."""
    return np.asarray(levels, dtype=np.float64)


def precision_terms(classes: ClassTable, i: int, levels: Sequence[int], *, weights: Weights = None) -> np.ndarray:
    """The term of :func:`~veil.utility.precision`'s loss form :math:`1 - \\mathrm{Prec}`: each kept
    record is charged :math:`\\ell / H_i`, over :math:`|D| \\cdot N_a`."""
    top, q = classes.hierarchies[i].height, len(classes.quasi_identifiers)
    share = np.asarray(levels, dtype=np.float64) / top if top else np.zeros(len(levels))
    return classes.n_retained * share / (classes.n_records * q)


def iloss_terms(classes: ClassTable, i: int, levels: Sequence[int], *, weights: Weights = None) -> np.ndarray:
    """:func:`~veil.utility.iloss`'s term: :math:`w_i \\sum_j (LN(A_{ij}) - 1) / |D_{A_i}|` over the kept
    records, over :math:`|D| \\cdot N_a`."""
    w = float(attribute_weights(classes, weights, "iloss")[i])
    domain = classes.hierarchies[i].n_values(0)
    if domain <= 1 or w == 0.0:
        return np.zeros(len(levels))
    return w * (covered_leaves(classes, i, levels) / domain) / (classes.n_records * len(classes.quasi_identifiers))


def arx_loss_terms(classes: ClassTable, i: int, levels: Sequence[int], *, weights: Weights = None) -> np.ndarray:
    """The term of ``arx-loss``'s search form :math:`\\log(1 + \\mathrm{Loss})`:
    :math:`\\log((1 + v_i)\\,w_i) / N_a`, :math:`v_i` as :func:`~veil.utility.arx_attribute_losses`
    gives it (truncated as ARX does)."""
    w = float(arx_weights(classes, weights)[i])
    v = arx_share(covered_leaves(classes, i, levels), classes.hierarchies[i].n_values(0), classes.suppressed,
                  classes.n_records)
    q = len(classes.quasi_identifiers)
    return np.log((1.0 + v) * w) / q if q else np.zeros(len(levels))

