"""``veil synthesize`` and the budget ledger (issue #36): a synthesis that does not fit is refused before
any row is read (nothing written, exit 2, the ledger unchanged), and concurrent ``veil synthesize``
processes on one ledger publish exactly floor(budget / cost) tables, never more."""

import json
import math
import subprocess
import sys

import numpy as np
import pandas as pd
import pytest

from tests.faults.conftest import assert_refused, invoke, snapshot
from veil.dp import BudgetLedger, PrivacyAccountant, PrivacyBudget

DOMAIN = {"sex": ["F", "M"], "city": ["Oslo", "Rome", "Paris"]}
#: Not a table: any attempt to read it as one fails with a data error.
GARBAGE = b"\x00\xff\xfe not,a\x00table\n\x00\x00\x00\n" * 4


@pytest.fixture
def work(tmp_path):
    rng = np.random.default_rng(5)
    n = 400
    pd.DataFrame({"sex": rng.choice(["F", "M"], n), "city": rng.choice(["Oslo", "Rome"], n),
                  "age": rng.integers(18, 90, n)}).to_csv(tmp_path / "data.csv", index=False)
    (tmp_path / "domain.json").write_text(json.dumps(DOMAIN))
    return tmp_path


def _args(work, epsilon, *extra, data="data.csv", out="out.csv", report="report.json"):
    return ["synthesize", work / data, "--epsilon", str(epsilon), "--domain", work / "domain.json",
            "--bins", "age=0:100:10", "-o", work / out, "--json", work / report, "--budget-file",
            work / "ledger.json", *extra]


def _ledger(work, key, budget, spent=None):
    acc = PrivacyAccountant.from_ledger(BudgetLedger(work / "ledger.json"), key,
                                        budget=PrivacyBudget(epsilon=budget, delta=1e-6))
    if spent is not None:
        acc.spend(PrivacyBudget(epsilon=spent, delta=1e-9), label="earlier synthesis")


def test_a_synthesis_that_does_not_fit_is_refused_before_any_row_is_read(work):
    _ledger(work, "name:people", 1.5, spent=1.0)
    (work / "garbage.csv").write_bytes(GARBAGE)
    before = snapshot(work)
    outcome = invoke(*_args(work, 1, "--dataset-name", "people", data="garbage.csv"))
    # refused for the budget, not for the file: the file was never parsed
    assert_refused(outcome, before, snapshot(work), "epsilon=0.5", "nothing was read")
    # the same command within the budget does read the file, and fails on it
    fits = invoke(*_args(work, 0.25, "--dataset-name", "people", data="garbage.csv"))
    assert fits.exit_code == 2 and "epsilon=0.5" not in fits.stderr
    assert snapshot(work) == before
    spent = PrivacyAccountant.from_ledger(BudgetLedger(work / "ledger.json"), "name:people").spent
    assert spent == PrivacyBudget(epsilon=1.0, delta=1e-9)


def test_a_new_dataset_whose_budget_is_below_the_cost_is_refused_before_any_row_is_read(work):
    (work / "garbage.csv").write_bytes(GARBAGE)
    before = snapshot(work)
    outcome = invoke(*_args(work, 1, "--dataset-name", "new", "--budget", "0.5", "--budget-delta", "1e-6",
                            data="garbage.csv"))
    assert_refused(outcome, before, snapshot(work), "epsilon=0.5", "nothing was read")
    assert not (work / "ledger.json").exists()


def test_a_refused_synthesis_with_report_options_writes_no_control_nor_page(work):
    _ledger(work, "name:people", 1.5, spent=1.0)
    before = snapshot(work)
    outcome = invoke(*_args(work, 1, "--dataset-name", "people", "--html", work / "report.html", "--holdout", "0.2",
                            "--holdout-out", work / "control.csv", "--evaluate"))
    assert_refused(outcome, before, snapshot(work), "epsilon=0.5")


@pytest.mark.slow
@pytest.mark.parametrize("budget, cost", [(2.0, 0.5), (1.7, 0.4)])
def test_ten_concurrent_synthesize_commands_never_overspend(work, budget, cost):
    _ledger(work, "name:shared", budget)
    command = [sys.executable, "-c", "from veil.cli import app; app(prog_name='veil')"]
    procs = [subprocess.Popen(command + [str(a) for a in _args(work, cost, "--dataset-name", "shared",
                                                               out=f"out{i}.csv", report=f"r{i}.json")],
                              stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True) for i in range(10)]
    results = [(p.wait(timeout=600), p.stderr.read()) for p in procs]
    fits = math.floor(budget / cost + 1e-9)
    published = [i for i, (code, _) in enumerate(results) if code == 0]
    refused = [err for code, err in results if code == 2]
    assert len(published) == fits and len(refused) == 10 - fits, results
    # refused by the check before the data is read, or by the ledger's lock when two passed it together
    assert all(err.strip().startswith("error: ") and "remains" in err and len(err.strip().splitlines()) == 1
               for err in refused), refused
    for i in range(10):  # a refused process wrote nothing, a published one both files
        assert (work / f"out{i}.csv").exists() == (work / f"r{i}.json").exists() == (i in published)
    journal = [json.loads(x) for x in (work / "ledger.json.journal").read_text().splitlines()]
    spends = [x for x in journal if x["event"] == "spend"]
    assert len(spends) == fits and sum(s["cost"]["epsilon"] for s in spends) <= budget + 1e-12
    spent = PrivacyAccountant.from_ledger(BudgetLedger(work / "ledger.json"), "name:shared").spent
    assert spent.epsilon == pytest.approx(fits * cost) and spent.epsilon <= budget
