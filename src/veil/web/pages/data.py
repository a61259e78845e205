"""Data: open a table (upload, a file in the workspace, or the bundled Adult) and see its columns.

The columns page shows counts only (kind, distinct values, missing share) and the scanner's
suggested role with its strongest evidence (:func:`veil.sanitize.scan`); a column's values are
shown only when the steward asks for them (``GET /column/{name}/values``, the most frequent ones
with their counts).

A file is opened only if veil's reader reads it (the separator sniffed, Parquet by its suffix);
otherwise the page shows the reader's one-line error and the previous table stays open.
Opening a table starts a new release configuration: ``state.config = {"input": {...}}``.
"""

from __future__ import annotations

import os
import shutil
import tempfile
from pathlib import Path

from starlette.requests import Request
from starlette.responses import JSONResponse, RedirectResponse
from starlette.routing import Route

from veil.errors import ColumnNotFoundError, OutputError, ParameterError, VeilError
from veil.web._render import render, workspace_of
from veil.web._workspace import safe_name

NAV = ("Data", "/")
ADULT = "adult.csv"
#: The bundled ARX hierarchy files copied beside Adult (``adult_hierarchy_<qi>.csv``).
ADULT_HIERARCHIES = "adult_hierarchy_{}.csv"
#: How many of a column's most frequent values "show values" lists.
TOP_VALUES = 10
_WEAK = 0.5  # a value pattern weaker than this is not evidence for a kind other than the finding's
#: The words of a column name that suggest the role ``sensitive`` (what must not be learnt about a
#: person: health, money).  veil's scanner looks for identifiers only; this list is the web's one
#: place for it (docs/web.md).  A name matches when one of its words (split at anything but letters
#: and digits, and before a capital of camelCase) is one of these.
SENSITIVE_WORDS = ("diagnosis", "diagnoses", "diag", "condition", "conditions", "icd", "icd9", "icd10", "disease",
                   "illness", "treatment", "treatments", "medication", "medications", "drug", "drugs",
                   "prescription", "procedure", "therapy", "salary", "income", "wage", "wages", "earnings")
#: A numeric-looking column with a value like this (ZIP 03415) is read as text: its zeros are kept.
_LEADING_ZERO = r"^0\d"


def read_current(workspace):
    """The current table, every cell as text (as ``veil scan`` reads it)."""
    if workspace.state.data is None:
        raise ParameterError("open a table first (Data).")
    return _read_text(workspace.existing(workspace.state.data), workspace.state.sep)


def _read_text(path: Path, sep: str | None):
    import pandas as pd

    from veil.data import read_table

    frame = read_table(path, sep=sep, na_values=()).to_pandas()
    frame.index = pd.RangeIndex(1, len(frame) + 1)
    return frame


async def off_loop(workspace, work, *args, **kwargs):
    """``work(*args, **kwargs)`` in Starlette's thread pool, one at a time per workspace: reading a
    table or building hierarchies does not hold up the server's other requests (a job's progress)."""
    from starlette.concurrency import run_in_threadpool

    def locked():
        with workspace.lock:
            return work(*args, **kwargs)

    return await run_in_threadpool(locked)


def file_key(workspace) -> tuple:
    """What identifies the current table's content: its name, size and modification time."""
    name = workspace.state.data
    if name is None:
        raise ParameterError("open a table first (Data).")
    stat = workspace.existing(name).stat()
    return name, stat.st_size, stat.st_mtime_ns


def column_summary(workspace) -> list[dict]:
    """Per column: kind, distinct, missing share, suggested role and reason (cached per file)."""
    key = file_key(workspace)
    cached = workspace.state.results.get("columns")
    if cached is not None and cached[0] == key:
        return cached[1]
    rows = _summarize(workspace.existing(workspace.state.data), workspace.state.sep)
    workspace.state.results["columns"] = (key, rows)
    return rows


def _summarize(path: Path, sep: str | None) -> list[dict]:
    from veil.dataset import Dataset
    from veil.sanitize import scan

    described = Dataset.read(path, sep=sep).describe()
    text = _read_text(path, sep)
    findings = scan(text).columns
    rows = []
    for row in described.itertuples(index=False):
        finding = findings[row.column]
        role, why = suggested_role(finding), reason(finding)
        word = sensitive_word(row.column)
        if role == "insensitive" and word:
            role, why = "sensitive", f"the name says it is sensitive ({word}): what must not be learnt about a person"
        padded = row.kind == "numeric" and _zero_padded(text[row.column])
        rows.append({"name": row.column, "kind": "text" if padded else row.kind, "distinct": int(row.distinct),
                     "kind_note": "codes with leading zeros: read as text, zeros kept" if padded else "",
                     "missing": row.missing / max(finding.rows, 1), "role": role, "reason": why})
    return rows


