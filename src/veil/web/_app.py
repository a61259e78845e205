"""The Starlette application: the pages of :mod:`veil.web.pages` behind the security middleware."""

from __future__ import annotations

import logging
from pathlib import Path

from starlette.applications import Starlette
from starlette.middleware import Middleware
from starlette.requests import Request
from starlette.routing import Mount
from starlette.staticfiles import StaticFiles

from veil.errors import VeilError
from veil.web._jobs import JobRunner
from veil.web._render import error_response
from veil.web._security import BodyTooLarge, Guard, SecurityMiddleware
from veil.web._workspace import Workspace

__all__ = ["create_app"]

log = logging.getLogger("veil.web")
STATIC = Path(__file__).resolve().parent / "static"


async def _user_error(request: Request, exc: Exception):
    return error_response(request, f"error: {exc}")


async def _too_large(request: Request, exc: Exception):
    return error_response(request, f"error: {exc}", status=413)


async def _internal(request: Request, exc: Exception):
    # the log names the exception's type and the page, never its text (it may quote a value)
    log.error("internal error on %s %s: %s", request.method, request.url.path, type(exc).__name__)
    return error_response(request, "error: internal error; nothing was written. The server log names its type.",
                          status=500)


def create_app(workspace: Workspace, guard: Guard):
    """The app for one ``workspace``, guarded by ``guard`` (see :mod:`veil.web._security`)."""
    from veil.web.pages import routes

    app = Starlette(
        routes=[*routes(), Mount("/static", StaticFiles(directory=STATIC), name="static")],
        middleware=[Middleware(SecurityMiddleware, guard=guard)],
        exception_handlers={VeilError: _user_error, BodyTooLarge: _too_large, Exception: _internal},
    )
    app.state.workspace = workspace
    app.state.guard = guard
    app.state.jobs = JobRunner()
    return Shielded(app)


class Shielded:
    """The app, with the exception Starlette re-raises after its error page swallowed: the server
    would log its traceback, and a traceback quotes values."""

    def __init__(self, app: Starlette) -> None:
        self.app = app

    def __getattr__(self, name: str):
        return getattr(self.app, name)

    async def __call__(self, scope, receive, send) -> None:
        try:
            await self.app(scope, receive, send)
        except Exception:  # noqa: BLE001 - already answered by _internal, which logged its type
            pass
