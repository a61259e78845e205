"""Roles: one role per column (pre-filled with the scanner's suggestion), the de-identification
of identifiers, and what the release policy will do with each column.

Saving writes ``state.config["attributes"]`` (and ``["deidentify"]``) exactly as a release
configuration file holds them, after the CLI's checks (:mod:`veil.web.pages._roles_config`).
"""

from __future__ import annotations

from starlette.requests import Request
from starlette.responses import JSONResponse, RedirectResponse
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
    allowed = rc.allowed_of(config)
    rows = []
    for i, c in enumerate(columns):
        entry = attributes.get(c["name"])
        rows.append({**c, "index": i, "chosen": entry["role"] if entry else rc.WITHHELD,
                     "kind_chosen": (entry or {}).get("kind", ""), "action": rc.action_of(config, c["name"]),
                     "allowed": c["name"] in allowed})
    return rows


async def _page(request: Request, config: dict, *, error: str | None = None, status: int = 200):
    workspace = workspace_of(request)
    context = await off_loop(workspace, _context, workspace, config)
    return render(request, "roles.html.j2", status=status, error=error, **context)


def _context(workspace, config: dict) -> dict:
    rows = _rows(workspace, config)
    shown = config if "attributes" in config else {**config, "attributes": rc.default_attributes(rows)}
    policy, policy_error = rc.release_policy(workspace, shown, [r["name"] for r in rows], read_current(workspace))
    return {"rows": rows, "roles": (*rc.ROLES, rc.WITHHELD), "kinds": rc.KINDS, "actions": ACTION_LABELS,
            "role_help": ROLE_HELP, "policy": policy, "policy_error": policy_error,
            "as_is": (*rc.PUBLISHED_AS_IS, rc.WITHHELD) if config.get("keep_unlisted") else rc.PUBLISHED_AS_IS,
            "saved": "attributes" in workspace.state.config, "key_missing": rc.key_missing(shown),
            "key_variable": rc.KEY_VARIABLE}


async def roles_page(request: Request):
    return await _page(request, workspace_of(request).state.config)


def _from_form(workspace, form) -> dict:
    """The configuration in progress with the roles, actions, kinds and checked columns of the form."""
    columns = column_summary(workspace)
    choices, allowed = {}, set()
    for i, c in enumerate(columns):
        role = str(form.get(f"role-{i}", c["role"]))
        choices[c["name"]] = (role, str(form.get(f"action-{i}", "drop")), str(form.get(f"kind-{i}", "")) or None)
        if form.get(f"allow-{i}"):
            allowed.add(c["name"])
    return rc.with_roles(workspace.state.config, choices, allowed)


async def save_roles(request: Request):
    workspace = workspace_of(request)
    form = await request.form()
    config = await off_loop(workspace, _from_form, workspace, form)
    try:
        await off_loop(workspace, rc.validated, workspace, config)
    except VeilError as exc:  # the form as sent, with the CLI's one-line error; the state is kept
        return await _page(request, config, error=f"error: {exc}", status=400)
    workspace.state.config = config
    return RedirectResponse("/roles", status_code=303)


def _policy_of(workspace, form) -> dict:
    names = [c["name"] for c in column_summary(workspace)]
    policy, error = rc.release_policy(workspace, _from_form(workspace, form), names, read_current(workspace))
    return {"policy": policy, "policy_error": error}


async def preview_roles(request: Request):
    """What the release would do with each column under the form's choices (nothing is saved): the
    release policy itself (:func:`veil.release.policy_from_config`), as the page shows it."""
    workspace = workspace_of(request)
    form = await request.form()
    return JSONResponse(await off_loop(workspace, _policy_of, workspace, form))


ROUTES = [
    Route("/roles", roles_page, methods=["GET"]),
    Route("/roles", save_roles, methods=["POST"]),
    Route("/roles/preview", preview_roles, methods=["POST"]),
]
