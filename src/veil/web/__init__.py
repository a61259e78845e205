"""``veil serve``: the whole workflow in a local web app (the optional extra ``veil[web]``).

The app adds no second implementation of anything: its state is a release configuration
(:class:`veil.config.ReleaseConfig`, the document ``veil anonymize CONFIG`` reads), its forms
come from the registries, and its results are the library's reports.

- :mod:`veil.web._workspace`: the private folder a server works in, and paths inside it;
- :mod:`veil.web._security`: the token, cookie, Host/Origin, CSRF and header rules of every request;
- :mod:`veil.web._jobs`: one job at a time per workspace, with progress and cancellation;
- :mod:`veil.web._app`: the Starlette application assembled from :mod:`veil.web.pages`;
- :mod:`veil.web._server`: uvicorn, the start-up line and a clean stop.

See ``docs/web.md``.
"""

from __future__ import annotations

__all__ = ["create_app", "serve", "Workspace"]


def __getattr__(name: str):  # the web stack is an optional extra: import it on first use
    if name == "create_app":
        from veil.web._app import create_app

        return create_app
    if name == "serve":
        from veil.web._server import serve

        return serve
    if name == "Workspace":
        from veil.web._workspace import Workspace

        return Workspace
    raise AttributeError(f"module 'veil.web' has no attribute {name!r}")
