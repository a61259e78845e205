"""Fault corpus of ``veil synthesize`` (issue #36): bad input is one line, exit 2, nothing written;
the ledger refuses a synthesis that does not fit; concurrent syntheses never overspend."""

import json
import multiprocessing

import numpy as np
import pandas as pd
import pytest

from veil.dp import BudgetLedger, PrivacyAccountant, PrivacyBudget, synthesize
from veil.errors import BudgetExceededError

DOMAIN = {"sex": ["F", "M"], "city": ["Oslo", "Rome", "Paris"]}


@pytest.fixture
def work(tmp_path):
    rng = np.random.default_rng(3)
    n = 400
    frame = pd.DataFrame({"name": [f"Person{i:03d} Lastname" for i in range(n)],
                          "sex": rng.choice(["F", "M"], n), "city": rng.choice(["Oslo", "Rome"], n),
                          "age": rng.integers(18, 90, n)})
    frame.to_csv(tmp_path / "data.csv", index=False)
    (tmp_path / "domain.json").write_text(json.dumps(DOMAIN))
    return tmp_path


def _args(work, *extra):
    return ["synthesize", work / "data.csv", "--domain", work / "domain.json", "--bins", "age=0:100:10",
            "--identifiers", "name", "-o", work / "out.csv", "--json", work / "report.json", *extra]


@pytest.mark.parametrize("extra, mention", [
    (["--epsilon", "0"], "epsilon"),
    (["--epsilon", "-1"], "epsilon"),
    (["--epsilon", "1", "--delta", "0"], "delta"),
    (["--epsilon", "1", "--delta", "1"], "delta"),
    (["--epsilon", "1", "--algorithm", "privbayes"], "--algorithm"),
    (["--epsilon", "1", "--max-categories", "2"], "--max-categories 2"),
    (["--epsilon", "1", "--bins", "age=0:100"], "MIN:MAX:BINS"),
])
def test_bad_parameters(faults, work, extra, mention):
    before = faults.snapshot(work)
    args = _args(work, *extra)
    if "--bins" in extra:  # the case's own --bins replaces the default one (a name given twice is refused)
        at = args.index("--bins")
        del args[at:at + 2]
    outcome = faults.invoke(*args)
    faults.assert_refused(outcome, before, faults.snapshot(work), mention)


def test_numeric_column_without_bounds_names_the_option(faults, work):
    before = faults.snapshot(work)
    args = [a for a in _args(work, "--epsilon", "1") if a not in ("--bins", "age=0:100:10")]
    outcome = faults.invoke(*args)
    faults.assert_refused(outcome, before, faults.snapshot(work), "'age'", "--bins age=MIN:MAX:BINS")


def test_too_many_categories_without_a_domain(faults, work):
    frame = pd.read_csv(work / "data.csv").assign(code=[f"c{i}" for i in range(400)])
    frame.to_csv(work / "data.csv", index=False)
    before = faults.snapshot(work)
    outcome = faults.invoke(*_args(work, "--epsilon", "1", "--max-categories", "100"))
    faults.assert_refused(outcome, before, faults.snapshot(work), "'code'", "--max-categories 100")


@pytest.mark.parametrize("domain, mention", [
    ({"sex": ["F", "M"], "zip": ["1"]}, "'zip'"),
    ({"sex": {"min": 0, "max": 1}}, "'sex'"),
    ([1, 2], "JSON object"),
])
def test_domain_file_that_does_not_match(faults, work, domain, mention):
    (work / "domain.json").write_text(json.dumps(domain))
    before = faults.snapshot(work)
    outcome = faults.invoke(*_args(work, "--epsilon", "1", "--budget-file", work / "ledger.json",
                                   "--budget", "3", "--budget-delta", "1e-6"))
    faults.assert_refused(outcome, before, faults.snapshot(work), mention)


def test_budget_that_does_not_fit_is_refused_before_anything_is_written(faults, work):
    led = ["--budget-file", work / "ledger.json", "--dataset-name", "d"]
    ok = faults.invoke(*_args(work, "--epsilon", "1", *led, "--budget", "1.5", "--budget-delta", "1e-6"))
    assert ok.exit_code == 0, ok.text
    (work / "out.csv").unlink()
    (work / "report.json").unlink()
    before = faults.snapshot(work)
    outcome = faults.invoke(*_args(work, "--epsilon", "1", *led))
    faults.assert_refused(outcome, before, faults.snapshot(work), "epsilon=0.5")


def test_a_new_dataset_whose_budget_cannot_cover_the_synthesis(faults, work):
    before = faults.snapshot(work)
    outcome = faults.invoke(*_args(work, "--epsilon", "1", "--budget-file", work / "ledger.json",
                                   "--dataset-name", "d", "--budget", "3", "--budget-delta", "0"))
    faults.assert_refused(outcome, before, faults.snapshot(work), "--budget-delta")


