"""Synthesize: a synthetic copy of the table under (ε, δ)-differential privacy (``veil synthesize``),
charged once to the workspace ledger the DP page set, written as ``synthetic.csv`` with its JSON
report ``synthetic.json`` and HTML page ``synthetic.html`` through the one writer (with
``--holdout``, the withheld records ``synthetic-holdout.csv``), all offered for download.

The run is the command's library calls (:mod:`veil.cli.cmd_synthesize`): the settings checked and
the cost checked against what the ledger has left (:mod:`veil.dp.synthesis._precheck`, the command's
own refusals, before the job starts), the table read as text, the domains checked,
the holdout withheld (:class:`veil.dp.synthesis._evaluation_report.ReportOptions`), the ledger key of
``veil query`` (the typed records' fingerprint, or the declared name), :func:`veil.dp.synthesize`
charging the accountant before any noise is drawn, and the command's report; as a job.
"""

from __future__ import annotations

from typing import Any

from starlette.requests import Request
from starlette.routing import Route

from veil.errors import ParameterError
from veil.web._render import render, workspace_of
from veil.web.pages._dp_fields import integer_field, lines_field, number_field, text_field
from veil.web.pages._dp_jobs import download_route, page_job, start_job
from veil.web.pages._dp_ledger import dataset_name, ledger_key, ledger_path, ledger_view
from veil.web.pages.data import off_loop

NAV = ("Synthesize", "/synthesize")
JOB = "synthesize"
OUTPUTS = {"data": "synthetic.csv", "json": "synthetic.json", "html": "synthetic.html",
           "control": "synthetic-holdout.csv"}


def _bins(lines: list[str]) -> dict[str, str]:
    """``COLUMN=MIN:MAX:BINS`` lines (``--bins``), a column given once."""
    out: dict[str, str] = {}
    for line in lines:
        name, sep, spec = line.partition("=")
        if not sep or not name.strip() or not spec.strip():
            raise ParameterError(f"--bins expects COLUMN=MIN:MAX:BINS. Got {line[:60]!r} instead.")
        if name.strip() in out:
            raise ParameterError(f"--bins gives {name.strip()!r} twice; give one value per name.")
        out[name.strip()] = spec.strip()
    return out


def _options(form: Any, columns: list[str]) -> dict[str, Any]:
    """The form as ``veil synthesize``'s options, checked before the job starts."""
    from veil.dp.synthesis import parse_bins
    from veil.dp.synthesis._precheck import check_settings

    algorithm = text_field(form, "algorithm") or "mst"
    max_categories = integer_field(form, "max_categories", "--max-categories", 1000)
    epsilon, delta = check_settings(number_field(form, "epsilon", "--epsilon", 1.0),
                                    number_field(form, "delta", "--delta", 1e-9), algorithm, max_categories)
    identifiers = tuple(str(v) for v in form.getlist("identifiers"))
    unknown = [name for name in identifiers if name not in columns]
    if unknown:
        raise ParameterError(f"--identifiers: the table has no column {unknown[0]!r}.")
    return {"epsilon": epsilon, "delta": delta, "algorithm": algorithm, "identifiers": identifiers,
            "domain": dict(parse_bins(_bins(lines_field(form, "bins")))), "max_categories": max_categories,
            "seed": integer_field(form, "seed", "--seed")}


def _report_options(workspace, form: Any) -> Any:
    """``--html`` (always), ``--holdout SHARE --holdout-out --evaluate --target`` and ``--public-report``,
    checked together as the command checks them."""
    from veil.dp.synthesis._evaluation_report import ReportOptions

    share = number_field(form, "holdout", "--holdout")
    holdout_out = workspace.path(OUTPUTS["control"]) if share is not None else None
    return ReportOptions.from_cli(workspace.path(OUTPUTS["html"]), share, holdout_out,
                                  form.get("evaluate") is not None and share is not None,
                                  text_field(form, "target"), form.get("public_report") is not None)


def _accountant(workspace) -> Any:
    """The current table's accountant on the workspace ledger (read only until it spends)."""
    from veil.dp import BudgetLedger, PrivacyAccountant

    return PrivacyAccountant.from_ledger(BudgetLedger(ledger_path(workspace)), ledger_key(workspace), budget=None)


