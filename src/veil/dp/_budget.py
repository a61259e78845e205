"""Privacy costs as values: (ε, δ) budgets, ρ-zCDP costs, and OpenDP's conversion between them.

A :class:`PrivacyBudget` is an (ε, δ) cost or allowance; a :class:`ZCDPBudget`
is a δ-approximate ρ-zCDP cost.  The ρ → (ε, δ) conversion is OpenDP's
(``make_zCDP_to_approxDP``, the bound of Canonne, Kamath & Steinke 2020,
Corollary 13), evaluated on the privacy map of a reference measurement whose
map is exactly ρ; it is tighter than the classical
:math:`\\rho + 2\\sqrt{\\rho\\ln(1/\\delta)}` of Bun & Steinke (2016), which
:func:`bun_steinke_epsilon` keeps for reference.
"""

from __future__ import annotations

import functools
import math
from dataclasses import dataclass
from typing import Any

from veil._validation import check_real
from veil.errors import ParameterError

__all__ = ["PrivacyBudget", "ZCDPBudget", "COMMON_EPSILONS", "zcdp_epsilon",
           "bun_steinke_epsilon", "largest_rho"]

#: The ε values the lecture notes list, with what each one promises.  ε is a
#: public, user-chosen parameter: it bounds how much the probability of any
#: output may change when one person is added or removed, by a factor e^ε.
COMMON_EPSILONS: dict[str, tuple[float, str]] = {
    "0.01": (0.01, "very strong: output probabilities change by at most ~1% (e^0.01 = 1.01)"),
    "0.2": (0.2, "strong: probabilities change by at most ~22% (e^0.2 = 1.22)"),
    "ln 2": (math.log(2), "moderate: any output at most twice as likely with or without you"),
    "ln 3": (math.log(3), "weaker: any output at most three times as likely with or without you"),
}

_TOL = 1e-12  # relative slack so that 0.1 + 0.2 spends a 0.3 budget exactly
_TOP = math.nextafter(1.0, 0.0)


def _check_cost(budget: Any, name: str) -> None:
    """Validate a budget's loss parameter (``epsilon`` or ``rho``: finite, >= 0) and its
    ``delta`` (in [0, 1)), storing them as floats."""
    owner = type(budget).__name__
    value = check_real(name, getattr(budget, name), owner, low=0.0)
    if math.isinf(value):
        raise ParameterError(
            f"The {name!r} parameter of {owner} must be a float in [0, inf). Got {getattr(budget, name)!r} instead."
        )
    delta = check_real("delta", budget.delta, owner, low=0.0, high=1.0, closed="left")
    object.__setattr__(budget, name, value)
    object.__setattr__(budget, "delta", delta)


@dataclass(frozen=True, slots=True)
class PrivacyBudget:
    """An (ε, δ) privacy budget or cost, as an immutable value.

    Parameters
    ----------
    epsilon : float in [0, inf)
        The privacy-loss bound ε.  A cost of 0 is allowed (a free query); a
        mechanism requires ε > 0.
    delta : float in [0, 1)
        The failure probability δ; 0 means pure ε-DP.

    Notes
    -----
    Sequential composition (Dwork et al. 2006): running an (ε₁, δ₁)-DP and an
    (ε₂, δ₂)-DP mechanism on the same data is (ε₁+ε₂, δ₁+δ₂)-DP, so budgets add.

    Examples
    --------
    >>> PrivacyBudget(epsilon=0.5) + PrivacyBudget(epsilon=0.25, delta=1e-6)
    PrivacyBudget(epsilon=0.75, delta=1e-06)
    """

    epsilon: float
    delta: float = 0.0

    def __post_init__(self) -> None:
        _check_cost(self, "epsilon")

    def __add__(self, other: PrivacyBudget) -> PrivacyBudget:
        if not isinstance(other, PrivacyBudget):
            return NotImplemented
        return PrivacyBudget(epsilon=self.epsilon + other.epsilon,
                             delta=min(self.delta + other.delta, _TOP))

    def covers(self, cost: PrivacyBudget) -> bool:
        """Whether ``cost`` fits in this budget, up to a 1e-12 *relative* float slack (so that
        0.1 + 0.2 spends a 0.3 budget); never an absolute one: a budget of δ = 0 admits no δ
        and one of ε = 0 no ε."""
        return not self.short_of(cost)

    def short_of(self, cost: PrivacyBudget) -> tuple[str, ...]:
        """The parts (``"epsilon"``, ``"delta"``) of ``cost`` that this budget does not cover."""
        return tuple(name for name, need, have in (("epsilon", cost.epsilon, self.epsilon),
                                                   ("delta", cost.delta, self.delta))
                     if need > have * (1 + _TOL))


