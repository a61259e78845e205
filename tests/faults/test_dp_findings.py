"""One test per finding of issue #15 (each failed on main before the fix).

Findings 1 and 4 (concurrency) are in ``test_dp_concurrency.py``.
"""

import json
import math
import pathlib

import numpy as np
import pandas as pd
import pytest
from typer.testing import CliRunner

from veil.cli import app
from veil.dp import (BudgetLedger, ExponentialMechanism, GaussianMechanism, LedgerError,
                     PermuteAndFlip, PrivacyAccountant, PrivacyBudget, PrivateTable,
                     RandomizedResponse, dataset_fingerprint, paillier_noisy_total)
from veil.errors import SchemaError

runner = CliRunner()
ROWS = "".join(f"P{i},{20 + i % 60},{'FM'[i % 2]}\n" for i in range(120))


def _query(path, ledger, *extra):
    return runner.invoke(app, ["query", str(path), "count", "--epsilon", "1", "--budget-file",
                               str(ledger), *extra])


@pytest.fixture
def spent(tmp_path):
    """A dataset whose whole budget (2) is spent, and its ledger."""
    data = tmp_path / "people.csv"
    data.write_text("name,age,sex\n" + ROWS)
    ledger = tmp_path / "budget.json"
    assert _query(data, ledger, "--budget", "2").exit_code == 0
    assert _query(data, ledger).exit_code == 0
    assert "remains" in _query(data, ledger).output
    return data, ledger


# -- finding 2: a fresh budget for the same data -------------------------------------------
@pytest.mark.parametrize("edit", ["blank line", "reversed rows", "crlf", "no final newline",
                                  "other name", "columns swapped"])
def test_the_same_records_never_get_a_fresh_budget(spent, edit):
    data, ledger = spent
    text = data.read_text()
    header, *rows = text.splitlines()
    target = data
    if edit == "blank line":
        data.write_text(text + "\n")
    elif edit == "reversed rows":
        data.write_text("\n".join([header, *rows[::-1]]) + "\n")
    elif edit == "crlf":
        data.write_bytes(text.replace("\n", "\r\n").encode())
    elif edit == "no final newline":
        data.write_text(text.rstrip("\n"))
    elif edit == "other name":
        target = data.with_name("copy.csv")
        target.write_text(text)
    else:
        frame = pd.read_csv(data)
        frame[["sex", "name", "age"]].to_csv(data, index=False)
    r = _query(target, ledger, "--budget", "2")   # main: a fresh budget of 2, exit 0
    assert r.exit_code == 2 and "remains" in r.output


def test_fingerprint_changes_when_a_value_does():
    a = pd.DataFrame({"x": [1, 2, 3]})
    assert dataset_fingerprint(a) != dataset_fingerprint(pd.DataFrame({"x": [1, 2, 4]}))


@pytest.mark.parametrize("damage", ["delete journal", "truncate journal", "edit journal",
                                    "drop dataset from index", "delete index"])
def test_a_damaged_ledger_is_an_error_never_a_fresh_budget(spent, damage):
    data, ledger = spent
    journal = ledger.with_name(ledger.name + ".journal")
    lines = journal.read_text().splitlines(keepends=True)
    if damage == "delete journal":
        journal.unlink()
    elif damage == "truncate journal":
        journal.write_text("".join(lines[:-1]))
    elif damage == "edit journal":
        journal.write_text("".join(lines[:-1]) + lines[-1].replace('"epsilon":1.0', '"epsilon":0.1'))
    elif damage == "drop dataset from index":
        index = json.loads(ledger.read_text())
        index["datasets"] = {}
        ledger.write_text(json.dumps(index))
    else:
        ledger.unlink()
    r = _query(data, ledger, "--budget", "2")
    assert r.exit_code == 2
    assert "remains" in r.output or "journal" in r.output or "cannot be changed" in r.output
    assert "count:" not in r.output and "Traceback" not in r.output


def test_declared_dataset_name_keys_the_ledger(tmp_path):
    one, two = tmp_path / "a.csv", tmp_path / "b.csv"
    one.write_text("x\n1\n2\n")
    two.write_text("x\n1\n2\n3\n")                      # a changed copy: another fingerprint
    ledger = tmp_path / "l.json"
    assert _query(one, ledger, "--budget", "1", "--dataset-name", "survey").exit_code == 0
    r = _query(two, ledger, "--dataset-name", "survey")
    assert r.exit_code == 2 and "remains" in r.output


