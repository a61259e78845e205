"""evaluate / check / requirements / the ``veil check`` command."""

from __future__ import annotations

import json
import math

import numpy as np
import pandas as pd
import pytest
from typer.testing import CliRunner

from veil.classes import ClassTable
from veil.cli import app
from veil.datasets import load_patients_3anonymous
from veil.errors import ParameterError, SchemaError
from veil.models import check, evaluate, parse_requirements


def test_parse_requirements():
    reqs = parse_requirements("k>=5, l>=2, t<=0.2, delta<=1.5, c<=3")
    assert [(r.key, r.op, r.value) for r in reqs] == [
        ("k", ">=", 5.0), ("l", ">=", 2.0), ("t", "<=", 0.2), ("delta", "<=", 1.5), ("c", "<=", 3.0)]


@pytest.mark.parametrize(("text", "message"), [
    ("k>=5, q>=2", "Unknown requirement 'q' in clause 'q>=2'"),
    ("k>=5, l=>2", "Malformed requirement clause 'l=>2'"),
    ("k>=five", "Malformed requirement clause 'k>=five'"),
    ("k>=5,,l>=2", "Empty requirement clause"),
    ("", "Expected requirements"),
])
def test_bad_requirements(text, message):
    with pytest.raises(ParameterError, match=message):
        parse_requirements(text)


def test_check_requirements_and_null_levels():
    report = check(load_patients_3anonymous(), require="k>=3, k>=4, delta<=10, l>=5")
    assert [r.met for r in report.requirements] == [True, False, False, False]
    assert report.requirements[2].actual is None  # delta is infinite -> null, never met
    assert "only 4 distinct" in report.requirements[3].note
    assert not report.passed
    payload = report.to_dict()
    json.dumps(payload, allow_nan=False)  # no NaN / inf in the JSON
    assert payload["requirements"][0] == {"clause": "k>=3", "met": True, "actual": 3.0}


def test_requirement_needing_sensitive_without_one():
    frame = pd.DataFrame({"q": ["a", "a"]})
    with pytest.raises(ParameterError, match="needs a sensitive attribute"):
        check(frame, quasi_identifiers=["q"], require="l>=2")


def test_evaluate_json_contract_keys():
    frame = pd.DataFrame({"q": ["a", "a", "b", "b"], "s": ["1", "2", "2", "3"], "d": ["x", "y", "x", "y"]})
    classes = ClassTable.from_pandas(frame, quasi_identifiers=["q"], sensitive=["s", "d"], kinds={"s": "numeric"})
    out = evaluate(classes).to_dict()
    assert {"records", "classes", "k", "sensitive", "suppressed_records", "input_suppressed", "facts"} <= set(out)
    assert "requirements" not in out
    s, d = out["sensitive"]["s"], out["sensitive"]["d"]
    assert "t_ordered" in s and "t_equal" not in s and "t_equal" in d and "t_ordered" not in d
    for item in (s, d):
        assert {"distinct_l", "entropy_l", "recursive_cl", "delta_disclosure", "alpha_k", "beta_likeness"} <= set(item)
        assert set(item["recursive_cl"]) >= {"c", "l"} and set(item["alpha_k"]) == {"alpha", "k"}
    # d: each class {x, y}: same as the table -> t = 0, delta = 0, c* = 1/1 = 1
    assert d["t_equal"] == 0.0 and d["delta_disclosure"] == 0.0 and d["recursive_cl"]["c"] == 1.0
    assert out["facts"]["log_base"] == "e"


def test_input_suppressed_records_are_reported_and_a_class():
    # the three records with '*' in every QI are one class of the table, which k counts (issue #32)
    frame = pd.DataFrame({"q": ["a", "a", "*", "*", "*"], "r": ["x", "x", "*", "*", "*"], "s": list("xyxyx")})
    report = check(frame, quasi_identifiers=["q", "r"], sensitive=["s"])
    assert (report.classes, report.k, report.input_suppressed, report.suppressed_records) == (2, 2, 3, 3)
    assert any("one class of the table, which k counts" in n for n in report.notes)
    frame.loc[4, ["q", "r"]] = ["a", "x"]  # a group of two '*' records: k = 2 still, then 1
    assert check(frame, quasi_identifiers=["q", "r"]).k == 2
    assert check(frame.iloc[:4].drop(index=3), quasi_identifiers=["q", "r"]).k == 1


