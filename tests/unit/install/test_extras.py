"""The light install: the core never imports an optional package, and a missing one names its extra."""

import subprocess
import sys
import tomllib
from pathlib import Path

import pytest

from veil._lazy import EXTRAS, require
from veil.errors import MissingExtraError, VeilError

ROOT = Path(__file__).resolve().parents[3]


def test_every_optional_package_has_its_extra_in_pyproject():
    extras = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["optional-dependencies"]
    base = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["dependencies"]
    pip_name = {"sklearn": "scikit-learn", "dp_accounting": "dp-accounting", "multipart": "python-multipart"}
    for package, extra in EXTRAS.items():
        name = pip_name.get(package, package)
        assert any(d.lower().startswith(name) for d in extras[extra]), (package, extra)
        assert not any(d.lower().startswith(name) for d in base), f"{name} is in the base install"
    assert set(EXTRAS.values()) | {"all", "test"} == set(extras)


def test_missing_package_names_the_pip_install(monkeypatch):
    monkeypatch.setitem(sys.modules, "duckdb", None)  # as if not installed
    with pytest.raises(MissingExtraError, match=r"^The optional package 'duckdb' is not installed \(needed by "
                       r"the duckdb engine\); install it with: pip install 'veil\[duckdb\]'$") as info:
        require("duckdb", feature="the duckdb engine")
    assert isinstance(info.value, VeilError) and isinstance(info.value, ImportError)


def test_core_commands_import_no_optional_package(tmp_path):
    """describe, scan, deidentify, risk, check, anonymize and hierarchy run without touching an extra."""
    rows = ["name,age,zip,disease"] + [f"P{i},{20 + i % 30},{'0213' + str(i % 3)},{'ab'[i % 2]}" for i in range(60)]
    (tmp_path / "t.csv").write_text("\n".join(rows) + "\n")
    (tmp_path / "plan.yaml").write_text("deidentify:\n  columns:\n    name: {action: drop}\n")
    script = f"""
import sys
from typer.testing import CliRunner
from veil.cli import app
runner = CliRunner()
folder = {str(tmp_path)!r}
for args in (["describe", "t.csv"], ["scan", "t.csv"],
             ["deidentify", "t.csv", "--config", "plan.yaml", "-o", "clean.csv"],
             ["risk", "clean.csv", "--qi", "age,zip"], ["hierarchy", "build", "clean.csv", "--qi", "age", "-o", "h"],
             ["anonymize", "clean.csv", "--qi", "age,zip", "--auto-hierarchies", "-k", "3", "-o", "out.csv",
              "--json", "r.json"],
             ["check", "out.csv", "--qi", "age,zip", "--require", "k>=3"]):
    import os
    os.chdir(folder)
    result = runner.invoke(app, args)
    assert result.exit_code == 0, (args, result.output)
loaded = sorted(m for m in {sorted(EXTRAS)!r} if m in sys.modules)
print("optional:", loaded)
"""
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stderr
    assert "optional: []" in done.stdout, done.stdout
