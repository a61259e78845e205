"""Bad input of ``veil synthesize`` (issue #36), each one line, exit 2, nothing read past the refusal,
nothing written, the ledger unchanged: the cases of the issue's list that
``tests/faults/test_synthesize_input.py`` does not already hold (ε, δ at and past the ends of their ranges,
a domain file that is not JSON or not there, bins that name no column or an empty range), and the
options of the report (``--html``, ``--holdout``, ``--holdout-out``, ``--evaluate``, ``--target``,
``--public-report``)."""

import json

import numpy as np
import pandas as pd
import pytest

from tests.faults.conftest import assert_refused, invoke, snapshot

DOMAIN = {"sex": ["F", "M"], "city": ["Oslo", "Rome", "Paris"]}


@pytest.fixture
def work(tmp_path):
    rng = np.random.default_rng(2)
    n = 500
    pd.DataFrame({"sex": rng.choice(["F", "M"], n), "city": rng.choice(["Oslo", "Rome"], n),
                  "age": rng.integers(18, 90, n)}).to_csv(tmp_path / "data.csv", index=False)
    (tmp_path / "domain.json").write_text(json.dumps(DOMAIN))
    (tmp_path / "broken.json").write_text('{"sex": ["F", "M"')
    return tmp_path


def _args(work, *extra):
    args = ["synthesize", work / "data.csv", "--domain", work / "domain.json", "-o", work / "out.csv",
            "--json", work / "report.json", "--budget-file", work / "ledger.json", "--dataset-name", "d"]
    if not any(str(a).startswith("age=") for a in extra):
        args += ["--bins", "age=0:100:10"]
    if "--epsilon" not in extra:
        args += ["--epsilon", "1"]
    return args + [str(a).format(work=work) for a in extra]


def _refused(work, extra, mention):
    first = invoke(*_args(work, "--budget", "3", "--budget-delta", "1e-6"))
    assert first.exit_code == 0, first.text
    (work / "out.csv").unlink()
    (work / "report.json").unlink()
    before = snapshot(work)
    outcome = invoke(*_args(work, *extra))
    assert_refused(outcome, before, snapshot(work), mention)


@pytest.mark.parametrize("extra, mention", [
    (["--epsilon", "1e5"], "--epsilon must be in [1e-09, 10000]"),
    (["--epsilon", "inf"], "--epsilon"),
    (["--epsilon", "nan"], "'epsilon'"),
    (["--epsilon", "1e-12"], "--epsilon"),
    (["--delta", "-1e-9"], "'delta'"),
    (["--delta", "nan"], "'delta'"),
    (["--delta", "1.5"], "'delta'"),
    (["--domain", "{work}/broken.json"], "not valid JSON"),
    (["--domain", "{work}/absent.json"], "absent.json"),
    (["--bins", "zip=0:10:2"], "'zip'"),
    (["--bins", "age=50:50:2"], "min < max"),
    (["--bins", "age=0:100:0"], "bins >= 1"),
    (["--max-categories", "0"], "--max-categories"),
])
def test_bad_input_of_the_issue_list(work, extra, mention):
    _refused(work, extra, mention)


@pytest.mark.parametrize("extra, mention", [
    (["--evaluate"], "--evaluate needs --holdout"),
    (["--holdout-out", "{work}/c.csv"], "--holdout-out needs --holdout"),
    (["--target", "city"], "--target needs --holdout"),
    (["--holdout", "0.2"], "--holdout-out"),
    (["--holdout", "0", "--evaluate"], "(0, 1)"),
    (["--holdout", "1", "--evaluate"], "(0, 1)"),
    (["--holdout", "nan", "--evaluate"], "(0, 1)"),
    (["--holdout", "0.2", "--holdout-out", "{work}/c.csv", "--target", "city"], "needs --evaluate"),
    (["--holdout", "0.2", "--evaluate", "--target", "nope"], "'nope'"),
    (["--holdout", "0.2", "--evaluate", "--public-report"], "--public-report"),
    (["--holdout", "0.2", "--holdout-out", "{work}/out.csv"], "same file"),
    (["--html", "{work}/report.json"], "same file"),
    (["--holdout", "0.2", "--holdout-out", "{work}/data.csv"], "input"),
])
def test_bad_report_options_are_refused_before_anything_is_spent_or_written(work, extra, mention):
    _refused(work, extra, mention)
