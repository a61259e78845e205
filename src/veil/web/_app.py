"""The Starlette application: the pages of :mod:`veil.web.pages` behind the security rules.

The layers, outside in: :class:`Shielded` (no exception leaves the app: the server would log its
traceback, and a traceback quotes values), :class:`~veil.web._security.SecurityMiddleware` (so its
headers are on every response, the 500 page included), then Starlette (its error handlers, the
routes and the static files).
"""

from __future__ import annotations

import logging
from pathlib import Path

from starlette.applications import Starlette
from starlette.exceptions import HTTPException
from starlette.requests import Request
from starlette.routing import Mount
from starlette.staticfiles import StaticFiles

from veil.errors import VeilError
from veil.web._jobs import JobRunner
from veil.web._render import error_response
from veil.web._security import BodyTooLarge, Guard, SecurityMiddleware
from veil.web._workspace import Workspace

__all__ = ["create_app", "Shielded", "log_internal"]

log = logging.getLogger("veil.web")
STATIC = Path(__file__).resolve().parent / "static"


async def _user_error(request: Request, exc: Exception):
    return error_response(request, f"error: {exc}")


async def _too_large(request: Request, exc: Exception):
    return error_response(request, f"error: {exc}", status=413)


async def _http_error(request: Request, exc: Exception):
    # Starlette's own refusals (no such page, a malformed form): their detail names no value
    status = getattr(exc, "status_code", 400)
    detail = getattr(exc, "detail", "") or "bad request"
    return error_response(request, f"error: {str(detail).rstrip('.')}.", status=status)


def log_internal(method: str, path: str, exc: BaseException) -> None:
    """One log line naming the exception's type and the page, never its text (it may quote a value)."""
    if not getattr(exc, "veil_logged", False):
        log.error("internal error on %s %s: %s", method, path, type(exc).__name__)
    try:
        exc.veil_logged = True
    except AttributeError:  # an exception type that takes no attribute: logged again at worst
        pass


async def _internal(request: Request, exc: Exception):
    log_internal(request.method, request.url.path, exc)
    return error_response(request, "error: internal error; nothing was written. The server log names its type.",
                          status=500)


def create_app(workspace: Workspace, guard: Guard):
    """The app for one ``workspace``, guarded by ``guard`` (see :mod:`veil.web._security`)."""
    from veil.web.pages import routes

    app = Starlette(
        routes=[*routes(), Mount("/static", StaticFiles(directory=STATIC), name="static")],
        exception_handlers={VeilError: _user_error, BodyTooLarge: _too_large, HTTPException: _http_error,
                            Exception: _internal},
    )
    app.state.workspace = workspace
    app.state.guard = guard
    app.state.jobs = JobRunner()
    return Shielded(app, guard)


class Shielded:
    """The app behind the security rules, with the exception Starlette re-raises after its error
    page swallowed (already logged by its type)."""

    def __init__(self, app: Starlette, guard: Guard) -> None:
        self.app = app
        self.guarded = SecurityMiddleware(app, guard)

    def __getattr__(self, name: str):
        return getattr(self.app, name)

    async def __call__(self, scope, receive, send) -> None:
        try:
            await self.guarded(scope, receive, send)
        except Exception as exc:  # noqa: BLE001 - answered by _internal, or raised once the answer had begun
            log_internal(scope.get("method", ""), scope.get("path", ""), exc)
