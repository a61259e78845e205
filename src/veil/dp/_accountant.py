"""Privacy budgets and the accountant that refuses to overspend them.

Two kinds of cost exist: an (ε, δ) :class:`PrivacyBudget` and a δ-approximate
ρ-zCDP :class:`ZCDPBudget`.  The budget a data owner sets is always an
(ε, δ) :class:`PrivacyBudget` (what is finally promised); the accountant's
``composition`` decides how the costs are added up before they are compared
with it.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any

from veil._validation import check_choice, check_real
from veil.errors import BudgetExceededError, ParameterError

__all__ = ["PrivacyBudget", "ZCDPBudget", "PrivacyAccountant", "LedgerEntry", "COMMON_EPSILONS"]

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
                             delta=min(self.delta + other.delta, math.nextafter(1.0, 0.0)))

    def covers(self, cost: PrivacyBudget) -> bool:
        """Whether ``cost`` fits in this budget (up to a 1e-12 relative float slack)."""
        return (cost.epsilon <= self.epsilon * (1 + _TOL) + 1e-15
                and cost.delta <= self.delta * (1 + _TOL) + 1e-18)


def _eps_expm1(eps: float) -> float:
    """ε(e^ε − 1), the advanced-composition term; ``inf`` instead of overflowing for huge ε."""
    return eps * math.expm1(eps) if eps < 700.0 else math.inf


def _zcdp_epsilon(rho: float, delta: float) -> float:
    """ε of the (ε, δ)-DP guarantee implied by ρ-zCDP (Bun & Steinke 2016, Prop. 1.3)."""
    if rho == 0.0:
        return 0.0
    return rho + 2.0 * math.sqrt(rho * math.log(1.0 / delta))


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
    The facts veil uses (Bun & Steinke 2016):

    * composition: ρ-zCDP then ρ'-zCDP is (ρ + ρ')-zCDP, and the δ of
      approximate zCDP add up (Lemma 1.7; Section 8);
    * the Gaussian mechanism with L2 sensitivity Δ₂ and standard deviation σ
      is :math:`\\Delta_2^2/(2\\sigma^2)`-zCDP (Prop. 1.6), see
      :meth:`from_gaussian`;
    * ε-DP implies :math:`\\varepsilon^2/2`-zCDP (Prop. 1.4), see
      :meth:`from_pure_dp`;
    * δ-approximate ρ-zCDP implies (ε, δ + δ')-DP for every δ' in (0, 1) with
      :math:`\\varepsilon = \\rho + 2\\sqrt{\\rho \\ln(1/\\delta')}`
      (Prop. 1.3; Section 8), see :meth:`to_dp`.  The conversion is the
      classical one, not the tightest known (Canonne, Kamath & Steinke 2020
      give a smaller ε).

    References
    ----------
    Bun, M., Steinke, T. (2016). Concentrated differential privacy:
    simplifications, extensions, and lower bounds. TCC.

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
        return ZCDPBudget(rho=self.rho + other.rho,
                          delta=min(self.delta + other.delta, math.nextafter(1.0, 0.0)))

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
        """The (ε, δ + δ') guarantee, :math:`\\varepsilon = \\rho + 2\\sqrt{\\rho\\ln(1/\\delta')}`.

        Parameters
        ----------
        delta_slack : float in (0, 1)
            The δ' spent by the conversion.
        """
        slack = check_real("delta_slack", delta_slack, "ZCDPBudget.to_dp", low=0.0, high=1.0,
                           closed="neither")
        return PrivacyBudget(epsilon=_zcdp_epsilon(self.rho, slack),
                             delta=min(self.delta + slack, math.nextafter(1.0, 0.0)))


@dataclass(frozen=True, slots=True)
class LedgerEntry:
    """One spend recorded by a :class:`PrivacyAccountant`.

    ``cost`` is what was asked for; ``rho`` is the zCDP amount charged for it
    under ``composition="zcdp"`` (``None`` otherwise).
    """

    cost: PrivacyBudget | ZCDPBudget
    label: str = ""
    rho: float | None = None


@dataclass(eq=False)
class PrivacyAccountant:
    """Track spent privacy budget and refuse any query that would overspend.

    Parameters
    ----------
    budget : PrivacyBudget
        The total (ε, δ) the data owner allows for this dataset.
    composition : {"basic", "advanced", "zcdp"}
        How costs combine.  ``"basic"`` is sequential composition: ε and δ add
        up (tight for heterogeneous pure-ε queries).  ``"advanced"`` uses the
        advanced composition theorem (Dwork, Rothblum & Vadhan 2010, in the
        heterogeneous form of Kairouz et al. 2015) and takes, at each step, the
        smaller of the basic and the advanced bound; it pays ``delta_slack``
        once and helps only for many small-ε queries.  ``"zcdp"`` adds up
        zero-concentrated DP costs ρ (Bun & Steinke 2016) and converts the sum
        to (ε, δ) once, paying ``delta_slack``; it is the tightest of the three
        for Gaussian noise and for many queries.
    delta_slack : float in (0, 1)
        The δ' of advanced composition or of the zCDP → (ε, δ) conversion;
        required (and only allowed) with ``composition="advanced"`` or
        ``"zcdp"``, and at most the budget's δ.

    Attributes
    ----------
    spent, remaining : PrivacyBudget
        The (ε, δ) spent so far under the chosen composition, and the budget
        minus it.
    spent_rho, remaining_rho : float or None
        With ``composition="zcdp"``: the ρ spent, and the ρ that still fits in
        the budget's ε (``None`` for the other compositions).

    Notes
    -----
    Basic: :math:`\\varepsilon = \\sum_i \\varepsilon_i`, :math:`\\delta = \\sum_i \\delta_i`.

    Advanced: :math:`\\varepsilon = \\sqrt{2 \\ln(1/\\delta') \\sum_i \\varepsilon_i^2}
    + \\sum_i \\varepsilon_i (e^{\\varepsilon_i} - 1)`,
    :math:`\\delta = \\delta' + \\sum_i \\delta_i`.

    zCDP: an ε-DP cost is charged :math:`\\rho_i = \\varepsilon_i^2/2`, a
    :class:`ZCDPBudget` its own ρ (a Gaussian release of L2 sensitivity Δ₂ and
    standard deviation σ: :math:`\\Delta_2^2/(2\\sigma^2)`); then
    :math:`\\rho = \\sum_i \\rho_i`,
    :math:`\\varepsilon = \\rho + 2\\sqrt{\\rho \\ln(1/\\delta')}` and
    :math:`\\delta = \\delta' + \\sum_i \\delta_i` (the δ of approximate-zCDP
    costs).  The largest ρ an ε budget allows is
    :math:`\\rho_{\\max} = (\\sqrt{\\ln(1/\\delta') + \\varepsilon} - \\sqrt{\\ln(1/\\delta')})^2`.
    An (ε, δ) cost with δ > 0 has no zCDP equivalent in general and is refused
    under ``"zcdp"``: give it as a :class:`ZCDPBudget` (δ-approximate ρ-zCDP).
    The advanced bound (heterogeneous form) assumes the sequence of costs
    is fixed in advance; used as a stopping rule with costs an analyst picks
    after seeing earlier answers it needs the (larger) constants of a privacy
    filter (Rogers, Roth, Ullman & Vadhan 2016).  For adaptively chosen
    costs prefer ``"basic"`` or ``"zcdp"``.
    Refusing a query whose ρ would exceed :math:`\\rho_{\\max}` is a zCDP
    privacy filter, valid even when the analyst picks each cost after seeing
    earlier answers (Feldman & Zrnic 2021; with approximate-zCDP costs,
    Whitehouse et al. 2023).

    Parallel composition (disjoint partitions of the privacy unit) is applied
    by the queries themselves (a histogram costs ε once, because one privacy
    unit's bounded rows change the cells by at most its sensitivity), never by
    the accountant guessing that two queries are disjoint.

    There is no global accountant: every :class:`PrivateTable` is given one.

    References
    ----------
    Dwork, C., McSherry, F., Nissim, K., Smith, A. (2006). Calibrating noise to
    sensitivity in private data analysis. TCC.
    Dwork, C., Rothblum, G., Vadhan, S. (2010). Boosting and differential
    privacy. FOCS.  Theorem III.3.
    Kairouz, P., Oh, S., Viswanath, P. (2015). The composition theorem for
    differential privacy. ICML.
    Bun, M., Steinke, T. (2016). Concentrated differential privacy:
    simplifications, extensions, and lower bounds. TCC.  Prop. 1.3, 1.4, 1.6.
    Feldman, V., Zrnic, T. (2021). Individual privacy accounting via a Rényi
    filter. NeurIPS.
    Whitehouse, J., Ramdas, A., Rogers, R., Wu, Z. S. (2023). Fully-adaptive
    composition in differential privacy. ICML.

    Examples
    --------
    >>> acc = PrivacyAccountant(budget=PrivacyBudget(epsilon=1.0))
    >>> acc.spend(PrivacyBudget(epsilon=0.4), label="count")
    >>> acc.remaining
    PrivacyBudget(epsilon=0.6, delta=0.0)

    >>> z = PrivacyAccountant(budget=PrivacyBudget(epsilon=1.0, delta=1e-6),
    ...                       composition="zcdp", delta_slack=1e-6)
    >>> z.spend(PrivacyBudget(epsilon=0.1))      # charged rho = 0.1**2 / 2
    >>> round(z.spent_rho, 6)
    0.005
    """

    budget: PrivacyBudget
    composition: str = "basic"
    delta_slack: float | None = None
    _entries: list[LedgerEntry] = field(default_factory=list, init=False, repr=False)
    _sum_eps: float = field(default=0.0, init=False, repr=False)
    _sum_eps_sq: float = field(default=0.0, init=False, repr=False)
    _sum_eps_exp: float = field(default=0.0, init=False, repr=False)
    _sum_delta: float = field(default=0.0, init=False, repr=False)
    _sum_rho: float = field(default=0.0, init=False, repr=False)

    def __post_init__(self) -> None:
        if not isinstance(self.budget, PrivacyBudget):
            raise ParameterError(
                f"The 'budget' parameter of PrivacyAccountant must be a PrivacyBudget. "
                f"Got {self.budget!r} instead."
            )
        check_choice("composition", self.composition, "PrivacyAccountant",
                     ("basic", "advanced", "zcdp"))
        if self.composition in ("advanced", "zcdp"):
            if self.delta_slack is None:
                raise ParameterError(
                    "The 'delta_slack' parameter of PrivacyAccountant must be a float in (0, 1) "
                    f"when composition={self.composition!r}. Got None instead."
                )
            self.delta_slack = check_real("delta_slack", self.delta_slack, "PrivacyAccountant",
                                          low=0.0, high=1.0, closed="neither")
            if self.delta_slack > self.budget.delta:
                raise ParameterError(
                    f"The 'delta_slack' parameter of PrivacyAccountant must not exceed the "
                    f"budget's delta ({self.budget.delta!r}). Got {self.delta_slack!r} instead."
                )
        elif self.delta_slack is not None:
            raise ParameterError(
                "The 'delta_slack' parameter of PrivacyAccountant is only used with "
                f"composition='advanced' or 'zcdp'. Got {self.delta_slack!r} instead."
            )

    # -- composition -------------------------------------------------------
    def _composed(self, s_eps: float, s_sq: float, s_exp: float, s_delta: float,
                  s_rho: float) -> PrivacyBudget:
        top = math.nextafter(1.0, 0.0)
        if self.composition == "zcdp":
            assert self.delta_slack is not None
            if s_rho == 0.0:
                return PrivacyBudget(epsilon=0.0, delta=min(s_delta, top))
            return PrivacyBudget(epsilon=_zcdp_epsilon(s_rho, self.delta_slack),
                                 delta=min(s_delta + self.delta_slack, top))
        basic = PrivacyBudget(epsilon=s_eps, delta=min(s_delta, top))
        if self.composition == "basic" or s_eps == 0.0:
            return basic
        assert self.delta_slack is not None
        adv_eps = math.sqrt(2.0 * math.log(1.0 / self.delta_slack) * s_sq) + s_exp
        if adv_eps < s_eps:
            return PrivacyBudget(epsilon=adv_eps, delta=min(s_delta + self.delta_slack, top))
        return basic

    def _as_rho(self, cost: PrivacyBudget | ZCDPBudget, owner: str) -> ZCDPBudget:
        """The zCDP charge of ``cost`` under ``composition="zcdp"``."""
        if isinstance(cost, ZCDPBudget):
            return cost
        if cost.delta > 0.0:
            raise ParameterError(
                f"The 'cost' parameter of {owner} is an (epsilon, delta) cost with delta="
                f"{cost.delta:g} > 0, which has no zCDP equivalent under composition='zcdp'. "
                "Give it as a ZCDPBudget(rho=..., delta=...) (delta-approximate zCDP) or use "
                "composition='basic'."
            )
        return ZCDPBudget.from_pure_dp(cost.epsilon)

    def _check_cost(self, cost: Any, owner: str) -> None:
        if isinstance(cost, ZCDPBudget):
            if self.composition != "zcdp":
                raise ParameterError(
                    f"The 'cost' parameter of {owner} is a ZCDPBudget, which only an accountant "
                    f"with composition='zcdp' can add up (this one uses {self.composition!r}). "
                    "Give an (epsilon, delta) PrivacyBudget instead."
                )
            return
        if not isinstance(cost, PrivacyBudget):
            raise ParameterError(
                f"The 'cost' parameter of {owner} must be a PrivacyBudget or a ZCDPBudget. "
                f"Got {cost!r} instead."
            )

    @property
    def spent(self) -> PrivacyBudget:
        """The total cost so far under the chosen composition."""
        return self._composed(self._sum_eps, self._sum_eps_sq, self._sum_eps_exp,
                              self._sum_delta, self._sum_rho)

    @property
    def remaining(self) -> PrivacyBudget:
        """What is left: ``budget - spent`` in each coordinate (floored at 0)."""
        spent = self.spent
        return PrivacyBudget(epsilon=max(self.budget.epsilon - spent.epsilon, 0.0),
                             delta=max(self.budget.delta - spent.delta, 0.0))

    @property
    def spent_rho(self) -> float | None:
        """The ρ spent so far (``composition="zcdp"`` only, else ``None``)."""
        return self._sum_rho if self.composition == "zcdp" else None

    @property
    def remaining_rho(self) -> float | None:
        """The ρ that still fits in the budget's ε (``composition="zcdp"`` only, else ``None``).

        :math:`\\rho_{\\max} - \\rho_{\\text{spent}}` with
        :math:`\\rho_{\\max} = (\\sqrt{L + \\varepsilon} - \\sqrt{L})^2`,
        :math:`L = \\ln(1/\\delta')`: the root of
        :math:`\\rho + 2\\sqrt{\\rho L} = \\varepsilon`.
        """
        if self.composition != "zcdp":
            return None
        assert self.delta_slack is not None
        big_l = math.log(1.0 / self.delta_slack)
        rho_max = (math.sqrt(big_l + self.budget.epsilon) - math.sqrt(big_l)) ** 2
        return max(rho_max - self._sum_rho, 0.0)

    @property
    def ledger(self) -> tuple[LedgerEntry, ...]:
        """Every accepted spend, in order."""
        return tuple(self._entries)

    def would_spend(self, cost: PrivacyBudget | ZCDPBudget) -> PrivacyBudget:
        """The total that spending ``cost`` now would lead to (nothing is spent)."""
        self._check_cost(cost, "PrivacyAccountant.would_spend")
        if self.composition == "zcdp":
            z = self._as_rho(cost, "PrivacyAccountant.would_spend")
            return self._composed(0.0, 0.0, 0.0, self._sum_delta + z.delta, self._sum_rho + z.rho)
        e = cost.epsilon
        return self._composed(self._sum_eps + e, self._sum_eps_sq + e * e,
                              self._sum_eps_exp + _eps_expm1(e), self._sum_delta + cost.delta,
                              0.0)

    def can_spend(self, cost: PrivacyBudget | ZCDPBudget) -> bool:
        """Whether ``cost`` fits in the remaining budget."""
        return self.budget.covers(self.would_spend(cost))

    def spend(self, cost: PrivacyBudget | ZCDPBudget, *, label: str = "") -> None:
        """Record ``cost``, or raise :class:`BudgetExceededError` and record nothing.

        Parameters
        ----------
        cost : PrivacyBudget or ZCDPBudget
            An (ε, δ) cost, or (only with ``composition="zcdp"``) a δ-approximate
            ρ-zCDP cost.  Under ``"zcdp"`` an (ε, 0) cost is charged
            :math:`\\rho = \\varepsilon^2/2` and an (ε, δ > 0) cost is refused.
        label : str
            What the query was, for the ledger and the error message.

        Raises
        ------
        BudgetExceededError
            If the total after this spend would exceed the budget.
        ParameterError
            If ``cost`` is not a budget, or a kind this composition cannot add.
        """
        self._check_cost(cost, "PrivacyAccountant.spend")
        total = self.would_spend(cost)
        if not self.budget.covers(total):
            rem = self.remaining
            if isinstance(cost, ZCDPBudget):
                what = f"rho={cost.rho:g}, delta={cost.delta:g}"
            else:
                what = f"epsilon={cost.epsilon:g}, delta={cost.delta:g}"
            extra = (f" (rho={self.remaining_rho:g} left under zCDP)"
                     if self.composition == "zcdp" else "")
            raise BudgetExceededError(
                f"The query {label or '(unnamed)'} costs {what}, "
                f"but only epsilon={rem.epsilon:g}, delta={rem.delta:g}{extra} "
                f"of the budget (epsilon={self.budget.epsilon:g}, delta={self.budget.delta:g}) "
                "remains. Ask with a smaller epsilon or stop querying this dataset."
            )
        rho = None
        if self.composition == "zcdp":
            z = self._as_rho(cost, "PrivacyAccountant.spend")
            self._sum_rho += z.rho
            self._sum_delta += z.delta
            rho = z.rho
        else:
            e = cost.epsilon
            self._sum_eps += e
            self._sum_eps_sq += e * e
            self._sum_eps_exp += _eps_expm1(e)
            self._sum_delta += cost.delta
        self._entries.append(LedgerEntry(cost=cost, label=label, rho=rho))
