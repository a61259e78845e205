"""β-likeness, basic and enhanced (Cao & Karras, PVLDB 2012)."""

from __future__ import annotations

from abc import abstractmethod
from dataclasses import dataclass
from typing import ClassVar

import numpy as np

from veil.classes import ClassTable, SensitiveHistogram
from veil.models._distributions import SensitiveAttributeModel, exact_ratio
from veil.models._facts import Param, RequirementKey

__all__ = ["BasicBetaLikeness", "EnhancedBetaLikeness", "likeness_levels", "relative_gains"]

_REFERENCE = "J. Cao, P. Karras, 'Publishing microdata with a robust privacy guarantee', PVLDB 5(11), 2012"


def relative_gains(hist: SensitiveHistogram) -> tuple[np.ndarray, np.ndarray]:
    """Per class and value ``(p - q) / q`` (0 where ``q = 0``) and ``q`` per value.

    ``p`` is the share in the class, ``q`` in the whole table; the gain is the
    integer ratio ``(c N - o n) / (o n)`` rounded once.
    """
    counts = hist.counts
    overall = hist.overall
    total = int(overall.sum())
    n = counts.sum(axis=1)
    den = np.outer(n, overall)
    gain = exact_ratio(counts * total - den, den)
    gain = np.where(overall[None, :] > 0, gain, 0.0)
    q = exact_ratio(overall, np.full(len(overall), max(total, 1)))
    return gain, q


def likeness_levels(hist: SensitiveHistogram) -> tuple[np.ndarray, np.ndarray]:
    """Per class, the basic and the enhanced β-likeness level, from the pairs that occur.

    The same doubles as the largest positive :func:`relative_gains` of each class (a value absent
    from a class has gain -1, never the largest positive one) and, for the enhanced level,
    ``inf`` where a gain passes ``-ln q``; in the pairs' time and memory, not classes x values.
    """
    pairs = hist.pairs
    overall = np.asarray(hist.overall, dtype=np.int64)
    total = int(overall.sum())
    o = overall.take(pairs.values)
    den = pairs.class_sizes().take(pairs.classes) * o
    gain = np.where(o > 0, exact_ratio(pairs.counts * total - den, den), 0.0)
    basic = pairs.class_max(gain, 0.0)
    q = exact_ratio(overall, np.full(len(overall), max(total, 1)))
    with np.errstate(divide="ignore"):
        cap = np.where(q > 0, -np.log(np.where(q > 0, q, 1.0)), np.inf)
    over = pairs.class_any((gain > 0) & (gain > cap.take(pairs.values)))
    return basic, np.where(over, np.inf, basic)


@dataclass(frozen=True)
class _Likeness(SensitiveAttributeModel):
    beta: float

    monotone_generalization: ClassVar[bool] = True
    monotone_with_suppression: ClassVar[bool] = False
    compared_with: ClassVar[str] = "shown"
    parameters: ClassVar[tuple[Param, ...]] = SensitiveAttributeModel.parameters + (
        Param("beta", "float", low=0, closed="neither"),
    )

    def _levels(self, classes: ClassTable) -> tuple[np.ndarray, np.ndarray]:
        return likeness_levels(self.histogram(classes))

    @abstractmethod
    def likeness(self, classes: ClassTable) -> np.ndarray:
        """Per class, the level the class attains."""

    def violating(self, classes: ClassTable) -> np.ndarray:
        return self.likeness(classes) > self.beta

    def achieved_level(self, classes: ClassTable) -> float:
        b = self.likeness(classes)
        return float(b.max()) if len(b) else 0.0


