"""Results: the last run's figures (from its JSON report, through the HTML report's section
builders), the lattice with any node's figures, the violation counts after, and the downloads:
the release, the JSON and HTML reports, and the configuration that reproduces the run with
``veil anonymize CONFIG``.
"""

from __future__ import annotations

from typing import Any

from starlette.requests import Request
from starlette.responses import FileResponse, JSONResponse
from starlette.routing import Route

from veil.errors import ParameterError
from veil.web._render import render, workspace_of
from veil.web.pages._results import results_view
from veil.web.pages._results_node import frontier, node_figures, parse_levels

__all__ = ["NAV", "ROUTES", "DOWNLOADS", "last_run"]

NAV = ("Results", "/results")
#: Download name -> (the run's file role, the name the browser saves it as, media type).
DOWNLOADS = {
    "release": ("data", "release.csv", "text/csv"),
    "report": ("report", "report.json", "application/json"),
    "html": ("html", "report.html", "text/html"),
    "config": ("config", "release-config.yaml", "application/yaml"),
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
        view = record["view"] = results_view(record)
    return render(request, "results.html.j2", view=view)


async def node(request: Request):
    record = last_run(workspace_of(request))
    levels = parse_levels(request.query_params.get("levels", ""), record)
    return JSONResponse(node_figures(record, levels))


async def lattice(request: Request):
    workspace = workspace_of(request)
    record = last_run(workspace)
    cached = record.get("frontier")
    if cached is None:
        cached = record["frontier"] = frontier(record)
    return JSONResponse(cached)


async def download(request: Request):
    what = request.path_params["what"]
    if what not in DOWNLOADS:
        raise ParameterError(f"no download {what!r}; one of {', '.join(DOWNLOADS)}.")
    workspace = workspace_of(request)
    role, name, media = DOWNLOADS[what]
    path = workspace.existing(last_run(workspace)["files"][role])
    return FileResponse(path, media_type=media, filename=name)


ROUTES = [
    Route("/results", page, methods=["GET"]),
    Route("/results/node", node, methods=["GET"]),
    Route("/results/lattice", lattice, methods=["GET"]),
    Route("/results/download/{what}", download, methods=["GET"]),
]
