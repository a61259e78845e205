"""Routes the Risk, Synthesize and Evaluate pages share: a job's status (polled by static/risk.js)
and the download of a page's own outputs in the workspace (no other file)."""

from __future__ import annotations

from starlette.requests import Request
from starlette.responses import FileResponse, JSONResponse
from starlette.routing import Route

from veil.errors import ParameterError
from veil.web._render import workspace_of

__all__ = ["status_route", "download_route"]

MEDIA = {".csv": "text/csv", ".json": "application/json", ".html": "text/html"}


def status_route(path: str, job_name: str) -> Route:
    """``GET path``: the job's public state when it is ``job_name``'s, else ``{"status": "none"}``."""

    async def status(request: Request):
        job = request.app.state.jobs.job
        return JSONResponse(job.as_json() if job is not None and job.name == job_name else {"status": "none"})

    return Route(path, status, methods=["GET"])


def download_route(prefix: str, names: tuple[str, ...]) -> Route:
    """``GET prefix/{name}``: one of ``names`` from the workspace, as an attachment."""

    async def download(request: Request):
        name = request.path_params["name"]
        if name not in names:
            raise ParameterError(f"no download {name!r}: {' or '.join(names)}.")
        suffix = name[name.rfind("."):]
        return FileResponse(workspace_of(request).existing(name), media_type=MEDIA.get(suffix, "text/plain"),
                            filename=name)

    return Route(prefix + "/{name}", download, methods=["GET"])


def cancel_route(path: str, job_name: str, back: str) -> Route:
    """``POST path``: cancel the running job if it is ``job_name``'s (it stops at its next step, writing
    nothing), then back to the page."""
    from starlette.responses import RedirectResponse

    async def cancel(request: Request):
        job = request.app.state.jobs.job
        if job is not None and job.name == job_name:
            request.app.state.jobs.cancel()
        return RedirectResponse(back, status_code=303)

    return Route(path, cancel, methods=["POST"])


def start_job(request: Request, job_name: str, compute, back: str):
    """Start ``compute(progress)`` as the job ``job_name``; its result is kept in the workspace state
    under ``job_name`` (the page shows it); the answer redirects to ``back``, which polls the job."""
    from starlette.responses import RedirectResponse

    workspace = workspace_of(request)

    def work(progress):
        result = compute(progress)
        with workspace.lock:
            workspace.state.results[job_name] = result
        return True

    request.app.state.jobs.start(job_name, work)
    return RedirectResponse(back, status_code=303)


def job_routes(base: str, job_name: str) -> list[Route]:
    """``base/status`` and ``base/cancel`` of the job ``job_name``."""
    return [status_route(f"{base}/status", job_name), cancel_route(f"{base}/cancel", job_name, base)]
