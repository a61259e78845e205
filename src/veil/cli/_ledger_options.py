"""The budget-ledger options shared by ``veil query``, ``veil synthesize`` and ``veil anonymize --algorithm safepub``.

``--budget-file F`` (the ledger; its ``.journal`` and ``.lock`` sit beside it), ``--dataset-name NAME``
(the ledger key; default: a fingerprint of the parsed records), ``--budget EPS`` and
``--budget-delta DELTA`` (the dataset's total, given the first time).  What a release costs is
checked before any row is read when it can be (the key is known without reading), and the
dataset's budget is journaled only when the release is charged.
"""

from __future__ import annotations

import math
from pathlib import Path
from typing import Any, Callable, Optional

from veil.errors import ParameterError

__all__ = ["ledger_files", "ledger_key", "budget_total", "check_fits", "LedgerCharge"]


def ledger_files(budget_file: Optional[Path], *files: Optional[Path]) -> list[Path]:
    """The ledger's index, journal and lock (none without ``--budget-file``), refused if one is the data
    (or another of ``files``: an output of the command)."""
    from veil.dp import BudgetLedger
    from veil.pipeline import Outputs

    if budget_file is None:
        return []
    ledger = BudgetLedger(budget_file)
    Outputs({"ledger": ledger.path, "journal": ledger.journal, "lock": ledger.lock_path},
            inputs=files)  # the ledger never overwrites the data
    return [ledger.path, ledger.journal, ledger.lock_path]


def ledger_key(dataset_name: Optional[str], read_frame: Callable[[], Any]) -> str:
    """The dataset's ledger key: ``name:NAME``, or the fingerprint of the records ``read_frame()`` parses
    (the key ``veil query`` gives the same file)."""
    from veil.dp import dataset_fingerprint

    return f"name:{dataset_name}" if dataset_name else dataset_fingerprint(read_frame())


def _known_budget(budget_file: Optional[Path], key: Optional[str]) -> Any:
    """The budget the ledger holds for ``key`` (read only), or ``None`` (no ledger, no key, a new dataset)."""
    from veil.dp import BudgetLedger

    if budget_file is None or key is None:
        return None
    ledger = BudgetLedger(budget_file)
    if not ledger.path.exists():
        return None
    try:
        return ledger.open_dataset(key, budget=None)["budget"]
    except ParameterError:
        return None


def budget_total(budget: Optional[float], budget_delta: Optional[float], *, epsilon: float, delta: float,
                 budget_file: Optional[Path] = None, key: Optional[str] = None) -> Any:
    """The dataset's total (ε, δ) from ``--budget`` and ``--budget-delta`` (``None`` without ``--budget``).

    Without ``--budget-delta``, a new dataset's δ budget is the release's δ times the number of such
    releases the ε budget allows, ⌊budget / ε⌋ (at least 1): δ then never runs out before ε does for
    releases like this one, and no more δ is allowed than they would spend.  A dataset the ledger
    already knows keeps the δ it was given (only ``--budget`` is compared with the ledger's ε).
    """
    from veil.dp import PrivacyBudget

    if budget is None:
        return None
    if budget_delta is not None:
        return PrivacyBudget(epsilon=budget, delta=budget_delta)
    known = _known_budget(budget_file, key)
    if known is not None and known.epsilon == budget:
        return known
    try:
        releases = max(1, math.floor(float(budget) / epsilon * (1 + 1e-12)))
    except (TypeError, ValueError, ZeroDivisionError, OverflowError):
        releases = 1  # a bad --budget is named by PrivacyBudget
    return PrivacyBudget(epsilon=budget, delta=min(delta * releases, math.nextafter(1.0, 0.0)))


def check_fits(budget_file: Optional[Path], key: Optional[str], total: Any, cost: Callable[[Any], Any],
               refuse: Callable[[Any], None]) -> None:
    """Without writing the ledger: call ``refuse(remaining)`` when ``cost(accountant)`` cannot fit in the
    budget ``total`` given for a new dataset, or in what the ledger's dataset ``key`` has left.

    ``cost(None)`` is the cost on a plain (ε, δ) accountant.  With ``key=None`` (the key is a
    fingerprint of rows not read yet) only ``total`` is checked.
    """
    from veil.dp import BudgetLedger, PrivacyAccountant

    if total is not None and not total.covers(cost(None)):
        refuse(total)
    if budget_file is None or key is None:
        return
    ledger = BudgetLedger(budget_file)
    if not ledger.path.exists():
        return
    try:
        ledger.open_dataset(key, budget=None)  # a known dataset: read only
    except ParameterError:
        if total is None:
            raise
        return  # a new dataset: its budget was checked above
    accountant = PrivacyAccountant.from_ledger(ledger, key, budget=total)
    if not accountant.can_spend(cost(accountant)):
        refuse(accountant.remaining)


class LedgerCharge:
    """A ledger's accountant for one dataset, opened (its budget journaled the first time) at the first spend.

    It spends as :meth:`veil.dp.PrivacyAccountant.spend` (journaled and fsynced before it returns) and
    then reads as the accountant it opened (``budget``, ``spent``, ``remaining``, ``dataset``,
    ``composition``, ``ledger``), so that a release refused before its charge leaves the ledger as it was.
    """

    def __init__(self, budget_file: Path, key: str, total: Any) -> None:
        self.budget_file, self.key, self.total = budget_file, key, total
        self.accountant: Any = None

    def spend(self, cost: Any, *, label: str = "") -> None:
        from veil.dp import BudgetLedger, PrivacyAccountant

        if self.accountant is None:
            self.accountant = PrivacyAccountant.from_ledger(BudgetLedger(self.budget_file), self.key,
                                                            budget=self.total)
        self.accountant.spend(cost, label=label)

    def __getattr__(self, name: str) -> Any:
        if name in ("budget", "spent", "remaining", "dataset", "composition", "ledger") and self.accountant is not None:
            return getattr(self.accountant, name)
        raise AttributeError(name)
