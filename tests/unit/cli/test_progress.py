"""Progress you can trust (issue #17, item 5): a line per phase, rates, plain lines off a terminal.

No test here measures time: the display's clock is injected, and the CLI runs
with ``VEIL_PROGRESS_INTERVAL=0`` (every phase's end printed at once).
"""

from __future__ import annotations

import io
import re
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from rich.console import Console
from typer.testing import CliRunner

from veil.cli import app
from veil.cli._progress import PhaseDisplay, interval_from_environment
from veil.errors import ParameterError
from veil.progress import PHASES, no_progress, search_progress


class Clock:
    """A clock the test moves by hand."""

    def __init__(self) -> None:
        self.now = 100.0

    def __call__(self) -> float:
        return self.now


def plain() -> tuple[Console, io.StringIO]:
    out = io.StringIO()
    return Console(file=out, force_terminal=False, width=200), out


def first_seen(lines: list[str]) -> list[str]:
    """The phases in the order their first ``done`` line appears."""
    seen = []
    for line in lines:
        match = re.match(r"^veil: (\w+) done", line)
        if match and match.group(1) not in seen:
            seen.append(match.group(1))
    return seen


# the display, with an injected clock ------------------------------------------------------------

def test_plain_lines_rate_percent_and_phase_times() -> None:
    console, out = plain()
    clock = Clock()
    with PhaseDisplay(console, interval=2.0, clock=clock, delay=2.0) as progress:
        progress("encode", None, None)
        clock.now += 3.0  # past the delay: lines start, listing the ended phases (last line at 3 s)
        progress("search", None, None)
        clock.now += 1.0
        progress("search", 1000, 6480)  # 1 s after the last line: under the interval, no line
        clock.now += 1.0
        progress("search", 2000, 6480)  # 2 s: a line; 2000 nodes / 2 s = 1,000 nodes/s; 2000/6480 = 30.9% -> 31%
        clock.now += 1.0
        progress("search", 2032, 6480)  # 1 s after the last line: no line
        clock.now += 1.5
        progress("search", 6480, 6480)  # 2.5 s: a line; 6480 nodes / 4.5 s = 1,440 nodes/s
        progress("apply", None, None)  # the search ends after 4.5 s
        clock.now += 0.5
        progress("verify", None, None)
        clock.now += 1.0
        progress("write", None, None)
        clock.now += 4.0
    assert out.getvalue().splitlines() == [
        "veil: encode done in 3.0 s",
        "veil: search 2,000/6,480 nodes (31%, 1,000 nodes/s)",
        "veil: search 6,480/6,480 nodes (100%, 1,440 nodes/s)",
        "veil: search done: 6,480/6,480 nodes (1,440 nodes/s) in 4.5 s",
        "veil: apply done in 0.5 s",
        "veil: verify done in 1.0 s",
        "veil: write done in 4.0 s",
    ]
    assert "\r" not in out.getvalue()


def test_a_quick_run_prints_nothing_off_a_terminal() -> None:
    """Within the delay nothing is printed, so a quick command (or an early refusal) stays one line."""
    console, out = plain()
    clock = Clock()
    with PhaseDisplay(console, interval=2.0, clock=clock) as progress:
        assert progress.delay == 5.0  # max(interval 2, 5)
        for phase in PHASES:
            progress(phase, 1, 2)
            clock.now += 0.9  # 5 phases x 0.9 s = 4.5 s < 5 s
    assert out.getvalue() == ""
    assert PhaseDisplay(console, interval=8.0).delay == 8.0 and PhaseDisplay(console, interval=0.0).delay == 0.0


def test_an_error_leaves_the_running_phase_unfinished() -> None:
    console, out = plain()
    clock = Clock()
    with pytest.raises(RuntimeError):
        with PhaseDisplay(console, interval=0.0, clock=clock) as progress:
            progress("encode", None, None)
            clock.now += 1.0
            progress("search", 32, 6480)
            raise RuntimeError("boom")
    lines = out.getvalue().splitlines()
    assert lines[0] == "veil: encode done in 1.0 s"
    assert not any("search done" in line for line in lines)


def test_quiet_renders_nothing() -> None:
    console, out = plain()
    with PhaseDisplay(console, interval=0.0, clock=Clock(), enabled=False) as progress:
        for phase in PHASES:
            progress(phase, 1, 1)
    assert out.getvalue() == ""


