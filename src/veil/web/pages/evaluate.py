"""Evaluate: attack a release in the workspace (an anonymization's release, a synthetic table, any
table) and measure what it leaks beyond a control set, as ``veil evaluate`` does
(:func:`veil.evaluate.evaluate`: singling out, linkability, inference, and veil's own attacks),
with a hold-out made as ``veil split`` makes it (:func:`veil.evaluate.split`).

The evaluation runs as a job; the page shows each attack's risk with its interval, the main and
control success and the random-guess baseline (:func:`veil.report._evaluation.evaluation_rows`),
and writes ``evaluation.json`` and ``evaluation.html`` for download.  It quotes no record.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from starlette.requests import Request
from starlette.responses import RedirectResponse
from starlette.routing import Route

from veil.errors import ParameterError
from veil.web._render import render, workspace_of
from veil.web.pages._dp_fields import integer_field, number_field, text_field
from veil.web.pages.data import off_loop
from veil.web.pages.risk import column_names
from veil.web.pages._dp_jobs import download_route, page_job, start_job

NAV = ("Evaluate", "/evaluate")
JOB = "evaluate"
OUTPUTS = {"json": "evaluation.json", "html": "evaluation.html"}


def _file(workspace, form: Any, field: str, flag: str, required: bool = True) -> Path | None:
    name = text_field(form, field)
    if name is None:
        if required:
            raise ParameterError(f"{flag}: choose a file of the workspace.")
        return None
    return workspace.existing(name)


def _roles(workspace) -> tuple[list[str], list[str]]:
    """The QIs and sensitive attributes of the release configuration in progress (the report's roles)."""
    attributes = (workspace.state.config or {}).get("attributes") or {}
    roles = {name: (spec or {}).get("role") for name, spec in attributes.items() if isinstance(spec, dict)}
    return ([n for n, r in roles.items() if r == "quasi-identifier"],
            [n for n, r in roles.items() if r == "sensitive"])


def _options(workspace, form: Any) -> dict[str, Any]:
    from veil.evaluate import ATTACKS

    attacks = [str(a) for a in form.getlist("attacks")]
    if not attacks:
        raise ParameterError(f"--attacks needs at least one of {', '.join(ATTACKS)}.")
    paths = {"original": _file(workspace, form, "original", "ORIGINAL"),
             "release": _file(workspace, form, "release", "RELEASE"),
             "control": _file(workspace, form, "control", "--control", required=False)}
    if paths["original"] == paths["release"]:
        raise ParameterError("the release and the original are the same file: choose the release.")
    qis, sensitive = _roles(workspace)
    return {"paths": paths, "attacks": attacks, "quasi_identifiers": qis, "sensitive": sensitive,
            "secret": [str(s) for s in form.getlist("secret")] or None,
            "aux": [str(a) for a in form.getlist("aux")] or None,
            "n_attacks": integer_field(form, "n_attacks", "--n-attacks", 500),
            "confidence": number_field(form, "confidence", "--confidence", 0.95),
            "seed": integer_field(form, "seed", "--seed")}


def _evaluate(workspace, options: dict[str, Any], progress) -> dict[str, Any]:
    """``veil evaluate ORIGINAL RELEASE [--control]`` on workspace files, its JSON and HTML written."""
    from veil.dataset import Dataset
    from veil.evaluate import evaluate
    from veil.pipeline import Outputs
    from veil.report._evaluation import render_evaluation_html

    paths = options["paths"]
    destinations = {role: workspace.path(name) for role, name in OUTPUTS.items()}
    with Outputs(destinations, inputs=[p for p in paths.values() if p is not None]) as out:
        progress("read")
        original, release = (Dataset.read(paths[k]).frame for k in ("original", "release"))
        control = None if paths["control"] is None else Dataset.read(paths["control"]).frame
        progress("attacks")
        result = evaluate(original, release, control, secret=options["secret"], aux=options["aux"],
                          attacks=options["attacks"], n_attacks=options["n_attacks"],
                          confidence=options["confidence"], seed=options["seed"],
                          quasi_identifiers=options["quasi_identifiers"], sensitive=options["sensitive"])
        out.write_json("json", result)
        out.write_text("html", render_evaluation_html(result))
        out.commit()
    return result


def _defaults(workspace, files: list[str]) -> dict[str, str | None]:
    """The files to start from: the current table as the original, a synthetic table or another
    file as the release, a control file named ``*control*`` or ``*holdout*``."""
    original = workspace.state.data
    held = [f for f in files if "control" in f or "holdout" in f]
    others = [f for f in files if f != original and f not in held]
    release = "synthetic.csv" if "synthetic.csv" in others else (others[-1] if others else None)
    control = held[0] if held else None
    return {"original": original, "release": release, "control": control}


async def page(request: Request):
    from veil.evaluate import ATTACKS
    from veil.report._evaluation import evaluation_rows

    workspace = workspace_of(request)
    files = [f for f in workspace.files() if "_hierarchy_" not in f]  # tables, not Adult's hierarchy files
    result = workspace.state.results.get(JOB)
    job, running = page_job(request, JOB)
    columns = [] if workspace.state.data is None else await off_loop(workspace, column_names, workspace)
    return render(request, "evaluate.html.j2", files=files, chosen=_defaults(workspace, files), attacks=ATTACKS,
                  columns=columns, result=result, rows=evaluation_rows(result["result"]) if result else [],
                  running=running, job=job)


async def start(request: Request):
    workspace = workspace_of(request)
    options = _options(workspace, await request.form())

    def compute(progress):
        result = _evaluate(workspace, options, progress)
        return {"files": {k: (None if p is None else p.name) for k, p in options["paths"].items()}, "result": result}

    return start_job(request, JOB, compute, "/evaluate")


async def hold_out(request: Request):
    """``veil split``: the records to release from (NAME-release-from.csv) and a control set (NAME-control.csv)."""
    import pandas as pd

    from veil.data import read_table
    from veil.evaluate import split
    from veil.pipeline import Outputs
    from veil.release import table_writer

    workspace = workspace_of(request)
    form = await request.form()
    source = _file(workspace, form, "source", "PATH")
    share = number_field(form, "share", "--control", 0.2)
    stem = Path(source.name).stem
    names = {"data": f"{stem}-release-from.csv", "control": f"{stem}-control.csv"}
    with Outputs({k: workspace.path(v) for k, v in names.items()}, inputs=[source]) as out:
        frame = read_table(source, sep=None, na_values=()).to_pandas()
        frame.index = pd.RangeIndex(1, len(frame) + 1)
        train, held = split(frame, share, seed=integer_field(form, "seed", "--seed"))
        out.write("data", table_writer(train))
        out.write("control", table_writer(held))
        out.commit()
    workspace.state.results["evaluate_split"] = {"source": source.name, **names, "records": len(train),
                                                 "control_records": len(held)}
    return RedirectResponse("/evaluate", status_code=303)


ROUTES = [
    Route("/evaluate", page, methods=["GET"]),
    Route("/evaluate/run", start, methods=["POST"]),
    Route("/evaluate/split", hold_out, methods=["POST"]),
    download_route("/evaluate/download", tuple(OUTPUTS.values())),
]