def bun_steinke_epsilon(rho: float, delta: float) -> float:
    """ε of the classical ρ-zCDP → (ε, δ) conversion (Bun & Steinke 2016, Prop. 1.3).

    :math:`\\varepsilon = \\rho + 2\\sqrt{\\rho\\ln(1/\\delta)}`; looser than
    :func:`zcdp_epsilon`.  Kept for comparison and for the closed form of
    :func:`largest_rho`'s starting point.
    """
    if rho == 0.0:
        return 0.0
    return rho + 2.0 * math.sqrt(rho * math.log(1.0 / delta))


@functools.lru_cache(maxsize=1)
def _reference_gaussian() -> Any:
    """OpenDP's zCDP → approx-DP conversion around a unit-scale Gaussian (map: ρ = d²/2)."""
    from veil.dp._sampler import opendp

    dp = opendp()
    gauss = dp.m.make_gaussian(dp.atom_domain(T=float, nan=False), dp.absolute_distance(T=float),
                               scale=1.0)
    return gauss, dp.c.make_zCDP_to_approxDP(gauss)


@functools.lru_cache(maxsize=4096)
def zcdp_epsilon(rho: float, delta: float) -> float:
    """The ε of the (ε, δ)-DP guarantee OpenDP certifies for ρ-zCDP.

    OpenDP's ``make_zCDP_to_approxDP`` (Canonne, Kamath & Steinke 2020,
    Corollary 13) is applied to a unit-scale Gaussian at the input distance
    :math:`d = \\sqrt{2\\rho}`, whose zCDP map is ρ (rounded upwards by
    OpenDP; veil checks that it is at least ρ).

    Examples
    --------
    >>> round(zcdp_epsilon(0.5, 1e-6), 2), round(bun_steinke_epsilon(0.5, 1e-6), 2)
    (5.22, 5.76)
    """
    if rho == 0.0:
        return 0.0
    gauss, convert = _reference_gaussian()
    d_in = math.sqrt(2.0 * rho)
    while gauss.map(d_in) < rho:  # make sure the reference's ρ is not below the one asked for
        d_in = math.nextafter(d_in, math.inf)
    return float(convert.map(d_in).epsilon(delta))


def largest_rho(epsilon: float, delta: float) -> float:
    """The largest ρ whose OpenDP conversion at δ stays within ε (bisection, rounded down).

    Starts from Bun & Steinke's closed form
    :math:`(\\sqrt{\\ln(1/\\delta) + \\varepsilon} - \\sqrt{\\ln(1/\\delta)})^2`,
    which always fits because OpenDP's conversion is at least as tight.
    """
    if epsilon <= 0.0:
        return 0.0
    big_l = math.log(1.0 / delta)
    lo = (math.sqrt(big_l + epsilon) - math.sqrt(big_l)) ** 2
    hi = lo * 2.0
    while zcdp_epsilon(hi, delta) <= epsilon:
        lo, hi = hi, hi * 2.0
    for _ in range(60):
        mid = 0.5 * (lo + hi)
        if zcdp_epsilon(mid, delta) <= epsilon:
            lo = mid
        else:
            hi = mid
        if hi - lo <= 1e-12 * hi:
            break
    return lo


