"""One job at a time per workspace: run a release (or any long library call) in a thread, with
progress and cancellation.

A job is a function ``work(progress)`` where ``progress(phase, done, total)`` is veil's progress
protocol (:mod:`veil.progress`); cancelling makes the next ``progress`` call raise
:class:`Cancelled`, so the job stops at its next phase or search step and writes nothing (the
release path publishes its outputs all-or-nothing).
"""

from __future__ import annotations

import logging
import threading
import time
from dataclasses import dataclass, field
from typing import Any, Callable

from veil.errors import ParameterError, VeilError

__all__ = ["Job", "JobRunner", "Cancelled", "NO_JOB"]

log = logging.getLogger("veil.web")


class Cancelled(Exception):
    """Raised inside a job's progress callback once the steward cancelled it."""


@dataclass
class Job:
    """A job's public state: what it is, its phase and counts, and how it ended."""

    name: str
    status: str = "running"  # running | done | failed | cancelled
    phase: str = "start"
    done: int | None = None
    total: int | None = None
    error: str | None = None
    result: Any = None
    started: float = field(default_factory=time.monotonic)
    finished: float | None = None
    then: str | None = None  # the page to show once it is done
    cancelling: bool = False

    def as_json(self) -> dict[str, Any]:
        """What the page polls: no result object, only figures and the one-line error."""
        end = self.finished if self.finished is not None else time.monotonic()
        return {"name": self.name, "status": self.status, "phase": self.phase, "phase_text": phase_text(self.phase),
                "done": _count(self.done),
                "total": _count(self.total), "error": self.error, "seconds": round(end - self.started, 1),
                "cancelling": self.cancelling, "then": self.then}


#: What ``GET /job`` answers when no job ran yet.
NO_JOB = {"name": None, "status": "none", "phase": None, "phase_text": "", "done": None, "total": None,
          "error": None, "seconds": None, "cancelling": False, "then": None}

#: A job's phase in the page's words (the progress phases of the library, ``veil.progress``).
PHASE_TEXT = {"encode": "reading the table", "search": "searching the transformations",
              "apply": "applying the transformation", "verify": "checking the result", "write": "writing the files",
              "start": "starting"}


def phase_text(phase: str | None) -> str:
    """``phase`` as the job panel shows it (an unknown phase as it is)."""
    return PHASE_TEXT.get(phase or "", phase or "")


def _ending(exc: Exception, cancelled: bool, name: str) -> tuple[str, str | None]:
    """A failed job's status and one-line error (text without ``error: ``); a cancelled job's
    error is None, whatever the library made of the :class:`Cancelled` it heard."""
    if cancelled or isinstance(exc, Cancelled):
        return "cancelled", None
    if isinstance(exc, VeilError):
        return "failed", str(exc)
    log.error("internal error in job %s: %s", name, type(exc).__name__)  # its type only: its text may quote a value
    return "failed", f"internal error ({type(exc).__name__}); nothing was written."


def _count(value: Any) -> int | float | None:
    return value if value is None or isinstance(value, (int, float)) else None


class JobRunner:
    """Runs at most one job at a time; a second start while one runs is refused."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._cancel = threading.Event()
        self.job: Job | None = None
        self._thread: threading.Thread | None = None

    @property
    def busy(self) -> bool:
        return self.job is not None and self.job.status == "running"

    def start(self, name: str, work: Callable[[Callable[[str, Any, Any], None]], Any], *,
              then: str | None = None) -> Job:
        """Run ``work(progress)`` in a thread as the job ``name``; ``then`` is the page to show when
        it is done.  Refused (ParameterError) while another job runs."""
        if then is not None and (not then.startswith("/") or then.startswith("//")):
            raise ValueError(f"a job's next page must be a path of this server, not {then!r}")
        with self._lock:
            if self.busy:
                raise ParameterError(f"a job ({self.job.name}) is running: wait for it or cancel it.")
            self._cancel = threading.Event()
            job = self.job = Job(name, then=then)
            cancel = self._cancel

        def progress(phase: str, done: Any = None, total: Any = None) -> None:
            if cancel.is_set():
                raise Cancelled()
            job.phase, job.done, job.total = phase, done, total

        def run() -> None:
            try:
                job.result = work(progress)
                job.status = "done"
            except Exception as exc:  # noqa: BLE001 - a job's failure is reported, never raised in the server
                job.status, job.error = _ending(exc, cancel.is_set(), name)
            finally:
                job.finished = time.monotonic()

        self._thread = threading.Thread(target=run, name=f"veil-job-{name}", daemon=True)
        self._thread.start()
        return job

    def cancel(self) -> None:
        """Ask the running job to stop at its next progress call (it then writes nothing)."""
        self._cancel.set()
        if self.busy:
            self.job.cancelling = True

    def wait(self, timeout: float | None = None) -> Job | None:
        """Wait for the running job (tests and shutdown)."""
        if self._thread is not None:
            self._thread.join(timeout)
        return self.job

    def as_json(self) -> dict[str, Any]:
        """The current (or last) job as ``GET /job`` answers it."""
        return dict(NO_JOB) if self.job is None else self.job.as_json()
