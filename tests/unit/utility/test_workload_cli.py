"""``veil utility``: the JSON contract and the error path."""

from __future__ import annotations

import json

import pandas as pd
import pytest
from typer.testing import CliRunner

import veil
from veil.cli import app
from veil.dataset import Dataset
from veil.hierarchy import Hierarchy
from veil.models import KAnonymity

runner = CliRunner()
ROWS = [["20", "20-29", "*"], ["25", "20-29", "*"], ["31", "30-39", "*"], ["35", "30-39", "*"], ["47", "40-49", "*"]]


@pytest.fixture()
def files(tmp_path):
    frame = pd.DataFrame({
        "age": ["20", "25", "20", "31", "35", "31", "35", "47"] * 5,
        "job": ["x", "y", "x", "y", "x", "y", "x", "y"] * 5,
        "y": ["lo", "lo", "lo", "hi", "hi", "hi", "lo", "hi"] * 5,
    })
    original = tmp_path / "original.csv"
    frame.to_csv(original, index=False)
    hierarchy = tmp_path / "age.csv"
    hierarchy.write_text("\n".join(";".join(r) for r in ROWS) + "\n")
    data = Dataset.from_pandas(frame, quasi_identifiers=["age"], sensitive=["y"],
                               hierarchies={"age": Hierarchy.from_rows(ROWS, name="age")})
    result = veil.anonymize(data, [KAnonymity(k=5)], suppression_limit=0.1, seed=1, keep_unlisted=True)
    release = tmp_path / "release.csv"
    result.data.to_csv(release, index=False)
    report = tmp_path / "report.json"
    report.write_text(json.dumps({"transformation": result.transformation}))
    return original, release, report, hierarchy


def test_json_contract(files, tmp_path):
    original, release, report, hierarchy = files
    out = tmp_path / "utility.json"
    result = runner.invoke(app, ["utility", str(original), str(release), "--target", "y", "--report", str(report),
                                 "--hierarchy", f"age={hierarchy}", "--json", str(out)])
    assert result.exit_code == 0, result.output
    payload = json.loads(out.read_text())
    assert payload["target"] == "y"
    assert set(payload["classifiers"]) == {"decision-tree", "naive-bayes", "logistic-regression"}
    for scores in payload["classifiers"].values():
        assert all(0.0 <= scores[key] <= 1.0 for key in ("u_base", "u_san", "u_max"))
    assert -1.0 <= payload["a_acc"] <= 1.0


def test_qi_flag_and_inferred_levels_give_the_same_figures(files, tmp_path):
    original, release, report, hierarchy = files
    outs = [tmp_path / "a.json", tmp_path / "b.json"]
    for extra, out in ((["--report", str(report)], outs[0]), (["--qi", "age"], outs[1])):
        result = runner.invoke(app, ["utility", str(original), str(release), "--target", "y", *extra,
                                     "--hierarchy", f"age={hierarchy}", "--classifiers", "naive-bayes", "--json", str(out)])
        assert result.exit_code == 0, result.output
    assert json.loads(outs[0].read_text()) == json.loads(outs[1].read_text())


@pytest.mark.parametrize(
    ("extra", "message"),
    [
        (["--target", "y"], "Name the quasi-identifiers"),
        (["--target", "age", "--qi", "age"], "is a quasi-identifier"),
        (["--target", "y", "--qi", "age", "--classifiers", "svm"], "takes names from"),
    ],
)
def test_bad_input_exits_2_and_writes_nothing(files, tmp_path, extra, message):
    original, release, _, hierarchy = files
    out = tmp_path / "never.json"
    result = runner.invoke(app, ["utility", str(original), str(release), *extra, "--hierarchy", f"age={hierarchy}",
                                 "--json", str(out)])
    assert result.exit_code == 2
    assert message in result.output.replace("\n", " ")
    assert not out.exists()
    assert not [p for p in tmp_path.iterdir() if p.name.startswith(".never")]
