"""Run: the release configuration as the YAML document ``veil anonymize CONFIG`` reads, and the
job that runs it (:func:`veil.release.run_config`), with progress and cancel.

Each run writes its own files into the workspace, ``run-N-config.yaml`` (the document shown,
byte for byte the one offered for download), ``run-N-release.csv``, ``run-N-report.json`` and
``run-N-report.html``, so a new run never overwrites a download in progress.  The document's own
output paths are plain names (``release.csv``, ``report.json``, ``report.html``) relative to the
folder it is saved in; the run writes to the run's names instead (as ``veil anonymize CONFIG -o
... --json ... --html ...`` does).  The configuration is read back and checked by
:func:`veil.config.load_config` (its schema and :func:`veil.config.check_consistency`) before the
job starts: an error is the CLI's one line.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from starlette.requests import Request
from starlette.responses import JSONResponse, RedirectResponse
from starlette.routing import Route

from veil.errors import ConfigError, VeilError
from veil.web._render import render, workspace_of
from veil.web.pages.data import off_loop
from veil.web.pages.models import attributes, settings
from veil.web.pages._forms import in_page_words
from veil.web.pages._results_runs import begin, latest

__all__ = ["NAV", "ROUTES", "document", "document_text", "load_document", "DOWNLOAD_NAMES", "run_files"]

NAV = ("Run", "/run")
#: The outputs a downloaded configuration names, relative to the folder it is saved in.
DOWNLOAD_NAMES = {"path": "release.csv", "report": "report.json", "html": "report.html"}
#: Keys of the configuration in progress copied as they are (the pages that own them fill them).
_PASSED = ("deidentify", "suppressed", "missing_sensitive", "keep_unlisted", "allow_identifiers", "max_nodes",
           "engine", "seed")


def document(workspace) -> dict[str, Any]:
    """The release configuration in progress as the document ``veil anonymize CONFIG`` reads."""
    state = workspace.state
    if state.data is None:
        raise ConfigError("input.path: open a table first (Data).")
    config = state.config
    chosen = settings(workspace)
    source: dict[str, Any] = {"path": state.data}
    if state.sep:
        source["sep"] = state.sep
    doc: dict[str, Any] = {"input": {**(config.get("input") or {}), **source},
                           "attributes": attributes(workspace)[0]}
    doc["models"] = chosen["models"]
    doc["suppression_limit"] = chosen["suppression_limit"]
    doc["metric"] = chosen["metric"]
    doc["algorithm"] = chosen["algorithm"]
    if chosen["algorithm_options"]:
        doc["algorithm_options"] = chosen["algorithm_options"]
    for key in ("label", "target", *_PASSED):
        if config.get(key) is not None:
            doc[key] = config[key]
    doc["output"] = {**{k: v for k, v in (config.get("output") or {}).items() if k not in DOWNLOAD_NAMES},
                     **DOWNLOAD_NAMES}
    return doc


def document_text(doc: dict[str, Any]) -> str:
    """The YAML text of a configuration document, with a header saying how to run it."""
    import yaml

    header = ("# veil release configuration, written by `veil serve`.\n"
              "# Save it in the folder of the data file (and of any hierarchy or population file it names), then run:\n"
              "#   veil anonymize FILE   (FILE: this file, e.g. run-3-config.yaml)\n")
    return header + yaml.safe_dump(doc, sort_keys=False, allow_unicode=True, default_flow_style=False)


def load_document(workspace, text: str, name: str):
    """Write ``text`` as ``name`` in the workspace and read it as the CLI does (:func:`load_config`)."""
    from veil.config import load_config

    path = workspace.write_bytes(name, text.encode("utf-8"))
    try:
        return load_config(path)
    except ConfigError as exc:  # the message names the file by its name only, as the steward sees it
        raise ConfigError(str(exc).replace(str(path), name)) from None


def run_files(number: int) -> dict[str, str]:
    """The workspace names of run ``number``'s files."""
    return {"config": f"run-{number}-config.yaml", "data": f"run-{number}-release.csv",
            "report": f"run-{number}-report.json", "html": f"run-{number}-report.html"}


def next_number(workspace) -> int:
    """The next run's number: above every run this session counted and every run file in the
    workspace (the count restarts when another table is opened; the files stay)."""
    import re

    taken = [int(m.group(1)) for p in workspace.root.iterdir() if (m := re.match(r"run-(\d+)-", p.name))]
    return max([int(workspace.state.results.get("runs", 0)), *taken]) + 1


def _draft(workspace) -> tuple[str, str | None]:
    """The document's text and, when it does not pass the configuration's checks, the error line."""
    try:
        text = document_text(document(workspace))
    except VeilError as exc:
        return "", f"error: {in_page_words(str(exc))}"
    try:
        load_document(workspace, text, "release-config.yaml")
    except VeilError as exc:
        return text, f"error: {in_page_words(str(exc))}"
    return text, None


async def page(request: Request):
    workspace = workspace_of(request)
    text, problem = await off_loop(workspace, _draft, workspace)
    record = workspace.state.results.get("run")
    started = latest(workspace)
    jobs = request.app.state.jobs
    changed = started is not None and started["text"] != text
    context = {"job": None} if changed and not jobs.busy else {}  # the panel of a run of another configuration
    return render(request, "run.html.j2", yaml_text=text, problem=problem, error=None,
                  suggested=workspace.state.data is not None and attributes(workspace)[1],
                  last=None if record is None else record["number"], started=started, changed=changed,
                  last_entry=_entry(workspace, record), held=held_levels(workspace), **context)


