"""Re-identification risk thresholds as privacy models (prosecutor model)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

import numpy as np

from veil.classes import ClassTable
from veil.models._base import PrivacyModel
from veil.models._facts import Param, RequirementKey
from veil.models._distributions import exact_ratio

__all__ = ["MaxProsecutorRisk", "AverageRisk", "RecordsAtRiskShare"]

_REFERENCE = (
    "K. El Emam, 'Guide to the de-identification of personal health information', CRC "
    "Press 2013, ch. 15 (prosecutor risk); F. Prasser et al., ARX risk thresholds"
)


def _smallest_first(sizes: np.ndarray, candidates: np.ndarray, enough: "callable") -> np.ndarray:
    """Mark the fewest candidate classes, smallest first, whose removal makes ``enough`` true.

    ``enough(removed_classes, removed_records)`` is evaluated on the cumulative
    counts of the sorted candidates (vectorised); ties are broken by class order.
    """
    order = np.flatnonzero(candidates)
    order = order[np.argsort(sizes[order], kind="stable")]
    removed_classes = np.arange(0, len(order) + 1)
    removed_records = np.concatenate([[0], np.cumsum(sizes[order])])
    ok = enough(removed_classes, removed_records)
    first = int(np.argmax(ok)) if ok.any() else len(order)
    mask = np.zeros(len(sizes), dtype=np.bool_)
    mask[order[:first]] = True
    return mask


@dataclass(frozen=True)
class _ProsecutorRisk(PrivacyModel):
    """What the three thresholds share: a prosecutor risk ``threshold`` in (0, 1],
    one reference, and which classes' records are above it."""

    threshold: float

    monotone_generalization: ClassVar[bool] = True
    reference: ClassVar[str] = _REFERENCE
    parameters: ClassVar[tuple[Param, ...]] = (Param("threshold", "float", low=0, high=1, closed="right"),)

    def at_risk(self, classes: ClassTable) -> np.ndarray:
        """Classes whose records have a risk :math:`1/|E|` above the threshold."""
        return exact_ratio(np.ones_like(classes.counts), classes.counts) > self.threshold


@dataclass(frozen=True)
class MaxProsecutorRisk(_ProsecutorRisk):
    """The highest prosecutor re-identification risk of a record is at most ``threshold``.

    Parameters
    ----------
    threshold : float, in (0, 1]

    Notes
    -----
    .. math:: \\max_E \\frac{1}{|E|} \\le \\tau

    Equivalent to k-anonymity with :math:`k = \\lceil 1/\\tau \\rceil`; monotone
    under generalization and with suppression for the same reasons.  The
    achieved level is :math:`1/\\min_E |E|` (0.0 when no class is left).

    References
    ----------
    El Emam (2013), ch. 15; ARX's risk-based criteria.

    Examples
    --------
    >>> import pandas as pd
    >>> from veil.classes import ClassTable
    >>> classes = ClassTable.from_pandas(pd.DataFrame({"q": list("aabbbb")}), quasi_identifiers=["q"])
    >>> MaxProsecutorRisk(threshold=0.5).check(classes), MaxProsecutorRisk(threshold=0.5).achieved_level(classes)
    (True, 0.5)
    """

    class_local: ClassVar[bool] = True
    monotone_with_suppression: ClassVar[bool] = True
    config_key: ClassVar[str] = "max-prosecutor-risk"
    label: ClassVar[str] = "max prosecutor risk <= {threshold:g}"
    requirement_keys: ClassVar[tuple[RequirementKey, ...]] = (
        RequirementKey("risk", "threshold", "<=", "maximum prosecutor risk", report_field="max_prosecutor_risk"),
        RequirementKey("highest_risk", "threshold", "<=", "highest prosecutor risk (1/k)",
                       report_field="max_prosecutor_risk"),
    )

    def violating(self, classes: ClassTable) -> np.ndarray:
        return self.at_risk(classes)

    def achieved_level(self, classes: ClassTable) -> float:
        return 1.0 / float(classes.counts.min()) if classes.n_classes else 0.0