def _zero_padded(column) -> bool:
    """Whether a column read as text holds a number written with leading zeros (ZIP 03415)."""
    import pandas as pd

    return pd.api.types.is_string_dtype(column) and bool(column.str.contains(_LEADING_ZERO, na=False).any())


def sensitive_word(name: str) -> str | None:
    """The word of a column name that suggests the role ``sensitive`` (:data:`SENSITIVE_WORDS`), or None."""
    import re

    words = re.split(r"[^a-z0-9]+", re.sub(r"(?<=[a-z0-9])(?=[A-Z])", "_", str(name)).lower())
    return next((w for w in words if w in SENSITIVE_WORDS), None)


def suggested_role(finding) -> str:
    """The role the scanner's finding suggests: identifier, quasi-identifier or insensitive (the
    Data page then suggests ``sensitive`` for an insensitive column by its name: :func:`sensitive_word`).

    A column whose name points to a quasi-identifier kind below the scanner's threshold (its
    candidate, as ``native_country``: a word of the name) is suggested as a quasi-identifier too:
    generalizing a column that is not one costs utility; publishing one that is costs privacy."""
    from veil.sanitize import KINDS

    if finding.is_direct_identifier:
        return "identifier"
    if finding.is_quasi_identifier:
        return "quasi-identifier"
    category = {k.name: k.category.value for k in KINDS}.get(finding.candidate)
    named = any(e.source == "name" and e.kind == finding.candidate for e in finding.evidence)
    suggested = named and category == "quasi-identifier" and not _contradicted(finding, finding.candidate)
    return "quasi-identifier" if suggested else "insensitive"


def _contradicted(finding, kind: str | None) -> bool:
    """Whether the values contradict the kind the name suggests (most do not match its pattern:
    ``visit_count`` holding 0 to 4 is no date)."""
    return any(e.source == "pattern" and e.kind == kind and (e.share or 0.0) < _WEAK for e in finding.evidence)


def reason(finding) -> str:
    """The scanner's strongest evidence: a name match before a value pattern, a pattern by the share
    it matched times its strength; weak patterns (a person name from capitalised words) only when
    they back the finding's own kind; then, if every value is distinct, that."""
    from veil.sanitize import KINDS

    strength = {k.name: k.pattern_strength for k in KINDS}
    kind = finding.kind if finding.kind != "none" else finding.candidate

    def score(e) -> float:
        if e.source == "pattern":
            return strength.get(e.kind, 0.0) * (e.share or 0.0)
        return 1.0 if e.source in ("name", "uniqueness") else (e.share or 0.0)

    kept = [e for e in finding.evidence
            if not (e.source == "pattern" and e.kind != kind and strength.get(e.kind, 0.0) < _WEAK)
            and not (e.source == "pattern" and (e.share or 0.0) < _WEAK)  # said below, as a contradiction
            and not (e.source == "uniqueness" and not finding.unique)]
    kept.sort(key=lambda e: (e.kind != kind, e.source != "name", -score(e)))
    if not kept:
        return "no identifying evidence"
    first = kept[0]
    # a name match says enough; a pattern alone is backed by a second pattern of its kind; that every
    # value is distinct always counts
    shown = [first] + [e for e in kept[1:] if e.source == "uniqueness"
                       or (first.source == "pattern" and e.source == "pattern" and e.kind == first.kind)][:1]
    if first.source == "name" and _contradicted(finding, first.kind):  # said plainly: the values win
        described = {k.name: k.description for k in KINDS}.get(first.kind, first.kind)
        return "; ".join([f"the name suggests {described}, but most of its values do not look like it",
                          *(e.detail for e in shown[1:])])
    return "; ".join(e.detail for e in shown)


async def home(request: Request):
    workspace = workspace_of(request)
    if workspace.state.data is None:
        files = [f for f in workspace.files() if "hierarch" not in f.lower()]
        return render(request, "open.html.j2", files=files)
    return render(request, "columns.html.j2", columns=await off_loop(workspace, column_summary, workspace))