def held_levels(workspace) -> dict[str, int]:
    """The quasi-identifiers held at one level (``min_level`` = ``max_level``, e.g. by Results' Use these levels)."""
    out = {}
    for name, spec in (workspace.state.config.get("attributes") or {}).items():
        if isinstance(spec, dict) and spec.get("min_level") is not None and spec.get("min_level") == spec.get("max_level"):
            out[name] = int(spec["min_level"])
    return out


async def free_levels(request: Request):
    """Let the search choose every level again: drop ``min_level`` and ``max_level`` of the held columns."""
    workspace = workspace_of(request)
    with workspace.lock:
        attributes = workspace.state.config.get("attributes") or {}
        for name in held_levels(workspace):
            attributes[name] = {k: v for k, v in attributes[name].items() if k not in ("min_level", "max_level")}
    return RedirectResponse("/run", status_code=303)


def _entry(workspace, record) -> dict[str, Any] | None:
    from veil.web.pages._results_runs import runs

    if record is None:
        return None
    return next((e for e in runs(workspace) if e["number"] == record["number"]), None)


def _work(workspace, number: int, config: Any, files: dict[str, str]):
    """The job: :func:`veil.release.run_config` into the run's files; the record the Results page reads."""
    from veil.release import run_config
    from veil.web.pages._results import results_view
    from veil.web.pages._results_runs import end

    def work(progress):
        try:
            return finished(progress)
        except BaseException as exc:
            from veil.web._jobs import Cancelled

            end(workspace, number, "cancelled" if isinstance(exc, Cancelled) else "failed")
            worded = in_page_words(str(exc)) if isinstance(exc, VeilError) else None
            if worded is not None and worded != str(exc):  # the CLI's flags as the page's controls
                raise ConfigError(worded) from None
            raise

    def finished(progress):
        paths = {role: str(workspace.path(files[role])) for role in ("data", "report", "html")}
        result, written = run_config(config, output=paths["data"], report=paths["report"], html=paths["html"],
                                     progress=progress, config_path=workspace.path(files["config"]))
        report = json.loads(Path(written["report"]).read_text(encoding="utf-8"))
        record = {"number": number, "files": files, "report": report, "config": config,
                  "classes": getattr(result, "classes", None)}
        record["view"] = results_view(record)  # the Results page's plots, drawn before the page is asked
        with workspace.lock:
            workspace.state.results["run"] = record
        end(workspace, number, "done", report)
        return {"number": number}

    return work


def _prepare(workspace) -> tuple[int, dict[str, str], Any]:
    """The next run's number, its files, and its configuration written and read back as the CLI reads it."""
    number = next_number(workspace)
    files = run_files(number)
    text = document_text(document(workspace))
    config = load_document(workspace, text, files["config"])
    workspace.state.results["runs"] = number
    begin(workspace, number, text, config, files)
    return number, files, config


async def start(request: Request):
    workspace = workspace_of(request)
    jobs = request.app.state.jobs
    if jobs.busy:
        raise ConfigError(f"a job ({jobs.job.name}) is running: wait for it or cancel it.")
    number, files, config = await off_loop(workspace, _prepare, workspace)
    jobs.start("anonymize", _work(workspace, number, config, files), then="/results")
    if "application/json" in request.headers.get("accept", ""):
        return JSONResponse({"started": number})
    return RedirectResponse(f"/run?started={number}", status_code=303)


def _sections(text: str) -> dict[str, Any]:
    """The sections of a configuration the steward pasted, without its input and outputs (the
    workspace's table and the run's files stand for them)."""
    import yaml

    try:
        raw = yaml.safe_load(text)
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        raise ConfigError(f"the configuration is not YAML{f' (line {mark.line + 1})' if mark else ''}.") from None
    if not isinstance(raw, dict):
        raise ConfigError("the configuration must hold a mapping at the top level (input, attributes, models, ...).")
    return {str(k): v for k, v in raw.items() if k not in ("input", "output", "base_dir")}


async def load(request: Request):
    """Start from a configuration (a downloaded one, or one written for `veil anonymize`): its
    roles, hierarchies, models and settings replace the ones in progress, if it passes the checks."""
    workspace = workspace_of(request)
    form = await request.form()
    item = form.get("file")
    text = (await item.read()).decode("utf-8", "replace") if getattr(item, "filename", "") else str(form.get("config", ""))
    sections = _sections(text)
    with workspace.lock:
        previous = workspace.state.config
        workspace.state.config = sections
        try:
            load_document(workspace, document_text(document(workspace)), "release-config.yaml")
        except VeilError:
            workspace.state.config = previous
            raise
    return RedirectResponse("/run", status_code=303)


ROUTES = [
    Route("/run", page, methods=["GET"]),
    Route("/run/start", start, methods=["POST"]),
    Route("/run/config", load, methods=["POST"]),
    Route("/run/levels/free", free_levels, methods=["POST"]),
]