def test_a_terminal_gets_the_rich_display_with_a_line_per_phase() -> None:
    out = io.StringIO()
    console = Console(file=out, force_terminal=True, width=120, color_system=None)
    clock = Clock()
    with PhaseDisplay(console, interval=2.0, clock=clock) as progress:
        assert progress.terminal
        progress("encode", None, None)
        clock.now += 1.0
        progress("search", 3240, 6480)
        clock.now += 1.0
        progress("search", 6480, 6480)
        for phase in ("apply", "verify", "write"):
            progress(phase, None, None)
            clock.now += 0.5
    text = out.getvalue()
    final = text.split("\r")[-1]  # the last frame drawn
    rows = [line for line in re.sub(r"\x1b\[[0-9;?]*[A-Za-z]", "", final).splitlines() if line.strip()]
    assert [row.split()[0] for row in rows] == list(PHASES)
    # the search began at its first report (t = 101 s) and ended at t = 102 s: 6480 nodes / 1 s
    assert "6,480/6,480 nodes (6,480 nodes/s)" in rows[1]
    assert rows[1].rstrip().endswith("1.0 s") and rows[0].rstrip().endswith("1.0 s")
    assert rows[4].rstrip().endswith("0.5 s")
    assert "veil:" not in text  # no plain lines on a terminal


def test_interval_from_the_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("VEIL_PROGRESS_INTERVAL", raising=False)
    assert interval_from_environment() == 2.0
    monkeypatch.setenv("VEIL_PROGRESS_INTERVAL", "0.5")
    assert interval_from_environment() == 0.5
    for bad in ("soon", "-1", "nan", "inf"):
        monkeypatch.setenv("VEIL_PROGRESS_INTERVAL", bad)
        with pytest.raises(ParameterError, match="^VEIL_PROGRESS_INTERVAL must be"):
            interval_from_environment()


# the library's protocol -----------------------------------------------------------------------------

def test_search_progress_reports_as_the_search_phase() -> None:
    calls = []
    search_progress(lambda *a: calls.append(a))(64, 100)
    assert calls == [("search", 64, 100)]
    assert no_progress("encode", None, None) is None


def test_anonymize_reports_its_phases_in_order(adult) -> None:
    from veil import anonymize
    from veil.models import KAnonymity

    calls = []
    anonymize(adult, [KAnonymity(k=5)], suppression_limit=0.05, progress=lambda *a: calls.append(a))
    order = list(dict.fromkeys(phase for phase, _, _ in calls))
    assert order == ["encode", "search", "apply", "verify"]
    counts = [(done, total) for phase, done, total in calls if phase == "search" and done is not None]
    assert counts, "the search reports its nodes"
    assert all(0 <= done <= total for done, total in counts)
    assert [d for d, _ in counts] == sorted(d for d, _ in counts)


# the CLI: CliRunner's stderr is not a terminal -----------------------------------------------------------

@pytest.fixture
def table(tmp_path: Path) -> Path:
    rng = np.random.default_rng(3)
    path = tmp_path / "people.csv"
    pd.DataFrame({
        "age": rng.integers(20, 70, 120),
        "zip": rng.choice(["47677", "47678", "47602", "47905"], 120),
        "disease": rng.choice(["flu", "cold", "ulcer"], 120),
    }).to_csv(path, index=False)
    return path


def anonymize_args(table: Path) -> list[str]:
    out = table.parent
    return ["anonymize", str(table), "--qi", "age,zip", "--hierarchy", "age=interval:5,10,20",
            "--hierarchy", "zip=mask:1", "--sensitive", "disease", "-k", "3",
            "-o", str(out / "released.csv"), "--json", str(out / "report.json")]


def test_cli_plain_lines_on_stderr_in_phase_order(table: Path) -> None:
    result = CliRunner().invoke(app, anonymize_args(table), env={"VEIL_PROGRESS_INTERVAL": "0"})
    assert result.exit_code == 0, result.output
    lines = result.stderr.splitlines()
    assert lines and all(line.startswith("veil: ") for line in lines), result.stderr
    assert first_seen(lines) == list(PHASES)
    assert re.search(r"^veil: search done: (\d+)/\1 nodes", result.stderr, re.M)
    assert "\r" not in result.stderr
    assert "veil:" not in result.stdout and "wrote data" in result.stdout  # stdout: the summary only


def test_cli_quiet_prints_no_progress(table: Path) -> None:
    result = CliRunner().invoke(app, anonymize_args(table) + ["--quiet"], env={"VEIL_PROGRESS_INTERVAL": "0"})
    assert result.exit_code == 0, result.output
    assert result.stderr == ""
    assert "wrote data" in result.stdout


def test_cli_bad_interval_is_one_error_line(table: Path) -> None:
    result = CliRunner().invoke(app, anonymize_args(table), env={"VEIL_PROGRESS_INTERVAL": "fast"})
    assert result.exit_code == 2
    assert result.stderr.strip().startswith("error: VEIL_PROGRESS_INTERVAL must be")
    assert len(result.stderr.strip().splitlines()) == 1
    assert not (table.parent / "released.csv").exists()
