"""DP: counts, sums, means, quantiles and histograms answered with noise under a budget, as
``veil query`` answers them (:func:`veil.dp._query_batch.local_answers`, the command's own code).

The budget lives in the workspace's ledger (``ledger.json``, :mod:`._dp_ledger`), opened with the
budget the steward sets here; every answer is charged to it before its noise is drawn.  A refused
query (over the budget, a bad query, a column the table lacks) shows the CLI's one-line error and
spends nothing.  Nothing here reads the data before the library does: no page logic looks at the
selected rows (no "0 rows matched").
"""

from __future__ import annotations

from typing import Any

from starlette.requests import Request
from starlette.responses import RedirectResponse
from starlette.routing import Route

from veil.errors import ParameterError, VeilError
from veil.web._render import render, workspace_of
from veil.web.pages._dp_fields import integer_field, lines_field, number_field, text_field
from veil.web.pages._dp_ledger import dataset_name, ledger_path, ledger_view
from veil.web.pages.data import off_loop

NAV = ("DP", "/dp")

#: The query form's fields and their defaults (the form is shown back as it was sent).
DEFAULTS = {"queries": "count", "epsilon": "0.1", "delta": "", "lower": "", "upper": "", "missing_as": "",
            "categories": "", "privacy_unit": "", "max_rows_per_unit": "", "max_groups": "",
            "max_rows_per_group": "", "missing_units": "error", "selection_seed": ""}
EXAMPLES = ("count", "count where age > 40", "sum age", "mean age", "quantile 0.5 age",
            "histogram sex", "sum age by sex")


def _columns(workspace) -> list[str]:
    from veil.web.pages.data import column_summary

    return [c["name"] for c in column_summary(workspace)]


def _context(workspace, answers: list | None) -> dict[str, Any]:
    """The ledger (read, never written), the columns and the last answers of the current table."""
    if workspace.state.data is None:
        return {"ledger": None, "answers": None, "columns": [], "name": None}
    last = workspace.state.results.get("dp_answers")
    if answers is None and last is not None and last[0] == workspace.state.data:
        answers = last[1]
    return {"ledger": ledger_view(workspace), "answers": answers, "columns": _columns(workspace),
            "name": dataset_name(workspace)}


async def _page(request: Request, *, form: dict[str, str] | None = None, answers: list | None = None,
                error: str | None = None, status: int = 200):
    workspace = workspace_of(request)
    context = await off_loop(workspace, _context, workspace, answers)
    return render(request, "dp.html.j2", status=status, form={**DEFAULTS, **(form or {})}, examples=EXAMPLES,
                  error=error, **context)


async def page(request: Request):
    return await _page(request)


async def set_budget(request: Request):
    """Open the current table in the ledger with the budget the steward sets (journaled once)."""
    from veil.dp._query_batch import query_accountant, read_query_table

    workspace = workspace_of(request)
    if workspace.state.data is None:
        raise ParameterError("open a table first (Data).")
    form = await request.form()
    budget = number_field(form, "budget", "--budget")
    if budget is None:
        raise ParameterError("--budget needs the total epsilon of this table (e.g. 1).")
    budget_delta = number_field(form, "budget_delta", "--budget-delta", 0.0)
    name = text_field(form, "dataset_name")

    def open_budget():
        frame = read_query_table(workspace.existing(workspace.state.data), workspace.state.sep)
        query_accountant(frame, ledger_path(workspace), name, budget, budget_delta)  # journaled the first time
        workspace.state.results["dp_name"] = (workspace.state.data, name)

    await off_loop(workspace, open_budget)
    back = "/synthesize" if form.get("next") == "/synthesize" else "/dp"
    return RedirectResponse(back, status_code=303)


def _unit_options(form: Any) -> tuple:
    """``veil query``'s --privacy-unit and its bounds, in :func:`local_answers`' order."""
    missing_units = text_field(form, "missing_units") or "error"
    return (text_field(form, "privacy_unit"),
            integer_field(form, "max_rows_per_unit", "--max-rows-per-unit"),
            integer_field(form, "max_groups", "--max-groups"),
            integer_field(form, "max_rows_per_group", "--max-rows-per-group"),
            missing_units, integer_field(form, "selection_seed", "--selection-seed"))


def _answer(workspace, form: Any) -> list[dict[str, Any]]:
    """The batch of the form answered by ``veil query``'s code, charged to the workspace ledger."""
    from veil.dp._query_batch import QueryAsk, local_answers, parse_queries

    if workspace.state.data is None:
        raise ParameterError("open a table first (Data).")
    queries = lines_field(form, "queries")
    if not queries:
        raise ParameterError("write a query, e.g. count where age > 40.")
    epsilon = number_field(form, "epsilon", "--epsilon")
    if epsilon is None:
        raise ParameterError("--epsilon is needed: the epsilon each query spends (e.g. 0.1).")
    specs, keys = parse_queries(queries, lines_field(form, "categories"))
    ask = QueryAsk(epsilon, number_field(form, "delta", "--delta", 0.0), number_field(form, "lower", "--lower"),
                   number_field(form, "upper", "--upper"), number_field(form, "missing_as", "--missing-as"), keys)
    path = ledger_path(workspace)
    if ledger_view(workspace) is None:
        raise ParameterError("set this table's budget first: no query is answered without one.")
    answers = local_answers(workspace.existing(workspace.state.data), specs, ask, sep=workspace.state.sep,
                            budget_file=path, dataset_name=dataset_name(workspace), budget=None,
                            budget_delta=0.0, unit_options=_unit_options(form))
    return [answer.to_dict() for answer in answers]


async def ask(request: Request):
    workspace = workspace_of(request)
    form = await request.form()
    sent = {key: str(form.get(key, "")) for key in DEFAULTS}
    try:
        answers = await off_loop(workspace, _answer, workspace, form)
    except VeilError as exc:  # the CLI's one-line error, the form and the (unchanged) ledger shown
        return await _page(request, form=sent, answers=[], error=f"error: {exc}", status=400)
    workspace.state.results["dp_answers"] = (workspace.state.data, answers)
    return await _page(request, form=sent, answers=answers)


ROUTES = [
    Route("/dp", page, methods=["GET"]),
    Route("/dp/budget", set_budget, methods=["POST"]),
    Route("/dp/query", ask, methods=["POST"]),
]
