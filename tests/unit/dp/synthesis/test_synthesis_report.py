"""The report of ``veil synthesize`` (issue #36, item 3): the JSON contract, the figures computed from the
real records (marked, and left out of a public report), the evaluation against withheld records, and
the HTML page, written with the table or not at all."""

import html
import json
import re

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tests.faults.conftest import assert_refused, invoke, snapshot
from veil.dp import synthesize
from veil.dp.synthesis import ColumnDomain, evaluate_synthesis, public_report, split_holdout
from veil.dp.synthesis._evaluation import published_labels, synthesis_utility
from veil.dp.synthesis._evaluation_report import PUBLIC_NOTE, finish_report, outside_dp
from veil.errors import ParameterError
from veil.report import render_synthesis_html

DOMAIN = {"sex": ["F", "M"], "city": ["Oslo", "Rome", "Paris"]}
CONTRACT = {"algorithm", "epsilon", "delta", "rho", "rows", "domain_source", "marginal_error", "workload_error",
            "ledger", "evaluation"}


def _frame(n=2000, seed=0):
    rng = np.random.default_rng(seed)
    sex = rng.choice(["F", "M"], n)
    city = np.where(rng.random(n) < 0.8, np.where(sex == "F", "Oslo", "Rome"), "Paris")  # city follows sex
    return pd.DataFrame({"sex": sex, "city": city, "age": rng.integers(18, 90, n).astype(str)})


@pytest.fixture
def work(tmp_path):
    _frame().to_csv(tmp_path / "data.csv", index=False)
    (tmp_path / "domain.json").write_text(json.dumps(DOMAIN))
    return tmp_path


def _args(work, *extra):
    return ["synthesize", work / "data.csv", "--epsilon", "1", "--domain", work / "domain.json",
            "--bins", "age=0:100:10", "-o", work / "out.csv", "--json", work / "report.json", *extra]


# ---------------------------------------------------------------- the split and the published labels
def test_the_split_withholds_each_record_independently_with_fresh_randomness():
    frame = pd.DataFrame({"x": np.arange(10_000)})
    np.random.seed(0)
    first_train, first_control = split_holdout(frame, 0.2)
    np.random.seed(0)  # the global seed does not redo the draw: OS randomness
    second_train, _ = split_holdout(frame, 0.2)
    assert len(first_train) + len(first_control) == 10_000
    assert set(first_train["x"]).isdisjoint(first_control["x"])
    # Binomial(10000, 0.2): mean 2000, sd 40; 6 sd either side
    assert 1760 < len(first_control) < 2240
    assert not first_train["x"].equals(second_train["x"])


def test_a_split_that_leaves_one_part_empty_is_refused():
    with pytest.raises(ParameterError, match="one part of the records empty"):
        split_holdout(pd.DataFrame({"x": [1]}), 0.5)


def test_published_labels_by_hand():
    ages = ColumnDomain("age", low=0.0, high=100.0, bins=4)
    labels = ages.labels  # [0, 25) [25, 50) [50, 75) [75, 100]
    got = published_labels(pd.Series(["0", "24.9", "25", "100", "250", "-3", None, "n/a"]), ages, labels)
    assert list(got) == ["[0, 25)", "[0, 25)", "[25, 50)", "[75, 100]", "[75, 100]", "[0, 25)", None, None]
    city = ColumnDomain("city", categories=("Oslo", "Rome"))
    assert list(published_labels(pd.Series(["Oslo", "Lima", None]), city, city.labels)) == ["Oslo", None, None]
    learned = ColumnDomain("sex", categories=(), learned=True)
    got = published_labels(pd.Series(["F", "M", "X", None]), learned, ["F", "M", "(other)"])
    assert list(got) == ["F", "M", "(other)", "(other)"]  # as the synthesis encodes a learned column


# ---------------------------------------------------------------- utility and attacks
def test_workload_utility_by_hand():
    # target y is a copy of x in the synthetic table and in the withheld records: every classifier that
    # learns from x predicts all 4 withheld records (the tree's leaves of 18 and 12 rows are above its
    # 5); the most common synthetic y ('a', 18 of 30) is right for 2 of the 4
    domains = [ColumnDomain("x", categories=("0", "1")), ColumnDomain("y", categories=("a", "b"))]
    synthetic = pd.DataFrame({"x": ["0"] * 18 + ["1"] * 12, "y": ["a"] * 18 + ["b"] * 12})
    train = pd.DataFrame({"x": ["0", "1"] * 5, "y": ["a", "b"] * 5})
    control = pd.DataFrame({"x": ["0", "1", "0", "1"], "y": ["a", "b", "a", "b"]})
    out = synthesis_utility(synthetic, train, control, domains, "y")
    assert out["records"] == {"synthetic": 30, "train": 10, "test": 4} and out["features"] == ["x"]
    for scores in out["classifiers"].values():
        assert scores["u_san"] == 1.0 and scores["u_max"] == 1.0 and scores["u_base"] == 0.5


