"""Data: open a table (upload, a file in the workspace, or the bundled Adult) and see its columns.

The columns page shows counts only (kind, distinct values, missing share) and the scanner's
suggested role with its reason (:func:`veil.sanitize.scan`); no value is shown unless the steward
asks for a column's values.
"""

from __future__ import annotations

import shutil

from starlette.requests import Request
from starlette.responses import RedirectResponse
from starlette.routing import Route

from veil.errors import ParameterError
from veil.web._render import render, workspace_of
from veil.web._workspace import safe_name

NAV = ("Data", "/")
ADULT = "adult.csv"


def read_current(workspace):
    """The current table, every cell as text (as ``veil scan`` reads it)."""
    import pandas as pd

    from veil.data import read_table

    if workspace.state.data is None:
        raise ParameterError("open a table first (Data).")
    path = workspace.existing(workspace.state.data)
    frame = read_table(path, sep=workspace.state.sep, na_values=()).to_pandas()
    frame.index = pd.RangeIndex(1, len(frame) + 1)
    return frame


def column_summary(workspace) -> list[dict]:
    """Per column: kind, distinct, missing share, suggested role and reason (cached per file)."""
    cached = workspace.state.results.get("columns")
    if cached is not None and cached[0] == workspace.state.data:
        return cached[1]
    from veil.dataset import Dataset
    from veil.sanitize import scan

    path = workspace.existing(workspace.state.data)
    described = Dataset.read(path, sep=workspace.state.sep).describe()
    findings = scan(read_current(workspace)).columns
    rows = []
    for row in described.itertuples(index=False):
        finding = findings[row.column]
        rows.append({"name": row.column, "kind": row.kind, "distinct": int(row.distinct),
                     "missing": row.missing / max(finding.rows, 1), "role": _suggested_role(finding),
                     "reason": _reason(finding)})
    workspace.state.results["columns"] = (workspace.state.data, rows)
    return rows


def _suggested_role(finding) -> str:
    if finding.is_direct_identifier:
        return "identifier"
    return "quasi-identifier" if finding.is_quasi_identifier else "insensitive"


def _reason(finding) -> str:
    shown = [e.detail for e in finding.evidence if e.source != "pattern" or (e.share or 0) >= 0.05]
    return "; ".join(shown[:2]) if shown else "no identifying evidence"


async def home(request: Request):
    workspace = workspace_of(request)
    if workspace.state.data is None:
        return render(request, "open.html.j2", files=workspace.files())
    return render(request, "columns.html.j2", columns=column_summary(workspace))


def _opened(workspace, name: str):
    workspace.existing(name)
    workspace.state.data, workspace.state.sep = name, None
    workspace.state.config, workspace.state.results = {}, {}
    return RedirectResponse("/", status_code=303)


async def upload(request: Request):
    form = await request.form()
    item = form.get("file")
    if item is None or not getattr(item, "filename", ""):
        raise ParameterError("choose a CSV or Parquet file to upload.")
    workspace = workspace_of(request)
    name = safe_name(item.filename)
    workspace.write_bytes(name, await item.read())
    return _opened(workspace, name)


async def open_file(request: Request):
    form = await request.form()
    return _opened(workspace_of(request), str(form.get("name", "")))


async def open_adult(request: Request):
    from veil.datasets import adult_path

    workspace = workspace_of(request)
    shutil.copyfile(adult_path(), workspace.path(ADULT))
    response = _opened(workspace, ADULT)
    workspace.state.sep = ";"
    return response


async def close(request: Request):
    workspace = workspace_of(request)
    workspace.state.data, workspace.state.config, workspace.state.results = None, {}, {}
    return RedirectResponse("/", status_code=303)


ROUTES = [
    Route("/", home, methods=["GET"]),
    Route("/open/upload", upload, methods=["POST"]),
    Route("/open/file", open_file, methods=["POST"]),
    Route("/open/adult", open_adult, methods=["POST"]),
    Route("/close", close, methods=["POST"]),
]
