"""(ε, δ)-differential privacy by sampling, generalization and suppression (SafePub)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

import numpy as np

from veil.classes import ClassTable
from veil.models._base import PrivacyModel
from veil.models._facts import Param, RequirementKey, validate

__all__ = ["DifferentialPrivacy"]


@dataclass(frozen=True)
class DifferentialPrivacy(PrivacyModel):
    """(ε, δ)-differential privacy of a truthful release, as SafePub achieves it.

    A release satisfies the model when it was produced by SafePub with these
    parameters: each record sampled with probability β, the generalization
    chosen by the exponential mechanism with ``search_budget · ε``, and every
    class with fewer than k sampled records suppressed, where (β, k) are
    derived from ``((1 - search_budget) · ε, δ)`` exactly as ARX derives them
    (:func:`veil.algorithms.safepub.safepub_parameters`).  The guarantee is a
    property of that random process, not of a table: what a table can show,
    and what :meth:`check` judges, is the part of it that verification can
    re-check, that every released class holds at least k records.

    Parameters
    ----------
    epsilon : float, in (0, inf)
        The total ε (search and anonymization).
    delta : float, in (0, 1)
    search_budget : float, in (0, 1), default 0.1
        The share of ε spent by the exponential mechanism on the search.

    Notes
    -----
    .. math:: \\min_j |E_j| \\ge k(\\varepsilon (1 - s), \\delta)

    Judged on a class table it is a minimum class size, so monotone under
    generalization and with suppression.

    References
    ----------
    R. Bild, K. A. Kuhn, F. Prasser, "SafePub: A Truthful Data Anonymization
    Algorithm With Strong Privacy Guarantees", PoPETs 2018(1), Theorem 1 and
    Algorithm 1.

    Examples
    --------
    >>> model = DifferentialPrivacy(epsilon=2, delta=1e-5)
    >>> model.k, round(model.beta, 4)
    (92, 0.8347)
    """

    epsilon: float
    delta: float
    search_budget: float = 0.1

    monotone_generalization: ClassVar[bool] = True
    monotone_with_suppression: ClassVar[bool] = True
    class_local: ClassVar[bool] = True
    #: Only SafePub's random process achieves the model; the plan refuses any other algorithm.
    released_by: ClassVar[str] = "safepub"
    reference: ClassVar[str] = "Bild, Kuhn & Prasser, PoPETs 2018(1) (SafePub), Theorem 1"
    config_key: ClassVar[str] = "dp"
    label: ClassVar[str] = "({epsilon:g}, {delta:g})-differential privacy"
    parameters: ClassVar[tuple[Param, ...]] = (
        Param("epsilon", "float", low=0, closed="right"), Param("delta", "float", low=0, high=1, closed="neither"),
        Param("search_budget", "float", low=0, high=1, closed="neither"),
    )
    requirement_keys: ClassVar[tuple[RequirementKey, ...]] = (
        RequirementKey("dp", None, ">=", "(epsilon, delta)-differential privacy through SafePub, a call: "
                       "dp(epsilon=2, delta=1e-5) (needs --algorithm safepub)"),
    )

    def __post_init__(self) -> None:
        validate(self)

    @property
    def epsilon_search(self) -> float:
        """The ε the exponential mechanism spends on the search."""
        return self.epsilon * self.search_budget

    @property
    def epsilon_anonymization(self) -> float:
        """The ε of sampling and suppression, from which β and k follow (rounded down, as ARX does)."""
        from veil.algorithms.safepub import anonymization_epsilon

        return anonymization_epsilon(self.epsilon, self.epsilon_search)

    @property
    def beta(self) -> float:
        """The probability with which each record is sampled."""
        from veil.algorithms.safepub import safepub_parameters

        return safepub_parameters(self.epsilon_anonymization, self.delta).beta

    @property
    def k(self) -> int:
        """The fewest sampled records a released class may hold."""
        from veil.algorithms.safepub import safepub_parameters

        return safepub_parameters(self.epsilon_anonymization, self.delta).k

    @property
    def smallest_class(self) -> int:
        return self.k

    def violating(self, classes: ClassTable) -> np.ndarray:
        return classes.counts < self.k

    def achieved_level(self, classes: ClassTable) -> int:
        """The smallest released class (0 when every record is suppressed)."""
        return int(classes.counts.min()) if classes.n_classes else 0