def test_workload_utility_with_one_target_value_is_a_note_not_an_error():
    domains = [ColumnDomain("x", categories=("0", "1")), ColumnDomain("y", categories=("a", "b"))]
    synthetic = pd.DataFrame({"x": ["0", "1"], "y": ["a", "a"]})
    real = pd.DataFrame({"x": ["0", "1"], "y": ["a", "b"]})
    out = synthesis_utility(synthetic, real, real, domains, "y")
    assert out["classifiers"] is None and "one value of the target" in out["note"]


def _evaluated(frame, domain, target):
    domains = [ColumnDomain(c, categories=tuple(v)) if isinstance(v, list) else
               ColumnDomain(c, low=float(v["min"]), high=float(v["max"]), bins=v["bins"]) for c, v in domain.items()]
    train, control = split_holdout(frame, 0.3)
    synthetic = synthesize(train, epsilon=1.0, domain=domain, seed=0).frame
    return evaluate_synthesis(train, synthetic, control, domains, target=target, seed=0)


def test_the_evaluation_has_the_contract_keys():
    frame = _frame(3000).assign(zip=np.random.default_rng(1).integers(0, 400, 3000).astype(str))
    domain = {**DOMAIN, "age": {"min": 0, "max": 100, "bins": 10}, "zip": [str(z) for z in range(400)]}
    out = _evaluated(frame, domain, "city")
    assert {"singling_out", "linkability", "inference", "utility"} <= set(out) and out["notes"] == {}
    assert "bounds every attacker" in out["note"]
    assert set(out["inference"]) == {"sex", "city", "age", "zip"}
    assert set(out["singling_out"]) == {"univariate", "multivariate"}
    for r in [*out["inference"].values(), out["linkability"], *out["singling_out"].values()]:
        assert 0.0 <= r["risk"] <= 1.0 and r["ci"][0] <= r["risk"] <= r["ci"][1]
    assert out["parameters"]["control_records"] == out["utility"]["records"]["test"]
    u = out["utility"]["classifiers"]["decision-tree"]
    assert u["u_san"] > u["u_base"]  # the synthetic table keeps the sex-city dependence


def test_attacks_the_tables_cannot_support_are_a_note_not_an_error():
    # 2 x 3 x 10 possible records: nearly every withheld record is also a training record, and
    # veil evaluate refuses such a control; the budget is spent, so the report says why instead
    out = _evaluated(_frame(3000), {**DOMAIN, "age": {"min": 0, "max": 100, "bins": 10}}, "city")
    assert out["inference"] is None and out["singling_out"] is None and out["linkability"] is None
    assert "also records of the original" in out["notes"]["attacks"]
    assert out["utility"]["classifiers"] is not None


# ---------------------------------------------------------------- figures from the real records
def _report(**extra):
    return {"algorithm": "mst", "epsilon": 1.0, "delta": 1e-9, "rho": 0.015, "rows": 990,
            "domain_source": {"sex": "user"}, "marginal_error": {"1way": 0.01, "2way": 0.04, "3way": None},
            "workload_error": None, "ledger": None, "evaluation": None, **extra}


def test_outside_dp_names_every_figure_read_from_the_real_records():
    assert outside_dp(_report()) == ["marginal_error"]
    ledger = {"dataset": "sha256:ab12", "composition": "basic"}
    full = _report(evaluation={"inference": {"sex": {"risk": 0.0}}}, holdout={"share": 0.2, "records": 201}, ledger=ledger)
    assert outside_dp(full) == ["marginal_error", "evaluation", "holdout", "ledger.dataset"]
    assert outside_dp(_report(ledger={"dataset": "name:adult"})) == ["marginal_error"]  # a declared name


def test_the_public_report_keeps_the_shape_and_drops_every_real_figure():
    ledger = {"dataset": "sha256:ab12", "composition": "basic", "spent": {"epsilon": 1.0, "delta": 1e-9}}
    full = finish_report(_report(ledger=ledger), evaluation={"inference": {"sex": {}}})
    public = public_report(full)
    assert public["marginal_error"] == {"1way": None, "2way": None, "3way": None}
    assert public["evaluation"] is None and public["ledger"]["dataset"] is None
    assert public["ledger"]["spent"] == ledger["spent"]
    assert public["outside_dp"] == [] and public["public_report"] is True
    assert public["notes"]["marginal_error"] == PUBLIC_NOTE and public["notes"]["evaluation"] == PUBLIC_NOTE
    assert {k: v for k, v in public.items() if k not in ("marginal_error", "evaluation", "ledger", "notes",
                                                          "outside_dp", "public_report")} == \
        {k: v for k, v in full.items() if k not in ("marginal_error", "evaluation", "ledger", "notes", "outside_dp",
                                                     "public_report")}


_figure = st.one_of(st.none(), st.floats(0, 1))


@settings(max_examples=60, deadline=None)
@given(errors=st.fixed_dictionaries({"1way": _figure, "2way": _figure, "3way": _figure}),
       workload=_figure, evaluation=st.one_of(st.none(), st.just({"inference": {"a": {"risk": 0.1}}})),
       held=st.one_of(st.none(), st.integers(1, 10**6)), key=st.sampled_from(["sha256:00ff", "name:x", None]))
