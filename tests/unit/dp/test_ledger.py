"""The budget ledger: format, checksum chain, refusal of damage, and output clashes."""

import hashlib
import json
import math

import pandas as pd
import pytest
from typer.testing import CliRunner

from veil.cli import app
from veil.dp import (BudgetLedger, LedgerError, PrivacyAccountant, PrivacyBudget, PrivateTable,
                     ZCDPBudget, dataset_fingerprint)
from veil.errors import BudgetExceededError, ParameterError

runner = CliRunner()


def _lines(path):
    return path.with_name(path.name + ".journal").read_bytes().splitlines()


def test_journal_format_and_checksum_chain(tmp_path):
    path = tmp_path / "l.json"
    acc = PrivacyAccountant.from_ledger(BudgetLedger(path), "k", budget=PrivacyBudget(2.0, 1e-6))
    acc.spend(PrivacyBudget(epsilon=0.5), label="count")
    acc.spend(PrivacyBudget(epsilon=0.25, delta=1e-7), label="sum x")
    lines = _lines(path)
    events = [json.loads(line) for line in lines]
    assert [e["event"] for e in events] == ["open", "spend", "spend"]
    assert [e["seq"] for e in events] == [0, 1, 2]
    assert events[0]["prev"] == "0" * 64
    for prev_line, event in zip(lines, events[1:]):          # each line hashes the previous one
        assert event["prev"] == hashlib.sha256(prev_line).hexdigest()
    assert events[2]["cost"] == {"kind": "dp", "epsilon": 0.25, "delta": 1e-7}
    assert events[2]["query"] == "sum x"
    index = json.loads(path.read_text())
    assert index["format"] == "veil-budget-ledger" and index["version"] == 2
    assert index["entries"] == 3 and index["head"] == hashlib.sha256(lines[-1]).hexdigest()
    # a second accountant reads the same spends back
    again = PrivacyAccountant.from_ledger(BudgetLedger(path), "k")
    assert again.spent == PrivacyBudget(epsilon=0.75, delta=1e-7)
    assert [e.label for e in again.ledger] == ["count", "sum x"]


def test_the_index_summary_counts_every_journaled_event(tmp_path):
    # the index used to be written from the state read before the event, so it showed a new
    # dataset only after its first spend and every spend count one behind the journal
    path = tmp_path / "l.json"
    acc = PrivacyAccountant.from_ledger(BudgetLedger(path), "k", budget=PrivacyBudget(2.0, 1e-6))
    summary = json.loads(path.read_text())["datasets"]
    assert summary == {"k": {"budget": {"epsilon": 2.0, "delta": 1e-6}, "composition": "basic", "spends": 0}}
    acc.spend(PrivacyBudget(epsilon=0.5), label="count")
    assert json.loads(path.read_text())["datasets"]["k"]["spends"] == 1
    acc.spend(PrivacyBudget(epsilon=0.25), label="count")
    assert json.loads(path.read_text())["datasets"]["k"]["spends"] == 2
    again = PrivacyAccountant.from_ledger(BudgetLedger(path), "k")  # what is read back is unchanged
    assert again.spent == PrivacyBudget(epsilon=0.75)


def test_zcdp_costs_round_trip_and_budget_cannot_change(tmp_path):
    path = tmp_path / "l.json"
    budget = PrivacyBudget(epsilon=1.0, delta=1e-5)
    acc = PrivacyAccountant.from_ledger(BudgetLedger(path), "k", budget=budget,
                                        composition="filter", delta_slack=1e-6)
    acc.spend(ZCDPBudget(rho=0.01, delta=1e-7))
    again = PrivacyAccountant.from_ledger(BudgetLedger(path), "k")
    assert again.composition == "filter" and again.spent_rho == pytest.approx(0.01)
    with pytest.raises(ParameterError, match="cannot be changed"):
        PrivacyAccountant.from_ledger(BudgetLedger(path), "k", budget=PrivacyBudget(epsilon=5.0))
    with pytest.raises(ParameterError, match="give --budget"):
        PrivacyAccountant.from_ledger(BudgetLedger(path), "unknown")


def test_a_journal_one_line_longer_than_its_index_counts_the_extra_spend(tmp_path):
    # a crash after the journal's fsync but before the index's rename: the spend stands
    path = tmp_path / "l.json"
    acc = PrivacyAccountant.from_ledger(BudgetLedger(path), "k", budget=PrivacyBudget(1.0))
    before = path.read_text()
    acc.spend(PrivacyBudget(epsilon=0.75))
    path.write_text(before)                                   # the index of before the spend
    again = PrivacyAccountant.from_ledger(BudgetLedger(path), "k")
    assert again.spent.epsilon == 0.75
    with pytest.raises(BudgetExceededError):
        again.spend(PrivacyBudget(epsilon=0.5))


