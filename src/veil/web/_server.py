"""Run the app under uvicorn: bind, print the start line once requests are accepted, stop cleanly.

The start line is the contract of ``veil serve`` (docs/web.md)::

    veil serve: http://127.0.0.1:PORT/?token=TOKEN

uvicorn handles SIGINT and SIGTERM (it finishes the requests in flight and returns); the
temporary workspace is removed after it returns, whatever happened.  uvicorn's access log is off
(a URL may carry the token or a column name) and its error log names no request content.
"""

from __future__ import annotations

import ipaddress
import socket
import sys
import threading
import time
from typing import TextIO

from veil.errors import ParameterError
from veil.web._security import Guard
from veil.web._workspace import MAX_UPLOAD_BYTES, Workspace

__all__ = ["serve", "is_loopback", "start_line"]


def is_loopback(host: str) -> bool:
    """Whether ``host`` names this machine only (127.0.0.0/8, ::1, localhost)."""
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host.strip("[]")).is_loopback
    except ValueError:
        return False


def start_line(host: str, port: int, token: str) -> str:
    shown = f"[{host}]" if ":" in host else host
    return f"veil serve: http://{shown}:{port}/?token={token}"


def _bind(host: str, port: int) -> socket.socket:
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    sock = socket.socket(family, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    try:
        sock.bind((host.strip("[]"), port))
    except OSError as exc:
        sock.close()
        raise ParameterError(f"cannot listen on {host}:{port}: {exc.strerror}; choose another --port "
                             f"(0 picks a free one).") from None
    sock.listen(128)
    sock.set_inheritable(True)
    return sock


def serve(*, host: str = "127.0.0.1", port: int = 8765, workspace: str | None = None, allow_remote: bool = False,
          max_upload_mb: int = MAX_UPLOAD_BYTES // 2**20, out: TextIO = sys.stdout) -> None:
    """Serve the app until SIGINT/SIGTERM; print :func:`start_line` when it accepts requests."""
    import uvicorn

    from veil.web._app import create_app

    if not is_loopback(host) and not allow_remote:
        raise ParameterError(f"--host {host} would let other machines reach the tables you open; "
                             f"add --allow-remote if that is what you want (anyone who gets the token can "
                             f"read them, over plain HTTP).")
    if not 1 <= max_upload_mb <= 1 << 20:
        raise ParameterError(f"--max-upload-mb must be in [1, 1048576]; got {max_upload_mb}.")
    sock = _bind(host, port)
    space = Workspace(workspace)
    try:
        bound = sock.getsockname()[1]
        guard = Guard.for_address(host, bound, max_upload_mb * 2**20)
        app = create_app(space, guard)
        config = uvicorn.Config(app, log_config=None, access_log=False, log_level="warning", lifespan="off",
                                timeout_graceful_shutdown=5)
        server = uvicorn.Server(config)
        threading.Thread(target=_announce, args=(server, start_line(host, bound, guard.token), out),
                         daemon=True).start()
        server.run(sockets=[sock])
    finally:
        sock.close()
        space.close()


def _announce(server, line: str, out: TextIO) -> None:
    while not server.started and not server.should_exit:
        time.sleep(0.02)
    if server.started:
        print(line, file=out, flush=True)