def _plain_error(exc: VeilError, path: Path, name: str) -> VeilError:
    """The reader's error about ``path`` (a temporary or workspace file) naming ``name`` instead."""
    return type(exc)(str(exc).replace(str(path), name))


def _open(name: str, path: Path, sep: str | None) -> list[dict]:
    """Read ``path`` as the new current table ``name``; on a reader error nothing changes."""
    try:
        return _summarize(path, sep)
    except VeilError as exc:
        raise _plain_error(exc, path, name) from None


def _switch(workspace, name: str, sep: str | None, rows: list[dict]):
    state = workspace.state
    state.data, state.sep, state.results = name, sep, {}
    state.config = {"input": {"path": name} if sep is None else {"path": name, "sep": sep}}
    state.results["columns"] = (file_key(workspace), rows)
    return RedirectResponse("/", status_code=303)


async def upload(request: Request):
    form = await request.form()
    workspace = workspace_of(request)
    name, rows = await save_upload(workspace, form.get("file"))
    return _switch(workspace, name, None, rows)


async def save_upload(workspace, item) -> tuple[str, list[dict]]:
    """Write an uploaded table into the workspace (read first: a file that is no table is refused,
    nothing written); its name and column summary."""
    if item is None or not getattr(item, "filename", ""):
        raise ParameterError("choose a CSV or Parquet file to upload.")
    name = safe_name(item.filename)
    target = workspace.path(name)
    fd, tmp = tempfile.mkstemp(dir=workspace.root, prefix=".upload-", suffix=Path(name).suffix.lower())
    try:
        try:  # in chunks, from the spooled upload: never the whole file in memory
            with os.fdopen(fd, "wb") as handle:
                shutil.copyfileobj(item.file, handle, 1 << 20)
        except OSError as exc:
            raise OutputError(f"cannot write {name!r} in the workspace: {exc.strerror}.") from None
        rows = await off_loop(workspace, _open, name, Path(tmp), None)
        os.replace(tmp, target)
    finally:
        Path(tmp).unlink(missing_ok=True)
    return name, rows


async def open_file(request: Request):
    form = await request.form()
    workspace = workspace_of(request)
    name = str(form.get("name", ""))
    return _switch(workspace, name, None, await off_loop(workspace, _open, name, workspace.existing(name), None))


async def open_adult(request: Request):
    from veil.datasets import ADULT_QUASI_IDENTIFIERS, adult_path

    workspace = workspace_of(request)
    shutil.copyfile(adult_path(), workspace.path(ADULT))
    for qi in (*ADULT_QUASI_IDENTIFIERS, "salary-class"):
        hierarchy = ADULT_HIERARCHIES.format(qi)
        shutil.copyfile(adult_path(hierarchy), workspace.path(hierarchy))
    return _switch(workspace, ADULT, ";", await off_loop(workspace, _open, ADULT, workspace.path(ADULT), ";"))


async def close(request: Request):
    workspace = workspace_of(request)
    workspace.state.data, workspace.state.config, workspace.state.results = None, {}, {}
    return RedirectResponse("/", status_code=303)


async def column_values(request: Request):
    """A column's most frequent values with their counts (only when the steward asks)."""
    workspace = workspace_of(request)
    return JSONResponse(await off_loop(workspace, _top_values, workspace, request.path_params["name"]))


def _top_values(workspace, name: str) -> dict:
    frame = read_current(workspace)
    if name not in frame.columns:
        raise ColumnNotFoundError(f"no column {name!r} in {workspace.state.data!r}; its columns are: "
                                  f"{', '.join(map(str, frame.columns))}.")
    counts = frame[name].value_counts(sort=True, dropna=False)
    top = counts.iloc[:TOP_VALUES]
    return {"column": name, "distinct": int(len(counts)), "rows": int(len(frame)),
            "values": [{"value": str(v), "count": int(c)} for v, c in top.items()],
            "more": int(max(len(counts) - TOP_VALUES, 0))}


ROUTES = [
    Route("/", home, methods=["GET"]),
    Route("/open/upload", upload, methods=["POST"]),
    Route("/open/file", open_file, methods=["POST"]),
    Route("/open/adult", open_adult, methods=["POST"]),
    Route("/close", close, methods=["POST"]),
    Route("/column/{name:path}/values", column_values, methods=["GET"]),
]
