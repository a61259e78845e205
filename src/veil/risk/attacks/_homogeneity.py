"""Homogeneity and background-knowledge attacks on a class table (Machanavajjhala et al. 2007)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from veil._validation import check_real
from veil.classes import ClassTable
from veil.dataset import Dataset
from veil.errors import ColumnNotFoundError, ParameterError
from veil.risk._common import as_classes

__all__ = ["HomogeneityResult", "BackgroundKnowledgeResult", "homogeneity_attack", "background_knowledge_attack"]


def _histogram(table: ClassTable, sensitive: str | None):
    names = list(table.sensitive)
    if sensitive is None:
        if len(names) != 1:
            raise ParameterError(
                "Name the sensitive attribute: the table has "
                + ("none" if not names else f"{len(names)} ({', '.join(names)})") + "."
            )
        sensitive = names[0]
    if sensitive not in table.sensitive:
        raise ColumnNotFoundError(
            f"{sensitive!r} is not a sensitive attribute of the table; its sensitive attributes are: "
            f"{', '.join(names) or 'none'}."
        )
    return table.sensitive[sensitive]


@dataclass(frozen=True)
class HomogeneityResult:
    """Classes whose records all share one sensitive value, and the records they expose.

    Attributes
    ----------
    sensitive : str
    homogeneous_classes : int
    exposed_records : int
        Records in homogeneous classes: anyone known to be in such a class has
        their sensitive value disclosed.
    exposed_fraction : float in [0, 1]
        ``exposed_records`` over the retained records.
    class_mask : numpy.ndarray of bool
        Which classes are homogeneous.
    """

    sensitive: str
    homogeneous_classes: int
    exposed_records: int
    exposed_fraction: float
    class_mask: np.ndarray

    def to_dict(self) -> dict[str, Any]:
        return {
            "sensitive": self.sensitive, "homogeneous_classes": self.homogeneous_classes,
            "exposed_records": self.exposed_records, "exposed_fraction": self.exposed_fraction,
        }


def homogeneity_attack(classes: Any, sensitive: str | None = None) -> HomogeneityResult:
    """The homogeneity attack: classes with a single sensitive value disclose it.

    Parameters
    ----------
    classes : ClassTable, Dataset or DataFrame
        A table with at least one sensitive attribute.
    sensitive : str, optional
        Needed when the table has several sensitive attributes.

    Returns
    -------
    HomogeneityResult

    Notes
    -----
    A class :math:`j` is homogeneous when its histogram has one non-zero
    value.  The exposed records are :math:`\\sum_{j\\ \\text{homogeneous}} f_j`.
    A k-anonymous table can expose every record this way (distinct
    l-diversity with l ≥ 2 prevents it).

    References
    ----------
    A. Machanavajjhala, D. Kifer, J. Gehrke and M. Venkitasubramaniam,
    "l-diversity: privacy beyond k-anonymity", ACM TKDD 1(1), 2007, sec. 3.1.

    Examples
    --------
    >>> from veil.datasets import load_patients_3anonymous
    >>> homogeneity_attack(load_patients_3anonymous()).exposed_records
    3
    """
    table = as_classes(classes, owner="homogeneity_attack")
    hist = _histogram(table, sensitive)
    distinct = hist.distinct()  # from the pairs that occur when the values are many
    mask = distinct == 1
    exposed = int(table.counts[mask].sum())
    n = int(table.counts.sum())
    return HomogeneityResult(hist.name, int(mask.sum()), exposed, exposed / n if n else 0.0, mask)


# --------------------------------------------------------- background knowledge
@dataclass(frozen=True)
class BackgroundKnowledgeResult:
    """An adversary's beliefs about a target's sensitive value, class by class.

    Attributes
    ----------
    sensitive : str
    labels : numpy.ndarray of str
        The sensitive value domain (columns of ``posterior``).
    prior : numpy.ndarray of float, shape (n_values,)
        The adversary's normalised prior.
    posterior : numpy.ndarray of float, shape (n_classes, n_values)
        The belief after locating the target's class (rows of zeros where the
        knowledge contradicts the class).
    gain : numpy.ndarray of float, shape (n_classes,)
        :math:`\\max_s (\\text{posterior}_j(s) - \\text{prior}(s))`.
    largest_gain : float
    largest_gain_class : int
        The class of the largest gain (-1 for an empty table).
    disclosed_classes : int
        Classes where the posterior of one value reaches ``confidence``.
    exposed_records : int
        Records in those classes.
    confidence : float
    contradicted_classes : int
        Classes where the prior gives every present value probability 0.
    """

    sensitive: str
    labels: np.ndarray
    prior: np.ndarray
    posterior: np.ndarray
    gain: np.ndarray
    largest_gain: float
    largest_gain_class: int
    disclosed_classes: int
    exposed_records: int
    confidence: float
    contradicted_classes: int

    def to_dict(self) -> dict[str, Any]:
        return {
            "sensitive": self.sensitive, "largest_gain": self.largest_gain,
            "largest_gain_class": self.largest_gain_class, "disclosed_classes": self.disclosed_classes,
            "exposed_records": self.exposed_records, "confidence": self.confidence,
            "contradicted_classes": self.contradicted_classes,
        }


def _prior_weights(prior: Any, labels: np.ndarray, name: str) -> np.ndarray:
    """The adversary's prior over the ``labels`` of attribute ``name``, checked and normalised to 1."""
    v = len(labels)
    if isinstance(prior, Mapping):
        position = {str(label): i for i, label in enumerate(labels)}
        weights = np.full(v, np.nan)
        for key, value in prior.items():
            if str(key) not in position:
                raise ParameterError(
                    f"The prior names {key!r}, which is not a value of {name!r}."
                )
            value = check_real(f"prior[{key!r}]", value, "background_knowledge_attack", low=0.0, high=1.0)
            weights[position[str(key)]] = value
        listed = ~np.isnan(weights)
        total = float(weights[listed].sum())
        if total > 1 + 1e-9:
            raise ParameterError(
                f"The prior probabilities given sum to {total:g}; they must sum to at most 1."
            )
        rest = int((~listed).sum())
        weights[~listed] = (max(0.0, 1.0 - total) / rest) if rest else 0.0
    else:
        weights = np.asarray(prior, dtype=np.float64).reshape(-1)
        if weights.shape != (v,):
            raise ParameterError(
                f"The prior must have one weight per value of {name!r} ({v}). Got {weights.shape[0]} instead."
            )
        if not np.all(np.isfinite(weights)) or (weights < 0).any():
            raise ParameterError("The prior weights must be finite and non-negative.")
    if not weights.sum() > 0:
        raise ParameterError("The prior gives every value probability 0; at least one must be positive.")
    weights = weights / weights.sum()
    return weights


