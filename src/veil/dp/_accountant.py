"""Privacy budgets and the accountant that refuses to overspend them."""

from __future__ import annotations

import math
from dataclasses import dataclass, field

from veil._validation import check_choice, check_real
from veil.errors import BudgetExceededError, ParameterError

__all__ = ["PrivacyBudget", "PrivacyAccountant", "LedgerEntry", "COMMON_EPSILONS"]

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
        eps = check_real("epsilon", self.epsilon, "PrivacyBudget", low=0.0)
        if math.isinf(eps):
            raise ParameterError(
                f"The 'epsilon' parameter of PrivacyBudget must be a float in [0, inf). "
                f"Got {self.epsilon!r} instead."
            )
        dlt = check_real("delta", self.delta, "PrivacyBudget", low=0.0, high=1.0, closed="left")
        object.__setattr__(self, "epsilon", eps)
        object.__setattr__(self, "delta", dlt)

    def __add__(self, other: PrivacyBudget) -> PrivacyBudget:
        if not isinstance(other, PrivacyBudget):
            return NotImplemented
        return PrivacyBudget(epsilon=self.epsilon + other.epsilon,
                             delta=min(self.delta + other.delta, math.nextafter(1.0, 0.0)))

    def covers(self, cost: PrivacyBudget) -> bool:
        """Whether ``cost`` fits in this budget (up to a 1e-12 relative float slack)."""
        return (cost.epsilon <= self.epsilon * (1 + _TOL) + 1e-15
                and cost.delta <= self.delta * (1 + _TOL) + 1e-18)


@dataclass(frozen=True, slots=True)
class LedgerEntry:
    """One spend recorded by a :class:`PrivacyAccountant`."""

    cost: PrivacyBudget
    label: str = ""


