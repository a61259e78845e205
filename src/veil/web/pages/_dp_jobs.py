"""What the Risk, Synthesize and Evaluate pages share: starting their job (shown by the job panel,
``job.html.j2``, polled at ``GET /job``), the job to show on a page, and the download of a page's own
outputs in the workspace (no other file)."""

from __future__ import annotations

from starlette.requests import Request
from starlette.responses import FileResponse
from starlette.routing import Route

from veil.errors import ParameterError
from veil.web._render import workspace_of

__all__ = ["start_job", "page_job", "download_route"]

MEDIA = {".csv": "text/csv", ".json": "application/json", ".html": "text/html"}


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

    request.app.state.jobs.start(job_name, work, then=back)
    return RedirectResponse(back, status_code=303)


def page_job(request: Request, job_name: str) -> tuple[object | None, bool]:
    """The workspace's job if it is ``job_name``'s (else None: a page shows only its own), and
    whether it runs."""
    job = request.app.state.jobs.job
    mine = job if job is not None and job.name == job_name else None
    return mine, mine is not None and mine.status == "running"
