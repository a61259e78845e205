"""``veil serve``: the whole workflow in a local web app (needs ``pip install 'veil[web]'``)."""

from __future__ import annotations

from pathlib import Path
from typing import Optional

import typer

from veil.cli._app import app, user_errors


@app.command("serve")
def serve_command(
    port: int = typer.Option(8765, "--port", help="TCP port (0 picks a free one)."),
    host: str = typer.Option("127.0.0.1", "--host", help="Address to listen on (this machine only by default)."),
    workspace: Optional[Path] = typer.Option(
        None, "--workspace", help="Folder the app reads and writes, kept (created private, or an existing "
        "private folder); default: a temporary private folder removed on exit."),
    allow_remote: bool = typer.Option(False, "--allow-remote",
                                      help="Allow a --host other machines can reach (risky: plain HTTP)."),
    max_upload_mb: int = typer.Option(512, "--max-upload-mb", help="Largest upload (request body), in MiB."),
) -> None:
    """Start the local web app and print its address (with the access token) on one line.

    Open the printed address in a browser on this machine. Stop with Ctrl-C or SIGTERM
    (a temporary workspace is removed). See docs/web.md.
    """
    from veil._lazy import require

    with user_errors():
        for module in ("starlette", "uvicorn", "multipart"):
            require(module, feature="veil serve")
        from veil.web import serve

        try:
            serve(host=host, port=port, workspace=None if workspace is None else str(workspace),
                  allow_remote=allow_remote, max_upload_mb=max_upload_mb)
        except KeyboardInterrupt:  # Ctrl-C before the server took the signal over: nothing was started
            raise typer.Exit(0) from None
