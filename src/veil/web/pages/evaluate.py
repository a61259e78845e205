"""Evaluate: attack a release in the workspace (an anonymization's release, a synthetic table, any
table) and measure what it leaks beyond a control set, as ``veil evaluate`` does
(:func:`veil.evaluate.evaluate`: singling out, linkability, inference, and veil's own attacks),
with a hold-out made as ``veil split`` makes it (:func:`veil.evaluate.split`).

A release made on the Run page (``run-N-release.csv``) is evaluated with its report
(``run-N-report.json``: its roles and levels) and the hierarchies its configuration
(``run-N-config.yaml``) builds, exactly as ``veil evaluate ... --report run-N-report.json
--hierarchy NAME=FILE`` evaluates it with those hierarchies as files
(:func:`veil.evaluate._release_inputs.release_inputs`): generalized values match what they cover.

The evaluation runs as a job; the page shows each attack's risk with its interval, the main and
control success and the random-guess baseline (:func:`veil.report._evaluation.evaluation_rows`),
and writes ``evaluation.json`` and ``evaluation.html`` for download.  It quotes no record.
"""

from __future__ import annotations

import re
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


def run_of(name: str | None, what: str) -> str | None:
    """``run-N`` when ``name`` is run N's ``what`` (``release.csv``, ``report.json``), else None."""
    match = re.fullmatch(rf"(run-\d+)-{re.escape(what)}", name or "")
    return match.group(1) if match else None


def _reports(workspace) -> list[str]:
    """The runs' JSON reports in the workspace, by name."""
    return sorted(p.name for p in workspace.root.glob("run-*-report.json") if run_of(p.name, "report.json"))


def run_hierarchies(workspace, report: str | None) -> dict[str, Any]:
    """The hierarchies of the run whose report is ``report``, built as the run built them (its
    configuration read as the CLI reads it, over its input); empty for another report."""
    from veil.config import load_config
    from veil.release import dataset_from_config

    run = run_of(report, "report.json")
    config = None if run is None else workspace.path(f"{run}-config.yaml")
    if config is None or not config.is_file():
        return {}
    return dict(dataset_from_config(load_config(config)).hierarchies)


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
             "control": _file(workspace, form, "control", "--control", required=False),
             "report": _file(workspace, form, "report", "--report", required=False)}
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
        facts = _facts(workspace, options)
        original, release = (Dataset.read(paths[k]).frame for k in ("original", "release"))
        control = None if paths["control"] is None else Dataset.read(paths["control"]).frame
        progress("attacks")
        result = evaluate(original, release, control, secret=options["secret"], aux=options["aux"],
                          attacks=options["attacks"], n_attacks=options["n_attacks"],
                          confidence=options["confidence"], seed=options["seed"], **facts.keywords())
        out.write_json("json", result)
        out.write_text("html", render_evaluation_html(result))
        out.commit()
    return result


def _facts(workspace, options: dict[str, Any]):
    """The release's facts: its report's and its run's hierarchies (``--report``, ``--hierarchy``);
    without a report, the roles of the configuration in progress."""
    from veil.evaluate._release_inputs import ReleaseInputs, release_inputs

    report = options["paths"]["report"]
    if report is None:
        return ReleaseInputs(tuple(options["quasi_identifiers"]), tuple(options["sensitive"]))
    return release_inputs(report, run_hierarchies(workspace, report.name))


def _defaults(workspace, files: list[str]) -> dict[str, str | None]:
    """The files to start from: the current table as the original, a synthetic table or another
    file as the release, a control file named ``*control*`` or ``*holdout*``."""
    original = workspace.state.data
    held = [f for f in files if "control" in f or "holdout" in f]
    others = [f for f in files if f != original and f not in held]
    last = (workspace.state.results.get("run") or {}).get("files", {}).get("data")
    release = last if last in others else "synthetic.csv" if "synthetic.csv" in others else (others[-1] if others else None)
    control = held[0] if held else None
    run = run_of(release, "release.csv")
    report = f"{run}-report.json" if run and workspace.path(f"{run}-report.json").is_file() else None
    return {"original": original, "release": release, "control": control, "report": report}


async def page(request: Request):
    from veil.evaluate import ATTACKS
    from veil.report._evaluation import evaluation_rows

    workspace = workspace_of(request)
    files = [f for f in workspace.files() if "_hierarchy_" not in f]  # tables, not Adult's hierarchy files
    result = workspace.state.results.get(JOB)
    job, running = page_job(request, JOB)
    columns = [] if workspace.state.data is None else await off_loop(workspace, column_names, workspace)
    return render(request, "evaluate.html.j2", files=files, chosen=_defaults(workspace, files), attacks=ATTACKS,
                  reports=_reports(workspace),
                  columns=columns, result=result, rows=evaluation_rows(result["result"]) if result else [],
                  running=running, job=job)


async def start(request: Request):
    workspace = workspace_of(request)
    options = _options(workspace, await request.form())

    def compute(progress):
        result = _evaluate(workspace, options, progress)
        return {"files": {k: (None if p is None else p.name) for k, p in options["paths"].items()}, "result": result,
                "generalized_by": result["parameters"].get("generalized_by")}

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
