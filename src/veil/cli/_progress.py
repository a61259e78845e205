"""The CLI's rendering of a release's progress (:mod:`veil.progress`) on stderr.

On a terminal, one Rich display with a line per phase (encode, search, apply,
verify, write): the running phase shows its bar, its count and, for the search,
its rate; each finished phase shows its time.

Elsewhere (CI, a pipe, ``2>log``), plain lines, never a carriage return::

    veil: search 2,000/6,480 nodes (31%, 4,100 nodes/s)
    veil: search done: 6,480/6,480 nodes in 1.6 s (4,050 nodes/s)

A plain line is printed at most every ``interval`` seconds while a phase runs,
and once at each phase's end.  Lines start only once the run has lasted
``delay`` seconds (5, or the interval if longer; the phases already finished
are then listed), so a quick command, or one refused early, prints nothing but
its result or its one ``error:`` line.  The interval is read from ``VEIL_PROGRESS_INTERVAL``
(seconds, default 2); ``0`` prints every phase at once.
"""

from __future__ import annotations

import os
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from rich.console import Console

__all__ = ["PhaseDisplay", "phase_display", "DEFAULT_INTERVAL", "INTERVAL_VARIABLE"]

DEFAULT_INTERVAL = 2.0
DEFAULT_DELAY = 5.0
INTERVAL_VARIABLE = "VEIL_PROGRESS_INTERVAL"

#: The unit a phase counts, when it counts one.
UNITS = {"search": "nodes", "write": "files", "sweep": "points", "suda2": "key subsets"}

#: The phases whose rate is shown (a long, counted phase).
RATED = ("search",)


def interval_from_environment() -> float:
    """``VEIL_PROGRESS_INTERVAL`` in seconds (default 2); a bad value is an error naming it."""
    from veil.errors import ParameterError

    text = os.environ.get(INTERVAL_VARIABLE, "").strip()
    if not text:
        return DEFAULT_INTERVAL
    try:
        value = float(text)
    except ValueError:
        value = -1.0
    if not value >= 0 or value == float("inf"):
        raise ParameterError(f"{INTERVAL_VARIABLE} must be a number of seconds >= 0. Got {text!r} instead.")
    return value


@dataclass
class _Phase:
    name: str
    start: float
    done: int | None = None
    total: int | None = None
    seconds: float | None = None  # set when the phase ends

    def count(self, now: float) -> str:
        """``2,000/6,480 nodes (31%, 4,100 nodes/s)``, or ``""`` for a phase without a count."""
        if self.done is None or self.total == 0:
            return ""
        unit = UNITS.get(self.name, "steps")
        text = f"{self.done:,}/{self.total:,} {unit}" if self.total else f"{self.done:,} {unit}"
        facts = [f"{self.done / self.total:.0%}"] if self.total and self.seconds is None else []
        elapsed = (self.seconds if self.seconds is not None else now - self.start)
        if elapsed > 0 and self.done and self.name in RATED:
            facts.append(f"{self.done / elapsed:,.0f} {unit}/s")
        return text + (f" ({', '.join(facts)})" if facts else "")


class PhaseDisplay:
    """A ``progress(phase, done, total)`` callback that renders on ``console``.

    Parameters
    ----------
    console : rich.console.Console
        Where to render (the CLI's stderr console).  A terminal gets the Rich
        display; anything else gets plain lines.
    interval : float, default 2
        Seconds between two plain lines of a running phase, in [0, inf).
    delay : float, optional
        Seconds of silence before the first plain line, in [0, inf).
        Default: ``max(interval, 5)``, or 0 when ``interval`` is 0.
    clock : callable, default time.monotonic
        The time source (injected by the tests).
    enabled : bool, default True
        ``False`` (``--quiet``) renders nothing.

    Use as a context manager: leaving it ends the last phase.
    """

    def __init__(self, console: Console, *, interval: float = DEFAULT_INTERVAL,
                 clock: Callable[[], float] = time.monotonic, enabled: bool = True,
                 delay: float | None = None) -> None:
        self.console = console
        self.interval = interval
        self.delay = (max(interval, DEFAULT_DELAY) if interval > 0 else 0.0) if delay is None else delay
        self.clock = clock
        self.enabled = enabled
        self.terminal = enabled and console.is_terminal
        self.phases: list[_Phase] = []
        self._began = clock()
        self._printing = self.delay <= 0
        self._last_line = float("-inf")
        self._bar: Any = None
        self._tasks: dict[str, Any] = {}

    # the protocol ---------------------------------------------------------
    def __call__(self, phase: str, done: int | None = None, total: int | None = None) -> None:
        if not self.enabled:
            return
        now = self.clock()
        current = self.phases[-1] if self.phases else None
        if current is None or current.name != phase or current.seconds is not None:
            if current is not None and current.seconds is None:
                self._end(current, now)
            current = _Phase(phase, now)
            self.phases.append(current)
            if self.terminal:
                self._tasks[phase] = self._bar.add_task(phase, total=None, count="", took="")
        if done is not None:
            current.done, current.total = done, total
        if self.terminal:
            self._bar.update(self._tasks[phase], completed=current.done or 0, total=current.total or None,
                             count=current.count(now))
        else:
            self._maybe_line(now)

    def __enter__(self) -> "PhaseDisplay":
        if self.terminal:
            from rich.progress import BarColumn, Progress, TextColumn

            self._bar = Progress(
                TextColumn("{task.description:<7}"), BarColumn(), TextColumn("{task.fields[count]}"),
                TextColumn("{task.fields[took]}"), console=self.console, transient=False, get_time=self.clock,
            )
            self._bar.start()
        return self

    def __exit__(self, kind: object, error: object, trace: object) -> None:
        if not self.enabled:
            return
        if error is None and self.phases and self.phases[-1].seconds is None:
            self._end(self.phases[-1], self.clock())
        if self._bar is not None:
            self._bar.stop()

    # rendering --------------------------------------------------------------
    def _end(self, phase: _Phase, now: float) -> None:
        phase.seconds = now - phase.start
        if self.terminal:
            task = self._tasks[phase.name]
            self._bar.update(task, completed=phase.done if phase.total else 1, total=phase.total or 1,
                             count=phase.count(now), took=f"{phase.seconds:.1f} s")
        elif self._printing:
            self._print(self._end_line(phase), now)
        elif now - self._began >= self.delay:
            self._start_printing()  # lists every ended phase, this one included

    def _maybe_line(self, now: float) -> None:
        if not self._printing:
            if now - self._began < self.delay:
                return
            self._start_printing()
        current = self.phases[-1]
        if current.done is not None and now - self._last_line >= self.interval:
            self._print(f"veil: {current.name} {current.count(now)}", now)  # a phase without a count: at its end

    def _start_printing(self) -> None:
        """From the first line on, list the phases that already ended."""
        if self._printing:
            return
        self._printing = True
        for phase in self.phases:
            if phase.seconds is not None:
                self._print(self._end_line(phase), self.clock())

    def _end_line(self, phase: _Phase) -> str:
        count = phase.count(phase.start + (phase.seconds or 0.0))
        return f"veil: {phase.name} done{': ' + count if count else ''} in {phase.seconds:.1f} s"

    def _print(self, line: str, now: float) -> None:
        self.console.print(line, markup=False, highlight=False, soft_wrap=True)
        self._last_line = now


def phase_display(console: Console, *, quiet: bool = False) -> PhaseDisplay:
    """The CLI's display: ``console`` (stderr), the interval from the environment, off with ``--quiet``."""
    return PhaseDisplay(console, interval=interval_from_environment(), enabled=not quiet)
