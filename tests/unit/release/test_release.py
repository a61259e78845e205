"""veil anonymize / demo / the release configuration: behaviour and bad input."""

import json
import os
from pathlib import Path

import pandas as pd
import pytest
from typer.testing import CliRunner

from veil.anonymization import anonymize
from veil.cli import app
from veil.config import load_config
from veil.datasets import adult_path, load_lkc_patients
from veil.errors import ConfigError, HierarchyError, InfeasibleError, OutputError, ParameterError
from veil.models import DistinctLDiversity, EqualDistanceTCloseness, KAnonymity
from veil.release import check_output_path, run_config

runner = CliRunner()
QIS = "sex,age,race,marital-status,education,native-country,workclass,occupation"


def _adult_flags(tmp_path, *extra):
    args = ["anonymize", adult_path(), "--qi", QIS, "--sensitive", "salary-class", "--sep", ";"]
    for q in QIS.split(","):
        args += ["--hierarchy", f"{q}={adult_path(f'adult_hierarchy_{q}.csv')}"]
    return args + list(extra)


@pytest.mark.slow
def test_cli_flags_adult_k5_output_accepted_by_check(tmp_path):
    out, report = tmp_path / "out.csv", tmp_path / "report.json"
    result = runner.invoke(app, _adult_flags(tmp_path, "-k", "5", "-l", "salary-class:2", "--suppression", "0.05",
                                             "--metric", "loss", "-o", str(out), "--json", str(report), "--seed", "3"))
    assert result.exit_code == 0, result.output
    payload = json.loads(report.read_text())
    for key in ("transformation", "records", "suppressed", "achieved", "utility", "risk_before", "risk_after", "search"):
        assert key in payload
    assert set(payload["search"]) >= {"algorithm", "nodes_total", "nodes_checked", "seconds"}
    assert payload["achieved"]["k"] >= 5
    assert payload["suppressed"] <= 0.05 * 30162
    assert payload["risk_after"]["prosecutor"]["highest"] <= 0.2
    check = runner.invoke(app, ["check", str(out), "--qi", QIS, "--sensitive", "salary-class",
                                "--require", "k>=5, l>=2"])
    assert check.exit_code == 0, check.output


def test_demo_writes_outputs(tmp_path):
    result = runner.invoke(app, ["demo", "--out", str(tmp_path / "demo")])
    assert result.exit_code == 0, result.output
    data = pd.read_csv(tmp_path / "demo" / "adult-anonymized.csv", dtype=str, keep_default_na=False)
    report = json.loads((tmp_path / "demo" / "report.json").read_text())
    assert len(data) == 30162 == report["records"]
    assert report["achieved"]["k"] >= 5
    assert report["achieved"]["sensitive"]["salary-class"]["distinct_l"] >= 2
    assert report["output_order"]["shuffled"] is True
    html = (tmp_path / "demo" / "report.html").read_text()
    assert html.startswith("<!DOCTYPE html>") and f"{report['suppressed']:,}" in html


def test_output_rows_are_shuffled_and_seeded():
    ds = load_lkc_patients()
    a = anonymize(ds, [KAnonymity(k=2)], seed=1).data
    b = anonymize(ds, [KAnonymity(k=2)], seed=1).data
    pd.testing.assert_frame_equal(a, b)
    # ID has role identifier: it is dropped, never copied (it was copied before issue #13)
    assert "ID" not in a.columns
    unshuffled = anonymize(ds, [KAnonymity(k=2)], shuffle=False).data
    assert unshuffled["Transfuse"].tolist() == ds.frame["Transfuse"].tolist()
    assert sorted(a["Transfuse"]) == sorted(ds.frame["Transfuse"])


def test_k_larger_than_table():
    with pytest.raises(ParameterError, match="k=20 is larger than the table"):
        anonymize(load_lkc_patients(), [KAnonymity(k=20)])


def test_missing_hierarchy_for_qi():
    ds = load_lkc_patients()
    ds.hierarchies.pop("Age")
    with pytest.raises(HierarchyError, match="No hierarchy is given for the quasi-identifier.*'Age'"):
        anonymize(ds, [KAnonymity(k=2)])


def test_infeasible_says_how_many_records_it_would_need():
    with pytest.raises(InfeasibleError, match=r"would need to suppress \d+ records") as info:
        anonymize(load_lkc_patients(), [KAnonymity(k=2), DistinctLDiversity(sensitive="Surgery", l=3)],
                  max_levels={"Job": 1, "Sex": 0, "Age": 1})
    assert info.value.best["node"] == (1, 0, 1) and info.value.best["suppressed_records"] > 0


def test_output_equal_to_input_refused(tmp_path):
    data = tmp_path / "in.csv"
    data.write_text("a\n1\n")
    with pytest.raises(OutputError, match="is the input file"):
        check_output_path(data, data)
    result = runner.invoke(app, _adult_flags(tmp_path, "-k", "5", "-o", adult_path()))
    assert result.exit_code == 2 and "is an input of this command; veil never overwrites an input" in result.output


def test_unwritable_output_folder(tmp_path, monkeypatch):
    folder = tmp_path / "ro"
    folder.mkdir()
    # the check asks the OS whether the folder is writable; as root it always is, so ask a stand-in
    monkeypatch.setattr("veil.release.os.access", lambda path, mode: Path(path) != folder)
    with pytest.raises(OutputError, match="not writable"):
        check_output_path(folder / "out.csv", tmp_path / "in.csv")


