"""Results: the last run's figures (from its JSON report, through the HTML report's section
builders), the lattice with any node's figures, the violation counts after, and the downloads:
the release, the JSON and HTML reports, and the configuration that reproduces the run with
``veil anonymize CONFIG``.
"""

from __future__ import annotations

from typing import Any

from starlette.requests import Request
from starlette.responses import FileResponse, JSONResponse, RedirectResponse
from starlette.routing import Route

from veil.errors import ParameterError
from veil.web._render import render, workspace_of
from veil.web.pages.data import off_loop
from veil.web.pages._results import results_view
from veil.web.pages._results_runs import runs
from veil.web.pages._results_node import frontier, node_figures, parse_levels, pin_levels

__all__ = ["NAV", "ROUTES", "DOWNLOADS", "last_run"]

NAV = ("Results", "/results")
#: Download name -> (the run's file role, media type).  The browser saves each as the run's own
#: workspace name (``run-3-release.csv``), so downloads of two runs never share a name.
DOWNLOADS = {
    "release": ("data", "text/csv"),
    "report": ("report", "application/json"),
    "html": ("html", "text/html"),
    "config": ("config", "application/yaml"),
}


def last_run(workspace) -> dict[str, Any]:
    """The record of the last finished run (a ParameterError before any)."""
    record = workspace.state.results.get("run")
    if record is None:
        raise ParameterError("no release has been run yet: choose the models, then Run.")
    return record


async def page(request: Request):
    workspace = workspace_of(request)
    record = workspace.state.results.get("run")
    if record is None:
        return render(request, "results.html.j2", view=None)
    view = record.get("view")
    if view is None:
        view = record["view"] = await off_loop(workspace, results_view, record)
    history = runs(workspace)
    entry = next((e for e in history if e["number"] == record["number"]), None)
    return render(request, "results.html.j2", view=view, runs=list(reversed(history)), entry=entry,
                  changed=bool(history) and history[-1]["text"] != _current_text(workspace))


def _current_text(workspace) -> str | None:
    """The configuration document in progress (``None`` when it cannot be made)."""
    from veil.errors import VeilError
    from veil.web.pages.run import document, document_text

    try:
        return document_text(document(workspace))
    except VeilError:
        return None


async def node(request: Request):
    workspace = workspace_of(request)
    record = last_run(workspace)
    levels = parse_levels(request.query_params.get("levels", ""), record)
    return JSONResponse(await off_loop(workspace, node_figures, record, levels))


async def lattice(request: Request):
    workspace = workspace_of(request)
    record = last_run(workspace)
    cached = record.get("frontier")
    if cached is None:
        cached = record["frontier"] = await off_loop(workspace, frontier, record)
    return JSONResponse(cached)


async def download(request: Request):
    what = request.path_params["what"]
    if what not in DOWNLOADS:
        raise ParameterError(f"no download {what!r}; one of {', '.join(DOWNLOADS)}.")
    workspace = workspace_of(request)
    role, media = DOWNLOADS[what]
    files = _files_of(workspace, request.query_params.get("run"))
    path = workspace.existing(files[role])
    return FileResponse(path, media_type=media, filename=files[role])


def _files_of(workspace, number: str | None) -> dict[str, str]:
    """The files of run ``number`` (one of this session's finished runs), else of the last run."""
    if number is None:
        return last_run(workspace)["files"]
    done = {str(e["number"]): e["files"] for e in runs(workspace) if e["status"] == "done"}
    if number not in done:
        raise ParameterError(f"no finished run {number[:12]!r}; finished runs: {', '.join(done) or 'none'}.")
    return done[number]


async def use_levels(request: Request):
    """Hold every quasi-identifier at the chosen node's level in the configuration in progress
    (``min_level`` = ``max_level``), then go to Run: the next run releases that node."""
    from veil.web.pages.models import attributes

    workspace = workspace_of(request)
    record = last_run(workspace)
    form = await request.form()
    levels = parse_levels(str(form.get("levels", "")), record)
    with workspace.lock:
        workspace.state.config["attributes"] = pin_levels(attributes(workspace)[0], record, levels)
    if "application/json" in request.headers.get("accept", ""):
        return JSONResponse({"levels": list(levels), "next": "/run"})
    return RedirectResponse("/run", status_code=303)


ROUTES = [
    Route("/results/levels", use_levels, methods=["POST"]),
    Route("/results", page, methods=["GET"]),
    Route("/results/node", node, methods=["GET"]),
    Route("/results/lattice", lattice, methods=["GET"]),
    Route("/results/download/{what}", download, methods=["GET"]),
]
