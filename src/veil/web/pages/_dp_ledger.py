"""The workspace's budget ledger (``ledger.json``, shared by the DP and Synthesize pages): its key
for the current table, its budget, and what has been spent, read without writing anything."""

from __future__ import annotations

from typing import Any

from veil.errors import ParameterError

__all__ = ["LEDGER", "ledger_path", "ledger_key", "ledger_view", "dataset_name"]

#: The ledger's file in the workspace (its ``.journal`` and ``.lock`` sit beside it).
LEDGER = "ledger.json"


def ledger_path(workspace):
    """The ledger's path; the current table may not be one of its files."""
    path = workspace.path(LEDGER)
    if workspace.state.data in (LEDGER, f"{LEDGER}.journal", f"{LEDGER}.lock"):
        raise ParameterError(f"the table {workspace.state.data!r} is a file of the budget ledger; open another.")
    return path


def dataset_name(workspace) -> str | None:
    """The ``--dataset-name`` the steward declared for the current table (None: its fingerprint)."""
    named = workspace.state.results.get("dp_name")
    return named[1] if named is not None and named[0] == workspace.state.data else None


def ledger_key(workspace) -> str:
    """The ledger key of the current table, as ``veil query`` makes it: ``name:NAME`` or the
    fingerprint of its parsed records (cached per file content)."""
    from veil.dp import dataset_fingerprint
    from veil.dp._query_batch import read_query_table
    from veil.web.pages.data import file_key

    name = dataset_name(workspace)
    if name:
        return f"name:{name}"
    content = file_key(workspace)  # the name, size and time of the file: a new upload is read again
    cached = workspace.state.results.get("dp_fingerprint")
    if cached is not None and cached[0] == content:
        return cached[1]
    frame = read_query_table(workspace.existing(workspace.state.data), workspace.state.sep)
    key = dataset_fingerprint(frame)
    workspace.state.results["dp_fingerprint"] = (content, key)
    return key


def _cost(cost: Any) -> dict[str, Any]:
    if hasattr(cost, "rho"):
        return {"epsilon": None, "rho": cost.rho, "delta": cost.delta}
    return {"epsilon": cost.epsilon, "rho": None, "delta": cost.delta}


def ledger_view(workspace) -> dict[str, Any] | None:
    """The current table's budget, spent, remaining and spends; None before a budget is set."""
    from veil.dp import BudgetLedger, PrivacyAccountant

    path = ledger_path(workspace)
    if not path.exists():
        return None
    try:
        accountant = PrivacyAccountant.from_ledger(BudgetLedger(path), ledger_key(workspace), budget=None)
    except ParameterError:  # no budget for this table yet (nothing is written)
        return None
    spent, remaining = accountant.spent, accountant.remaining
    return {"dataset": accountant.dataset, "composition": accountant.composition,
            "budget": {"epsilon": accountant.budget.epsilon, "delta": accountant.budget.delta},
            "spent": {"epsilon": spent.epsilon, "delta": spent.delta},
            "remaining": {"epsilon": remaining.epsilon, "delta": remaining.delta},
            "spends": [{"label": e.label, **_cost(e.cost)} for e in accountant.ledger]}