def test_output_folder_that_is_a_file(tmp_path):
    blocker = tmp_path / "file"
    blocker.write_text("x")
    with pytest.raises(OutputError, match="is not a folder"):
        check_output_path(blocker / "out.csv", tmp_path / "in.csv")


def test_nothing_written_when_infeasible(tmp_path):
    out = tmp_path / "out.csv"
    result = runner.invoke(app, _adult_flags(tmp_path, "-k", "5", "-l", "salary-class:3", "-o", str(out), "--json", str(tmp_path / "r.json")))
    assert result.exit_code == 2 and "cannot be met" in result.output
    assert not out.exists() and not (tmp_path / "r.json").exists()
    assert list(tmp_path.iterdir()) == []  # no temporary file left behind either


def _write_config(tmp_path, text):
    path = tmp_path / "release.yaml"
    path.write_text(text)
    return path


BASE = f"""
input: {{path: {adult_path()}, sep: ";"}}
attributes:
  sex: {{role: quasi-identifier, hierarchy: {{file: {adult_path('adult_hierarchy_sex.csv')}}}}}
  age: {{role: quasi-identifier, kind: numeric, hierarchy: {{intervals: {{widths: [10, 20]}}}}}}
  salary-class: {{role: sensitive}}
models:
  - {{type: k-anonymity, k: 5}}
"""


def test_config_runs_with_builder_hierarchy(tmp_path):
    path = _write_config(tmp_path, BASE + "output: {path: out.csv, report: report.json, seed: 1}\n")
    result, written = run_config(load_config(path))
    assert Path(written["data"]).exists() and Path(written["report"]).exists()
    assert result.report["achieved"]["k"] >= 5


@pytest.mark.parametrize(
    "extra,message",
    [
        ("bogus: 1\n", "bogus: Extra inputs are not permitted"),
        ("suppression_limit: 2\n", "suppression_limit: Input should be less than or equal to 1"),
        ("metric: fancy\n", "metric must be one of"),
        ("label: age\n", "label: 'age' is a quasi-identifier"),
    ],
)
def test_config_errors_name_the_key(tmp_path, extra, message):
    with pytest.raises(ConfigError, match=message):
        load_config(_write_config(tmp_path, BASE + extra))


def test_config_contradictions(tmp_path):
    text = BASE.replace("- {type: k-anonymity, k: 5}", "- {type: distinct-l-diversity, sensitive: sex, l: 2}")
    with pytest.raises(ConfigError, match=r"models\[0\].sensitive: 'sex' is not an attribute with role sensitive"):
        load_config(_write_config(tmp_path, text))
    text = BASE.replace("hierarchy: {intervals: {widths: [10, 20]}}", "min_level: 2\n    max_level: 1")
    text = BASE.replace("kind: numeric, hierarchy: {intervals: {widths: [10, 20]}}",
                        "kind: numeric, hierarchy: {intervals: {widths: [10]}, masking: {}}")
    with pytest.raises(ConfigError, match="attributes.age.hierarchy: Value error, give exactly one"):
        load_config(_write_config(tmp_path, text))
    text = BASE.replace(", hierarchy: {intervals: {widths: [10, 20]}}", "")
    with pytest.raises(ConfigError, match="attributes.age.hierarchy: a quasi-identifier needs a hierarchy"):
        load_config(_write_config(tmp_path, text))
    text = BASE + f"output: {{path: {adult_path()}}}\n"
    with pytest.raises(ConfigError, match="output.path is the input file"):
        load_config(_write_config(tmp_path, text))
    text = BASE.replace("{type: k-anonymity, k: 5}", "{type: k-anonymity, k: 0}")
    with pytest.raises(ConfigError, match=r"models\[0\] \(k-anonymity\): The 'k' parameter of KAnonymity"):
        run_config(load_config(_write_config(tmp_path, text)))


def test_examples_are_valid_configs():
    root = Path(__file__).resolve().parents[3] / "examples"
    configs = sorted(root.glob("*.yaml"))
    assert configs
    for path in configs:
        load_config(path)


def test_t_closeness_release_verified():
    ds = load_lkc_patients()
    result = anonymize(ds, [KAnonymity(k=2), EqualDistanceTCloseness(sensitive="Surgery", t=0.5)],
                       suppression_limit=0.3, seed=0)
    assert result.report["verified"] is True
    assert result.report["achieved"]["sensitive"]["Surgery"]["t_equal"] <= 0.5


def test_config_deidentify_section_runs_before_anonymize(tmp_path):
    data = tmp_path / "people.csv"
    rows = ["name,email,age,sex,disease"] + [
        f"Person {i},p{i}@example.org,{20 + i % 3},{'MF'[i % 2]},{'ab'[i % 2]}" for i in range(12)
    ]
    data.write_text("\n".join(rows) + "\n")
    config = tmp_path / "release.yaml"
    config.write_text(
        """
input: {path: people.csv}
attributes:
  age: {role: quasi-identifier, kind: numeric, hierarchy: {intervals: {widths: [10]}}}
  sex: {role: quasi-identifier, hierarchy: {flat: true}}
  disease: {role: sensitive}
deidentify:
  columns:
    name: {action: drop}
    email: {action: drop}
models:
  - {type: k-anonymity, k: 2}
output: {path: out.csv, seed: 0}
"""
    )
    result, written = run_config(load_config(config))
    out = pd.read_csv(written["data"], dtype=str)
    assert "name" not in out.columns and "email" not in out.columns
    assert len(out) == 12 and result.report["achieved"]["k"] >= 2
