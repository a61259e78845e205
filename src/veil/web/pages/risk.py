"""Risk: how exposed is the table as it is?  ``veil risk``'s figures for a steward who only wants
to know that: the attacker models, sample uniques, the class sizes, the individual risk of each
record (with sampling weights and households) and SUDA2's special uniques.

The figures are those of ``veil risk --json`` on the same options (:mod:`._risk_figures` makes
the command's library calls), computed as a job of :class:`~veil.web._jobs.JobRunner`; the page
shows counts, shares and column names only, never a value of the table.
"""

from __future__ import annotations

from typing import Any

from starlette.requests import Request
from starlette.routing import Route

from veil.errors import ParameterError
from veil.web._render import render, workspace_of
from veil.web.pages._dp_fields import integer_field, number_field, text_field
from veil.web.pages._dp_jobs import page_job, start_job
from veil.web.pages._risk_figures import RiskAsk, risk_pictures, risk_report
from veil.web.pages.data import off_loop

NAV = ("Risk", "/risk")
JOB = "risk"


def column_names(workspace) -> list[str]:
    """The current table's column names (the Data page's summary, cached per file)."""
    from veil.web.pages.data import column_summary

    return [c["name"] for c in column_summary(workspace)]


def chosen_roles(workspace) -> tuple[list[str], list[str]]:
    """The QIs and sensitive attributes to start from: the release configuration's roles, else the
    scanner's suggested QIs."""
    from veil.web.pages.data import column_summary

    attributes = (workspace.state.config or {}).get("attributes") or {}
    roles = {name: (spec or {}).get("role") for name, spec in attributes.items() if isinstance(spec, dict)}
    qis = [n for n, r in roles.items() if r == "quasi-identifier"]
    sensitive = [n for n, r in roles.items() if r == "sensitive"]
    if not qis:
        qis = [c["name"] for c in column_summary(workspace) if c["role"] == "quasi-identifier"]
    return qis, sensitive


def _ask(form: Any, columns: list[str]) -> RiskAsk:
    """The form as ``veil risk``'s options; an unknown column is refused by name."""
    qis = tuple(str(v) for v in form.getlist("qi"))
    sensitive = tuple(str(v) for v in form.getlist("sensitive"))
    weight, household = text_field(form, "weight"), text_field(form, "household")
    for flag, name in [*(("--qi", q) for q in qis), *(("--sensitive", s) for s in sensitive),
                       ("--weight", weight), ("--household", household)]:
        if name is not None and name not in columns:
            raise ParameterError(f"{flag}: the table has no column {name!r}.")
    if not qis:
        raise ParameterError("--qi needs at least one column: tick the quasi-identifiers.")
    method = text_field(form, "risk_method") or "approx"
    if method not in ("approx", "exact"):
        raise ParameterError(f"--risk-method must be approx or exact. Got {method!r} instead.")
    suda_max_size = integer_field(form, "suda_max_size", "--suda-max-size")
    ask = RiskAsk(
        qis=qis, sensitive=sensitive, weight=weight, household=household, risk_method=method,
        threshold=number_field(form, "threshold", "--threshold", 0.2),
        population_fraction=number_field(form, "population_fraction", "--population-fraction"),
        suda=form.get("suda") is not None or suda_max_size is not None,  # a size implies SUDA2, as --suda-max-size
        suda_max_size=suda_max_size,
        dis_fraction=number_field(form, "dis_fraction", "--dis-fraction", 0.01),
    )
    ask.check()
    return ask


def _view(report: dict[str, Any], classes: Any) -> dict[str, Any]:
    """What the page shows of a report: the HTML report's risk and QI-ranking rows, and the pictures."""
    from veil.report._sections import population, qi_ranking, risk

    return {"rows": risk([("table", report)], plots=False)["rows"], "ranking": qi_ranking(report)[:10],
            "population": population(report), "pictures": risk_pictures(report, classes.counts)}


async def page(request: Request):
    workspace = workspace_of(request)
    if workspace.state.data is None:
        return render(request, "risk.html.j2", columns=[], result=None, ask=None, running=False, job=None)
    columns = await off_loop(workspace, column_names, workspace)
    result = workspace.state.results.get(JOB)
    if result is not None and result["data"] != workspace.state.data:
        result = None
    job, running = page_job(request, JOB)
    if result is not None:
        ask = result["ask"]
    else:
        qis, sensitive = await off_loop(workspace, chosen_roles, workspace)
        ask = RiskAsk(tuple(qis), tuple(sensitive)).as_json()
    return render(request, "risk.html.j2", columns=columns, result=result, ask=ask, running=running, job=job)


async def start(request: Request):
    workspace = workspace_of(request)
    if workspace.state.data is None:
        raise ParameterError("open a table first (Data).")
    form = await request.form()
    ask = _ask(form, await off_loop(workspace, column_names, workspace))
    name, sep = workspace.state.data, workspace.state.sep
    path = workspace.existing(name)

    def compute(progress):
        report, classes = risk_report(path, sep, ask, progress)
        progress("pictures")
        return {"data": name, "ask": ask.as_json(), "report": report, **_view(report, classes)}

    return start_job(request, JOB, compute, "/risk")


ROUTES = [
    Route("/risk", page, methods=["GET"]),
    Route("/risk/run", start, methods=["POST"]),
]
