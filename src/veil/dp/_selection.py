"""Private selection: the exponential mechanism and permute-and-flip, on OpenDP's samplers.

Both pick the index of a candidate from utility scores of sensitivity Δu
(higher is better) through OpenDP's ``make_noisy_max`` (report-noisy-max):
with Gumbel noise it *is* the exponential mechanism; with exponential noise it
is distributed as permute-and-flip.  They differ in their distribution, and
each class is named for the one it samples.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from dataclasses import dataclass, field
from typing import Any, Sequence

import numpy as np

from veil.dp._budget import PrivacyBudget, ZCDPBudget
from veil.dp._mechanisms import calibrated, check_epsilon, check_sensitivity, set_fields
from veil.dp._sampler import opendp
from veil.errors import ParameterError

__all__ = ["ExponentialMechanism", "PermuteAndFlip", "exponential_probabilities",
           "permute_and_flip_probabilities"]


def _scores(scores: Sequence[float], owner: str) -> list[float]:
    arr = np.asarray(scores, dtype=float)
    if arr.ndim != 1 or arr.size == 0 or not np.all(np.isfinite(arr)):
        raise ParameterError(f"{owner}.select needs a non-empty 1-d list of finite scores.")
    return arr.tolist()


def _space() -> tuple[Any, Any]:
    dp = opendp()
    return dp.vector_domain(dp.atom_domain(T=float, nan=False)), dp.linf_distance(T=float)


def exponential_probabilities(scores: Sequence[float], *, epsilon: float,
                              sensitivity: float) -> np.ndarray:
    """:math:`\\Pr[i] = e^{\\varepsilon u_i/(2\\Delta u)} / \\sum_j e^{\\varepsilon u_j/(2\\Delta u)}`."""
    z = epsilon * np.asarray(scores, dtype=float) / (2.0 * sensitivity)
    w = np.exp(z - z.max())
    return w / w.sum()


def permute_and_flip_probabilities(scores: Sequence[float], *, epsilon: float,
                                   sensitivity: float) -> np.ndarray:
    """The exact output distribution of permute-and-flip.

    With :math:`p_r = e^{\\varepsilon (u_r - u^*)/(2\\Delta u)}`, candidate r
    is output with probability :math:`p_r \\int_0^1 \\prod_{s \\ne r}(1 - t p_s)\\,dt`
    (in a uniformly random order each other candidate comes first
    independently with probability t given r's arrival time t, and is then
    rejected with probability :math:`1 - p_s`).  Integrated exactly as a
    polynomial.
    """
    u = np.asarray(scores, dtype=float)
    p = np.exp(epsilon * (u - u.max()) / (2.0 * sensitivity))
    out = np.empty(u.size)
    for r in range(u.size):  # one polynomial per candidate (candidates, not rows)
        poly = np.polynomial.Polynomial([1.0])
        for s in np.delete(p, r):
            poly = poly * np.polynomial.Polynomial([1.0, -s])
        integral = poly.integ()
        out[r] = p[r] * (integral(1.0) - integral(0.0))
    return out


@dataclass(frozen=True, slots=True, kw_only=True)
class _NoisyMax(ABC):
    """What both selections share: ε and Δu (validated), the noise ``scale`` and
    OpenDP's report-noisy-max measurement that each subclass's ``_measure``
    builds from them, the pure-ε cost and :meth:`select`."""

    epsilon: float
    sensitivity: float = 1.0
    scale: float = field(init=False)
    _meas: Any = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        owner = type(self).__name__
        eps = check_epsilon(self.epsilon, owner)
        sens = check_sensitivity(self.sensitivity, owner)
        set_fields(self, epsilon=eps, sensitivity=sens)
        self._measure(eps, sens)

    @abstractmethod
    def _measure(self, eps: float, sens: float) -> None:
        """Build the measurement and set ``scale`` and ``_meas`` (and any other derived field)."""

    @property
    def budget(self) -> PrivacyBudget:
        """The pure-ε cost of one selection (see the class's Notes for what certifies it)."""
        return PrivacyBudget(epsilon=self.epsilon)

    def select(self, scores: Sequence[float]) -> int:
        """Return the index of the privately selected candidate (higher score = better)."""
        return int(self._meas(_scores(scores, type(self).__name__)))


@dataclass(frozen=True, slots=True, kw_only=True)
class ExponentialMechanism(_NoisyMax):
    """The exponential mechanism: candidate i with probability ∝ exp(ε u_i / (2Δu)).

    Parameters
    ----------
    epsilon : float in [1e-9, 1e4]
    sensitivity : float in (0, inf)
        Δu, the most one privacy unit can change any candidate's score.

    Attributes
    ----------
    scale : float
        The Gumbel scale :math:`2\\Delta u/\\varepsilon`.
    rho : float
        The zCDP cost from OpenDP's privacy map of the measurement,
        :math:`\\varepsilon^2/8` (Cesar & Rogers 2021).

    Notes
    -----
    Report-noisy-max with Gumbel noise of scale :math:`2\\Delta u/\\varepsilon`
    samples exactly :math:`\\Pr[i] \\propto e^{\\varepsilon u_i/(2\\Delta u)}`
    (the Gumbel-max trick); the sampler is OpenDP's ``make_noisy_max`` with a
    zero-concentrated-divergence output measure (Gumbel noise).  OpenDP's map
    certifies its ρ; the pure ε rests on McSherry & Talwar (2007), Theorem 6
    (OpenDP has no pure-DP map for Gumbel noise).

    References
    ----------
    McSherry, F., Talwar, K. (2007). Mechanism design via differential privacy.
    FOCS.
    Cesar, M., Rogers, R. (2021). Bounding, concentrating, and truncating:
    unifying privacy loss composition for data analytics. ALT.
    """

    rho: float = field(init=False)

    def _measure(self, eps: float, sens: float) -> None:
        dp = opendp()
        scale = 2.0 * sens / eps
        meas = dp.m.make_noisy_max(*_space(), dp.zero_concentrated_divergence(), scale=scale)
        set_fields(self, scale=scale, rho=float(meas.map(sens)), _meas=meas)

    @property
    def zcdp_budget(self) -> ZCDPBudget:
        """The zCDP cost of one selection, from OpenDP's map."""
        return ZCDPBudget(rho=self.rho)

    def probabilities(self, scores: Sequence[float]) -> np.ndarray:
        """The exact selection probabilities for ``scores``."""
        return exponential_probabilities(scores, epsilon=self.epsilon, sensitivity=self.sensitivity)


@dataclass(frozen=True, slots=True, kw_only=True)
class PermuteAndFlip(_NoisyMax):
    """Permute-and-flip: visit candidates in random order, keep r with probability e^{ε(u_r − u*)/(2Δu)}.

    Parameters
    ----------
    epsilon, sensitivity : float
        ε and Δu, as for :class:`ExponentialMechanism`.

    Attributes
    ----------
    scale : float
        The exponential-noise scale :math:`2\\Delta u/\\varepsilon`.

    Notes
    -----
    ε-DP, and never worse in expected utility than the exponential mechanism
    at the same ε (McKenna & Sheldon 2020, Theorems 1-2).  Sampled as
    report-noisy-max with exponential noise of scale :math:`2\\Delta u/\\varepsilon`,
    which has the same distribution (Ding et al. 2021); OpenDP's
    ``make_noisy_max`` with a max-divergence measure, whose privacy map
    certifies ε (``meas.check(Δu, ε)``).  Exact distribution:
    :func:`permute_and_flip_probabilities`.

    References
    ----------
    McKenna, R., Sheldon, D. (2020). Permute-and-flip: a new mechanism for
    differentially private selection. NeurIPS.
    Ding, Z. et al. (2021). The permute-and-flip mechanism is identical to
    report-noisy-max with exponential noise. arXiv:2105.07260.
    """

    def _measure(self, eps: float, sens: float) -> None:
        dp = opendp()

        def build(b: float) -> Any:
            return dp.m.make_noisy_max(*_space(), dp.max_divergence(), scale=b)

        meas, scale = calibrated(build, sens, eps, 2.0 * sens / eps)
        set_fields(self, scale=scale, _meas=meas)

    def probabilities(self, scores: Sequence[float]) -> np.ndarray:
        """The exact selection probabilities for ``scores``."""
        return permute_and_flip_probabilities(scores, epsilon=self.epsilon,
                                              sensitivity=self.sensitivity)
