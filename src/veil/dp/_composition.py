"""Composition rules: the (ε, δ) that a sequence of costs adds up to.

Each rule is a function of the costs so far and the δ' it may spend, returning
a :class:`PrivacyBudget`.  The accountant (:mod:`veil.dp._accountant`) picks
one and compares its result with the budget.

========== ================================================== ===================
rule       total                                              costs chosen
========== ================================================== ===================
basic      Σε, Σδ (Dwork et al. 2006)                         adaptively (filter:
                                                              Rogers et al. 2016,
                                                              Thm 3.6)
advanced   min(basic, √(2 ln(1/δ') Σε²) + Σε(e^ε−1), Σδ+δ')  in advance
           (Dwork, Rothblum & Vadhan 2010; Kairouz et al.
           2015)
zcdp       min(basic, OpenDP's conversion of Σρ at δ')        in advance
filter     OpenDP's conversion of Σρ at δ'; refusal past ρ_max adaptively
           is a zCDP privacy filter (Feldman & Zrnic 2021;
           Whitehouse et al. 2023)
pld        min(basic, PLD composition of the costs'           in advance
           dominating pairs) (dp-accounting, optional)
========== ================================================== ===================
"""

from __future__ import annotations

import math
from typing import Sequence

from veil.dp._budget import PrivacyBudget, ZCDPBudget, zcdp_epsilon
from veil.errors import ParameterError

__all__ = ["COMPOSITIONS", "as_rho", "composed", "pld_epsilon"]

COMPOSITIONS = ("basic", "advanced", "zcdp", "filter", "pld")
_TOP = math.nextafter(1.0, 0.0)
Cost = PrivacyBudget | ZCDPBudget


def as_rho(cost: Cost, owner: str) -> ZCDPBudget:
    """The zCDP charge of ``cost``: its own ρ, or ε²/2 for a pure ε cost (Bun & Steinke 2016,
    Prop. 1.4; OpenDP's ``make_pureDP_to_zCDP``)."""
    if isinstance(cost, ZCDPBudget):
        return cost
    if cost.delta > 0.0:
        raise ParameterError(
            f"The 'cost' parameter of {owner} is an (epsilon, delta) cost with delta="
            f"{cost.delta:g} > 0, which has no zCDP equivalent under a zCDP composition. "
            "Give it as a ZCDPBudget(rho=..., delta=...) (delta-approximate zCDP) or use "
            "composition='basic'."
        )
    return ZCDPBudget.from_pure_dp(cost.epsilon)


def _basic(costs: Sequence[Cost]) -> PrivacyBudget | None:
    """Σε, Σδ, or ``None`` when some cost is a zCDP cost without an (ε, δ) form."""
    if any(isinstance(c, ZCDPBudget) for c in costs):
        return None
    return PrivacyBudget(epsilon=math.fsum(c.epsilon for c in costs),
                         delta=min(math.fsum(c.delta for c in costs), _TOP))


def _eps_expm1(eps: float) -> float:
    """ε(e^ε − 1), the advanced-composition term; ``inf`` instead of overflowing for huge ε."""
    return eps * math.expm1(eps) if eps < 700.0 else math.inf


def _smaller(a: PrivacyBudget | None, b: PrivacyBudget) -> PrivacyBudget:
    """The tighter of two valid bounds: the one with the smaller ε when its δ is not larger."""
    if a is not None and a.epsilon <= b.epsilon and a.delta <= b.delta:
        return a
    return b


def pld_epsilon(costs: Sequence[PrivacyBudget], delta: float) -> float:
    """ε at δ of the composition of (εᵢ, δᵢ)-DP costs by privacy-loss distributions.

    Each cost is represented by the dominating pair of any (εᵢ, δᵢ)-DP
    mechanism (Kairouz, Oh & Viswanath 2015) through dp-accounting's
    ``from_privacy_parameters``; the PLDs are convolved and queried at δ
    (Meiser & Mohammadi 2018; Doroshenko et al. 2022).  Needs the optional
    ``dp-accounting`` package.
    """
    from veil._lazy import require

    require("dp_accounting", feature="composition='pld'")
    from dp_accounting.pld import common, privacy_loss_distribution as pld
    total = None
    for cost in costs:
        one = pld.from_privacy_parameters(
            common.DifferentialPrivacyParameters(cost.epsilon, cost.delta),
            value_discretization_interval=1e-4)
        total = one if total is None else total.compose(one)
    return 0.0 if total is None else float(total.get_epsilon_for_delta(delta))


def composed(rule: str, costs: Sequence[Cost], delta_slack: float | None) -> PrivacyBudget:
    """The (ε, δ) total of ``costs`` under ``rule`` (see the module table)."""
    basic = _basic(costs)
    if not costs:
        return PrivacyBudget(epsilon=0.0)
    if rule == "basic":
        assert basic is not None
        return basic
    assert delta_slack is not None
    if rule in ("zcdp", "filter"):
        charges = [as_rho(c, "PrivacyAccountant.spend") for c in costs]
        rho = math.fsum(z.rho for z in charges)
        s_delta = math.fsum(z.delta for z in charges)
        if rho == 0.0:
            zc = PrivacyBudget(epsilon=0.0, delta=min(s_delta, _TOP))
        else:
            zc = PrivacyBudget(epsilon=zcdp_epsilon(rho, delta_slack),
                               delta=min(s_delta + delta_slack, _TOP))
        return zc if rule == "filter" else _smaller(basic, zc)
    assert basic is not None
    if basic.epsilon == 0.0:
        return basic
    if rule == "advanced":
        eps = [c.epsilon for c in costs]
        adv = (math.sqrt(2.0 * math.log(1.0 / delta_slack) * math.fsum(e * e for e in eps))
               + math.fsum(_eps_expm1(e) for e in eps))
        return _smaller(basic, PrivacyBudget(epsilon=min(adv, 1e300),
                                             delta=min(basic.delta + delta_slack, _TOP)))
    eps_pld = pld_epsilon([c for c in costs if c.epsilon > 0 or c.delta > 0], delta_slack)
    if not math.isfinite(eps_pld):
        return basic
    return _smaller(basic, PrivacyBudget(epsilon=eps_pld, delta=delta_slack))
