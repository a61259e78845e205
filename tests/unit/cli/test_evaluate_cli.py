"""`veil split` and `veil evaluate` end to end: a control held out, a k=5 release of Adult, its evaluation."""

from __future__ import annotations

import json

import pandas as pd
import pytest
from typer.testing import CliRunner

from veil.cli import app

QI = "sex,age,race,marital-status,education,native-country,workclass,occupation"


def run(*args):
    result = CliRunner().invoke(app, [str(a) for a in args])
    assert result.exit_code == 0, result.stdout + result.stderr
    return result


@pytest.mark.slow
def test_split_anonymize_evaluate(tmp_path, adult):
    source = tmp_path / "adult.csv"
    adult.frame.iloc[:6000].to_csv(source, index=False)
    train, control = tmp_path / "train.csv", tmp_path / "control.csv"
    run("split", source, "--control", "0.2", "-o", train, "--control-out", control, "--seed", "3")
    assert len(pd.read_csv(train)) + len(pd.read_csv(control)) == 6000
    release, report = tmp_path / "k5.csv", tmp_path / "k5.json"
    run("anonymize", train, "--qi", QI, "--sensitive", "salary-class", "--auto-hierarchies", "-k", "5",
        "--suppression", "0.05", "-o", release, "--json", report, "-q")
    out, page = tmp_path / "ev.json", tmp_path / "ev.html"
    shown = run("evaluate", train, release, "--control", control, "--report", report, "--n-attacks", "100",
                "--seed", "1", "--json", out, "--html", page)
    result = json.loads(out.read_text())
    assert set(result) == {"singling_out", "linkability", "inference", "attacks", "parameters"}
    assert set(result["singling_out"]) == {"univariate", "multivariate"}
    assert list(result["inference"]) == ["salary-class"]
    assert {"linkage", "homogeneity", "record_linkage"} <= set(result["attacks"])
    for figures in [result["linkability"], result["inference"]["salary-class"], result["attacks"]["linkage"]]:
        assert set(figures) >= {"risk", "ci", "main", "control", "baseline"}
        assert 0.0 <= figures["ci"][0] <= figures["risk"] <= figures["ci"][1] <= 1.0
    assert result["parameters"]["n_attacks"] == 100 and result["parameters"]["control_records"] > 0
    assert "linkability" in shown.stdout
    text = page.read_text()
    assert "data:image/png;base64," in text and "Adm-clerical" not in text
    assert "Private" not in out.read_text()  # no record value in the result


def test_anonymize_holdout_withholds_records_and_evaluates_against_them(tmp_path, adult):
    source = tmp_path / "adult.csv"
    adult.frame.iloc[:3000].to_csv(source, index=False)
    release, report, control = tmp_path / "r.csv", tmp_path / "r.json", tmp_path / "control.csv"
    run("anonymize", source, "--qi", "sex,age,race", "--sensitive", "salary-class", "--auto-hierarchies",
        "-k", "5", "--suppression", "0.05", "-o", release, "--json", report, "--holdout", "0.2",
        "--holdout-out", control, "--evaluate", "-q")
    result = json.loads(report.read_text())
    held = pd.read_csv(control)
    assert len(held) == 600 and result["holdout"] == {"share": 0.2, "records": 600}
    assert result["records"] == 2400  # the withheld records are not in the release
    assert set(held.columns) == set(adult.frame.columns)
    evaluation = result["evaluation"]
    assert evaluation["parameters"]["control_records"] == 600
    assert set(evaluation) >= {"singling_out", "linkability", "inference", "attacks"}
