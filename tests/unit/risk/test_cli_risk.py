"""``veil risk``: summary, JSON contract, clean errors (exit code 2)."""

from __future__ import annotations

import json

import pandas as pd
import pytest
from typer.testing import CliRunner

from veil.cli import app
from veil.datasets import load_din_table

runner = CliRunner()


@pytest.fixture()
def din_csv(tmp_path):
    path = tmp_path / "din.csv"
    load_din_table().frame.to_csv(path, index=False)
    return path


def test_json_contract(din_csv, tmp_path):
    out = tmp_path / "risk.json"
    result = runner.invoke(app, ["risk", str(din_csv), "--qi", "Gender,YOB", "--sensitive", "DIN",
                                 "--population-fraction", "0.05", "--json", str(out)])
    assert result.exit_code == 0, result.output
    data = json.loads(out.read_text())
    assert data["records"] == 11 and data["classes"] == 8
    assert set(data["prosecutor"]) >= {"highest", "lowest", "average", "records_at_risk", "threshold"}
    assert data["prosecutor"]["average"] == 8 / 11 and data["prosecutor"]["threshold"] == 0.2
    assert set(data["journalist"]) >= {"highest", "average"} and data["journalist"]["case"] == "sample"
    assert data["marketer"]["average"] == 8 / 11
    assert data["sample_uniques"] == 6 / 11
    assert set(data["population_uniques"]) >= {"pitman", "zayatz", "snb", "dankar", "model_used"}
    assert [q["attributes"] for q in data["quasi_identifiers"]] == [["Gender", "YOB"], ["YOB"], ["Gender"]]
    assert data["quasi_identifiers"][0]["separation"] == 51 / 55
    assert "DIN" in data["sensitive"]
    assert "Attacker models" in result.output and "journalist" in result.output


def test_population_file(din_csv, tmp_path):
    population = tmp_path / "pop.csv"
    pd.concat([load_din_table().frame] * 2).to_csv(population, index=False)
    out = tmp_path / "r.json"
    result = runner.invoke(app, ["risk", str(din_csv), "--qi", "Gender,YOB", "--population", str(population),
                                 "--json", str(out)])
    assert result.exit_code == 0, result.output
    data = json.loads(out.read_text())
    # every population class is twice the sample's: highest 1/min F = 1/2;
    # average (1/n) sum_j f_j/F_j = (8 classes x 1/2) / 11 = 4/11
    assert data["journalist"] == {"highest": 0.5, "average": 4 / 11, "case": "population"}
    assert data["marketer"] == {"average": 4 / 11, "case": "population"}
    assert data["population_uniques"]["observed"] == 0.0


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--qi", "Gender,Nope"], "'Nope'"),
        (["--qi", "Gender", "--population-fraction", "0"], "population_fraction"),
        (["--qi", "Gender", "--population-fraction", "1.5"], "population_fraction"),
        (["--qi", "Gender", "--threshold", "2"], "threshold"),
    ],
)
def test_bad_input_exits_2(din_csv, args, message):
    result = runner.invoke(app, ["risk", str(din_csv), *args])
    assert result.exit_code == 2
    assert message in result.output


def test_population_smaller_than_sample_exits_2(din_csv, tmp_path):
    population = tmp_path / "pop.csv"
    load_din_table().frame.head(5).to_csv(population, index=False)
    result = runner.invoke(app, ["risk", str(din_csv), "--qi", "Gender,YOB", "--population", str(population)])
    assert result.exit_code == 2 and "fewer than the sample" in result.output


def test_empty_file_exits_2(tmp_path):
    path = tmp_path / "empty.csv"
    path.write_text("Gender,YOB\n")
    result = runner.invoke(app, ["risk", str(path), "--qi", "Gender,YOB"])
    assert result.exit_code == 2 and "no data rows" in result.output


def test_summary_only_matches_the_full_run(din_csv, tmp_path):
    # --max-qi-size 0 without --sensitive takes the class-size path; its figures are the full run's
    fast, full = tmp_path / "fast.json", tmp_path / "full.json"
    common = ["risk", str(din_csv), "--qi", "Gender,YOB", "--population-fraction", "0.05"]
    assert runner.invoke(app, [*common, "--max-qi-size", "0", "--json", str(fast)]).exit_code == 0
    assert runner.invoke(app, [*common, "--sensitive", "DIN", "--json", str(full)]).exit_code == 0
    a, b = json.loads(fast.read_text()), json.loads(full.read_text())
    assert a["quasi_identifiers"] == [] and "sensitive" not in a
    for key in ("records", "classes", "prosecutor", "journalist", "marketer", "sample_uniques",
                "sample_uniques_count", "population_uniques", "suppressed_records"):
        assert a[key] == b[key], key
    # DIN table: 11 records in 8 classes (Gender, YOB), 6 of them unique
    assert (a["records"], a["classes"], a["sample_uniques_count"]) == (11, 8, 6)
