"""Tables shaped like the ones a newcomer brings, through the README's whole path.

Three generated tables, each shaped like a public person-level survey veil never saw:
a wage survey (ordered categories with number prefixes, a binary column, numbers written as text,
an income with thousands of values and missing ones), a large survey of the same kind, and a
small clinical trial (continuous scores, a year, a count written as "3.0"). Each goes through
describe -> scan -> deidentify -> anonymize --auto-hierarchies --require -> check, and every
check must agree with what anonymize verified.
"""

from __future__ import annotations

import json

import numpy as np
import pandas as pd
import pytest
from typer.testing import CliRunner

from veil.cli import app

EDUCATION = ["1. < HS Grad", "2. HS Grad", "3. Some College", "4. College Grad", "5. Advanced Degree"]


def wage_survey(n: int, seed: int) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    income = np.round(rng.lognormal(10.5, 0.6, n), 2).astype(object)
    income[rng.random(n) < 0.05] = ""
    return pd.DataFrame({
        "id": np.arange(1, n + 1),
        "name": [f"Person{i} Smith" for i in range(n)],
        "age": rng.integers(18, 80, n),
        "gender": rng.choice(["1. Male", "2. Female"], n),
        "education": rng.choice(EDUCATION, n, p=[0.1, 0.3, 0.25, 0.2, 0.15]),
        "maritl": rng.choice(["1. Never Married", "2. Married", "3. Widowed", "4. Divorced", "5. Separated"], n),
        "year": rng.integers(2003, 2010, n),
        "childs": rng.integers(0, 6, n).astype(float).astype(str),
        "income": income,
    })


def clinical_trial(n: int, seed: int) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    return pd.DataFrame({
        "age": rng.integers(20, 85, n),
        "sex": rng.choice(["M", "F"], n),
        "racegrp": rng.choice(["white", "black", "hispanic", "other"], n),
        "arm": rng.choice(["placebo", "drug"], n),
        "mcs": np.round(rng.normal(45, 10, n), 3),
        "pcs": np.round(rng.normal(48, 9, n), 3),
        "diagnosis": rng.choice(["A", "B", "C", "D", ""], n),
    })


def invoke(*args):
    result = CliRunner().invoke(app, [str(a) for a in args])
    return result


def ok(*args):
    result = invoke(*args)
    assert result.exit_code == 0, f"{args}: {result.stdout}{result.stderr}{result.exception!r}"
    return result


CASES = {
    "wage survey": (lambda: wage_survey(3000, 1), "age,gender,education,maritl,year,childs", "income",
                    "k>=5, l>=2"),
    "large wage survey": (lambda: wage_survey(20000, 2), "age,gender,education,maritl,year", "income",
                          "k>=5, l>=2"),
    "clinical trial": (lambda: clinical_trial(453, 3), "age,sex,racegrp", "diagnosis", "k>=3"),
}


@pytest.mark.slow
@pytest.mark.parametrize("case", list(CASES))
def test_a_real_shaped_table_goes_through_the_whole_path(tmp_path, case):
    make, qi, sensitive, require = CASES[case]
    source = tmp_path / "data.csv"
    make().to_csv(source, index=False)
    ok("describe", source)
    ok("scan", source)
    clean = tmp_path / "clean.csv"
    ok("deidentify", source, "--profile", "safe-harbor", "-o", clean)
    columns = pd.read_csv(clean, nrows=0).columns
    assert "name" not in columns
    release, report = tmp_path / "release.csv", tmp_path / "report.json"
    ok("anonymize", clean, "--qi", qi, "--sensitive", sensitive, "--auto-hierarchies", "--require", require,
       "--suppression", "0.05", "-o", release, "--json", report, "-q")
    verified = json.loads(report.read_text())
    assert verified["verified"]
    ok("check", release, "--qi", qi, "--sensitive", sensitive, "--require", require, "--json",
       tmp_path / "check.json")  # exit 0: every requirement met on the file as written
    checked = json.loads((tmp_path / "check.json").read_text())
    achieved = verified["achieved"]
    # the figures agree: what anonymize verified is what check reads from the file
    for key in ("records", "classes", "k", "suppressed_records"):
        assert checked[key] == achieved[key], key
    mine, theirs = checked["sensitive"][sensitive], achieved["sensitive"][sensitive]
    for key in ("distinct_values", "distinct_l", "entropy_l", "t_equal"):
        assert mine[key] == pytest.approx(theirs[key]), key
