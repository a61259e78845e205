"""ARX's Loss metric (``arx-loss``): per-attribute generalization loss, aggregated by a geometric mean.

ARX (Prasser & Kohlmayer) uses this metric by default.  ``veil anonymize
--metric arx-loss`` minimises it, so that ARX users can compare transformations
one to one.  It is computed here from ARX's definition: nothing of ARX's code is used.

Facts for the search.  Each attribute's loss :math:`v_i` never decreases under
generalization while the same records stay suppressed, and suppressing a
record never lowers it (a suppressed record costs 1, the most), so the Loss of
a node's table without suppression is a lower bound for the node and every
generalization of it (ARX's lower bound).  :math:`\\log(1 + \\mathrm{Loss})` is a
sum of one term per attribute, each depending only on that attribute's level
and the suppressed records: the search minimises that form, which orders the
nodes exactly as the Loss does, with precomputed per-attribute bounds.  Each
:math:`v_i` is truncated to :data:`ARX_DIGITS` decimal places first, as ARX
does, so that the same nodes tie.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import numpy as np

from veil.classes import ClassTable
from veil.errors import ParameterError
from veil.utility._inputs import attribute_weights, covered_beyond_leaf

__all__ = ["arx_attribute_losses", "arx_loss", "arx_share", "arx_weights", "ARX_DIGITS"]

#: ARX truncates each attribute's loss to this many decimal places (rounding down).
ARX_DIGITS = 10


def arx_attribute_losses(classes: ClassTable) -> np.ndarray:
    """ARX's normalized Loss of each quasi-identifier, in [0, 1].

    A record whose value of attribute :math:`i` covers :math:`LN` of the
    :math:`|D_i|` leaves of its hierarchy costs :math:`(LN - 1)/(|D_i| - 1)`
    (0 for an original value, 1 at the top); a suppressed record costs 1.  The
    attribute's loss is the mean cost over all records, suppressed ones
    included, truncated to :data:`ARX_DIGITS` decimal places as ARX does.

    Parameters
    ----------
    classes : ClassTable

    Returns
    -------
    numpy.ndarray of float
        One value per QI; 0 for an attribute whose hierarchy has one leaf.

    Notes
    -----
    .. math::

        v_i = \\frac{1}{|D|}\\Big(\\sum_{E} |E|\\,\\frac{LN_i(E) - 1}{|D_i| - 1} + |S|\\Big)

    over the classes :math:`E` and the suppressed records :math:`S` (ARX's
    :math:`(a - |D|/|D_i|)/(|D| - |D|/|D_i|)`, :math:`a = \\sum_E |E|\\,LN_i(E)/|D_i| + |S|`,
    is the same number).  :func:`~veil.utility.iloss` divides by :math:`|D_i|`
    instead: its top level costs :math:`(|D_i| - 1)/|D_i|`, here 1.

    References
    ----------
    ARX 3.x (Prasser, Kohlmayer et al.), ``MetricMDNMLoss`` over domain shares of the
    materialized hierarchy; the loss of a generalized value follows Iyengar, KDD 2002, Sec. 3.1.

    Examples
    --------
    The worked example of :mod:`veil.utility` gives these losses on four ZIP codes
    next to the other domain-share measures of the same nodes.
    """
    return np.array([float(arx_share(covered_beyond_leaf(classes, i), h.n_values(0), classes.suppressed,
                                     classes.n_records))
                     for i, h in enumerate(classes.hierarchies)], dtype=np.float64)


def arx_share(covered: float | np.ndarray, domain: int, suppressed: int, n: int) -> np.ndarray:
    """One attribute's :math:`v_i` (see :func:`arx_attribute_losses`), truncated as ARX truncates it:
    ``covered`` is :math:`\\sum_E |E|\\,(LN_i(E) - 1)` (a number, or one per level), ``domain``
    :math:`|D_i|`, ``suppressed`` :math:`|S|`, ``n`` :math:`|D|`.  0 for a domain of one value
    (ARX divides 0 by 0 and clamps the NaN to 0) or an empty table."""
    covered = np.asarray(covered, dtype=np.float64)
    if domain <= 1 or n == 0:
        return np.zeros_like(covered)
    scale = 10.0**ARX_DIGITS
    return np.floor(((covered / (domain - 1) + suppressed) / n) * scale) / scale


def arx_loss(classes: ClassTable, *, weights: Mapping[str, float] | Sequence[float] | None = None) -> float:
    """ARX's Loss: the geometric mean of :math:`1 + v_i` over the QIs, weighted as ARX weighs, minus 1.

    Parameters
    ----------
    classes : ClassTable
    weights : mapping of str to float, or sequence of float, optional
        Attribute weights in [0, inf), by QI name (an omitted QI weighs 1) or
        one per QI.  As in ARX they are divided by the largest (all zero:
        every weight 1) and multiply each factor inside the mean.

    Returns
    -------
    float
        In [0, 1] with equal weights: 0 for the original table (or no QI), 1
        when every value is at the top of its hierarchy or suppressed.

    Raises
    ------
    ParameterError
        A weight of 0 next to a positive one (ARX's product is then 0 for
        every node), or weights of the wrong length or sign.

    Notes
    -----
    With :math:`m` QIs, losses :math:`v_i` (:func:`arx_attribute_losses`) and
    weights :math:`w_i` scaled so that the largest is 1:

    .. math::

        \\mathrm{Loss} = \\prod_{i=1}^{m} \\big((1 + v_i)\\,w_i\\big)^{1/m} - 1

    The 1 added to each term keeps the product away from 0 (ARX's
    ``ILMultiDimensionalGeometricMean``); the module docstring gives the
    facts the search relies on.

    Examples
    --------
    >>> import pandas as pd
    >>> from veil.classes import ClassTable
    >>> from veil.hierarchy import flat, masking
    >>> frame = pd.DataFrame({"zip": ["47677", "47602", "47678", "47905"], "sex": ["F", "F", "M", "M"]})
    >>> hierarchies = {"zip": masking(frame["zip"]), "sex": flat(frame["sex"])}
    >>> classes = ClassTable.from_pandas(frame, quasi_identifiers=["zip", "sex"], hierarchies=hierarchies)
    >>> round(arx_loss(classes.generalize((2, 1))), 12)   # v = 0.5 and 1: sqrt(1.5 * 2) - 1
    0.732050807569
    """
    q = len(classes.quasi_identifiers)
    if q == 0:
        return 0.0
    v = arx_attribute_losses(classes)
    return float(np.exp(np.mean(np.log((1.0 + v) * arx_weights(classes, weights)))) - 1.0)


def arx_weights(classes: ClassTable, weights: Mapping[str, float] | Sequence[float] | None) -> np.ndarray:
    """The QIs' weights as ARX applies them: divided by the largest (all 1 when every one is 0).

    Raises
    ------
    ParameterError
        A weight of 0 next to a positive one, or weights of the wrong length or sign.
    """
    w = attribute_weights(classes, weights, "arx_loss")
    top = float(w.max()) if len(w) else 0.0
    if top > 0.0 and (w == 0).any():
        raise ParameterError(
            "The 'weights' parameter of arx_loss must not mix 0 with positive weights: ARX's geometric "
            "mean is then 0 for every transformation. Give every QI a positive weight."
        )
    return w / top if top > 0.0 else np.ones(len(w))