@dataclass(frozen=True)
class BasicBetaLikeness(_Likeness):
    """No class raises the share of a sensitive value by more than ``beta`` relative to the table.

    Parameters
    ----------
    sensitive : str
    beta : float, in (0, inf)

    Notes
    -----
    .. math:: \\forall E, \\forall s: p_E(s) > q(s) \\Rightarrow \\frac{p_E(s) - q(s)}{q(s)} \\le \\beta

    ``q`` is the distribution in the whole table (suppressed records included).
    The achieved level is :math:`\\max_{E,s} \\max(0, (p_E(s) - q(s))/q(s))`,
    an exact integer ratio rounded once (a class exactly at ``beta`` passes).

    Monotone under generalization without suppression (a merged class's share
    is a weighted mean of its parts', and the gain is linear in it).  Not
    monotone with suppression.

    References
    ----------
    Cao & Karras, PVLDB 5(11), 2012, Definition 2 (basic β-likeness).

    Examples
    --------
    >>> import pandas as pd
    >>> from veil.classes import ClassTable
    >>> frame = pd.DataFrame({"q": ["a", "a", "b", "b"], "s": ["x", "x", "x", "y"]})
    >>> classes = ClassTable.from_pandas(frame, quasi_identifiers=["q"], sensitive=["s"])
    >>> BasicBetaLikeness(sensitive="s", beta=1).achieved_level(classes)
    1.0
    """

    reference: ClassVar[str] = _REFERENCE + ", Definition 2 (basic β-likeness)"
    config_key: ClassVar[str] = "basic-beta-likeness"
    label: ClassVar[str] = "basic {beta:g}-likeness ({sensitive})"
    requirement_keys: ClassVar[tuple[RequirementKey, ...]] = (
        RequirementKey("beta", "beta", "<=", "basic beta-likeness", report_field="beta_likeness"),
    )

    def likeness(self, classes: ClassTable) -> np.ndarray:
        """Per class, the largest positive relative gain."""
        return self._levels(classes)[0]


@dataclass(frozen=True)
class EnhancedBetaLikeness(_Likeness):
    """Basic β-likeness with the bound tightened to ``-ln q(s)`` for frequent values.

    Parameters
    ----------
    sensitive : str
    beta : float, in (0, inf)

    Notes
    -----
    .. math:: \\forall E, \\forall s: p_E(s) > q(s) \\Rightarrow
              \\frac{p_E(s) - q(s)}{q(s)} \\le \\min(\\beta, -\\ln q(s))

    Natural log.  The achieved level is the largest positive gain when every
    gain also respects :math:`-\\ln q(s)`; otherwise no ``beta`` can be met and
    it is ``inf``.  The comparison with :math:`-\\ln q(s)` is in floating point
    (a logarithm is not a ratio of counts).

    Monotone under generalization without suppression (same argument as the
    basic model: the per-value bound does not depend on the class).  Not
    monotone with suppression.

    References
    ----------
    Cao & Karras, PVLDB 5(11), 2012, Definition 3 (enhanced β-likeness).

    Examples
    --------
    >>> import pandas as pd
    >>> from veil.classes import ClassTable
    >>> frame = pd.DataFrame({"q": ["a", "a", "b", "b"], "s": ["x", "x", "x", "y"]})
    >>> classes = ClassTable.from_pandas(frame, quasi_identifiers=["q"], sensitive=["s"])
    >>> EnhancedBetaLikeness(sensitive="s", beta=1).check(classes)
    False
    """

    reference: ClassVar[str] = _REFERENCE + ", Definition 3 (enhanced β-likeness, natural log)"
    config_key: ClassVar[str] = "enhanced-beta-likeness"
    label: ClassVar[str] = "enhanced {beta:g}-likeness ({sensitive})"
    requirement_keys: ClassVar[tuple[RequirementKey, ...]] = (
        RequirementKey("enhanced_beta", "beta", "<=", "enhanced beta-likeness", report_field="enhanced_beta_likeness"),
    )

    def likeness(self, classes: ClassTable) -> np.ndarray:
        """Per class, the largest positive gain, or ``inf`` where a gain exceeds ``-ln q``."""
        return self._levels(classes)[1]
