"""A missing QI value is released as an empty cell, as it came, not as the text ``<missing>``:
a numeric QI released at level 0 then still answers numeric queries."""

from __future__ import annotations

import json

import pandas as pd
from typer.testing import CliRunner

from veil.cli import app

runner = CliRunner()


def test_missing_ages_stay_empty_and_numeric_queries_still_work(tmp_path):
    # 12 records; the (age, sex) pairs at level 0: (30,F) x3, (50,F) x3, (30,M) x2, (50,M) x2,
    # (missing,M) x2, so k=2 holds with nothing generalized
    ages = ["30", "50", "30", "50", "30", "50", "30", "50", "30", "50", "", ""]
    sexes = ["F", "F", "M", "M", "F", "F", "M", "M", "F", "F", "M", "M"]
    frame = pd.DataFrame({"age": ages, "sex": sexes, "diag": list("xyzxyzxyzxyz")})
    frame.to_csv(tmp_path / "in.csv", index=False)
    result = runner.invoke(app, ["anonymize", str(tmp_path / "in.csv"), "--qi", "age,sex", "--sensitive", "diag",
                                 "--hierarchy", "age=interval:20", "--hierarchy", "sex=suppress", "--kind",
                                 "age=numeric", "--k", "2", "-o", str(tmp_path / "out.csv"),
                                 "--json", str(tmp_path / "out.json"), "--quiet"])
    assert result.exit_code == 0, result.output
    assert json.loads((tmp_path / "out.json").read_text())["transformation"] == {"age": 0, "sex": 0}
    text = (tmp_path / "out.csv").read_text()
    assert "<missing>" not in text
    out = pd.read_csv(tmp_path / "out.csv", dtype=str, keep_default_na=False)
    assert sorted(out["age"]) == sorted(ages)  # the two missing ages are empty cells
    # 5 records are older than 40; epsilon 50 makes the geometric noise 0 except with
    # probability about 4e-22
    query = runner.invoke(app, ["query", str(tmp_path / "out.csv"), "count where age > 40", "--epsilon", "50",
                                "--budget", "50", "--json"])
    assert query.exit_code == 0, query.output
    assert json.loads(query.output.strip().splitlines()[-1])["value"] == 5