def test_results_do_not_depend_on_row_order_or_index():
    frame = pd.DataFrame({"q": list("aabbbc"), "s": list("xyxxyz")})
    shuffled = frame.sample(frac=1, random_state=3)
    shuffled.index = [10, 5, 99, -1, 7, 3]
    a = check(frame, quasi_identifiers=["q"], sensitive=["s"]).to_dict()
    b = check(shuffled, quasi_identifiers=["q"], sensitive=["s"]).to_dict()
    assert a == b


def test_missing_qi_value_is_a_value_or_an_error():
    frame = pd.DataFrame({"q": ["a", None, None, "a"], "s": list("xyxy")})
    report = check(frame, quasi_identifiers=["q"], sensitive=["s"])
    assert (report.records, report.classes, report.k) == (4, 2, 2)  # missing is its own class of 2
    with pytest.raises(SchemaError):
        check(frame, quasi_identifiers=["q"], sensitive=["s"], missing="error")


def test_recursive_l_option_and_strictness_fact():
    frame = pd.DataFrame({"q": ["a"] * 12, "s": ["x"] * 10 + ["y", "z"]})
    r2 = check(frame, quasi_identifiers=["q"], sensitive=["s"]).to_dict()["sensitive"]["s"]["recursive_cl"]
    r3 = check(frame, quasi_identifiers=["q"], sensitive=["s"], recursive_l=3, strict=False).to_dict()
    assert r2 == {"c": 5.0, "l": 2, "strict": True}
    assert r3["sensitive"]["s"]["recursive_cl"] == {"c": 10.0, "l": 3, "strict": False}
    assert "non-strict" in r3["facts"]["recursive_cl"]


# ---------------------------------------------------------------- CLI
runner = CliRunner()


@pytest.fixture()
def patients_csv(tmp_path):
    path = tmp_path / "patients.csv"
    load_patients_3anonymous().frame.to_csv(path, index=False)
    return path


def test_cli_check_json_and_exit_codes(patients_csv, tmp_path):
    out = tmp_path / "report.json"
    result = runner.invoke(app, ["check", str(patients_csv), "--qi", "Zipcode,Age", "--sensitive", "Disease",
                                 "--require", "k>=3", "--json", str(out)])
    assert result.exit_code == 0, result.output
    payload = json.loads(out.read_text())
    assert payload["k"] == 3 and payload["requirements"] == [{"clause": "k>=3", "met": True, "actual": 3.0}]
    assert payload["sensitive"]["Disease"]["t_equal"] == 0.6
    failed = runner.invoke(app, ["check", str(patients_csv), "--qi", "Zipcode,Age", "--sensitive", "Disease",
                                 "--require", "k>=3, l>=2"])
    assert failed.exit_code == 1


@pytest.mark.parametrize("args", [
    ["--qi", "Zipcode,Disease", "--sensitive", "Disease"],
    ["--qi", "Zipcode", "--sensitive", "Disease", "--require", "q>=1"],
    ["--qi", "Nope"],
    ["--qi", "Zipcode", "--missing", "drop"],
])
def test_cli_check_input_errors_exit_2(patients_csv, args):
    result = runner.invoke(app, ["check", str(patients_csv), *args])
    assert result.exit_code == 2, result.output


def test_cli_hierarchy_adds_t_hierarchical(patients_csv, tmp_path):
    h = tmp_path / "disease.csv"
    h.write_text("Cancer;serious;*\nHeart Disease;serious;*\nFlu;mild;*\nViral Infection;mild;*\n")
    out = tmp_path / "r.json"
    result = runner.invoke(app, ["check", str(patients_csv), "--qi", "Zipcode,Age", "--sensitive", "Disease",
                                 "--hierarchy", f"Disease={h}", "--json", str(out)])
    assert result.exit_code == 0, result.output
    # q: Cancer .4, HD .3 (serious .7), Flu .1, VI .2 (mild .3); H = 2
    # Cancer class: extras C +.6, HD -.3, Flu -.1, VI -.2; serious: min(.6,.3)=.3 -> 1/2*.3 = .15;
    #   mild: 0; root: serious +.3, mild -.3 -> 2/2*.3 = .3; total .45
    # mixed {Flu,HD,Cancer}: C -1/15, HD +1/30, Flu +7/30, VI -.2: serious min(1/30,1/15)=1/30 -> 1/60;
    #   mild min(7/30, 6/30) = 1/5 -> 1/10; root: serious -1/30, mild +1/30 -> 1/30; total 9/60 = .15
    # {HD,HD,VI,VI}: C -.4, HD +.2 -> 1/2*.2 = .1; Flu -.1, VI +.3 -> 1/2*.1 = .05; root 0 -> .15
    assert json.loads(out.read_text())["sensitive"]["Disease"]["t_hierarchical"] == pytest.approx(0.45, abs=1e-15)
