"""What ``veil synthesize`` checks before it reads the records or spends anything, shared by the
command and the web app's Synthesize page so that both refuse with the same one line.

* :func:`check_settings`: ε in veil's range, δ in (0, 1), a known algorithm, ``--max-categories``
  at least 1.
* :func:`check_budget`: the synthesis's cost (:func:`veil.dp.synthesis._api.synthesis_cost` of its
  :func:`~veil.dp.synthesis._api.plan_budget`) against what an accountant has left, read only;
  :func:`refuse_budget` is the refusal itself (also called on a total checked before a ledger opens).
"""

from __future__ import annotations

from typing import Any, NoReturn

from veil.errors import BudgetExceededError, ParameterError

__all__ = ["check_settings", "check_budget", "refuse_budget"]


def check_settings(epsilon: Any, delta: Any, algorithm: Any, max_categories: int) -> tuple[float, float]:
    """The privacy parameters and the category limit, checked; returns (ε, δ)."""
    from veil.dp.synthesis._api import check_privacy

    eps, dlt = check_privacy(epsilon, delta, algorithm)
    if max_categories < 1:
        raise ParameterError(f"--max-categories must be at least 1; got {max_categories}.")
    return eps, dlt


def refuse_budget(remaining: Any, epsilon: float, delta: float, when: str = "") -> NoReturn:
    """Refuse a synthesis of (``epsilon``, ``delta``) that ``remaining`` cannot pay for; ``when`` is
    ``"read, "`` when no record has been read yet."""
    hint = " (give the dataset a --budget-delta the first time: δ > 0 is spent)" if remaining.delta < delta else ""
    raise BudgetExceededError(
        f"The synthesis costs epsilon={epsilon:g}, delta={delta:g}, but only epsilon={remaining.epsilon:g}, "
        f"delta={remaining.delta:g} of the budget remains{hint}; nothing was {when}spent or written.")


def check_budget(accountant: Any, epsilon: float, delta: float, when: str = "") -> None:
    """Refuse a synthesis whose cost cannot fit in what ``accountant`` has left (None: no budget)."""
    from veil.dp.synthesis._api import plan_budget, synthesis_cost

    if accountant is not None and not accountant.can_spend(synthesis_cost(accountant, plan_budget(epsilon, delta))):
        refuse_budget(accountant.remaining, epsilon, delta, when)
