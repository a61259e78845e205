"""The anonymize report's provenance, hierarchies and workload blocks (issue #17, #18 contracts)."""

from __future__ import annotations

import hashlib
import json
import shutil
from pathlib import Path

from typer.testing import CliRunner

import veil
from veil.cli import app
from veil.datasets import ADULT_QUASI_IDENTIFIERS, adult_path

runner = CliRunner()


def _flags(tmp_path: Path, *extra: str) -> list[str]:
    data = tmp_path / "adult.csv"
    shutil.copy(adult_path(), data)
    args = ["anonymize", str(data), "--qi", ",".join(ADULT_QUASI_IDENTIFIERS), "--sensitive", "salary-class"]
    for name in ADULT_QUASI_IDENTIFIERS:
        args += ["--hierarchy", f"{name}={adult_path(f'adult_hierarchy_{name}.csv')}"]
    return [*args, "-k", "5", "--suppression", "0.05", "-o", str(tmp_path / "out.csv"),
            "--json", str(tmp_path / "report.json"), *extra]


def _values(node, key=""):
    if isinstance(node, dict):
        for k, v in node.items():
            yield from _values(v, k)
    elif isinstance(node, list):
        for v in node:
            yield from _values(v, key)
    else:
        yield key, node


def test_provenance_fingerprints_the_input_and_names_no_folder(tmp_path):
    result = runner.invoke(app, _flags(tmp_path))
    assert result.exit_code == 0, result.output
    report = json.loads((tmp_path / "report.json").read_text())
    block = report["provenance"]
    assert block["input_sha256"] == hashlib.sha256((tmp_path / "adult.csv").read_bytes()).hexdigest()
    assert block["veil_version"] == veil.__version__
    assert block["created"].endswith("Z")
    assert block["config"]["models"] == [{"type": "k-anonymity", "k": 5}]
    # every path in the config is a file name: no folder (which may name a person or a project)
    paths = [v for k, v in _values(block["config"]) if k in ("path", "file")]
    assert paths and all("/" not in p for p in paths)
    assert str(tmp_path) not in json.dumps(report)
    assert report["hierarchies"] == {n: f"adult_hierarchy_{n}.csv" for n in ADULT_QUASI_IDENTIFIERS}


def test_target_adds_workload_utility_to_the_report(tmp_path):
    result = runner.invoke(app, _flags(tmp_path, "--target", "salary-class"))
    assert result.exit_code == 0, result.output
    workload = json.loads((tmp_path / "report.json").read_text())["workload"]
    assert workload["target"] == "salary-class"
    assert set(workload["classifiers"]) == {"decision-tree", "naive-bayes", "logistic-regression"}
    for scores in workload["classifiers"].values():
        assert 0.0 <= scores["u_base"] <= scores["u_max"] <= 1.0
        assert 0.0 <= scores["u_san"] <= 1.0
    assert -1.0 <= workload["a_acc"] <= 1.0


def test_target_must_be_a_declared_attribute(tmp_path):
    result = runner.invoke(app, _flags(tmp_path, "--target", "age"))
    assert result.exit_code == 2
    assert "target" in result.output and not (tmp_path / "out.csv").exists()
