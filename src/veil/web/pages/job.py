"""The running job: ``GET /job`` (its state as JSON, polled by ``static/job.js``) and
``POST /job/cancel``.  Pages show it with ``{% include "job.html.j2" %}``; see :mod:`veil.web._jobs`."""

from __future__ import annotations

from urllib.parse import urlsplit

from starlette.requests import Request
from starlette.responses import JSONResponse, RedirectResponse
from starlette.routing import Route

NAV = None


def _jobs(request: Request):
    return request.app.state.jobs


async def state(request: Request):
    return JSONResponse(_jobs(request).as_json())


async def cancel(request: Request):
    """Ask the running job to stop; a script gets the job's state, a form goes back to its page."""
    jobs = _jobs(request)
    jobs.cancel()
    if "application/json" in request.headers.get("accept", ""):
        return JSONResponse(jobs.as_json())
    back = urlsplit(request.headers.get("referer", "")).path
    return RedirectResponse(back if back.startswith("/") and not back.startswith("//") else "/", status_code=303)


ROUTES = [
    Route("/job", state, methods=["GET"]),
    Route("/job/cancel", cancel, methods=["POST"]),
]