def test_the_release_leaves_out_identifiers_and_reports_the_ledger(work):
    from tests.faults.conftest import invoke

    outcome = invoke(*_args(work, "--epsilon", "1", "--budget-file", work / "ledger.json", "--budget", "3",
                            "--budget-delta", "1e-6", "--seed", "1"))
    assert outcome.exit_code == 0, outcome.text
    out = (work / "out.csv").read_text()
    assert "Person" not in out and out.splitlines()[0] == "sex,city,age"
    report = json.loads((work / "report.json").read_text())
    assert report["ledger"]["spent"] == {"epsilon": 1.0, "delta": 1e-9}
    assert report["domain_source"] == {"sex": "user", "city": "user", "age": "user"}


def _synthesize_once(path):
    frame = pd.DataFrame({"sex": ["F", "M"] * 200, "city": ["Oslo", "Rome"] * 200})
    acc = PrivacyAccountant.from_ledger(BudgetLedger(path), "shared")
    try:
        synthesize(frame, epsilon=0.5, delta=1e-9, domain=DOMAIN, accountant=acc)
    except BudgetExceededError:
        return "refused"
    return "synthesized"


@pytest.mark.slow
def test_ten_concurrent_syntheses_never_overspend(tmp_path):
    # budget ε=2, each synthesis ε=0.5: exactly 4 of the 10 processes may publish
    path = tmp_path / "ledger.json"
    PrivacyAccountant.from_ledger(BudgetLedger(path), "shared", budget=PrivacyBudget(epsilon=2.0, delta=1e-6))
    with multiprocessing.get_context("fork").Pool(10) as pool:
        results = pool.map(_synthesize_once, [path] * 10, chunksize=1)
    assert results.count("synthesized") == 4 and results.count("refused") == 6
    lines = [json.loads(x) for x in (tmp_path / "ledger.json.journal").read_text().splitlines()]
    spends = [x for x in lines if x["event"] == "spend"]
    assert len(spends) == 4 and sum(s["cost"]["epsilon"] for s in spends) == pytest.approx(2.0)


def test_one_column_and_few_rows_are_synthesized_without_a_traceback(tmp_path):
    from tests.faults.conftest import invoke

    (tmp_path / "one.csv").write_text("sex\nF\nM\nF\n")
    (tmp_path / "d.json").write_text('{"sex": ["F", "M"]}')
    outcome = invoke("synthesize", tmp_path / "one.csv", "--epsilon", "1", "--domain", tmp_path / "d.json",
                     "-o", tmp_path / "out.csv", "--json", tmp_path / "r.json")
    assert outcome.exit_code == 0 and outcome.exception is None, outcome.text
    report = json.loads((tmp_path / "r.json").read_text())
    assert report["marginal_error"]["2way"] is None and report["marginals"]["2way"] == []
    assert (tmp_path / "out.csv").read_text().splitlines()[0] == "sex"


def test_a_category_with_a_leading_zero_is_matched_as_written(tmp_path):
    from tests.faults.conftest import invoke

    (tmp_path / "z.csv").write_text("zip\n" + "02139\n" * 300 + "02142\n" * 300)
    (tmp_path / "d.json").write_text('{"zip": ["02139", "02142"]}')
    outcome = invoke("synthesize", tmp_path / "z.csv", "--epsilon", "1", "--domain", tmp_path / "d.json",
                     "-o", tmp_path / "out.csv", "--json", tmp_path / "r.json")
    assert outcome.exit_code == 0, outcome.text
    assert abs(json.loads((tmp_path / "r.json").read_text())["rows"] - 600) < 200  # no row lost to the typing
    assert set((tmp_path / "out.csv").read_text().split()[1:]) == {"02139", "02142"}


def test_query_and_synthesize_share_the_dataset_key_of_the_ledger(work):
    from tests.faults.conftest import invoke

    ledger = work / "ledger.json"
    first = invoke("query", work / "data.csv", "count", "--epsilon", "0.5", "--budget-file", ledger,
                   "--budget", "2", "--budget-delta", "1e-6")
    assert first.exit_code == 0, first.text
    outcome = invoke(*_args(work, "--epsilon", "1", "--budget-file", ledger))  # no --budget: the same key
    assert outcome.exit_code == 0, outcome.text
    spent = json.loads((work / "report.json").read_text())["ledger"]["spent"]
    assert spent["epsilon"] == pytest.approx(1.5)


def test_an_unknown_identifier_column_is_named_as_an_identifier(faults, work):
    before = faults.snapshot(work)
    outcome = faults.invoke(*_args(work, "--epsilon", "1", "--identifiers", "nope"))
    faults.assert_refused(outcome, before, faults.snapshot(work), "--identifiers names the column 'nope'")
