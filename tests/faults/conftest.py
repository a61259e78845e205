"""The harness of the fault corpus: run a command, and judge how it refused.

Every refusal must show: exit status 2, one line on stderr starting with
``error:`` that names what is wrong, no traceback, no file written or left
behind (temporaries included), every input byte-identical, and no secret in
anything printed.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from pathlib import Path
from types import SimpleNamespace

import pytest
from typer.testing import CliRunner

from veil.cli import app


@dataclass(frozen=True)
class Outcome:
    exit_code: int
    stdout: str
    stderr: str
    exception: BaseException | None

    @property
    def text(self) -> str:
        return self.stdout + self.stderr


def invoke(*args: object, env: dict[str, str] | None = None) -> Outcome:
    result = CliRunner().invoke(app, [str(a) for a in args], env=env)
    return Outcome(result.exit_code, result.stdout, result.stderr, result.exception)


def snapshot(folder: Path) -> dict[str, str]:
    """Every file under ``folder`` (hidden ones too) with the SHA-256 of its bytes."""
    out = {}
    for path in sorted(folder.rglob("*")):
        if path.is_file() and not path.is_symlink():
            try:
                out[str(path.relative_to(folder))] = hashlib.sha256(path.read_bytes()).hexdigest()
            except PermissionError:
                out[str(path.relative_to(folder))] = "unreadable"
        elif path.is_symlink() or path.is_dir():
            out[str(path.relative_to(folder)) + "/"] = "entry"
    return out


def assert_refused(outcome: Outcome, before: dict[str, str], after: dict[str, str], *mentions: str,
                   secret: str | None = None) -> None:
    """Exit 2, one ``error:`` line naming ``mentions``, no traceback, nothing written, inputs unchanged."""
    assert not isinstance(outcome.exception, Exception) or isinstance(outcome.exception, SystemExit), (
        f"traceback: {outcome.exception!r}"
    )
    assert outcome.exit_code == 2, outcome.text
    assert "Traceback" not in outcome.text
    lines = [line for line in outcome.stderr.splitlines() if line.strip()]
    assert len(lines) == 1 and lines[0].startswith("error: "), outcome.stderr
    for mention in mentions:
        assert mention in lines[0], f"{mention!r} not in {lines[0]!r}"
    assert after == before, "files were written, changed or removed"
    if secret is not None:
        assert secret not in outcome.text


@pytest.fixture
def faults() -> SimpleNamespace:
    return SimpleNamespace(invoke=invoke, snapshot=snapshot, assert_refused=assert_refused)
