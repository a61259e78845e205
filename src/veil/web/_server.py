"""Run the app under uvicorn: bind, print the start line once requests are accepted, stop cleanly.

The start line is the contract of ``veil serve`` (docs/web.md)::

    veil serve: http://127.0.0.1:PORT/?token=TOKEN

SIGINT and SIGTERM stop the server: uvicorn finishes the requests in flight (5 s at most) and
returns; a running job is cancelled; the temporary workspace is removed, whatever happened; the
process exits 0.  (uvicorn re-raises the signal it caught once it returns, to the handler that was
installed before it: ours, which only asks the server to stop, so the process is not killed
before it cleaned up.)  uvicorn's access log is off (a URL may carry the token or a column name)
and its error log names no request content.
"""

from __future__ import annotations

import logging
import signal
import socket
import sys
import threading
import time
import warnings
from contextlib import contextmanager
from pathlib import Path
from typing import TextIO

from veil.errors import ParameterError
from veil.web._security import Guard, is_loopback, is_wildcard
from veil.web._workspace import MAX_UPLOAD_BYTES, Workspace

__all__ = ["serve", "Serving", "is_loopback", "start_line", "shown_host", "remote_warning"]

#: How long a stopping server waits for a cancelled job to reach its next progress step.
JOB_GRACE_SECONDS = 10.0


def shown_host(host: str) -> str:
    """The address the start line names for ``--host``: a wildcard or ``localhost`` is reached
    at 127.0.0.1; an IPv6 address is bracketed."""
    if is_wildcard(host) or host.lower() == "localhost":
        return "127.0.0.1"
    bare = host.strip("[]")
    return f"[{bare}]" if ":" in bare else host


def start_line(host: str, port: int, token: str) -> str:
    return f"veil serve: http://{shown_host(host)}:{port}/?token={token}"


def remote_warning(host: str) -> str:
    return (f"veil serve: warning: listening on {host} (--allow-remote): other machines can reach this server "
            f"over plain HTTP; anyone who sees the start address or the traffic can read the tables you open.")


