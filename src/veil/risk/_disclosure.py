"""Sensitive-attribute disclosure measures of Brickell & Shmatikov (2008)."""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

import numpy as np

from veil.risk._attacks import _histogram
from veil.risk._common import as_classes

__all__ = ["DisclosureResult", "disclosure"]


@dataclass(frozen=True)
class DisclosureResult:
    """Brickell–Shmatikov disclosure of one sensitive attribute.

    Attributes
    ----------
    sensitive : str
    a_diff : numpy.ndarray of float, shape (n_classes,)
        Total variation distance between each class's distribution and the table's.
    a_know : float in [0, 1]
        Record-weighted average of ``a_diff`` (the adversary's knowledge gain).
    a_acc : float in [-1, 1]
        The gain in accuracy of guessing each target's value by its class's
        most common value, over guessing the table's most common value.
    delta : float
        The smallest δ for which the table is δ-disclosure private
        (:math:`\\infty` when a class lacks a value the table has).
    """

    sensitive: str
    a_diff: np.ndarray
    a_know: float
    a_acc: float
    delta: float

    def to_dict(self) -> dict[str, Any]:
        finite = math.isfinite(self.delta)
        return {
            "sensitive": self.sensitive,
            "a_diff_max": float(self.a_diff.max()) if len(self.a_diff) else 0.0,
            "a_know": self.a_know,
            "a_acc": self.a_acc,
            "delta": self.delta if finite else None,
            "delta_unbounded": not finite,
        }


def disclosure(classes: Any, sensitive: str | None = None) -> DisclosureResult:
    """A_diff per class, A_know, A_acc and the δ-disclosure level of a table.

    Parameters
    ----------
    classes : ClassTable, Dataset or DataFrame
    sensitive : str, optional
        Needed when the table has several sensitive attributes.

    Returns
    -------
    DisclosureResult

    Notes
    -----
    With :math:`p(T, s)` the share of value :math:`s` in the whole table
    (suppressed records included: the adversary's baseline from the trivially
    sanitized table) and :math:`p(\\langle t\\rangle, s)` its share in class
    :math:`\\langle t\\rangle`:

    .. math::

        A_{diff}(\\langle t\\rangle) &= \\tfrac12 \\sum_s |p(T,s) - p(\\langle t\\rangle,s)|, \\\\
        A_{know} &= \\frac{1}{|T|}\\sum_{\\langle t\\rangle} |\\langle t\\rangle|\\, A_{diff}(\\langle t\\rangle), \\\\
        A_{acc} &= \\frac{1}{|T|}\\sum_{\\langle t\\rangle} |\\langle t\\rangle|\\, p(\\langle t\\rangle, s_{max}(\\langle t\\rangle)) - p(T, s_{max}(T)), \\\\
        \\delta &= \\max_{\\langle t\\rangle, s:\\ p(T,s)>0} \\Big|\\log\\frac{p(\\langle t\\rangle,s)}{p(T,s)}\\Big|,

    with :math:`|T|` the records in classes (not suppressed).  A table is
    δ-disclosure private for every δ strictly above the returned value
    (the definition uses ``<``).

    References
    ----------
    J. Brickell and V. Shmatikov, "The cost of privacy: destruction of
    data-mining utility in anonymized data publishing", KDD 2008,
    Definitions 1 (δ-disclosure), sec. 3 (A_know, A_acc).

    Examples
    --------
    >>> from veil.datasets import load_patients_3anonymous
    >>> result = disclosure(load_patients_3anonymous())
    >>> round(result.a_know, 4), result.delta
    (0.46, inf)
    """
    table = as_classes(classes, owner="disclosure")
    hist = _histogram(table, sensitive)
    if not hist.is_dense:  # many values: from the pairs that occur, never classes x values
        return _pair_disclosure(hist, table.n_classes)
    counts = hist.counts.astype(np.float64)
    sizes = counts.sum(axis=1)
    total = float(hist.overall.sum())
    n = float(sizes.sum())
    if total == 0 or n == 0 or table.n_classes == 0:
        return DisclosureResult(hist.name, np.zeros(table.n_classes), 0.0, 0.0, 0.0)
    base = hist.overall / total
    p = counts / sizes[:, None]
    a_diff = 0.5 * np.abs(p - base[None, :]).sum(axis=1)
    a_know = float(np.dot(sizes, a_diff) / n)
    a_acc = float(counts.max(axis=1).sum() / n - base.max())
    return DisclosureResult(hist.name, a_diff, a_know, a_acc, _delta(p, base))


def _pair_disclosure(hist: Any, n_classes: int) -> DisclosureResult:
    """:func:`disclosure` from a histogram's (class, value, count) pairs: ``A_diff`` from the integers
    :math:`\\sum_v |c_v N - o_v n|` over :math:`2 n N` (a value absent from a class adds
    :math:`o_v n`), the rest as the dense path computes it, pair by pair."""
    pairs = hist.pairs
    overall = np.asarray(hist.overall, dtype=np.int64)
    total, sizes = int(overall.sum()), pairs.class_sizes()
    n = int(sizes.sum())
    if total == 0 or n == 0 or n_classes == 0:
        return DisclosureResult(hist.name, np.zeros(n_classes), 0.0, 0.0, 0.0)
    o, size = overall.take(pairs.values), sizes.take(pairs.classes)
    apart = pairs.class_sums(np.abs(pairs.counts * total - size * o)) + sizes * (total - pairs.class_sums(o))
    a_diff = np.where(sizes > 0, apart / np.maximum(2.0 * sizes * total, 1.0), 0.0)
    base = overall / float(total)
    a_acc = float(hist.class_top().sum() / float(n) - base.max())
    held = o > 0
    if (np.bincount(pairs.classes[held], minlength=n_classes) < np.count_nonzero(overall)).any():
        delta = math.inf  # a value of the table absent from a class
    else:
        p = pairs.counts[held] / size[held].astype(np.float64)
        delta = float(np.abs(np.log(p / base.take(pairs.values[held]))).max())
    return DisclosureResult(hist.name, a_diff, float(np.dot(sizes, a_diff) / n), a_acc, delta)


def _delta(p: np.ndarray, base: np.ndarray) -> float:
    """The largest :math:`|\\log(p(\\langle t\\rangle, s)/p(T, s))|` over classes and present values."""
    present = base > 0
    if (p[:, present] == 0).any():
        return math.inf
    return float(np.abs(np.log(p[:, present] / base[None, present])).max())