def check_fits(workspace, options: dict[str, Any]) -> None:
    """``veil synthesize --budget-file``'s check of the cost against what the ledger has left, with
    its words: before any record is read for a declared ``--dataset-name``, else after the read
    that makes the key (the command's fingerprint)."""
    from veil.dp.synthesis._precheck import check_budget

    when = "read, " if dataset_name(workspace) else ""
    check_budget(_accountant(workspace), options["epsilon"], options["delta"], when)


def _synthesize(workspace, options: dict[str, Any], extra: Any, progress) -> dict[str, Any]:
    """``veil synthesize`` on the current table into the workspace (the command's ``_run``); its report."""
    from veil.data import read_table
    from veil.dp import BudgetLedger, synthesize
    from veil.dp.synthesis._api import column_domains
    from veil.dp.synthesis._precheck import check_budget
    from veil.pipeline import Outputs
    from veil.release import table_writer

    data = workspace.existing(workspace.state.data)
    ledger = BudgetLedger(ledger_path(workspace))
    destinations = {"data": workspace.path(OUTPUTS["data"]), "json": workspace.path(OUTPUTS["json"]),
                    **extra.destinations}
    with Outputs(destinations, inputs=[data, ledger.path, ledger.journal, ledger.lock_path]) as out:
        progress("read")
        # as text, so that a category such as ZIP code 02139 keeps its leading zero
        frame = read_table(data, sep=workspace.state.sep, typed=False).to_pandas()
        doms = column_domains(frame, options["domain"], None, options["identifiers"], options["max_categories"])
        frame, control = extra.split(frame, doms)
        accountant = _accountant(workspace)
        check_budget(accountant, options["epsilon"], options["delta"])  # another spend since the form
        progress("synthesize")
        result = synthesize(frame, accountant=accountant, **options)
        progress("report")
        report = extra.report(result, train=frame, control=control, domains=doms)
        out.write("data", table_writer(result.frame))
        out.write_json("json", report)
        extra.write(out, report, control)
        out.commit()
    return report


async def page(request: Request):
    workspace = workspace_of(request)
    if workspace.state.data is None:
        return render(request, "synthesize.html.j2", columns=[], ledger=None, result=None, running=False,
                      algorithms=(), next="/synthesize", job=None)
    from veil.dp.synthesis._api import ALGORITHMS
    from veil.report._evaluation import evaluation_rows
    from veil.web.pages.data import column_summary

    result = workspace.state.results.get(JOB)
    if result is not None and result["data"] != workspace.state.data:
        result = None
    job, running = page_job(request, JOB)
    evaluation = (result or {}).get("report", {}).get("evaluation")
    columns, ledger = await off_loop(workspace, lambda: (column_summary(workspace), ledger_view(workspace)))
    return render(request, "synthesize.html.j2", columns=columns, ledger=ledger, result=result, running=running, algorithms=ALGORITHMS, next="/synthesize", job=job,
                  evaluation_rows=evaluation_rows(evaluation) if evaluation else [])


async def start(request: Request):
    from veil.web.pages.data import column_summary

    workspace = workspace_of(request)
    if workspace.state.data is None:
        raise ParameterError("open a table first (Data).")
    form = await request.form()
    columns, ledger = await off_loop(workspace, lambda: (column_summary(workspace), ledger_view(workspace)))
    options = _options(form, [c["name"] for c in columns])
    extra = _report_options(workspace, form)
    if ledger is None:
        raise ParameterError("set this table's budget first (a total epsilon and delta): nothing is "
                             "synthesized without one.")
    await off_loop(workspace, check_fits, workspace, options)
    name = workspace.state.data

    def compute(progress):
        return {"data": name, "report": _synthesize(workspace, options, extra, progress)}

    return start_job(request, JOB, compute, "/synthesize")


ROUTES = [
    Route("/synthesize", page, methods=["GET"]),
    Route("/synthesize/run", start, methods=["POST"]),
    download_route("/synthesize/download", tuple(OUTPUTS.values())),  # the holdout only if written
]