def _bayes(
    counts: np.ndarray, weights: np.ndarray, sizes: np.ndarray, confidence: float
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Per class: the posterior over values, the largest gain over the prior, whether a value
    reaches ``confidence``, whether the prior contradicts the class (gives all its records 0)."""
    v = len(weights)
    joint = counts * weights[None, :]
    norm = joint.sum(axis=1)
    contradicted = (norm <= 0) & (sizes > 0)
    posterior = np.divide(joint, norm[:, None], out=np.zeros_like(joint), where=norm[:, None] > 0)
    gain = np.where(norm > 0, (posterior - weights[None, :]).max(axis=1) if v else 0.0, 0.0)
    disclosed = (posterior.max(axis=1) >= confidence - 1e-12) if v else np.zeros(len(sizes), bool)
    return posterior, gain, disclosed, contradicted


def background_knowledge_attack(
    classes: Any, prior: Mapping[str, float] | Sequence[float] | np.ndarray, *,
    sensitive: str | None = None, confidence: float = 0.95,
) -> BackgroundKnowledgeResult:
    """The background-knowledge attack: combine a prior over sensitive values with the release.

    Parameters
    ----------
    classes : ClassTable, Dataset or DataFrame
    prior : mapping of value to probability, or array over the value domain
        The adversary's belief about the target's value before the release (e.g. ``{"Heart Disease":
        0.0}``).  A mapping may list some values only (the unlisted ones share the rest of the mass
        equally); an array is normalised.
    sensitive : str, optional
    confidence : float in (0, 1]
        A class *discloses* a value when the posterior of that value reaches it.

    Returns
    -------
    BackgroundKnowledgeResult

    Raises
    ------
    ParameterError
        A negative or non-finite prior, a mapping summing above 1 or naming values outside the
        domain, an array of the wrong length.

    Notes
    -----
    Locating the target's class :math:`j` restricts its value to the class's
    histogram :math:`h_j`; the prior weighs those records:

    .. math:: \\Pr[s \\mid j] = \\frac{\\text{prior}(s)\\, h_j(s)}{\\sum_{s'} \\text{prior}(s')\\, h_j(s')}.
    The gain of class :math:`j` is :math:`\\max_s (\\Pr[s\\mid j] - \\text{prior}(s))`.

    References
    ----------
    A. Machanavajjhala, D. Kifer, J. Gehrke and M. Venkitasubramaniam,
    "l-diversity: privacy beyond k-anonymity", ACM TKDD 1(1), 2007, sec. 3.1
    (Umeko's example) and sec. 4 (the Bayes-optimal posterior).

    Examples
    --------
    >>> from veil.datasets import load_patients_3anonymous
    >>> background_knowledge_attack(load_patients_3anonymous(), {"Heart Disease": 0.0}).disclosed_classes
    2
    """
    confidence = check_real("confidence", confidence, "background_knowledge_attack", low=0.0, high=1.0,
                            closed="right")
    table = as_classes(classes, owner="background_knowledge_attack")
    hist = _histogram(table, sensitive)
    labels = np.asarray(hist.labels, dtype=object)
    weights = _prior_weights(prior, labels, hist.name)
    posterior, gain, disclosed, contradicted = _bayes(hist.counts, weights, table.counts, confidence)
    best = int(np.argmax(gain)) if len(gain) else -1
    return BackgroundKnowledgeResult(
        hist.name, labels, weights, posterior, gain,
        float(gain[best]) if best >= 0 else 0.0, best, int(disclosed.sum()),
        int(table.counts[disclosed].sum()), confidence, int(contradicted.sum()),
    )
