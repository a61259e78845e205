"""The one requirement grammar of ``veil check --require`` and ``veil anonymize --require``."""

from __future__ import annotations

import json

import pandas as pd
import pytest
from typer.testing import CliRunner

from veil.cli import app
from veil.errors import ParameterError
from veil.models import check, parse_requirements, requirement_models

runner = CliRunner()

# Classes on q1: a = 2 records (s: 1, 2; d: u, u), b = 3 records (s: 1, 1, 2; d: v, v, w).
FRAME = pd.DataFrame({"q1": ["a", "a", "b", "b", "b"], "s": ["1", "2", "1", "1", "2"],
                      "d": ["u", "u", "v", "v", "w"]})


def test_parse_grammar():
    reqs = parse_requirements("k>=5, l_entropy[diagnosis]>=2, t_hier[salary]<=0.2, delta<=1.2, beta<=1, "
                              "lkc(L=2,K=5,C=0.5), records_at_risk<=0.05, highest_risk<=0.2")
    assert [(r.key, r.attribute, r.op, r.value) for r in reqs] == [
        ("k", None, ">=", 5.0), ("l_entropy", "diagnosis", ">=", 2.0), ("t_hier", "salary", "<=", 0.2),
        ("delta", None, "<=", 1.2), ("beta", None, "<=", 1.0), ("lkc", None, None, None),
        ("records_at_risk", None, "<=", 0.05), ("highest_risk", None, "<=", 0.2)]
    assert reqs[5].arguments == (("L", 2), ("K", 5), ("C", 0.5))


@pytest.mark.parametrize(("text", "message"), [
    ("lkc(L=2,K=5)>=3", "is a call with every parameter"),
    ("lkc(L=2,Q=5)", "LKCPrivacy has no parameter 'Q'"),
    ("lkc(L=two)", "Malformed argument 'L=two'"),
    ("k[s]>=2", "The requirement 'k' takes no sensitive attribute"),
    ("k", "Malformed requirement clause 'k'"),
])
def test_grammar_errors(text, message):
    with pytest.raises(ParameterError, match=message):
        parse_requirements(text)


def test_per_sensitive_lkc_and_risk_levels():
    report = check(FRAME, quasi_identifiers=["q1"], sensitive=["s", "d"], require=(
        "l[s]>=2, l[d]>=2, l>=2, highest_risk<=0.5, records_at_risk(threshold=0.4)<=0.4, records_at_risk<=0.99, "
        "lkc(L=1,K=2,C=1), lkc[s](L=1,K=2,C=0.5), lkc[s](L=1,K=2,C=0.7)"))
    # l[s] = min(2, 2) = 2; l[d] = min(1, 2) = 1; l = worst = 1; highest risk = 1/k = 1/2;
    # threshold 0.4: only class a (risk 1/2) is above, 2 of 5 records = 0.4; threshold 0.2: every record, 1.0;
    # LKC with L=1: groups a (2) and b (3): K = 2 holds; confidence of s: a 1/2, b 2/3 > 0.5, <= 0.7.
    assert [r.met for r in report.requirements] == [True, False, False, True, True, False, True, False, True]
    assert [r.actual for r in report.requirements[:6]] == [2.0, 1.0, 1.0, 0.5, 0.4, 1.0]


def test_check_json_gains_lkc_records_at_risk_highest_risk(tmp_path):
    data = tmp_path / "t.csv"
    FRAME.to_csv(data, index=False)
    out = tmp_path / "c.json"
    result = runner.invoke(app, ["check", str(data), "--qi", "q1", "--sensitive", "s", "--json", str(out),
                                 "--require", "highest_risk<=0.5, records_at_risk(threshold=0.4)<=0.4, lkc[s](L=1,K=2,C=0.7)"])
    assert result.exit_code == 0, result.output
    payload = json.loads(out.read_text())
    assert payload["highest_risk"] == 0.5
    assert payload["records_at_risk"] == {"parameters": {"threshold": 0.4}, "level": 0.4}
    assert payload["lkc"]["level"] == {"L": 1, "K": 2, "C": pytest.approx(2 / 3)}
    assert payload["lkc"]["parameters"] == {"L": 1, "K": 2, "C": 0.7, "sensitive": "s"}


def test_requirement_models_for_anonymize():
    reqs = parse_requirements("k>4, t<=0.2, lkc[s](L=2,K=5,C=0.5), records_at_risk<=0.05, c<=3")
    assert requirement_models(reqs, sensitive=["s", "d"], kinds={"s": "numeric"}) == [
        {"type": "k-anonymity", "k": 5},  # k > 4 asks for 5-anonymity
        {"type": "ordered-t-closeness", "t": 0.2, "sensitive": "s"},
        {"type": "equal-t-closeness", "t": 0.2, "sensitive": "d"},
        {"type": "lkc-privacy", "L": 2, "K": 5, "C": 0.5, "sensitive": "s"},
        {"type": "records-at-risk", "threshold": 0.2, "share": 0.05},
        {"type": "recursive-cl-diversity", "c": 3.0, "l": 2, "strict": True, "sensitive": "s"},
        {"type": "recursive-cl-diversity", "c": 3.0, "l": 2, "strict": True, "sensitive": "d"},
    ]


@pytest.mark.parametrize(("text", "message"), [
    ("k<=5", "cannot be asked of veil anonymize: the model holds for k>=N"),
    ("k==5", "cannot be asked of veil anonymize"),
    ("k_map>=2", "needs a population table"),
    ("l>=2", "needs a sensitive attribute"),
])
def test_requirement_models_refuse(text, message):
    with pytest.raises(ParameterError, match=message):
        requirement_models(parse_requirements(text), sensitive=[])


def test_anonymize_require_every_model(tmp_path):
    zips = ["47677", "47602", "47678", "47905", "47909", "47906"] * 2
    frame = pd.DataFrame({"zip": zips, "disease": ["flu", "cold", "hiv"] * 4})
    data = tmp_path / "t.csv"
    frame.to_csv(data, index=False)
    hierarchy = tmp_path / "zip.csv"
    hierarchy.write_text("".join(f"{z};{z[:3]}**;*\n" for z in sorted(set(zips))))
    report = tmp_path / "r.json"
    out = tmp_path / "o.csv"
    result = runner.invoke(app, ["anonymize", str(data), "--qi", "zip", "--hierarchy", f"zip={hierarchy}",
                                 "--require", "k>=3, l_entropy[disease]>=2, lkc[disease](L=1,K=3,C=0.7)",
                                 "-o", str(out), "--json", str(report)])
    assert result.exit_code == 0, result.output
    text = report.read_text()
    assert "3-anonymity" in text and "entropy 2-diversity (disease)" in text and "LKC-privacy (L=1, K=3, C=0.7)" in text
    check = runner.invoke(app, ["check", str(out), "--qi", "zip", "--sensitive", "disease",
                                "--require", "k>=3, l_entropy[disease]>=2, lkc[disease](L=1,K=3,C=0.7)"])
    assert check.exit_code == 0, check.output
    assert "l_entropy[disease]>=2" in check.output  # the clause is printed as written (no markup)


def test_anonymize_require_refused_with_a_config(tmp_path):
    config = tmp_path / "c.yaml"
    config.write_text("input: {path: x.csv}\n")
    result = runner.invoke(app, ["anonymize", str(config), "--require", "k>=2"])
    assert result.exit_code == 2
    assert "--require cannot be given beside the configuration" in result.output
