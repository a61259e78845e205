"""Concurrency: many processes and threads on one budget ledger spend exactly what fits.

Finding 1 (30 concurrent ``veil query`` runs printed 30 answers against a budget for 6) and
finding 4 (threads: 25 answers against a budget of 10) of issue #15.
"""

import json
import multiprocessing
import os
import subprocess
import sys
import threading
import time

import pytest

import veil.dp._accountant as accountant_module
from veil.dp import BudgetLedger, PrivacyAccountant, PrivacyBudget
from veil.errors import BudgetExceededError


def _journal_spends(path):
    lines = (path.parent / (path.name + ".journal")).read_text().splitlines()
    return [json.loads(line) for line in lines if json.loads(line)["event"] == "spend"]


def _spend_once(path, queue):
    acc = PrivacyAccountant.from_ledger(BudgetLedger(path), "shared")
    try:
        acc.spend(PrivacyBudget(epsilon=0.5), label=f"pid {os.getpid()}")
        queue.put("answer")
    except BudgetExceededError:
        queue.put("refused")


def test_fifty_processes_spend_exactly_what_fits(tmp_path):
    # budget 10, cost 0.5 each: exactly 20 of the 50 processes may answer
    path = tmp_path / "ledger.json"
    PrivacyAccountant.from_ledger(BudgetLedger(path), "shared", budget=PrivacyBudget(epsilon=10.0))
    ctx = multiprocessing.get_context("fork")
    queue = ctx.Queue()
    procs = [ctx.Process(target=_spend_once, args=(path, queue)) for _ in range(50)]
    for p in procs:
        p.start()
    results = [queue.get(timeout=120) for _ in procs]
    for p in procs:
        p.join(timeout=60)
    assert results.count("answer") == 20 and results.count("refused") == 30
    spends = _journal_spends(path)
    assert len(spends) == 20                                   # the journal agrees
    assert sum(s["cost"]["epsilon"] for s in spends) == pytest.approx(10.0)
    assert PrivacyAccountant.from_ledger(BudgetLedger(path), "shared").spent.epsilon == 10.0


@pytest.mark.parametrize("persistent", [False, True])
def test_sixteen_threads_with_a_delay_between_check_and_update(tmp_path, monkeypatch, persistent):
    # a 5 ms pause inside the check widens any race between check and update (finding 4)
    real = accountant_module.composed

    def slow(*args, **kw):
        time.sleep(0.005)
        return real(*args, **kw)

    monkeypatch.setattr(accountant_module, "composed", slow)
    budget = PrivacyBudget(epsilon=10.0)
    if persistent:
        acc = PrivacyAccountant.from_ledger(BudgetLedger(tmp_path / "l.json"), "d", budget=budget)
    else:
        acc = PrivacyAccountant(budget=budget)
    answers, refused = [], []

    def worker():
        for _ in range(4):
            try:
                acc.spend(PrivacyBudget(epsilon=0.5))
                answers.append(1)
            except BudgetExceededError:
                refused.append(1)

    threads = [threading.Thread(target=worker) for _ in range(16)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert len(answers) == 20 and len(refused) == 44      # 10 / 0.5 = 20 of 64 attempts
    assert acc.spent.epsilon == pytest.approx(10.0)
    if persistent:
        assert len(_journal_spends(tmp_path / "l.json")) == 20


@pytest.mark.slow
def test_concurrent_cli_runs_print_only_what_fits(tmp_path):
    # finding 1 from the command line: budget 3, epsilon 0.5 each, 10 concurrent runs: 6 answers
    data = tmp_path / "d.csv"
    data.write_text("age\n" + "".join(f"{20 + i % 50}\n" for i in range(200)))
    ledger = tmp_path / "budget.json"
    args = [sys.executable, "-c", "from veil.cli import app; app(prog_name='veil')", "query", str(data), "count", "--epsilon", "0.5",
            "--budget-file", str(ledger), "--budget", "3", "--json"]
    procs = [subprocess.Popen(args, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                              env=os.environ.copy()) for _ in range(10)]
    outs = [p.communicate(timeout=300) for p in procs]
    codes = [p.returncode for p in procs]
    answered = [o for o, _ in outs if o.strip().startswith("{")]
    assert len(answered) == 6 and codes.count(0) == 6 and codes.count(2) == 4
    assert len(_journal_spends(ledger)) == 6
