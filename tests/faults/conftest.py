"""Shared fixtures of the release fault corpus: a small table with identifiers,
its hierarchies, a release configuration, and the checks every case makes."""

from __future__ import annotations

import hashlib
import re
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

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