def test_a_public_report_keeps_no_figure_from_the_real_records(errors, workload, evaluation, held, key):
    report = _report(marginal_error=errors, workload_error=workload, evaluation=evaluation,
                     ledger=None if key is None else {"dataset": key, "spends": 1})
    if held is not None:
        report["holdout"] = {"share": 0.1, "records": held}
    public = public_report(report)
    assert outside_dp(public) == [] and public["outside_dp"] == []   # nothing left to leave out
    assert public_report(public) == public                            # idempotent
    for name in outside_dp(report):
        assert public["notes"][name] == PUBLIC_NOTE
    untouched = set(report) - {"marginal_error", "workload_error", "evaluation", "holdout", "ledger"}
    assert all(public[k] == report[k] for k in untouched)
    if key == "name:x":
        assert public["ledger"]["dataset"] == "name:x"               # a declared name is not data


def test_an_evaluation_left_null_says_why():
    assert "no --holdout" in finish_report(_report())["notes"]["evaluation"]

    class Held:
        share, evaluate, path, target = 0.2, False, "c.csv", None

    report = finish_report(_report(), holdout=Held(), control_records=17)
    assert report["holdout"] == {"share": 0.2, "records": 17} and "without --evaluate" in report["notes"]["evaluation"]
    assert public_report(report)["holdout"] == {"share": 0.2, "records": None}


# ---------------------------------------------------------------- the command
def test_the_command_writes_the_evaluated_report(work):
    outcome = invoke(*_args(work, "--holdout", "0.25", "--holdout-out", work / "control.csv", "--evaluate",
                            "--target", "city", "--html", work / "report.html", "--seed", "1"))
    assert outcome.exit_code == 0, outcome.text
    report = json.loads((work / "report.json").read_text())
    assert CONTRACT <= set(report)
    control = pd.read_csv(work / "control.csv", dtype=str)
    assert report["holdout"] == {"share": 0.25, "records": len(control)}
    assert 2000 * 0.25 - 150 < len(control) < 2000 * 0.25 + 150  # Binomial(2000, 0.25): sd 19
    assert list(control.columns) == ["sex", "city", "age"]
    assert report["outside_dp"] == ["marginal_error", "workload_error", "evaluation", "holdout"] and report["public_report"] is False
    assert set(report["evaluation"]) >= {"singling_out", "linkability", "inference", "utility"}
    assert report["evaluation"]["utility"]["records"]["test"] == len(control)
    page = (work / "report.html").read_text()
    assert "real data" in page and "Do not publish" in page and "bounds every attacker" in page


def test_without_holdout_the_evaluation_is_null_with_a_reason(work):
    outcome = invoke(*_args(work))
    assert outcome.exit_code == 0, outcome.text
    report = json.loads((work / "report.json").read_text())
    assert report["evaluation"] is None and "no --holdout" in report["notes"]["evaluation"]
    assert report["outside_dp"] == ["marginal_error", "workload_error"]


def test_the_html_page_shows_the_guarantee_domains_errors_and_ledger(work):
    outcome = invoke(*_args(work, "--html", work / "report.html", "--budget-file", work / "ledger.json",
                            "--budget", "3", "--budget-delta", "1e-6", "--dataset-name", "people"))
    assert outcome.exit_code == 0, outcome.text
    report = json.loads((work / "report.json").read_text())
    page = (work / "report.html").read_text()
    text = html.unescape(re.sub(r"\s+", " ", re.sub(r"<[^>]+>", " ", page.split("<details")[0])))
    assert "differ in one person's record" in text and "e^1 times" in text and "probability 1e-09" in text
    assert f"{report['rho']:.4g}" in text and f"{report['rows']:,}" in text
    assert "sex given by the user" in text and "age given by the user" in text
    assert f"2-way marginals {report['marginal_error']['2way']:.4g}" in text
    assert "spent ε = 1, δ = 1e-09" in text and "remaining ε = 2" in text and "name:people" in text
    assert "bounds every attacker" in text
    # self-contained: no script, no external resource
    assert "<script" not in page and not re.search(r"(src|href)\s*=", page)
    assert not re.search(r"https?://", page.split("<details")[0]) and "default-src 'none'" in page


def test_the_html_of_a_public_report_says_so(work):
    outcome = invoke(*_args(work, "--html", work / "report.html", "--public-report"))
    assert outcome.exit_code == 0, outcome.text
    page = (work / "report.html").read_text()
    assert "A public report" in page and "Do not publish" not in page


def test_render_does_not_trust_the_report_shape():
    page = render_synthesis_html({"epsilon": "<b>x</b>", "domain_source": {"<i>c</i>": "user"}})
    assert "<b>x</b>" not in page and "&lt;i&gt;c&lt;/i&gt;" in page


# ---------------------------------------------------------------- all or nothing, and bad input
def test_an_html_that_cannot_be_written_writes_nothing(work):
    (work / "blocker").write_text("a file where a folder is needed")
    before = snapshot(work)
    outcome = invoke(*_args(work, "--html", work / "blocker" / "report.html"))
    assert_refused(outcome, before, snapshot(work), "report.html")