# -- finding 3: answers printed before the spend is saved ----------------------------------
def test_no_answer_when_the_ledger_cannot_be_written(tmp_path):
    # main printed the answers in a `finally` even when saving the spend failed
    data = tmp_path / "d.csv"
    data.write_text("name,age,sex\n" + ROWS)
    blocker = tmp_path / "not-a-folder"
    blocker.write_text("")
    r = _query(data, blocker / "budget.json", "--budget", "3")
    assert r.exit_code == 2 and "count:" not in r.output and "Traceback" not in r.output


def test_no_noise_is_drawn_when_the_spend_cannot_be_saved(tmp_path, monkeypatch):
    import veil.dp._ledger as ledger_module
    acc = PrivacyAccountant.from_ledger(BudgetLedger(tmp_path / "l.json"), "k",
                                        budget=PrivacyBudget(epsilon=5.0))
    table = PrivateTable(pd.DataFrame({"x": range(10)}), accountant=acc)

    def broken(fd):
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(ledger_module.os, "fsync", broken)
    with pytest.raises(LedgerError, match="No answer was given"):
        table.count(epsilon=1.0)


def test_the_spend_is_fsynced_before_the_answer(tmp_path, monkeypatch):
    import veil.dp._ledger as ledger_module
    order = []
    real_fsync = ledger_module.os.fsync
    monkeypatch.setattr(ledger_module.os, "fsync", lambda fd: (order.append("fsync"), real_fsync(fd)))
    acc = PrivacyAccountant.from_ledger(BudgetLedger(tmp_path / "l.json"), "k",
                                        budget=PrivacyBudget(epsilon=5.0))
    order.clear()
    table = PrivateTable(pd.DataFrame({"x": range(10)}), accountant=acc)
    table.count(epsilon=1.0)
    order.append("answer")
    assert order[0] == "fsync" and order[-1] == "answer"


# -- finding 5: the sensitivity depends on n ------------------------------------------------
def test_sum_metadata_does_not_depend_on_n():
    # main: n = 40960 gave sensitivity 0.1000000000003638, n = 40961 gave 0.09999999999854481
    out = []
    for n in (40_960, 40_961):
        acc = PrivacyAccountant(budget=PrivacyBudget(epsilon=10.0))
        t = PrivateTable(pd.DataFrame({"v": np.full(n, 0.05)}), accountant=acc)
        a = t.sum("v", lower=0.0, upper=0.1, epsilon=1.0)
        out.append((a.sensitivity, a.noise_scale, a.details["sensitivity"]))
    assert out[0] == out[1]


# -- finding 6: the aggregator learns the readings from the exponents -----------------------
def test_paillier_exponents_and_sizes_carry_no_information():
    from phe import paillier
    pk, sk = paillier.generate_paillier_keypair(n_length=512)
    rng = np.random.default_rng(7)  # noise shares (simulation) only
    readings = np.repeat([0.02, 9.0], 150)
    res = paillier_noisy_total(readings, epsilon=1.0, sensitivity=10.0, rng=rng,
                               public_key=pk, private_key=sk)
    exps = {c.exponent for c in res["ciphertexts"]}
    assert exps == {0}                                          # one public exponent for all
    sizes = np.array([c.ciphertext(be_secure=False).bit_length() for c in res["ciphertexts"]])
    low, high = sizes[:150], sizes[150:]
    # the best threshold rule on the size: its accuracy must be near chance (0.5); with 300
    # samples a coin reaches 0.58 with probability < 0.3% (binomial), so 0.62 is a loose bound
    best = max(max(np.mean(np.r_[low <= t, high > t]), np.mean(np.r_[low > t, high <= t]))
               for t in np.unique(sizes))
    assert best < 0.62
    assert abs(res["value"] - readings.sum()) < 200              # total + Laplace(10)


