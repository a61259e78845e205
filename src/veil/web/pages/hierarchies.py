"""Hierarchies: per quasi-identifier, a builder with its parameters, a live preview of each level
(its labels, groups and smallest group, alone and with the other quasi-identifiers at their
chosen levels), the built hierarchy as an ARX-format CSV, and the upload of one.

Saving writes ``state.config["attributes"][qi]["hierarchy"]`` as a release configuration file
holds it: ``{spec: "interval:5,10,20"}``, ``{spec: auto}``, ``{spec: "taxonomy:NAME"}`` or
``{file: NAME}`` (a file in the workspace).  The work is in :mod:`veil.web.pages._hierarchy_build`.
"""

from __future__ import annotations

import os
import re
import tempfile
from pathlib import Path

from starlette.requests import Request
from starlette.responses import JSONResponse, RedirectResponse, Response
from starlette.routing import Route

from veil.errors import ParameterError, VeilError
from veil.web._render import render, workspace_of
from veil.web._workspace import safe_name
from veil.web.pages import _hierarchy_build as hb
from veil.web.pages.data import off_loop

NAV = ("Hierarchies", "/hierarchies")
LEVELS = "hierarchies.levels"  # state.results: the level each quasi-identifier is previewed at


def _sections(workspace) -> list[dict]:
    config = workspace.state.config
    levels = workspace.state.results.get(LEVELS, {})
    out = []
    for i, qi in enumerate(hb.quasi_identifiers(config)):
        entry = hb.saved_entry(config, qi)
        out.append({"index": i, "name": qi, "anchor": _anchor(qi), "form": hb.form_of(entry), "saved": entry.get("spec") or entry.get("file") or str(entry), "level": levels.get(qi, 0)})
    return out


async def hierarchies_page(request: Request, error: str | None = None, status: int = 200):
    workspace = workspace_of(request)
    return render(request, "hierarchies.html.j2", status=status, sections=await off_loop(workspace, _sections, workspace),
                  builders=hb.BUILDER_FORMS, files=hb.hierarchy_files(workspace), error=error,
                  k=_k(workspace.state.config))


def _k(config: dict) -> int:
    """The k of the configuration's k-anonymity model (5, the default the Models page offers, before)."""
    ks = [m.get("k") for m in config.get("models") or [] if isinstance(m, dict) and m.get("type") == "k-anonymity"]
    return int(ks[0]) if ks and isinstance(ks[0], int) else 5


def _choice(workspace, qi: str, fields) -> dict:
    hb.check_qi(workspace.state.config, qi)
    return hb.entry_of(workspace, qi, str(fields.get("builder", "auto")), str(fields.get("params", "")),
                       str(fields.get("file", "")))


async def preview(request: Request):
    workspace = workspace_of(request)
    qi = request.path_params["qi"]
    try:
        body = await request.json()
    except ValueError:
        raise ParameterError("the preview needs a JSON body {builder, params, file, levels}.") from None
    if not isinstance(body, dict):
        raise ParameterError("the preview needs a JSON body {builder, params, file, levels}.")
    levels = body.get("levels") or {}
    if not isinstance(levels, dict) or not all(isinstance(v, int) and not isinstance(v, bool) for v in levels.values()):
        raise ParameterError("levels must map each quasi-identifier to a level number.")
    return JSONResponse(await off_loop(workspace, _preview, workspace, qi, body, levels))


def _preview(workspace, qi: str, body: dict, levels: dict) -> dict:
    entry = _choice(workspace, qi, body)
    answer = hb.preview(workspace, workspace.state.config, qi, entry, levels, show_values=bool(body.get("show_values")))
    workspace.state.results[LEVELS] = {**answer["others"], qi: answer["chosen"]}
    return answer


async def save(request: Request):
    workspace = workspace_of(request)
    qi = request.path_params["qi"]
    form = await request.form()
    try:
        entry = await off_loop(workspace, _checked, workspace, qi, form)
    except VeilError as exc:
        return await hierarchies_page(request, error=f"error: {qi}: {exc}", status=400)
    workspace.state.config["attributes"][qi]["hierarchy"] = entry
    return RedirectResponse(f"/hierarchies#qi-{_anchor(qi)}", status_code=303)


def _checked(workspace, qi: str, fields) -> dict:
    """The ``hierarchy`` entry of a builder choice whose hierarchy builds and covers the column."""
    entry = _choice(workspace, qi, fields)
    hierarchy, _ = hb.hierarchy_of(workspace, workspace.state.config, qi, entry)
    hb.check_covers(workspace, workspace.state.config, qi, hierarchy)
    return entry


def _csv(workspace, qi: str, query) -> str:
    config = workspace.state.config
    hb.check_qi(config, qi)
    entry = _checked(workspace, qi, query) if "builder" in query else hb.saved_entry(config, qi)
    return hb.csv_text(hb.hierarchy_of(workspace, config, qi, entry)[0])


async def download(request: Request):
    workspace = workspace_of(request)
    qi = request.path_params["qi"]
    text = await off_loop(workspace, _csv, workspace, qi, dict(request.query_params))
    name = f"{_anchor(qi)}-hierarchy.csv"
    return Response(text, media_type="text/csv; charset=utf-8",
                    headers={"Content-Disposition": f'attachment; filename="{name}"'})


async def upload(request: Request):
    """Save an uploaded hierarchy file in the workspace, if it is a hierarchy that covers the
    column's values, and use it (``{file: NAME}``); otherwise nothing is written."""
    workspace = workspace_of(request)
    qi = request.path_params["qi"]
    config = workspace.state.config
    hb.check_qi(config, qi)
    form = await request.form()
    item = form.get("file")
    if item is None or not getattr(item, "filename", ""):
        raise ParameterError("choose a hierarchy file (CSV, one row per value, one column per level) to upload.")
    name = safe_name(item.filename)
    if not name.lower().endswith(".csv"):
        raise ParameterError(f"a hierarchy file is a CSV file (.csv); got {name!r}.")
    if name == workspace.state.data:
        raise ParameterError(f"{name!r} is the open table; give the hierarchy file another name.")
    target = workspace.path(name)
    fd, tmp = tempfile.mkstemp(dir=workspace.root, prefix=".upload-", suffix=".csv")
    try:
        with os.fdopen(fd, "wb") as handle:
            handle.write(await item.read())
        try:
            await off_loop(workspace, _check_file, workspace, qi, tmp)
        except VeilError as exc:
            raise type(exc)(str(exc).replace(tmp, name)) from None
        os.replace(tmp, target)
    finally:
        Path(tmp).unlink(missing_ok=True)
    config["attributes"][qi]["hierarchy"] = {"file": name}
    return RedirectResponse(f"/hierarchies#qi-{_anchor(qi)}", status_code=303)


def _check_file(workspace, qi: str, path: str) -> None:
    """A hierarchy file read as the release reads a ``{file: ...}`` hierarchy, covering the column."""
    from veil.hierarchy import from_csv

    hb.check_covers(workspace, workspace.state.config, qi, from_csv(path, name=qi))


def _anchor(qi: str) -> str:
    return re.sub(r"[^A-Za-z0-9_-]", "_", qi) or "column"


ROUTES = [
    Route("/hierarchies", hierarchies_page, methods=["GET"]),
    Route("/hierarchies/{qi:path}/preview", preview, methods=["POST"]),
    Route("/hierarchies/{qi:path}/upload", upload, methods=["POST"]),
    Route("/hierarchies/{qi:path}.csv", download, methods=["GET"]),
    Route("/hierarchies/{qi:path}", save, methods=["POST"]),
]
