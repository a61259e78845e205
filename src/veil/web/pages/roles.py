"""Roles: one role per column (pre-filled with the scanner's suggestion), the de-identification
of identifiers, and what the release policy will do with each column.

Saving writes ``state.config["attributes"]`` (and ``["deidentify"]``) exactly as a release
configuration file holds them, after the CLI's checks (:mod:`veil.web.pages._roles_config`).
"""

from __future__ import annotations

from starlette.requests import Request
from starlette.responses import RedirectResponse
from starlette.routing import Route

from veil.errors import VeilError
from veil.web._render import render, workspace_of
from veil.web.pages import _roles_config as rc
from veil.web.pages.data import column_summary, off_loop, read_current

NAV = ("Roles", "/roles")

ROLE_HELP = {
    "identifier": "names a person directly (name, e-mail, record number): never written as it is",
    "quasi-identifier": "could be linked with outside data (age, ZIP code, sex): generalized",
    "sensitive": "what must not be learnt about a person (diagnosis, salary): published, protected by the models",
    "insensitive": "harmless: published as it is",
    rc.WITHHELD: "not released at all",
}
ACTION_LABELS = {"drop": "drop the column", "pseudonymize": "pseudonymize (keyed HMAC)",
                 "pseudonymize-random": "pseudonymize (random ids)"}


def _rows(workspace, config: dict) -> list[dict]:
    columns = column_summary(workspace)
    attributes = config.get("attributes")
    if attributes is None:
        attributes = rc.default_attributes(columns)
    rows = []
    for i, c in enumerate(columns):
        entry = attributes.get(c["name"])
        rows.append({**c, "index": i, "chosen": entry["role"] if entry else rc.WITHHELD,
                     "kind_chosen": (entry or {}).get("kind", ""), "action": rc.action_of(config, c["name"])})
    return rows


async def _page(request: Request, config: dict, *, error: str | None = None, status: int = 200):
    workspace = workspace_of(request)
    context = await off_loop(workspace, _context, workspace, config)
    return render(request, "roles.html.j2", status=status, error=error, **context)


def _context(workspace, config: dict) -> dict:
    rows = _rows(workspace, config)
    shown = config if "attributes" in config else {**config, "attributes": rc.default_attributes(rows)}
    policy, policy_error = {}, None
    try:
        release = rc.validated(workspace, shown)
        policy = rc.treatments(release, [r["name"] for r in rows], read_current(workspace))
    except VeilError as exc:
        policy_error = f"error: {exc}"
    return {"rows": rows, "roles": (*rc.ROLES, rc.WITHHELD), "kinds": rc.KINDS, "actions": ACTION_LABELS,
            "role_help": ROLE_HELP, "policy": policy, "policy_error": policy_error,
            "saved": "attributes" in workspace.state.config, "key_missing": rc.key_missing(shown),
            "key_variable": rc.KEY_VARIABLE}


async def roles_page(request: Request):
    return await _page(request, workspace_of(request).state.config)


async def save_roles(request: Request):
    workspace = workspace_of(request)
    form = await request.form()
    columns = await off_loop(workspace, column_summary, workspace)
    choices = {}
    for i, c in enumerate(columns):
        role = str(form.get(f"role-{i}", c["role"]))
        choices[c["name"]] = (role, str(form.get(f"action-{i}", "drop")), str(form.get(f"kind-{i}", "")) or None)
    config = rc.with_roles(workspace.state.config, choices)
    try:
        await off_loop(workspace, rc.validated, workspace, config)
    except VeilError as exc:  # the form as sent, with the CLI's one-line error; the state is kept
        return await _page(request, config, error=f"error: {exc}", status=400)
    workspace.state.config = config
    return RedirectResponse("/roles", status_code=303)


ROUTES = [
    Route("/roles", roles_page, methods=["GET"]),
    Route("/roles", save_roles, methods=["POST"]),
]