def test_partial_last_line_and_old_format_are_refused(tmp_path):
    path = tmp_path / "l.json"
    PrivacyAccountant.from_ledger(BudgetLedger(path), "k", budget=PrivacyBudget(1.0))
    journal = path.with_name(path.name + ".journal")
    journal.write_bytes(journal.read_bytes() + b'{"seq": 1')
    with pytest.raises(LedgerError, match="incomplete line"):
        PrivacyAccountant.from_ledger(BudgetLedger(path), "k")
    old = tmp_path / "old.json"
    old.write_text(json.dumps({"version": 1, "datasets": {}}))
    with pytest.raises(LedgerError, match="older veil"):
        PrivacyAccountant.from_ledger(BudgetLedger(old), "k", budget=PrivacyBudget(1.0))


def test_private_table_spends_through_the_ledger(tmp_path):
    frame = pd.DataFrame({"x": range(20)})
    ledger = BudgetLedger(tmp_path / "l.json")
    key = dataset_fingerprint(frame)
    one = PrivateTable(frame, accountant=PrivacyAccountant.from_ledger(
        ledger, key, budget=PrivacyBudget(1.0)))
    two = PrivateTable(frame.iloc[::-1], accountant=PrivacyAccountant.from_ledger(ledger, key))
    one.count(epsilon=0.6)
    with pytest.raises(BudgetExceededError):                  # the other table sees the spend
        two.count(epsilon=0.6)


def test_ledger_and_json_out_never_clash_with_inputs(tmp_path):
    data = tmp_path / "d.csv"
    data.write_text("x\n1\n2\n")
    base = ["query", str(data), "count", "--epsilon", "1", "--budget", "2"]
    r = runner.invoke(app, base + ["--budget-file", str(data)])
    assert r.exit_code == 2 and "input" in r.output and data.read_text() == "x\n1\n2\n"
    ledger = tmp_path / "l.json"
    r = runner.invoke(app, base + ["--budget-file", str(ledger), "--json-out", str(ledger)])
    assert r.exit_code == 2 and "input" in r.output
    r = runner.invoke(app, base + ["--json-out", str(data)])
    assert r.exit_code == 2 and data.read_text() == "x\n1\n2\n"
    out = tmp_path / "answers.json"
    r = runner.invoke(app, base + ["--budget-file", str(ledger), "--json-out", str(out)])
    assert r.exit_code == 0, r.output
    assert json.loads(out.read_text())[0]["query"] == "count"


def test_a_batch_that_cannot_fit_spends_nothing(tmp_path):
    data = tmp_path / "d.csv"
    data.write_text("x\n1\n2\n")
    ledger = tmp_path / "l.json"
    r = runner.invoke(app, ["query", str(data), "count", "count", "count", "--epsilon", "1",
                            "--budget", "2", "--budget-file", str(ledger)])
    assert r.exit_code == 2 and "nothing was spent" in r.output
    assert PrivacyAccountant.from_ledger(BudgetLedger(ledger),
                                         dataset_fingerprint(pd.read_csv(data))).spent.epsilon == 0


def test_pld_composition_matches_the_exact_optimal_composition():
    # k-fold composition of eps0-DP: the privacy loss of the dominating pair is (k - 2i) eps0
    # with i ~ Binomial(k, q), q = 1/(1 + e^eps0) (Kairouz, Oh & Viswanath 2015), so
    # delta(eps) = sum_i C(k, i) (1-q)^(k-i) q^i (1 - e^(eps - (k - 2i) eps0))_+ exactly.
    from veil.dp._composition import pld_epsilon
    k, eps0, delta = 20, 0.1, 1e-6
    q = 1 / (1 + math.exp(eps0))

    def exact_delta(eps):
        return sum(math.comb(k, i) * (1 - q) ** (k - i) * q ** i
                   * max(0.0, 1 - math.exp(eps - (k - 2 * i) * eps0)) for i in range(k + 1))

    lo, hi = 0.0, k * eps0
    for _ in range(100):
        mid = (lo + hi) / 2
        lo, hi = (lo, mid) if exact_delta(mid) <= delta else (mid, hi)
    got = pld_epsilon([PrivacyBudget(epsilon=eps0)] * k, delta)
    assert hi * (1 - 1e-9) <= got <= hi * 1.01     # a valid (pessimistic) bound, within 1%
    acc = PrivacyAccountant(budget=PrivacyBudget(epsilon=5.0, delta=1e-5), composition="pld",
                            delta_slack=1e-6)
    for _ in range(k):
        acc.spend(PrivacyBudget(epsilon=eps0))
    assert acc.spent.epsilon == pytest.approx(got) and acc.spent.epsilon < k * eps0
