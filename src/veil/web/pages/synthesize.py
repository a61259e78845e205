"""Synthesize: a synthetic copy of the table under (ε, δ)-differential privacy (``veil synthesize``),
charged once to the workspace ledger the DP page set, written as ``synthetic.csv`` with its JSON
report ``synthetic.json`` through the one writer, both offered for download.

The run is the command's library calls (:mod:`veil.cli.cmd_synthesize`): the privacy parameters
checked (:func:`veil.dp.synthesis._api.check_privacy`), the table read as text, the ledger key
of ``veil query`` (the typed records' fingerprint, or the declared name), and
:func:`veil.dp.synthesize` charging the accountant before any noise is drawn; as a job.
"""

from __future__ import annotations

from typing import Any

from starlette.requests import Request
from starlette.routing import Route

from veil.errors import ParameterError
from veil.web._render import render, workspace_of
from veil.web.pages._dp_fields import integer_field, lines_field, number_field, text_field
from veil.web.pages._dp_jobs import download_route, page_job, start_job
from veil.web.pages._dp_ledger import ledger_key, ledger_path, ledger_view

NAV = ("Synthesize", "/synthesize")
JOB = "synthesize"
OUTPUTS = {"data": "synthetic.csv", "json": "synthetic.json"}


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
    from veil.dp.synthesis._api import check_privacy

    algorithm = text_field(form, "algorithm") or "mst"
    epsilon, delta = check_privacy(number_field(form, "epsilon", "--epsilon", 1.0),
                                   number_field(form, "delta", "--delta", 1e-9), algorithm)
    max_categories = integer_field(form, "max_categories", "--max-categories", 1000)
    if max_categories < 1:
        raise ParameterError(f"--max-categories must be at least 1; got {max_categories}.")
    identifiers = tuple(str(v) for v in form.getlist("identifiers"))
    unknown = [name for name in identifiers if name not in columns]
    if unknown:
        raise ParameterError(f"--identifiers: the table has no column {unknown[0]!r}.")
    return {"epsilon": epsilon, "delta": delta, "algorithm": algorithm, "identifiers": identifiers,
            "domain": dict(parse_bins(_bins(lines_field(form, "bins")))), "max_categories": max_categories,
            "seed": integer_field(form, "seed", "--seed")}


def _synthesize(workspace, options: dict[str, Any], progress) -> dict[str, Any]:
    """``veil synthesize`` on the current table into the workspace; its report."""
    from veil.data import read_table
    from veil.dp import BudgetLedger, PrivacyAccountant, synthesize
    from veil.pipeline import Outputs
    from veil.release import table_writer

    data = workspace.existing(workspace.state.data)
    ledger = BudgetLedger(ledger_path(workspace))
    destinations = {role: workspace.path(name) for role, name in OUTPUTS.items()}
    with Outputs(destinations, inputs=[data, ledger.path, ledger.journal, ledger.lock_path]) as out:
        progress("read")
        # as text, so that a category such as ZIP code 02139 keeps its leading zero
        frame = read_table(data, sep=workspace.state.sep, typed=False).to_pandas()
        accountant = PrivacyAccountant.from_ledger(ledger, ledger_key(workspace), budget=None)
        progress("synthesize")
        result = synthesize(frame, accountant=accountant, **options)
        progress("write")
        out.write("data", table_writer(result.frame))
        out.write_json("json", result.report)
        out.commit()
    return result.report


async def page(request: Request):
    workspace = workspace_of(request)
    if workspace.state.data is None:
        return render(request, "synthesize.html.j2", columns=[], ledger=None, result=None, running=False,
                      algorithms=(), next="/synthesize", job=None)
    from veil.dp.synthesis._api import ALGORITHMS
    from veil.web.pages.data import column_summary

    result = workspace.state.results.get(JOB)
    if result is not None and result["data"] != workspace.state.data:
        result = None
    job, running = page_job(request, JOB)
    return render(request, "synthesize.html.j2", columns=column_summary(workspace), ledger=ledger_view(workspace),
                  result=result, running=running, algorithms=ALGORITHMS, next="/synthesize", job=job)


async def start(request: Request):
    from veil.web.pages.data import column_summary

    workspace = workspace_of(request)
    if workspace.state.data is None:
        raise ParameterError("open a table first (Data).")
    options = _options(await request.form(), [c["name"] for c in column_summary(workspace)])
    if ledger_view(workspace) is None:
        raise ParameterError("set this table's budget first (a total epsilon and delta): nothing is "
                             "synthesized without one.")
    name = workspace.state.data

    def compute(progress):
        return {"data": name, "report": _synthesize(workspace, options, progress)}

    return start_job(request, JOB, compute, "/synthesize")


ROUTES = [
    Route("/synthesize", page, methods=["GET"]),
    Route("/synthesize/run", start, methods=["POST"]),
    download_route("/synthesize/download", tuple(OUTPUTS.values())),
]