# -- finding 7: rows without a unit ID merged into one unit ---------------------------------
def test_missing_unit_ids_are_an_error_or_their_own_units():
    frame = pd.DataFrame({"uid": [1, 1, None, None, None], "x": range(5)})
    acc = PrivacyAccountant(budget=PrivacyBudget(epsilon=1e4))
    with pytest.raises(SchemaError, match="'uid' has 3 rows without an ID"):
        PrivateTable(frame, accountant=acc, privacy_unit="uid")
    t = PrivateTable(frame, accountant=acc, privacy_unit="uid", missing_units="own_unit")
    # m = 1 row per unit: unit 1 keeps one row, each of the three missing-ID rows is its own unit
    assert t.count(epsilon=1000.0).value == pytest.approx(4, abs=1)


# -- finding 8: claims that no privacy map certifies ------------------------------------------
def test_gaussian_epsilon_is_certified_at_the_discrete_sampler():
    from veil.dp._sampler import opendp
    dp = opendp()
    g = GaussianMechanism(epsilon=1.0, delta=1e-5)
    meas = dp.m.make_gaussian(dp.atom_domain(T=float, nan=False), dp.absolute_distance(T=float),
                              scale=g.scale)
    certified = dp.c.make_fix_delta(dp.c.make_zCDP_to_approxDP(meas), 1e-5).map(1.0)
    assert certified[0] <= 1.0 and certified[1] == 1e-5
    # the analytic sigma of the continuous Gaussian (3.7306) is not certified (1.092 > 1)
    old = dp.m.make_gaussian(dp.atom_domain(T=float, nan=False), dp.absolute_distance(T=float),
                             scale=3.7306)
    assert dp.c.make_fix_delta(dp.c.make_zCDP_to_approxDP(old), 1e-5).map(1.0)[0] > 1.09


def test_selection_mechanisms_are_named_for_their_distribution():
    scores = [0.0, 1.0, 2.0]
    e, p = ExponentialMechanism(epsilon=1.0), PermuteAndFlip(epsilon=1.0)
    # exponential: exp(u/2) normalised = [0.1863, 0.3072, 0.5065]
    assert e.probabilities(scores) == pytest.approx([0.18632, 0.30720, 0.50648], abs=1e-5)
    # permute-and-flip by hand: p = [e^-1, e^-0.5, 1]; P(top) = int (1-t e^-1)(1-t e^-0.5) dt
    a, b = math.exp(-1), math.exp(-0.5)
    top = 1 - (a + b) / 2 + a * b / 3
    assert p.probabilities(scores)[2] == pytest.approx(top, rel=1e-12)
    assert p.probabilities(scores).sum() == pytest.approx(1.0)


# -- finding 9: rough edges ---------------------------------------------------------------
def test_rr_estimates_can_be_projected():
    rr = RandomizedResponse(p=0.75)
    ests = np.array([rr.estimate(rr.randomize(np.zeros(50, dtype=bool))) for _ in range(200)])
    assert (ests < 0).mean() > 0.3                   # unprojected: many below 0 at n = 50
    proj = [rr.estimate(rr.randomize(np.zeros(50, dtype=bool)), project=True) for _ in range(200)]
    assert min(proj) >= 0.0 and max(proj) <= 1.0


@pytest.mark.parametrize("eps", ["1e-320", "1e300"])
def test_tiny_or_huge_epsilon_is_a_clear_error(tmp_path, eps):
    data = tmp_path / "d.csv"
    data.write_text("name,age,sex\n" + ROWS)
    r = runner.invoke(app, ["query", str(data), "sum age", "--lower", "0", "--upper", "100",
                            "--epsilon", eps, "--budget", "1e301"])
    assert r.exit_code == 2 and "'epsilon'" in r.output and "Traceback" not in r.output


def test_one_column_csv_is_read(tmp_path):
    data = tmp_path / "one.csv"
    data.write_text("age\n" + "".join(f"{20 + i % 50}\n" for i in range(100)))
    r = runner.invoke(app, ["query", str(data), "sum age", "--lower", "0", "--upper", "100",
                            "--epsilon", "1000", "--budget", "2000", "--json"])
    assert r.exit_code == 0, r.output
    assert json.loads(r.output.splitlines()[0])["value"] == pytest.approx(4450, abs=5)


def test_docs_example_and_contrib_wording():
    docs = (pathlib.Path(__file__).parents[2] / "docs" / "dp.md").read_text()
    # consistent counts of the seed: 168.15 / 83.85, rounded: 168 / 84 (sum 252)
    assert "rounded 168/84" in docs and "post-processed 168/83" not in docs
    assert "vetted samplers" not in docs and "contrib" in docs
