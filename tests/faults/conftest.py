"""The harness of the fault corpus.

Two halves: ``faults`` runs a command and judges how it refused (exit status 2,
one line on stderr starting with ``error:`` that names what is wrong, no
traceback, no file written or left behind, temporaries included, every input
byte-identical, no secret in anything printed); ``ws`` is the release corpus's
workspace, a small table with identifiers, its hierarchies and a release
configuration, with the checks every release case makes.
"""

from __future__ import annotations

import hashlib
import re
from dataclasses import dataclass
from pathlib import Path
from types import SimpleNamespace

import numpy as np
import pandas as pd
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


#: Values that must never appear in any output (identifier columns, secrets).
NAMES = [f"Person{i:03d} Lastname{i:03d}" for i in range(60)]
EMAILS = [f"person{i:03d}@example.org" for i in range(60)]
TEMP = re.compile(r"\.veil-\d+-[0-9a-f]{12}")


def make_table() -> pd.DataFrame:
    rng = np.random.default_rng(7)
    zips = rng.choice(["47677", "47678", "47602", "47905", "47909", "47906"], size=60)
    ages = rng.integers(20, 60, size=60)
    return pd.DataFrame({
        "name": NAMES,
        "zip": zips,
        "age": ages.astype(str),
        "sex": rng.choice(["F", "M"], size=60),
        "disease": rng.choice(["flu", "cancer", "hiv", "gastritis"], size=60),
        "note": rng.choice(["a", "b", "c"], size=60),
    })


def write_hierarchies(folder: Path, frame: pd.DataFrame) -> dict[str, Path]:
    files = {}
    zips = sorted(set(frame["zip"]))
    rows = [";".join([z, z[:4] + "*", z[:3] + "**", "*"]) for z in zips]
    files["zip"] = folder / "zip.csv"
    files["zip"].write_text("\n".join(rows) + "\n", encoding="utf-8")
    ages = sorted(set(frame["age"]), key=int)
    rows = [";".join([a, f"{int(a) // 10 * 10}-{int(a) // 10 * 10 + 9}", "*"]) for a in ages]
    files["age"] = folder / "age.csv"
    files["age"].write_text("\n".join(rows) + "\n", encoding="utf-8")
    files["sex"] = folder / "sex.csv"
    files["sex"].write_text("F;*\nM;*\n", encoding="utf-8")
    return files


CONFIG = """\
input: {{path: data.csv, sep: ","}}
attributes:
  name: {{role: identifier}}
  zip: {{role: quasi-identifier, hierarchy: {{file: zip.csv}}}}
  age: {{role: quasi-identifier, kind: numeric, hierarchy: {{file: age.csv}}}}
  sex: {{role: quasi-identifier, hierarchy: {{file: sex.csv}}}}
  disease: {{role: sensitive}}
models:
  - {{type: k-anonymity, k: 3}}
  - {{type: distinct-l-diversity, sensitive: disease, l: 2}}
suppression_limit: 0.1
{extra}
"""


class Workspace:
    """A folder with the table, its hierarchies and a configuration."""

    def __init__(self, folder: Path) -> None:
        self.folder = folder
        self.frame = make_table()
        self.data = folder / "data.csv"
        self.frame.to_csv(self.data, index=False)
        self.hierarchies = write_hierarchies(folder, self.frame)
        self.config = folder / "release.yaml"
        self.config.write_text(CONFIG.format(extra=""), encoding="utf-8")
        self.out = folder / "out"

    def write_config(self, extra: str = "", *, text: str | None = None, name: str = "release.yaml") -> Path:
        path = self.folder / name
        path.write_text(text if text is not None else CONFIG.format(extra=extra), encoding="utf-8")
        return path

    def flags(self, *extra: str) -> list[str]:
        args = ["anonymize", str(self.data), "--qi", "zip,age,sex", "--sensitive", "disease", "--identifier", "name",
                "--kind", "age=numeric", "-k", "3", "-l", "disease:2", "--suppression", "0.1"]
        for name, file in self.hierarchies.items():
            args += ["--hierarchy", f"{name}={file}"]
        return args + list(extra)

    def inputs(self) -> list[Path]:
        return [self.data, self.config, *self.hierarchies.values()]

    def hashes(self) -> dict[Path, str]:
        return {p: hashlib.sha256(p.read_bytes()).hexdigest() for p in self.inputs() if p.exists()}

    def temporaries(self) -> list[Path]:
        return [p for p in self.folder.rglob("*") if TEMP.search(p.name) or p.name.startswith("veil-duckdb-")]

    def outputs_text(self) -> str:
        texts = []
        if self.out.exists():
            for p in self.out.rglob("*"):
                if p.is_file():
                    texts.append(p.read_bytes().decode("utf-8", "replace"))
        return "\n".join(texts)


@pytest.fixture
def ws(tmp_path: Path) -> Workspace:
    return Workspace(tmp_path)


def assert_clean_failure(result, ws: Workspace, before: dict[Path, str], *, outputs: list[Path] = ()) -> None:
    """The contract of every refused case: exit 2, one line, no traceback, no
    output, no temporary, inputs unchanged."""
    text = result.output
    assert result.exit_code == 2, text
    assert "Traceback" not in text, text
    assert result.exception is None or isinstance(result.exception, SystemExit), repr(result.exception)
    assert "error:" in text
    for path in outputs:
        assert not path.exists() or path in before, f"partial output {path}"
    assert ws.hashes() == before, "an input changed"
    assert not ws.temporaries(), ws.temporaries()
    leaked = ws.outputs_text()
    assert not any(n in leaked for n in NAMES)