@dataclass(frozen=True, slots=True)
class ZCDPBudget:
    """A δ-approximate ρ-zCDP cost (zero-concentrated differential privacy).

    Parameters
    ----------
    rho : float in [0, inf)
        The zCDP parameter ρ: for neighbours D₁, D₂ and every Rényi order
        α > 1, :math:`D_\\alpha(M(D_1) \\| M(D_2)) \\le \\rho\\alpha`.
    delta : float in [0, 1)
        The δ of approximate zCDP: the bound holds after conditioning on events
        of probability at least 1 − δ (Bun & Steinke 2016, Section 8).  0 for
        plain ρ-zCDP; a thresholded partition selection has δ > 0.

    Notes
    -----
    * composition: ρ-zCDP then ρ'-zCDP is (ρ + ρ')-zCDP, and the δ of
      approximate zCDP add up (Bun & Steinke 2016, Lemma 1.7; Section 8);
    * the Gaussian mechanism with L2 sensitivity Δ₂ and standard deviation σ
      is :math:`\\Delta_2^2/(2\\sigma^2)`-zCDP (Prop. 1.6; OpenDP's map of
      ``make_gaussian``), see :meth:`from_gaussian`;
    * ε-DP implies :math:`\\varepsilon^2/2`-zCDP (Prop. 1.4; OpenDP's
      ``make_pureDP_to_zCDP``), see :meth:`from_pure_dp`;
    * δ-approximate ρ-zCDP implies (ε, δ + δ')-DP with ε from OpenDP's
      conversion (:func:`zcdp_epsilon`), see :meth:`to_dp`.

    References
    ----------
    Bun, M., Steinke, T. (2016). Concentrated differential privacy:
    simplifications, extensions, and lower bounds. TCC.
    Canonne, C., Kamath, G., Steinke, T. (2020). The discrete Gaussian for
    differential privacy. NeurIPS.

    Examples
    --------
    >>> ZCDPBudget.from_pure_dp(0.5) + ZCDPBudget.from_gaussian(sensitivity=1.0, sigma=2.0)
    ZCDPBudget(rho=0.25, delta=0.0)
    """

    rho: float
    delta: float = 0.0

    def __post_init__(self) -> None:
        _check_cost(self, "rho")

    def __add__(self, other: ZCDPBudget) -> ZCDPBudget:
        if not isinstance(other, ZCDPBudget):
            return NotImplemented
        return ZCDPBudget(rho=self.rho + other.rho, delta=min(self.delta + other.delta, _TOP))

    @classmethod
    def from_pure_dp(cls, epsilon: float) -> ZCDPBudget:
        """The zCDP cost of an ε-DP mechanism: :math:`\\rho = \\varepsilon^2/2`."""
        eps = PrivacyBudget(epsilon=epsilon).epsilon
        return cls(rho=eps * eps / 2.0)

    @classmethod
    def from_gaussian(cls, *, sensitivity: float, sigma: float) -> ZCDPBudget:
        """The zCDP cost of Gaussian noise: :math:`\\rho = \\Delta_2^2 / (2\\sigma^2)`.

        Parameters
        ----------
        sensitivity : float in [0, inf)
            The L2 sensitivity Δ₂ of the released vector.
        sigma : float in (0, inf)
            The standard deviation of the noise on each coordinate.
        """
        sens = check_real("sensitivity", sensitivity, "ZCDPBudget.from_gaussian", low=0.0)
        sig = check_real("sigma", sigma, "ZCDPBudget.from_gaussian", low=0.0, closed="neither")
        return cls(rho=sens * sens / (2.0 * sig * sig))

    def to_dp(self, *, delta_slack: float) -> PrivacyBudget:
        """The (ε, δ + δ') guarantee, ε from OpenDP's conversion at δ' (:func:`zcdp_epsilon`).

        Parameters
        ----------
        delta_slack : float in (0, 1)
            The δ' spent by the conversion.
        """
        slack = check_real("delta_slack", delta_slack, "ZCDPBudget.to_dp", low=0.0, high=1.0,
                           closed="neither")
        return PrivacyBudget(epsilon=zcdp_epsilon(self.rho, slack),
                             delta=min(self.delta + slack, _TOP))
