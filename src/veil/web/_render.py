"""Server-rendered pages: one jinja2 environment (autoescaped) and the helpers every page uses."""

from __future__ import annotations

from functools import lru_cache
from typing import Any

from starlette.requests import Request
from starlette.responses import HTMLResponse, JSONResponse, PlainTextResponse

__all__ = ["render", "error_response", "workspace_of", "action"]


@lru_cache(maxsize=1)
def environment():
    from jinja2 import Environment, PackageLoader, StrictUndefined, select_autoescape

    env = Environment(loader=PackageLoader("veil.web", "templates"), autoescape=select_autoescape(default=True),
                      undefined=StrictUndefined, trim_blocks=True, lstrip_blocks=True)
    env.filters["thousands"] = lambda n: f"{n:,}" if isinstance(n, int) else n
    env.filters["share"] = lambda x: "" if x is None else f"{100 * x:.1f}%"
    return env


def workspace_of(request: Request):
    """The server's :class:`~veil.web._workspace.Workspace`."""
    return request.app.state.workspace


def action(request: Request, path: str) -> str:
    """A form's ``action``: ``path`` with the CSRF token the security middleware requires."""
    sep = "&" if "?" in path else "?"
    return f"{path}{sep}csrf={request.app.state.guard.csrf}"


def render(request: Request, template: str, status: int = 200, **context: Any) -> HTMLResponse:
    """The page ``template`` with the navigation, the state and the CSRF helpers in its context."""
    from veil.web.pages import NAVIGATION

    workspace = workspace_of(request)
    base = {"request": request, "nav": NAVIGATION, "here": request.url.path, "state": workspace.state,
            "csrf": request.app.state.guard.csrf, "action": lambda path: action(request, path),
            "job": request.app.state.jobs.job, "error": None}
    base.update(context)
    return HTMLResponse(environment().get_template(template).render(**base), status_code=status)


def error_response(request: Request, message: str, status: int = 400):
    """The one-line error the CLI would print, in the page (or as JSON for a script's request)."""
    if "application/json" in request.headers.get("accept", ""):
        return JSONResponse({"error": message}, status_code=status)
    try:
        return render(request, "error.html.j2", status=status, error=message)
    except Exception:  # noqa: BLE001 - the error page itself failed: the line alone, never a traceback
        return PlainTextResponse(message + "\n", status_code=status)
