"""δ-disclosure privacy (Brickell & Shmatikov, KDD 2008)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

import numpy as np

from veil.classes import ClassTable, SensitiveHistogram
from veil.models._distributions import SensitiveAttributeModel, exact_ratio
from veil.models._facts import Param, RequirementKey

__all__ = ["DeltaDisclosure", "PresentValuesDeltaDisclosure", "disclosure_deltas"]

_REFERENCE = (
    "J. Brickell, V. Shmatikov, 'The cost of privacy: destruction of data-mining utility "
    "in anonymized data publishing', KDD 2008, Definition 1"
)


def disclosure_deltas(hist: SensitiveHistogram, *, present_only: bool = False) -> np.ndarray:
    """Per class, :math:`\\max_s |\\ln(p(E,s)/p(T,s))|` (natural log).

    ``s`` ranges over the values that occur in the table (:math:`p(T,s) > 0`);
    a value absent from a class gives ``inf`` unless ``present_only``, which
    skips it.  The ratio ``c N / (n o)`` is formed from integers and rounded once.  Read from the
    pairs that occur: a class lacking a value of the table is ``inf`` without its zeros.
    """
    pairs = hist.pairs
    overall = np.asarray(hist.overall, dtype=np.int64)
    used = overall > 0
    n_used = int(np.count_nonzero(used))
    if pairs.n_classes == 0 or n_used == 0:
        return np.zeros(pairs.n_classes)
    n = pairs.class_sizes()
    o = overall.take(pairs.values)
    held = o > 0  # the pairs of values the table holds (a value absent from the table is not judged)
    with np.errstate(divide="ignore"):
        logs = np.abs(np.log(exact_ratio(pairs.counts * int(overall.sum()), n.take(pairs.classes) * o)))
    deltas = pairs.class_max(np.where(held, logs, 0.0), 0.0)
    if present_only:
        return deltas
    every = np.bincount(pairs.classes[held], minlength=pairs.n_classes) == n_used  # no value of the table absent
    return np.where(every, deltas, np.inf)


@dataclass(frozen=True)
class _Disclosure(SensitiveAttributeModel):
    delta: float

    monotone_with_suppression: ClassVar[bool] = False
    compared_with: ClassVar[str] = "shown"
    parameters: ClassVar[tuple[Param, ...]] = SensitiveAttributeModel.parameters + (
        Param("delta", "float", low=0, closed="neither"),
    )
    _present_only: ClassVar[bool] = False

    def deltas(self, classes: ClassTable) -> np.ndarray:
        """Per class, the largest :math:`|\\ln(p(E,s)/p(T,s))|` (``inf`` possible)."""
        return disclosure_deltas(self.histogram(classes), present_only=self._present_only)

    def violating(self, classes: ClassTable) -> np.ndarray:
        return self.deltas(classes) >= self.delta

    def achieved_level(self, classes: ClassTable) -> float:
        """The smallest bound the table attains, :math:`\\max_E \\max_s |\\ln(p(E,s)/p(T,s))|`;
        the model holds for every ``delta`` strictly above it (``inf``: for none)."""
        d = self.deltas(classes)
        return float(d.max()) if len(d) else 0.0


@dataclass(frozen=True)
class DeltaDisclosure(_Disclosure):
    """No class shifts the share of any sensitive value by a factor of ``e**delta`` or more.

    The definition of the paper: the bound holds for **every** value ``s`` of
    the sensitive attribute that occurs in the table.  A value absent from a
    class gives :math:`\\ln 0 = -\\infty`, a violation (ARX and pycanon skip
    such values and disagree on the log base; see
    :class:`PresentValuesDeltaDisclosure` for that variant).

    Parameters
    ----------
    sensitive : str
    delta : float, in (0, inf)

    Notes
    -----
    .. math:: \\forall E, \\forall s \\in S(T):\\
              \\Big|\\ln \\frac{p(E, s)}{p(T, s)}\\Big| < \\delta

    Natural logarithm; strict inequality, as in the paper.  ``p(T, s)`` is the
    share in the whole table (suppressed records included).  The achieved level
    :math:`\\delta^*` is the largest class value; the table satisfies the model
    for every :math:`\\delta > \\delta^*` (an infimum, not attained).

    Monotone under generalization without suppression: a merged class's share
    is a weighted mean of its parts', so its log-ratio lies between theirs.  Not
    monotone with suppression.

    References
    ----------
    Brickell & Shmatikov, KDD 2008, Definition 1; seed 003.

    Examples
    --------
    >>> import pandas as pd
    >>> from veil.classes import ClassTable
    >>> frame = pd.DataFrame({"q": ["a", "a", "b", "b"], "s": ["x", "y", "x", "y"]})
    >>> classes = ClassTable.from_pandas(frame, quasi_identifiers=["q"], sensitive=["s"])
    >>> DeltaDisclosure(sensitive="s", delta=0.1).check(classes)
    True
    """

    monotone_generalization: ClassVar[bool] = True
    reference: ClassVar[str] = _REFERENCE + " (every value of the table's domain, natural log)"
    config_key: ClassVar[str] = "delta-disclosure"
    label: ClassVar[str] = "{delta:g}-disclosure privacy ({sensitive}, ln, all values)"
    requirement_keys: ClassVar[tuple[RequirementKey, ...]] = (
        RequirementKey("delta", "delta", "<=", "delta-disclosure (all values)", report_field="delta_disclosure"),
    )


@dataclass(frozen=True)
class PresentValuesDeltaDisclosure(_Disclosure):
    """δ-disclosure judged only on the sensitive values present in each class.

    The variant ARX and pycanon implement: a value absent from a class is
    skipped instead of being a violation.  Weaker than :class:`DeltaDisclosure`
    (a class of a single value may pass); offered for comparison with those tools.

    Parameters
    ----------
    sensitive : str
    delta : float, in (0, inf)

    Notes
    -----
    .. math:: \\forall E, \\forall s: p(E,s) > 0 \\Rightarrow
              \\Big|\\ln \\frac{p(E, s)}{p(T, s)}\\Big| < \\delta

    Natural logarithm, strict inequality.  Not monotone (a value skipped in a
    part may appear, rarer, in the merged class), with or without suppression.

    References
    ----------
    Brickell & Shmatikov, KDD 2008, Definition 1, restricted to present values.

    Examples
    --------
    >>> import pandas as pd
    >>> from veil.classes import ClassTable
    >>> frame = pd.DataFrame({"q": ["a", "a", "b", "b"], "s": ["x", "x", "x", "y"]})
    >>> classes = ClassTable.from_pandas(frame, quasi_identifiers=["q"], sensitive=["s"])
    >>> round(PresentValuesDeltaDisclosure(sensitive="s", delta=1).achieved_level(classes), 6)
    0.693147
    """

    monotone_generalization: ClassVar[bool] = False
    reference: ClassVar[str] = _REFERENCE + " (present values only, natural log)"
    config_key: ClassVar[str] = "present-values-delta-disclosure"
    label: ClassVar[str] = "{delta:g}-disclosure privacy ({sensitive}, ln, present values)"
    requirement_keys: ClassVar[tuple[RequirementKey, ...]] = (
        RequirementKey("delta_present", "delta", "<=", "delta-disclosure (present values)",
                       report_field="delta_disclosure_present_values"),
    )
    _present_only: ClassVar[bool] = True