@dataclass(eq=False)
class PrivacyAccountant:
    """Track spent privacy budget and refuse any query that would overspend.

    Parameters
    ----------
    budget : PrivacyBudget
        The total (ε, δ) the data owner allows for this dataset.
    composition : {"basic", "advanced"}
        How costs combine.  ``"basic"`` is sequential composition: ε and δ add
        up (tight for heterogeneous pure-ε queries).  ``"advanced"`` uses the
        advanced composition theorem (Dwork, Rothblum & Vadhan 2010, in the
        heterogeneous form of Kairouz et al. 2015) and takes, at each step, the
        smaller of the basic and the advanced bound; it pays ``delta_slack``
        once and helps only for many small-ε queries.
    delta_slack : float in (0, 1)
        The δ' of advanced composition; required (and only allowed) with
        ``composition="advanced"``.

    Notes
    -----
    Basic: :math:`\\varepsilon = \\sum_i \\varepsilon_i`, :math:`\\delta = \\sum_i \\delta_i`.

    Advanced: :math:`\\varepsilon = \\sqrt{2 \\ln(1/\\delta') \\sum_i \\varepsilon_i^2}
    + \\sum_i \\varepsilon_i (e^{\\varepsilon_i} - 1)`,
    :math:`\\delta = \\delta' + \\sum_i \\delta_i`.

    Parallel composition (disjoint partitions of the privacy unit) is applied
    by the queries themselves (a histogram costs ε once), never by the
    accountant guessing that two queries are disjoint.

    There is no global accountant: every :class:`PrivateTable` is given one.

    References
    ----------
    Dwork, C., McSherry, F., Nissim, K., Smith, A. (2006). Calibrating noise to
    sensitivity in private data analysis. TCC.
    Dwork, C., Rothblum, G., Vadhan, S. (2010). Boosting and differential
    privacy. FOCS.  Theorem III.3.
    Kairouz, P., Oh, S., Viswanath, P. (2015). The composition theorem for
    differential privacy. ICML.

    Examples
    --------
    >>> acc = PrivacyAccountant(budget=PrivacyBudget(epsilon=1.0))
    >>> acc.spend(PrivacyBudget(epsilon=0.4), label="count")
    >>> acc.remaining
    PrivacyBudget(epsilon=0.6, delta=0.0)
    """

    budget: PrivacyBudget
    composition: str = "basic"
    delta_slack: float | None = None
    _entries: list[LedgerEntry] = field(default_factory=list, init=False, repr=False)
    _sum_eps: float = field(default=0.0, init=False, repr=False)
    _sum_eps_sq: float = field(default=0.0, init=False, repr=False)
    _sum_eps_exp: float = field(default=0.0, init=False, repr=False)
    _sum_delta: float = field(default=0.0, init=False, repr=False)

    def __post_init__(self) -> None:
        if not isinstance(self.budget, PrivacyBudget):
            raise ParameterError(
                f"The 'budget' parameter of PrivacyAccountant must be a PrivacyBudget. "
                f"Got {self.budget!r} instead."
            )
        check_choice("composition", self.composition, "PrivacyAccountant", ("basic", "advanced"))
        if self.composition == "advanced":
            if self.delta_slack is None:
                raise ParameterError(
                    "The 'delta_slack' parameter of PrivacyAccountant must be a float in (0, 1) "
                    "when composition='advanced'. Got None instead."
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
                f"composition='advanced'. Got {self.delta_slack!r} instead."
            )

    # -- composition -------------------------------------------------------
    def _composed(self, s_eps: float, s_sq: float, s_exp: float, s_delta: float) -> PrivacyBudget:
        basic = PrivacyBudget(epsilon=s_eps, delta=min(s_delta, math.nextafter(1.0, 0.0)))
        if self.composition == "basic" or s_eps == 0.0:
            return basic
        assert self.delta_slack is not None
        adv_eps = math.sqrt(2.0 * math.log(1.0 / self.delta_slack) * s_sq) + s_exp
        if adv_eps < s_eps:
            return PrivacyBudget(epsilon=adv_eps,
                                 delta=min(s_delta + self.delta_slack, math.nextafter(1.0, 0.0)))
        return basic

    @property
    def spent(self) -> PrivacyBudget:
        """The total cost so far under the chosen composition."""
        return self._composed(self._sum_eps, self._sum_eps_sq, self._sum_eps_exp, self._sum_delta)

    @property
    def remaining(self) -> PrivacyBudget:
        """What is left: ``budget - spent`` in each coordinate (floored at 0)."""
        spent = self.spent
        return PrivacyBudget(epsilon=max(self.budget.epsilon - spent.epsilon, 0.0),
                             delta=max(self.budget.delta - spent.delta, 0.0))

    @property
    def ledger(self) -> tuple[LedgerEntry, ...]:
        """Every accepted spend, in order."""
        return tuple(self._entries)

    def would_spend(self, cost: PrivacyBudget) -> PrivacyBudget:
        """The total that spending ``cost`` now would lead to (nothing is spent)."""
        e = cost.epsilon
        return self._composed(self._sum_eps + e, self._sum_eps_sq + e * e,
                              self._sum_eps_exp + e * math.expm1(e), self._sum_delta + cost.delta)

    def can_spend(self, cost: PrivacyBudget) -> bool:
        """Whether ``cost`` fits in the remaining budget."""
        return self.budget.covers(self.would_spend(cost))

    def spend(self, cost: PrivacyBudget, *, label: str = "") -> None:
        """Record ``cost``, or raise :class:`BudgetExceededError` and record nothing."""
        if not isinstance(cost, PrivacyBudget):
            raise ParameterError(
                f"The 'cost' parameter of PrivacyAccountant.spend must be a PrivacyBudget. "
                f"Got {cost!r} instead."
            )
        total = self.would_spend(cost)
        if not self.budget.covers(total):
            rem = self.remaining
            raise BudgetExceededError(
                f"The query {label or '(unnamed)'} costs epsilon={cost.epsilon:g}, "
                f"delta={cost.delta:g}, but only epsilon={rem.epsilon:g}, delta={rem.delta:g} "
                f"of the budget (epsilon={self.budget.epsilon:g}, delta={self.budget.delta:g}) "
                "remains. Ask with a smaller epsilon or stop querying this dataset."
            )
        e = cost.epsilon
        self._sum_eps += e
        self._sum_eps_sq += e * e
        self._sum_eps_exp += e * math.expm1(e)
        self._sum_delta += cost.delta
        self._entries.append(LedgerEntry(cost=cost, label=label))
