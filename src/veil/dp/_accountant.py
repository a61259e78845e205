"""The accountant that refuses to overspend a privacy budget, in memory or through a ledger.

The budget a data owner sets is always an (ε, δ) :class:`PrivacyBudget` (what
is finally promised); the accountant's ``composition`` (see
:mod:`veil.dp._composition`) decides how the costs add up before they are
compared with it.  Every spend is one critical section: a thread lock, and,
with a :class:`~veil.dp.BudgetLedger`, the ledger's file lock, around
read-check-spend-write; with a ledger the spend is journaled and fsynced
before :meth:`PrivacyAccountant.spend` returns, i.e. before any noise is drawn.
"""

from __future__ import annotations

import math
import threading
from dataclasses import dataclass, field
from typing import Any

from veil._validation import check_choice, check_real
from veil.dp._budget import (
    COMMON_EPSILONS,
    PrivacyBudget,
    ZCDPBudget,
    largest_rho,
)
from veil.dp._composition import COMPOSITIONS, as_rho, composed
from veil.errors import BudgetExceededError, ParameterError

__all__ = ["PrivacyBudget", "ZCDPBudget", "PrivacyAccountant", "LedgerEntry", "COMMON_EPSILONS"]


@dataclass(frozen=True, slots=True)
class LedgerEntry:
    """One spend recorded by a :class:`PrivacyAccountant`.

    ``cost`` is what was asked for; ``rho`` is the zCDP amount charged for it
    under ``composition="zcdp"`` or ``"filter"`` (``None`` otherwise).
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
    composition : {"basic", "advanced", "zcdp", "filter", "pld"}
        How costs combine (formulas and sources in :mod:`veil.dp._composition`
        and ``docs/dp.md``).  ``"basic"``: ε and δ add up; valid when each
        cost is chosen after seeing earlier answers (a basic-composition
        privacy filter, Rogers et al. 2016).  ``"advanced"``: the smaller of
        basic and advanced composition (Dwork, Rothblum & Vadhan 2010).
        ``"zcdp"``: the smaller of basic and zCDP composition (ρ add up,
        converted once by OpenDP).  ``"filter"``: zCDP composition used as a
        privacy filter, valid for adaptively chosen costs (Feldman & Zrnic
        2021; Whitehouse et al. 2023).  ``"pld"``: the smaller of basic and
        privacy-loss-distribution composition (needs ``dp-accounting``).
        ``"advanced"``, ``"zcdp"`` and ``"pld"`` assume the sequence of costs
        is fixed in advance.
    delta_slack : float in (0, 1)
        The δ' of advanced composition, of the zCDP → (ε, δ) conversion or of
        the PLD bound; required (and only allowed) with a composition other
        than ``"basic"``, and at most the budget's δ.
    budget_ledger : BudgetLedger, optional
        A persistent, file-locked, journaled ledger; use :meth:`from_ledger`.
    dataset : str, optional
        The dataset key in ``budget_ledger``.

    Attributes
    ----------
    spent, remaining : PrivacyBudget
        The (ε, δ) spent so far under the chosen composition, and the budget
        minus it.
    spent_rho, remaining_rho : float or None
        With ``"zcdp"`` or ``"filter"``: the ρ spent, and the ρ that still
        fits in the budget's ε (``None`` for the other compositions).

    Notes
    -----
    A spend checks and records under one lock (a :class:`threading.RLock`,
    plus the ledger's ``fcntl.flock``), so concurrent threads and processes
    can never together spend more than the budget.  There is no global
    accountant: every :class:`PrivateTable` is given one.  Parallel
    composition is applied by the queries themselves (a histogram costs ε
    once), never by the accountant guessing that two queries are disjoint.

    References
    ----------
    Dwork, C., McSherry, F., Nissim, K., Smith, A. (2006). Calibrating noise to
    sensitivity in private data analysis. TCC.
    Dwork, C., Rothblum, G., Vadhan, S. (2010). Boosting and differential
    privacy. FOCS.  Theorem III.3.
    Bun, M., Steinke, T. (2016). Concentrated differential privacy. TCC.
    Rogers, R., Roth, A., Ullman, J., Vadhan, S. (2016). Privacy odometers and
    filters: pay-as-you-go composition. NeurIPS.
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
    budget_ledger: Any = None
    dataset: str | None = None
    _entries: list[LedgerEntry] = field(default_factory=list, init=False, repr=False)
    _lock: Any = field(default_factory=threading.RLock, init=False, repr=False)

    def __post_init__(self) -> None:
        owner = "PrivacyAccountant"
        if not isinstance(self.budget, PrivacyBudget):
            raise ParameterError(
                f"The 'budget' parameter of {owner} must be a PrivacyBudget. Got {self.budget!r} instead."
            )
        check_choice("composition", self.composition, owner, COMPOSITIONS)
        if self.composition != "basic":
            if self.delta_slack is None:
                raise ParameterError(
                    f"The 'delta_slack' parameter of {owner} must be a float in (0, 1) "
                    f"when composition={self.composition!r}. Got None instead."
                )
            self.delta_slack = check_real("delta_slack", self.delta_slack, owner,
                                          low=0.0, high=1.0, closed="neither")
            if self.delta_slack > self.budget.delta:
                raise ParameterError(
                    f"The 'delta_slack' parameter of {owner} must not exceed the "
                    f"budget's delta ({self.budget.delta!r}). Got {self.delta_slack!r} instead."
                )
        elif self.delta_slack is not None:
            raise ParameterError(
                f"The 'delta_slack' parameter of {owner} is only used with a composition other "
                f"than 'basic' (advanced, zcdp, filter, pld). Got {self.delta_slack!r} instead."
            )
        if (self.budget_ledger is None) != (self.dataset is None):
            raise ParameterError(f"{owner} needs both 'budget_ledger' and 'dataset', or neither; "
                                 "use PrivacyAccountant.from_ledger(...).")

    @classmethod
    def from_ledger(cls, ledger: Any, dataset: str, *, budget: PrivacyBudget | None = None,
                    composition: str = "basic", delta_slack: float | None = None) -> PrivacyAccountant:
        """An accountant whose every spend goes through ``ledger`` for ``dataset``.

        The first time a dataset is seen its ``budget`` (and composition) is
        journaled; later calls read it back and refuse a different one.
        """
        header = ledger.open_dataset(dataset, budget=budget, composition=composition,
                                     delta_slack=delta_slack)
        acc = cls(budget=header["budget"], composition=header["composition"],
                  delta_slack=header["delta_slack"], budget_ledger=ledger, dataset=dataset)
        acc.refresh()
        return acc

    # -- state ---------------------------------------------------------------
    def _zcdp(self) -> bool:
        return self.composition in ("zcdp", "filter")

    def _entry(self, cost: PrivacyBudget | ZCDPBudget, label: str) -> LedgerEntry:
        rho = as_rho(cost, "PrivacyAccountant.spend").rho if self._zcdp() else None
        return LedgerEntry(cost=cost, label=label, rho=rho)

    def refresh(self) -> None:
        """Reload the spends from the ledger (other processes may have spent)."""
        if self.budget_ledger is None:
            return
        with self._lock, self.budget_ledger.transaction(self.dataset) as tx:
            self._entries = [self._entry(c, lab) for c, lab in tx.costs]

    @property
    def spent(self) -> PrivacyBudget:
        """The total cost so far under the chosen composition."""
        with self._lock:
            return composed(self.composition, [e.cost for e in self._entries], self.delta_slack)

    @property
    def remaining(self) -> PrivacyBudget:
        """What is left: ``budget - spent`` in each coordinate (floored at 0)."""
        spent = self.spent
        return PrivacyBudget(epsilon=max(self.budget.epsilon - spent.epsilon, 0.0),
                             delta=max(self.budget.delta - spent.delta, 0.0))

    @property
    def spent_rho(self) -> float | None:
        """The ρ spent so far (``"zcdp"`` and ``"filter"`` only, else ``None``)."""
        if not self._zcdp():
            return None
        with self._lock:
            return math.fsum(e.rho for e in self._entries)

    @property
    def remaining_rho(self) -> float | None:
        """The ρ that still fits in the budget's ε (``"zcdp"``/``"filter"`` only, else ``None``).

        :math:`\\rho_{\\max} - \\rho_{\\text{spent}}`, with :math:`\\rho_{\\max}`
        the largest ρ whose OpenDP conversion at δ' is within the budget's ε.
        """
        if not self._zcdp():
            return None
        assert self.delta_slack is not None
        return max(largest_rho(self.budget.epsilon, self.delta_slack) - self.spent_rho, 0.0)

    @property
    def ledger(self) -> tuple[LedgerEntry, ...]:
        """Every accepted spend, in order."""
        with self._lock:
            return tuple(self._entries)

    def _check_cost(self, cost: Any, owner: str) -> None:
        if isinstance(cost, ZCDPBudget):
            if not self._zcdp():
                raise ParameterError(
                    f"The 'cost' parameter of {owner} is a ZCDPBudget, which only an accountant "
                    f"with composition='zcdp' or 'filter' can add up (this one uses "
                    f"{self.composition!r}). Give an (epsilon, delta) PrivacyBudget instead."
                )
            return
        if not isinstance(cost, PrivacyBudget):
            raise ParameterError(
                f"The 'cost' parameter of {owner} must be a PrivacyBudget or a ZCDPBudget. "
                f"Got {cost!r} instead."
            )
        if self._zcdp():
            as_rho(cost, owner)

    def would_spend(self, cost: PrivacyBudget | ZCDPBudget) -> PrivacyBudget:
        """The total that spending ``cost`` now would lead to (nothing is spent)."""
        self._check_cost(cost, "PrivacyAccountant.would_spend")
        with self._lock:
            costs = [e.cost for e in self._entries] + [cost]
        return composed(self.composition, costs, self.delta_slack)

    def can_spend(self, cost: PrivacyBudget | ZCDPBudget) -> bool:
        """Whether ``cost`` fits in the remaining budget."""
        return self.budget.covers(self.would_spend(cost))

    def _admit(self, cost: PrivacyBudget | ZCDPBudget, label: str) -> LedgerEntry:
        """Raise :class:`BudgetExceededError` unless ``cost`` fits after ``self._entries``."""
        total = composed(self.composition, [e.cost for e in self._entries] + [cost],
                         self.delta_slack)
        if self.budget.covers(total):
            return self._entry(cost, label)
        rem = self.remaining
        if isinstance(cost, ZCDPBudget):
            what = f"rho={cost.rho:g}, delta={cost.delta:g}"
        else:
            what = f"epsilon={cost.epsilon:g}, delta={cost.delta:g}"
        extra = f" (rho={self.remaining_rho:g} left under zCDP)" if self._zcdp() else ""
        short = " and ".join(self.budget.short_of(total)) or "epsilon"
        verb = "are" if " and " in short else "is"
        raise BudgetExceededError(
            f"The budget's {short} {verb} short: the query {label or '(unnamed)'} costs {what}, "
            f"but only epsilon={rem.epsilon:g}, delta={rem.delta:g}{extra} "
            f"of the budget (epsilon={self.budget.epsilon:g}, delta={self.budget.delta:g}) "
            f"remains. Ask with a smaller {short} or stop querying this dataset."
        )

    def spend(self, cost: PrivacyBudget | ZCDPBudget, *, label: str = "") -> None:
        """Record ``cost``, or raise and record nothing.

        With a ledger, the spends of every process are reloaded under the file
        lock, the cost is checked against them, and the spend is journaled and
        fsynced before this returns.

        Parameters
        ----------
        cost : PrivacyBudget or ZCDPBudget
            An (ε, δ) cost, or (only with ``"zcdp"``/``"filter"``) a
            δ-approximate ρ-zCDP cost.  Under those an (ε, 0) cost is charged
            :math:`\\rho = \\varepsilon^2/2` and an (ε, δ > 0) cost is refused.
        label : str
            What the query was, for the ledger and the error message.

        Raises
        ------
        BudgetExceededError
            If the total after this spend would exceed the budget.
        ParameterError
            If ``cost`` is not a budget, or a kind this composition cannot add.
        LedgerError
            If the ledger is damaged or the spend cannot be saved (then no
            answer may be given).
        """
        self._check_cost(cost, "PrivacyAccountant.spend")
        with self._lock:
            if self.budget_ledger is None:
                self._entries.append(self._admit(cost, label))
                return
            with self.budget_ledger.transaction(self.dataset) as tx:
                self._entries = [self._entry(c, lab) for c, lab in tx.costs]
                entry = self._admit(cost, label)
                tx.append(cost, label)
                self._entries.append(entry)
