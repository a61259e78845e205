"""Fault corpus of ``veil anonymize --algorithm safepub --budget-file`` (issue #36): SafePub's (ε, δ) is
charged once to the budget ledger of ``veil query`` and ``veil synthesize``; a release that does not fit
is refused (one line, exit 2) before the release reads the data, nothing written, the ledger unchanged.
Also the default δ budget of a new dataset (``--budget-delta`` left out), shared with ``veil synthesize``."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from veil.dp import BudgetLedger, PrivacyAccountant, PrivacyBudget
from veil.hierarchy import Hierarchy, from_csv

AGES = [str(a) for a in range(20, 60)]


@pytest.fixture
def work(tmp_path: Path) -> Path:
    rng = np.random.default_rng(11)
    n = 3000
    pd.DataFrame({"age": rng.choice(AGES, n), "sex": rng.choice(["F", "M"], n),
                  "zip": rng.choice(["47677", "47678", "47905", "47906"], n)}).to_csv(tmp_path / "data.csv", index=False)
    Hierarchy.from_rows([[a, f"{int(a) // 10 * 10}-{int(a) // 10 * 10 + 9}", "*"] for a in AGES]).to_csv(
        tmp_path / "age.csv")
    Hierarchy.from_rows([["F", "*"], ["M", "*"]]).to_csv(tmp_path / "sex.csv")
    Hierarchy.from_rows([[z, z[:4] + "*", "*"] for z in ("47677", "47678", "47905", "47906")]).to_csv(
        tmp_path / "zip.csv")
    return tmp_path


def _args(work: Path, *extra: object, out: str = "o") -> list[object]:
    args: list[object] = ["anonymize", work / "data.csv", "--qi", "age,sex,zip", "-o", work / f"{out}.csv",
                          "--json", work / f"{out}.json", "-q", "--epsilon", "2", "--delta", "1e-3"]
    for name in ("age", "sex", "zip"):
        args += ["--hierarchy", f"{name}={work / f'{name}.csv'}"]
    return args + list(extra)


def _spends(ledger: Path) -> list[dict]:
    lines = [json.loads(line) for line in ledger.with_name(ledger.name + ".journal").read_text().splitlines()]
    return [line for line in lines if line["event"] == "spend"]


def test_the_release_is_charged_once_and_reports_spend_and_remainder(work: Path) -> None:
    from tests.faults.conftest import invoke

    ledger = work / "ledger.json"
    outcome = invoke(*_args(work, "--budget-file", ledger, "--budget", "5", "--budget-delta", "1e-2",
                            "--dataset-name", "clinic", "--html", work / "o.html"))
    assert outcome.exit_code == 0, outcome.text
    report = json.loads((work / "o.json").read_text())
    assert report["ledger"]["dataset"] == "name:clinic"
    assert report["ledger"]["budget"] == {"epsilon": 5.0, "delta": 1e-2}
    assert report["ledger"]["spent"] == {"epsilon": 2.0, "delta": 1e-3}
    assert report["ledger"]["remaining"]["epsilon"] == pytest.approx(3.0)
    assert report["ledger"]["remaining"]["delta"] == pytest.approx(9e-3)
    assert "ledger" not in report["recoding"]["details"]
    assert [s["cost"] for s in _spends(ledger)] == [{"kind": "dp", "epsilon": 2.0, "delta": 1e-3}]
    html = (work / "o.html").read_text()
    assert "ledger › remaining › epsilon" in html and "ledger › spent › delta" in html


def test_a_release_that_does_not_fit_is_refused_before_any_row_is_read(faults, work: Path) -> None:
    led = ["--budget-file", work / "ledger.json", "--dataset-name", "clinic"]
    first = faults.invoke(*_args(work, *led, "--budget", "3"))
    assert first.exit_code == 0, first.text
    (work / "data.csv").write_text("age,sex,zip\n1,2\n")  # a ragged row: any read of it fails
    before = faults.snapshot(work)
    outcome = faults.invoke(*_args(work, *led, out="again"))
    faults.assert_refused(outcome, before, faults.snapshot(work), "epsilon=2", "epsilon=1", "nothing was read")


def test_a_new_dataset_whose_budget_cannot_cover_the_release(faults, work: Path) -> None:
    before = faults.snapshot(work)
    outcome = faults.invoke(*_args(work, "--budget-file", work / "ledger.json", "--budget", "1.5"))
    faults.assert_refused(outcome, before, faults.snapshot(work), "epsilon=2", "epsilon=1.5")


def test_a_zero_delta_budget_is_refused_naming_budget_delta(faults, work: Path) -> None:
    before = faults.snapshot(work)
    outcome = faults.invoke(*_args(work, "--budget-file", work / "ledger.json", "--budget", "3",
                                   "--budget-delta", "0"))
    faults.assert_refused(outcome, before, faults.snapshot(work), "--budget-delta", "delta=0")


def test_the_ledger_of_veil_query_is_charged_and_refuses_by_fingerprint(faults, work: Path) -> None:
    ledger = work / "ledger.json"
    query = faults.invoke("query", work / "data.csv", "count", "--epsilon", "1.5", "--budget-file", ledger,
                          "--budget", "3", "--budget-delta", "1e-3")
    assert query.exit_code == 0, query.text
    before = faults.snapshot(work)
    outcome = faults.invoke(*_args(work, "--budget-file", ledger))  # the same records: the same key
    faults.assert_refused(outcome, before, faults.snapshot(work), "epsilon=1.5", "nothing was spent")


def test_a_ledger_option_without_safepub_is_refused(faults, work: Path) -> None:
    args = [a for a in _args(work, "--budget-file", work / "ledger.json", "--budget", "3")
            if a not in ("--epsilon", "2", "--delta", "1e-3")]
    before = faults.snapshot(work)
    outcome = faults.invoke(*args, "-k", "5")
    faults.assert_refused(outcome, before, faults.snapshot(work), "--algorithm safepub")


def test_the_ledger_is_never_an_output(faults, work: Path) -> None:
    before = faults.snapshot(work)
    outcome = faults.invoke(*_args(work, "--budget-file", work / "o.json", "--budget", "3"))
    faults.assert_refused(outcome, before, faults.snapshot(work), "o.json")


def test_the_ledger_options_beside_a_configuration(faults, work: Path) -> None:
    (work / "release.yaml").write_text(
        "input: {path: data.csv}\nattributes:\n"
        + "".join(f"  {n}: {{role: quasi-identifier, hierarchy: {{file: {n}.csv}}}}\n" for n in ("age", "sex", "zip"))
        + "models: [{type: dp, epsilon: 2, delta: 0.001}]\nalgorithm: safepub\nsuppression_limit: 1\n"
        + "suppressed: drop\noutput: {path: out.csv, report: out.json}\n")
    led = ["--budget-file", work / "ledger.json", "--dataset-name", "d"]
    first = faults.invoke("anonymize", work / "release.yaml", *led, "--budget", "3", "-q")
    assert first.exit_code == 0, first.text
    assert json.loads((work / "out.json").read_text())["ledger"]["remaining"]["epsilon"] == pytest.approx(1.0)
    (work / "out.csv").unlink()
    (work / "out.json").unlink()
    before = faults.snapshot(work)
    outcome = faults.invoke("anonymize", work / "release.yaml", *led, "-q")
    faults.assert_refused(outcome, before, faults.snapshot(work), "epsilon and delta are short")


def test_a_spend_refused_at_the_charge_writes_nothing(work: Path) -> None:
    """Another process spent between the check and the charge: the charge refuses, nothing is released."""
    import veil
    from veil.errors import BudgetExceededError
    from veil.models import DifferentialPrivacy

    acc = PrivacyAccountant(budget=PrivacyBudget(epsilon=3.0, delta=1e-2))
    acc.spend(PrivacyBudget(epsilon=1.5))
    frame = pd.read_csv(work / "data.csv", dtype=str)
    hierarchies = {n: from_csv(str(work / f"{n}.csv"), name=n) for n in ("age", "sex", "zip")}
    with pytest.raises(BudgetExceededError):
        veil.anonymize(frame, [DifferentialPrivacy(epsilon=2, delta=1e-3)], quasi_identifiers=["age", "sex", "zip"],
                       hierarchies=hierarchies, algorithm="safepub", suppression=1.0, suppressed="drop",
                       options={"accountant": acc})
    assert len(acc.ledger) == 1


# --------------------------------------------------------------------- the δ budget of a new dataset
def test_without_budget_delta_a_new_dataset_allows_delta_for_as_many_releases_as_epsilon(work: Path) -> None:
    from tests.faults.conftest import invoke

    ledger = work / "ledger.json"
    for run, code in enumerate((0, 2)):  # ε budget 3 allows one release of ε = 2: δ budget 1 × 1e-3
        outcome = invoke(*_args(work, "--budget-file", ledger, "--budget", "3", "--dataset-name", "d",
                                out=f"o{run}"))
        assert outcome.exit_code == code, outcome.text
    header = BudgetLedger(ledger).open_dataset("name:d", budget=None)
    assert header["budget"] == PrivacyBudget(epsilon=3.0, delta=1e-3)
    assert len(_spends(ledger)) == 1


def test_the_issue_example_synthesize_with_budget_and_no_budget_delta(work: Path) -> None:
    """``veil synthesize --epsilon 1 --budget-file l.json --budget 3``: δ budget 3 × 1e-9, three syntheses."""
    from tests.faults.conftest import invoke

    ledger = work / "l.json"
    args = ["synthesize", work / "data.csv", "--epsilon", "1", "--budget-file", ledger, "--budget", "3",
            "--bins", "age=20:60:4", "--bins", "zip=47600:48000:4"]
    codes = [invoke(*args, "-o", work / f"s{i}.csv").exit_code for i in range(4)]
    assert codes == [0, 0, 0, 2]
    (key,) = [k for k in json.loads(ledger.read_text())["datasets"]]
    budget = BudgetLedger(ledger).open_dataset(key, budget=None)["budget"]
    assert (budget.epsilon, budget.delta) == (3.0, pytest.approx(3e-9, rel=1e-12))


def _release_once(args: tuple[str, str]) -> str:
    import veil
    from veil.errors import BudgetExceededError
    from veil.models import DifferentialPrivacy

    ledger, folder = args
    frame = pd.read_csv(Path(folder) / "data.csv", dtype=str)
    hierarchies = {n: from_csv(str(Path(folder) / f"{n}.csv"), name=n) for n in ("age", "sex", "zip")}
    acc = PrivacyAccountant.from_ledger(BudgetLedger(ledger), "shared")
    try:
        veil.anonymize(frame, [DifferentialPrivacy(epsilon=2, delta=1e-3)], quasi_identifiers=["age", "sex", "zip"],
                       hierarchies=hierarchies, algorithm="safepub", suppression=1.0, suppressed="drop",
                       options={"accountant": acc})
    except BudgetExceededError:
        return "refused"
    return "released"


@pytest.mark.slow
def test_six_concurrent_releases_never_overspend(work: Path) -> None:
    import multiprocessing

    # budget ε = 5, each release ε = 2: exactly 2 of the 6 processes may release
    ledger = work / "ledger.json"
    PrivacyAccountant.from_ledger(BudgetLedger(ledger), "shared", budget=PrivacyBudget(epsilon=5.0, delta=1e-2))
    with multiprocessing.get_context("fork").Pool(6) as pool:
        results = pool.map(_release_once, [(str(ledger), str(work))] * 6, chunksize=1)
    assert results.count("released") == 2 and results.count("refused") == 4
    assert sum(s["cost"]["epsilon"] for s in _spends(ledger)) == pytest.approx(4.0)