def _bind(host: str, port: int) -> socket.socket:
    bare = host.strip("[]")
    family = socket.AF_INET6 if ":" in bare else socket.AF_INET
    sock = socket.socket(family, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    if family == socket.AF_INET6 and is_wildcard(host):
        sock.setsockopt(socket.IPPROTO_IPV6, socket.IPV6_V6ONLY, 0)  # `::` answers on 127.0.0.1 too
    try:
        sock.bind((bare, port))
    except (OSError, OverflowError) as exc:
        sock.close()
        reason = getattr(exc, "strerror", None) or "not a valid address or port"
        raise ParameterError(f"cannot listen on {host}:{port}: {reason}; choose another --port "
                             f"(0 picks a free one).") from None
    sock.listen(128)
    return sock


def _check(host: str, allow_remote: bool, max_upload_mb: int) -> None:
    if not is_loopback(host) and not allow_remote:
        raise ParameterError(f"--host {host} would let other machines reach the tables you open; "
                             f"add --allow-remote if that is what you want (anyone who gets the token can "
                             f"read them, over plain HTTP).")
    if not 1 <= max_upload_mb <= 1 << 20:
        raise ParameterError(f"--max-upload-mb must be in [1, 1048576]; got {max_upload_mb}.")


def serve(*, host: str = "127.0.0.1", port: int = 8765, workspace: str | None = None, allow_remote: bool = False,
          max_upload_mb: int = MAX_UPLOAD_BYTES // 2**20, out: TextIO = sys.stdout) -> None:
    """Serve the app until SIGINT/SIGTERM; print :func:`start_line` when it accepts requests."""
    _check(host, allow_remote, max_upload_mb)
    with _stop_on_signals() as stop:
        serving = Serving(host, port, workspace, max_upload_mb)
        stop.serving = serving
        if stop.requested:
            serving.stop()
        if not is_loopback(host):
            print(remote_warning(host), file=sys.stderr, flush=True)
        serving.run(out)


class Serving:
    """One server: its socket (bound at once: a port in use is refused before anything else), its
    workspace, app and uvicorn server.  :meth:`run` serves until :meth:`stop` (or a signal), then
    cancels the running job and closes the workspace (removed if temporary)."""

    def __init__(self, host: str, port: int, workspace: str | None, max_upload_mb: int) -> None:
        import uvicorn

        from veil.web._app import create_app

        self.host, self.sock, self.workspace = host, _bind(host, port), None
        try:
            self.workspace = Workspace(workspace)
            self.workspace.claim()
            self.port = self.sock.getsockname()[1]
            self.guard = Guard.for_address(host, self.port, max_upload_mb * 2**20)
            self.app = create_app(self.workspace, self.guard)
            # no proxy in front: X-Forwarded-* is not trusted; no `server:` header
            config = uvicorn.Config(self.app, log_config=None, access_log=False, log_level="warning",
                                    lifespan="off", timeout_graceful_shutdown=5, proxy_headers=False,
                                    server_header=False)
            self.server = uvicorn.Server(config)
        except BaseException:
            self.close()
            raise

    @property
    def line(self) -> str:
        return start_line(self.host, self.port, self.guard.token)

    def stop(self) -> None:
        self.server.should_exit = True

    def run(self, out: TextIO = sys.stdout) -> None:
        threading.Thread(target=_announce, args=(self.server, self.line, out), daemon=True).start()
        try:
            with _error_log():
                self.server.run(sockets=[self.sock])
        finally:
            jobs = self.app.state.jobs
            jobs.cancel()
            jobs.wait(JOB_GRACE_SECONDS)
            self.close()

    def start_in_thread(self, timeout: float = 30.0) -> str:
        """Serve from a daemon thread (a notebook or a test embeds the app so); return the start URL
        once requests are accepted (the thread is ``self.thread``)."""
        ready, lines = threading.Event(), []

        class Line:
            def write(self, text: str) -> None:
                lines.append(text)
                ready.set()

            def flush(self) -> None:
                pass

        self.thread = threading.Thread(target=self.run, args=(Line(),), daemon=True)
        self.thread.start()
        if not ready.wait(timeout):
            self.stop()
            raise ParameterError(f"veil serve did not start within {timeout:g} s.")
        return lines[0].split(" ", 2)[2].strip()

    def close(self) -> None:
        self.sock.close()
        if self.workspace is not None:
            self.workspace.close()


class _Stop:
    """The SIGINT/SIGTERM handler: ask the server to stop (it may not exist yet)."""

    serving: Serving | None = None
    requested = False

    def __call__(self, signum, frame) -> None:
        self.requested = True
        if self.serving is not None:
            self.serving.stop()


@contextmanager
def _stop_on_signals():
    """Our handler for SIGINT/SIGTERM, before uvicorn takes them over and after it gives them back
    (and re-raises the one it caught): the process is never killed before it cleaned up."""
    stop = _Stop()
    if threading.current_thread() is not threading.main_thread():  # signals reach the main thread only
        yield stop
        return
    previous = {sig: signal.signal(sig, stop) for sig in (signal.SIGINT, signal.SIGTERM)}
    try:
        yield stop
    finally:
        for sig, handler in previous.items():
            signal.signal(sig, handler)


@contextmanager
def _error_log():
    """The app's error lines on stderr as ``veil serve: ...`` (they name an error's type, never its text)."""
    logger = logging.getLogger("veil.web")
    handler = ErrorLines()
    logger.addHandler(handler)
    logger.propagate = False
    # python-multipart logs a malformed form's bytes (one at a time); the page gets a 400 anyway
    multipart = logging.getLogger("python_multipart")
    level, raising = multipart.level, logging.raiseExceptions
    multipart.setLevel(logging.CRITICAL + 1)
    # a log line that cannot be written must not print "--- Logging error ---" and the traceback of
    # the exception being handled (its text may quote a value): uvicorn's lines included
    logging.raiseExceptions = False
    # a warning's text may quote a value (a library's, about a column's content): its type and origin only
    shown = warnings.showwarning
    warnings.showwarning = _warning_line
    try:
        yield
    finally:
        logger.removeHandler(handler)
        logger.propagate = True
        multipart.setLevel(level)
        logging.raiseExceptions = raising
        warnings.showwarning = shown


def _warning_line(message, category, filename, lineno, file=None, line=None) -> None:
    try:
        sys.stderr.write(f"veil serve: warning: {category.__name__} at {Path(filename).name}:{lineno}\n")
    except Exception:  # noqa: BLE001 - as ErrorLines
        pass


class ErrorLines(logging.Handler):
    """``veil serve: MESSAGE`` on the current stderr; a line that cannot be written is dropped."""

    def emit(self, record: logging.LogRecord) -> None:
        try:
            sys.stderr.write(f"veil serve: {record.getMessage()}\n")
            sys.stderr.flush()
        except Exception:  # noqa: BLE001 - never a traceback: it would quote the error being handled
            pass


def _announce(server, line: str, out: TextIO) -> None:
    while not server.started and not server.should_exit:
        time.sleep(0.02)
    if server.started and not server.should_exit:
        print(line, file=out, flush=True)
