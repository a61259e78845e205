"""Fault corpus of ``veil synthesize`` (issue #36): no once-seen category, no bound or bin edge of the
data reaches the synthetic table, the JSON report or the HTML report, with or without the evaluation
against withheld records, and in the public report."""

import json
import re

import numpy as np
import pandas as pd
import pytest

from tests.faults.conftest import invoke

#: Values held by one record each, and figures only the data could give (its min, max, outliers).
RARE_LEARNED = "Qwertyuiop-Once"      # in 'sex', whose categories are learned under DP
RARE_OUTSIDE = "Xylophone-Town"       # in 'city', outside the user's domain
AGE_MIN, AGE_MAX = "-417.25", "123.456"  # the data's own bounds of 'age' (no figure of a report can read so)
INCOME_OUTLIER = "987654.321"          # far beyond the user's bounds of 'income'
SECRETS = (RARE_LEARNED, "Qwertyuiop", RARE_OUTSIDE, "Xylophone", AGE_MIN, AGE_MAX, "123.4", "123.5",
           "-417.2", "-417.3", INCOME_OUTLIER, "987654", "987,654")


@pytest.fixture
def work(tmp_path):
    rng = np.random.default_rng(11)
    n = 3000
    frame = pd.DataFrame({"sex": rng.choice(["F", "M"], n), "city": rng.choice(["Oslo", "Rome", "Paris"], n),
                          "age": rng.integers(20, 80, n).astype(float), "income": rng.integers(1000, 90000, n)})
    frame = frame.astype({"income": object})
    frame.loc[5, "sex"] = RARE_LEARNED
    frame.loc[6, "city"] = RARE_OUTSIDE
    frame.loc[7, "age"], frame.loc[8, "age"] = float(AGE_MIN), float(AGE_MAX)
    frame.loc[9, "income"] = float(INCOME_OUTLIER)
    frame.to_csv(tmp_path / "data.csv", index=False)
    (tmp_path / "domain.json").write_text(json.dumps({"city": ["Oslo", "Rome", "Paris"]}))
    return tmp_path


def _shown(secret: str, text: str) -> bool:
    """Whether ``text`` holds ``secret``; a number only as a whole number, not as digits inside another
    (the report's own figures, e.g. a ratio 0.98765432..., may hold any run of digits)."""
    if not secret[0].isdigit() and secret[0] != "-":
        return secret in text
    return re.search(rf"(?<![\d.]){re.escape(secret)}(?!\d)", text) is not None


def _published(work) -> dict[str, str]:
    return {name: (work / name).read_text(encoding="utf-8") for name in ("out.csv", "report.json", "report.html")}


@pytest.mark.parametrize("extra", [
    [],
    ["--holdout", "0.3", "--holdout-out", "{work}/control.csv", "--evaluate", "--target", "city"],
    ["--public-report"],
], ids=["plain", "evaluated", "public"])
def test_no_once_seen_category_nor_data_bound_reaches_any_output(work, extra):
    outcome = invoke("synthesize", work / "data.csv", "--epsilon", "1", "--domain", work / "domain.json",
                     "--bins", "age=0:100:10", "--bins", "income=0:100000:10", "-o", work / "out.csv",
                     "--json", work / "report.json", "--html", work / "report.html", "--seed", "3",
                     *[a.format(work=work) for a in extra])
    assert outcome.exit_code == 0, outcome.text
    published = _published(work)
    for name, text in {**published, "console": outcome.text}.items():
        for secret in SECRETS:
            assert not _shown(secret, text), f"{secret!r} reached {name}"
    synthetic = pd.read_csv(work / "out.csv", dtype=str)
    assert set(synthetic["sex"]) <= {"F", "M", "(other)"}
    assert set(synthetic["city"]) <= {"Oslo", "Rome", "Paris"}
    assert set(synthetic["age"]) <= {f"[{lo}, {lo + 10})" for lo in range(0, 90, 10)} | {"[90, 100]"}
    report = json.loads(published["report.json"])
    assert report["domain_source"] == {"sex": "dp", "city": "user", "age": "user", "income": "user"}
    if "--evaluate" in extra:  # the evaluation ran on the real records and still quotes none of them
        assert report["evaluation"]["utility"]["target"] == "city"
        assert (work / "control.csv").exists()  # the withheld records: private, as the input


def test_the_public_report_holds_no_figure_computed_from_the_real_records(work):
    outcome = invoke("synthesize", work / "data.csv", "--epsilon", "1", "--domain", work / "domain.json",
                     "--bins", "age=0:100:10", "--bins", "income=0:100000:10", "-o", work / "out.csv",
                     "--json", work / "report.json", "--html", work / "report.html", "--public-report")
    assert outcome.exit_code == 0, outcome.text
    report = json.loads((work / "report.json").read_text())
    assert report["public_report"] is True and report["outside_dp"] == []
    assert report["marginal_error"] == {"1way": None, "2way": None, "3way": None}
    assert report["evaluation"] is None and report["workload_error"] is None
    steward = invoke("synthesize", work / "data.csv", "--epsilon", "1", "--domain", work / "domain.json",
                     "--bins", "age=0:100:10", "--bins", "income=0:100000:10", "-o", work / "out2.csv",
                     "--json", work / "steward.json")
    errors = json.loads((work / "steward.json").read_text())["marginal_error"]
    assert steward.exit_code == 0 and errors["2way"] is not None
    page = (work / "report.html").read_text()
    assert f"{errors['2way']:.4g}" not in page and "TV error" not in outcome.text
