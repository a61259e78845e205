"""LKC-privacy (Mohammed, Fung, Hung & Lee, KDD 2009)."""

from __future__ import annotations

from dataclasses import dataclass, field
from itertools import combinations
from typing import ClassVar

import numpy as np

from veil.classes import ClassTable, ClassValueCounts
from veil.errors import ParameterError
from veil.models._base import PrivacyModel
from veil.models._facts import Param, RequirementKey, validate
from veil.models._distributions import exact_ratio, histogram

__all__ = ["LKCPrivacy"]


def _subset_groups(classes: ClassTable, index: tuple[int, ...]) -> tuple[np.ndarray, int]:
    """Group the classes by their codes on the QIs ``index``: (group of each class, n groups)."""
    key = np.zeros(classes.n_classes, dtype=np.int64)
    for i in index:
        radix = classes.hierarchies[i].n_values(classes.levels[i])
        key = key * radix + classes.codes[:, i]
    uniq, inverse = np.unique(key, return_inverse=True)
    return inverse.reshape(-1), len(uniq)


@dataclass(frozen=True)
class LKCPrivacy(PrivacyModel):
    """Every combination of at most ``L`` QI values is shared by ``K`` records and
    infers no listed sensitive value with confidence above ``C``.

    Parameters
    ----------
    L : int, in [1, inf), at most the number of QIs
        The adversary's prior knowledge: the number of QI values they know.
    K : int, in [1, inf)
    C : float, in (0, 1], default 1.0
        The largest allowed confidence :math:`conf(qid \\to s) = |T[qid \\wedge s]| / |T[qid]|`.
    sensitive : str, optional
        The sensitive attribute (needed when ``C < 1``).
    values : tuple of str, optional
        The sensitive values ``S`` to protect; by default every value.

    Raises
    ------
    ParameterError
        At evaluation, when ``L`` exceeds the number of QIs.

    Notes
    -----
    .. math:: \\forall qid, |qid| \\le L:\\ |T[qid]| \\ge K \\ \\wedge\\
              \\forall s \\in S:\\ conf(qid \\to s) \\le C

    k-anonymity is the special case ``L = |QID|``, ``K = k``, ``C = 1``.  The
    achieved level is ``{"L": L, "K": smallest |T[qid]|, "C": largest
    confidence}`` over every qid of at most ``L`` QIs.  A class of the table
    violates the model when any of its projections on at most ``L`` QIs does.

    Monotone under generalization without suppression (the anti-monotone
    property of Mohammed et al.: a specialization never repairs a violation).
    Not monotone with suppression: suppressing a class shrinks the groups of
    its projections that other classes share.

    References
    ----------
    N. Mohammed, B. C. M. Fung, P. C. K. Hung, C. Lee, 'Anonymizing healthcare
    data: a case study on the blood transfusion service', KDD 2009, Definition
    (LKC-privacy); seed 004 (Fung et al., *Introduction to PPDP*, ch. 6).

    Examples
    --------
    >>> from veil.classes import ClassTable, ClassValueCounts
    >>> from veil.datasets import load_lkc_patients_anonymized
    >>> classes = ClassTable.from_dataset(load_lkc_patients_anonymized())
    >>> LKCPrivacy(L=2, K=2, C=0.5, sensitive="Surgery", values=("Transgender",)).check(classes)
    True
    """

    L: int
    K: int
    C: float = 1.0
    sensitive: str | None = None
    values: tuple[str, ...] | None = field(default=None)

    monotone_generalization: ClassVar[bool] = True
    monotone_with_suppression: ClassVar[bool] = False
    needs_sensitive: ClassVar[bool] = False
    reference: ClassVar[str] = "Mohammed, Fung, Hung & Lee, KDD 2009 (LKC-privacy)"
    config_key: ClassVar[str] = "lkc-privacy"
    label: ClassVar[str] = "LKC-privacy (L={L}, K={K}, C={C:g})"
    parameters: ClassVar[tuple[Param, ...]] = (
        Param("L", "int", low=1), Param("K", "int", low=1), Param("C", "float", low=0, high=1, closed="right"),
        Param("sensitive", "str", optional=True),
    )
    requirement_keys: ClassVar[tuple[RequirementKey, ...]] = (
        RequirementKey("lkc", None, ">=", "LKC-privacy, a call: lkc(L=2,K=5,C=0.5) (C < 1 needs a sensitive attribute)"),
    )

    def __post_init__(self) -> None:
        validate(self)
        if self.C < 1 and self.sensitive is None:
            raise ParameterError(
                f"LKCPrivacy with C={self.C:g} < 1 needs the sensitive attribute (sensitive=...)."
            )
        if self.values is not None:
            object.__setattr__(self, "values", tuple(str(v) for v in self.values))

    def _sensitive_counts(self, classes: ClassTable) -> np.ndarray | ClassValueCounts | None:
        """The per-class counts the confidence reads: a dense matrix of a few values, else the pairs."""
        if self.sensitive is None:
            return None
        hist = histogram(classes, self.sensitive, "LKCPrivacy")
        if self.values is None:
            return hist.counts if hist.is_dense else hist.pairs
        labels = [str(x) for x in hist.labels]
        missing = [v for v in self.values if v not in labels]
        if missing:
            raise ParameterError(f"LKCPrivacy: the value(s) {missing!r} are not values of {self.sensitive!r}.")
        return hist.columns([labels.index(v) for v in self.values])

    def _subsets(self, classes: ClassTable) -> list[tuple[int, ...]]:
        q = len(classes.quasi_identifiers)
        if self.L > q:
            raise ParameterError(
                f"The 'L' parameter of LKCPrivacy must be at most the number of quasi-identifiers ({q}). "
                f"Got {self.L} instead."
            )
        return [s for size in range(1, self.L + 1) for s in combinations(range(q), size)]

    def _scan(self, classes: ClassTable) -> tuple[np.ndarray, np.ndarray]:
        """Per class: the smallest |T[qid]| and the largest confidence over its qids."""
        g = classes.n_classes
        smallest = np.full(g, np.iinfo(np.int64).max, dtype=np.int64)
        confidence = np.zeros(g, dtype=np.float64)
        sens = self._sensitive_counts(classes)
        for subset in self._subsets(classes):
            group, n_groups = _subset_groups(classes, subset)
            size = np.bincount(group, weights=classes.counts, minlength=n_groups).astype(np.int64)
            smallest = np.minimum(smallest, size[group])
            if isinstance(sens, ClassValueCounts):  # many values: the pairs summed by group, then each group's top
                rolled = sens.roll_up(group, n_groups)
                top = rolled.class_max(rolled.counts.astype(np.float64), 0.0).astype(np.int64)
                confidence = np.maximum(confidence, exact_ratio(top, size)[group])
            elif sens is not None and sens.shape[1]:
                top = np.zeros(n_groups, dtype=np.int64)
                for v in range(sens.shape[1]):
                    hits = np.bincount(group, weights=sens[:, v], minlength=n_groups).astype(np.int64)
                    top = np.maximum(top, hits)
                confidence = np.maximum(confidence, exact_ratio(top, size)[group])
        return smallest, confidence

    def violating(self, classes: ClassTable) -> np.ndarray:
        smallest, confidence = self._scan(classes)
        return (smallest < self.K) | (confidence > self.C)

    def achieved_level(self, classes: ClassTable) -> dict[str, float | int]:
        """``{"L": L, "K": smallest group, "C": largest confidence}`` over qids of size <= L."""
        smallest, confidence = self._scan(classes)
        if not len(smallest):
            return {"L": self.L, "K": 0, "C": 0.0}
        return {"L": self.L, "K": int(smallest.min()), "C": float(confidence.max())}