@dataclass(frozen=True)
class AverageRisk(_ProsecutorRisk):
    """The average prosecutor risk of the retained records is at most ``threshold``.

    A table-level model: :meth:`check` compares the average with the
    threshold, and :meth:`violating` marks the **fewest classes, smallest
    first**, whose suppression brings the average down to the threshold (none
    when it is met already; removing a class smaller than the mean size lowers
    the average).

    Parameters
    ----------
    threshold : float, in (0, 1]

    Notes
    -----
    .. math:: \\frac{1}{n}\\sum_{r} \\frac{1}{|E(r)|} = \\frac{|\\{E\\}|}{n} \\le \\tau

    ``n`` is the number of retained records; the ratio is exact and rounded once.
    Monotone under generalization without suppression (merging classes lowers
    the number of classes, not the records); not monotone with suppression.

    References
    ----------
    El Emam (2013), ch. 15 (average risk); ARX's ``AverageReidentificationRisk``.

    Examples
    --------
    >>> import pandas as pd
    >>> from veil.classes import ClassTable
    >>> classes = ClassTable.from_pandas(pd.DataFrame({"q": list("abbbbb")}), quasi_identifiers=["q"])
    >>> AverageRisk(threshold=0.2).check(classes), AverageRisk(threshold=0.2).violating(classes).tolist()
    (False, [True, False])
    """

    config_key: ClassVar[str] = "average-risk"
    label: ClassVar[str] = "average risk <= {threshold:g}"
    requirement_keys: ClassVar[tuple[RequirementKey, ...]] = (
        RequirementKey("average_risk", "threshold", "<=", "average prosecutor risk", report_field="average_risk",
                       aliases=("avg_risk",)),
    )

    def achieved_level(self, classes: ClassTable) -> float:
        """Classes per retained record (0.0 when no class is left)."""
        return float(exact_ratio(np.int64(classes.n_classes), np.int64(classes.n_retained)))

    def check(self, classes: ClassTable) -> bool:
        return self.achieved_level(classes) <= self.threshold

    def violating(self, classes: ClassTable) -> np.ndarray:
        g, n = classes.n_classes, classes.n_retained

        def enough(removed_classes: np.ndarray, removed_records: np.ndarray) -> np.ndarray:
            return exact_ratio(g - removed_classes, n - removed_records) <= self.threshold

        return _smallest_first(classes.counts, np.ones(g, dtype=np.bool_), enough)


@dataclass(frozen=True)
class RecordsAtRiskShare(_ProsecutorRisk):
    """At most a share ``share`` of the retained records has a risk above ``threshold``.

    A table-level model: :meth:`violating` marks the fewest at-risk classes,
    smallest first, whose suppression brings the share down to ``share``.

    Parameters
    ----------
    threshold : float, in (0, 1]
        A record is at risk when :math:`1/|E| > \\tau`.
    share : float, in [0, 1]

    Notes
    -----
    .. math:: \\frac{|\\{r : 1/|E(r)| > \\tau\\}|}{n} \\le \\sigma

    Monotone under generalization without suppression (classes only grow, so
    fewer records are at risk); not monotone with suppression.

    References
    ----------
    El Emam (2013), ch. 15; ARX's "records at risk" threshold.

    Examples
    --------
    >>> import pandas as pd
    >>> from veil.classes import ClassTable
    >>> classes = ClassTable.from_pandas(pd.DataFrame({"q": list("abbbbb")}), quasi_identifiers=["q"])
    >>> RecordsAtRiskShare(threshold=0.5, share=0.2).achieved_level(classes)
    0.16666666666666666
    """

    share: float

    config_key: ClassVar[str] = "records-at-risk"
    label: ClassVar[str] = "records at risk (> {threshold:g}) <= {share:g}"
    parameters: ClassVar[tuple[Param, ...]] = _ProsecutorRisk.parameters + (Param("share", "float", low=0, high=1),)
    requirement_keys: ClassVar[tuple[RequirementKey, ...]] = (
        RequirementKey("records_at_risk", "share", "<=",
                       "share of records above a prosecutor risk threshold (default 0.2; "
                       "records_at_risk(threshold=0.1)<=0.05)", fixed={"threshold": 0.2}),
        RequirementKey("sample_uniques", "share", "<=", "share of records that are sample uniques (alone in "
                       "their class: prosecutor risk 1 > 0.5)", fixed={"threshold": 0.5}),
    )

    def achieved_level(self, classes: ClassTable) -> float:
        """The share of retained records at risk (0.0 when no class is left)."""
        risky = int(classes.counts[self.at_risk(classes)].sum())
        return float(exact_ratio(np.int64(risky), np.int64(classes.n_retained)))

    def check(self, classes: ClassTable) -> bool:
        return self.achieved_level(classes) <= self.share

    def violating(self, classes: ClassTable) -> np.ndarray:
        risky = self.at_risk(classes)
        a, n = int(classes.counts[risky].sum()), classes.n_retained

        def enough(removed_classes: np.ndarray, removed_records: np.ndarray) -> np.ndarray:
            return exact_ratio(a - removed_records, n - removed_records) <= self.share

        return _smallest_first(classes.counts, risky, enough)
