"""``veil anonymize --algorithm safepub --budget-file F [--budget E --budget-delta D] [--dataset-name N]``.

SafePub's (ε, δ) is charged to the budget ledger of ``veil query`` and ``veil synthesize`` once,
before the records are sampled.  A release that cannot fit is refused before the release reads
the data: with ``--dataset-name`` before any row is read, otherwise (the key is the fingerprint
of the records, as ``veil query`` computes it) once the records have been read for it.  Nothing is
written, and the ledger is left as it was.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, Optional

from veil.cli._ledger_options import LedgerCharge, budget_total, check_fits, ledger_files, ledger_key
from veil.errors import BudgetExceededError, ParameterError

__all__ = ["safepub_charge"]


def _refuse(remaining: Any, cost: Any, when: str) -> None:
    short = remaining.short_of(cost)
    hint = (" (a dataset's δ budget is given the first time it is charged: --budget-delta)"
            if short == ("delta",) else "")
    raise BudgetExceededError(
        f"The budget's {' and '.join(short) or 'epsilon'} {'are' if len(short) > 1 else 'is'} short: the safepub "
        f"release costs "
        f"epsilon={cost.epsilon:g}, delta={cost.delta:g}, but only epsilon={remaining.epsilon:g}, "
        f"delta={remaining.delta:g} of the budget remains{hint}; nothing was {when}spent or written.")


def _cost(config: Any) -> Any:
    """The (ε, δ) of the configuration's dp(...) requirement, or a refusal when it has none."""
    from veil.config import build_model
    from veil.dp import PrivacyBudget
    from veil.models import DifferentialPrivacy

    found = [m for i, spec in enumerate(config.models)
             if isinstance(m := build_model(spec, f"models[{i}]"), DifferentialPrivacy)]
    if config.algorithm != "safepub" or len(found) != 1:
        raise ParameterError("--budget-file, --budget, --budget-delta and --dataset-name charge a differentially "
                             "private release: give --algorithm safepub with --epsilon and --delta (or a dp(...) "
                             "requirement).")
    return PrivacyBudget(epsilon=found[0].epsilon, delta=found[0].delta)


def safepub_charge(config: Any, *, budget_file: Optional[Path], dataset_name: Optional[str],
                   budget: Optional[float], budget_delta: Optional[float],
                   files: tuple[Optional[Path], ...] = ()) -> Any:
    """The accountant safepub charges (``None`` without the ledger options), checked to fit first,
    before the release reads the data.  ``files`` are the command's other files (the ledger is none of them).

    Raises
    ------
    BudgetExceededError
        The release's (ε, δ) does not fit in ``--budget``/``--budget-delta`` given for a new dataset,
        or in what the ledger's dataset has left.
    ParameterError
        A ledger option without safepub's (ε, δ).
    """
    from veil.data import read_table
    from veil.dp import PrivacyAccountant

    if budget_file is None and budget is None and budget_delta is None and dataset_name is None:
        return None
    cost = _cost(config)
    path = config.resolve(config.input.path)
    ledger_files(budget_file, path, *files)
    if budget_file is None and budget is None:
        raise ParameterError("--budget-delta and --dataset-name describe a dataset in a budget ledger: give "
                             "--budget-file (and --budget the first time).")

    def total(key: Optional[str]) -> Any:
        return budget_total(budget, budget_delta, epsilon=cost.epsilon, delta=cost.delta,
                            budget_file=budget_file, key=key)

    named = f"name:{dataset_name}" if dataset_name else None
    check_fits(budget_file, named, total(named), lambda _: cost, lambda rem: _refuse(rem, cost, "read, "))
    if budget_file is None:
        return PrivacyAccountant(budget=total(None))
    key = named or ledger_key(None, lambda: read_table(path, sep=config.input.sep, typed=True,
                                                      allow_no_rows=True).to_pandas())
    check_fits(budget_file, key, total(key), lambda _: cost, lambda rem: _refuse(rem, cost, ""))  # veil query's key
    return LedgerCharge(budget_file, key, total(key))
