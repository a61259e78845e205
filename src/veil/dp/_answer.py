"""One differentially private answer, with what it cost and how noisy it is."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import numpy as np

from veil.dp._budget import PrivacyBudget
from veil.dp._bounds import ContributionBounds

__all__ = ["DPAnswer", "plain"]


@dataclass(frozen=True)
class DPAnswer:
    """One differentially private answer with what it cost and how noisy it is.

    Attributes
    ----------
    value : float, int or dict
        The noisy answer.  Histograms, contingency tables and group-by counts
        are ``dict`` from key (a tuple of values when several columns) to count.
    epsilon, delta : float
        The privacy cost of this answer.
    mechanism : str
        ``"geometric"``, ``"gaussian"``, ``"laplace"``, ``"exponential"``,
        ``"laplace_threshold"``, ``"laplace_threshold+laplace"`` (a grouped sum whose
        keys are selected privately) or ``"laplace+geometric"`` (mean).
    noise_scale : float
        The scale of the noise in the answer's units (Laplace/geometric: the
        scale b, mean absolute error ≈ b and standard deviation √2·b;
        Gaussian: the standard deviation σ; for a mean, the sum's scale divided
        by the noisy count; for a quantile, the Gumbel scale of the exponential
        mechanism on its score).
    privacy_unit : str
        What one protected "person" is: ``"row"`` or the name of the unit column.
    budget_remaining : PrivacyBudget
        The accountant's remaining budget right after this answer.
    query : str
        A description of the query.
    details : dict
        Mechanism-specific facts (e.g. the two scales of a mean, the threshold
        of a partition selection, whether the keys are public).
    contribution_bounds : ContributionBounds or None
        The bounds on one unit's contribution that the sensitivity follows from.
    sensitivity : float or None
        The sensitivity the noise was calibrated to: L1 for Laplace, geometric
        and the threshold, L2 for Gaussian, Δu for the exponential mechanism;
        ``None`` for a mean (two releases, see ``details``).
    rho : float or None
        The zCDP cost charged, when the accountant uses ``composition="zcdp"``.
    missing_as : float or None
        What a missing value counted as in a sum, mean or quantile (a public choice, by
        default the lower clamping bound); ``None`` for counts and histograms.
    """

    value: Any
    epsilon: float
    delta: float
    mechanism: str
    noise_scale: float
    privacy_unit: str
    budget_remaining: PrivacyBudget
    query: str = ""
    details: dict = field(default_factory=dict)
    contribution_bounds: ContributionBounds | None = None
    sensitivity: float | None = None
    rho: float | None = None
    missing_as: float | None = None

    def to_dict(self) -> dict:
        """The answer as plain JSON-ready data.

        Keys: ``query``, ``value`` (a dict keyed by one column's values; keyed by tuples
        of several columns' values, a list of ``[[v1, v2, ...], answer]`` pairs, so that
        no key can be confused with another),
        ``epsilon``, ``delta``, ``mechanism``, ``noise_scale``,
        ``privacy_unit``, ``budget_remaining`` (``{epsilon, delta}``),
        ``contribution_bounds`` (``{max_rows_per_unit, max_groups,
        max_rows_per_group}`` or ``None``), ``sensitivity``, ``rho``, ``missing_as``
        and ``details``.
        """
        value = self.value
        tuples = len(self.details.get("columns", ())) > 1  # a list even when no group was released
        if isinstance(value, dict) and (tuples or any(isinstance(k, tuple) for k in value)):
            value = [[[plain(part) for part in k], plain(v)] for k, v in value.items()]
        elif isinstance(value, dict):
            value = {str(k): plain(v) for k, v in value.items()}
        else:
            value = plain(value)
        bounds = self.contribution_bounds
        return {
            "query": self.query,
            "value": value,
            "epsilon": self.epsilon,
            "delta": self.delta,
            "mechanism": self.mechanism,
            "noise_scale": self.noise_scale,
            "privacy_unit": self.privacy_unit,
            "budget_remaining": {"epsilon": self.budget_remaining.epsilon,
                                 "delta": self.budget_remaining.delta},
            "contribution_bounds": None if bounds is None else bounds.to_dict(),
            "sensitivity": plain(self.sensitivity),
            "rho": self.rho,
            "missing_as": self.missing_as,
            "details": {str(k): plain(v) for k, v in self.details.items()},
        }


def plain(value: Any) -> Any:
    """numpy scalars and tuples to plain Python, for JSON."""
    if isinstance(value, np.generic):
        return value.item()
    if isinstance(value, (list, tuple)):
        return [plain(v) for v in value]
    return value
