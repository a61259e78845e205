"""Bad input for statistical disclosure control (issue 34): each refused in one line, exit 2, nothing written."""

from __future__ import annotations

from pathlib import Path

import pytest

GOOD = "a,b,w,hh\n" + "".join(f"{i % 3},{i % 2},{10 + i},{i // 2}\n" for i in range(12))


def _table(**changes: str) -> str:
    """GOOD with the cell of column ``name`` at data row ``row`` (1-based) replaced: ``name_row=value``."""
    lines = GOOD.splitlines()
    header = lines[0].split(",")
    for key, value in changes.items():
        name, row = key.rsplit("_", 1)
        cells = lines[int(row)].split(",")
        cells[header.index(name)] = value
        lines[int(row)] = ",".join(cells)
    return "\n".join(lines) + "\n"


#: case -> (table, extra arguments, words the error must contain)
CASES: dict[str, tuple[str, list[str], tuple[str, ...]]] = {
    "weight-column-missing": (GOOD, ["--weight", "nope"], ("'nope'",)),
    "weight-missing-value": (_table(w_4=""), ["--weight", "w"], ("'w'", "row 4")),
    "weight-non-numeric": (_table(w_3="ten"), ["--weight", "w"], ("'w'", "row 3", "not numeric")),
    "weight-zero": (_table(w_5="0"), ["--weight", "w"], ("'w'", "row 5", "zero")),
    "weight-negative": (_table(w_2="-3"), ["--weight", "w"], ("'w'", "row 2", "negative")),
    "household-blank": (_table(hh_6=" "), ["--household", "hh"], ("'hh'", "row 6", "blank")),
    "household-column-missing": (GOOD, ["--household", "nope"], ("'nope'",)),
    "suda-max-size-zero": (GOOD, ["--suda", "--suda-max-size", "0"], ("--suda-max-size", "Got 0")),
    "suda-max-size-above-qis": (GOOD, ["--suda-max-size", "3"], ("--suda-max-size", "between 1 and 2")),
    "dis-fraction-zero": (GOOD, ["--suda", "--dis-fraction", "0"], ("--dis-fraction",)),
    "risk-method-unknown": (GOOD, ["--risk-method", "guess"], ("--risk-method",)),
    "weight-with-engine": (GOOD, ["--weight", "w", "--engine", "duckdb"], ("--weight", "--engine duckdb")),
}


@pytest.mark.parametrize("case", sorted(CASES))
def test_risk_sdc_input_refused(faults, tmp_path: Path, case):
    text, extra, words = CASES[case]
    data = tmp_path / "data.csv"
    data.write_text(text)
    before = faults.snapshot(tmp_path)
    outcome = faults.invoke("risk", data, "--qi", "a,b", *extra, "--json", tmp_path / "r.json",
                            "--per-record", tmp_path / "rows.csv")
    faults.assert_refused(outcome, before, faults.snapshot(tmp_path), *words)


#: local suppression: case -> (extra arguments of ``veil anonymize``, words the error must contain)
SUPPRESSION_CASES: dict[str, tuple[list[str], tuple[str, ...]]] = {
    "k-larger-than-table": (["-k", "13"], ("k=13", "larger than the table")),
    "importance-unknown-column": (["-k", "2", "--importance", "a,zz"], ("importance", "'zz'")),
    "importance-missing-qi": (["-k", "2", "--importance", "a"], ("importance", "'b' is missing")),
    "importance-twice": (["-k", "2", "--importance", "a,b,a"], ("importance", "twice")),
    "local-suppression-with-l-diversity": (["-k", "2", "-l", "hh:2", "--sensitive", "hh"], ("k-anonymity only",)),
}


@pytest.mark.parametrize("case", sorted(SUPPRESSION_CASES))
def test_local_suppression_input_refused(faults, tmp_path: Path, case):
    extra, words = SUPPRESSION_CASES[case]
    data = tmp_path / "data.csv"
    data.write_text(GOOD)
    before = faults.snapshot(tmp_path)
    outcome = faults.invoke("anonymize", data, "--qi", "a,b", "--algorithm", "local-suppression", *extra,
                            "-o", tmp_path / "out.csv", "--json", tmp_path / "r.json")
    faults.assert_refused(outcome, before, faults.snapshot(tmp_path), *words)


NUMBERS = "id,x,y,t\n" + "".join(f"{i},{i * 1.5},{100 - i},{'ab'[i % 2]}\n" for i in range(12))

#: perturbation: case -> (table, extra arguments of ``veil perturb``, words the error must contain)
PERTURB_CASES: dict[str, tuple[str, list[str], tuple[str, ...]]] = {
    "non-numeric-column": (NUMBERS, ["--method", "noise", "--columns", "x,t"], ("'t'", "row 1", "not numeric")),
    "non-numeric-cell": (NUMBERS.replace("\n4,6.0,", "\n4,six,"), ["--method", "rank-swap", "--columns", "x"],
                         ("'x'", "row 5", "not numeric")),
    "missing-cell": (NUMBERS.replace("\n3,4.5,", "\n3,,"), ["--method", "correlated-noise", "--columns", "x,y"],
                     ("'x'", "row 4", "missing")),
    "unknown-column": (NUMBERS, ["--method", "noise", "--columns", "zz"], ("'zz'",)),
    "unknown-method": (NUMBERS, ["--method", "blur", "--columns", "x"], ("--method", "'blur'")),
    "delta-out-of-range": (NUMBERS, ["--method", "correlated-noise", "--columns", "x", "--delta", "1.5"],
                           ("'delta'",)),
    "k-larger-than-table": (NUMBERS, ["--method", "mdav", "--columns", "x", "-k", "50"], ("'k'",)),
}


@pytest.mark.parametrize("case", sorted(PERTURB_CASES))
def test_perturb_input_refused(faults, tmp_path: Path, case):
    text, extra, words = PERTURB_CASES[case]
    data = tmp_path / "data.csv"
    data.write_text(text)
    before = faults.snapshot(tmp_path)
    outcome = faults.invoke("perturb", data, *extra, "-o", tmp_path / "out.csv", "--json", tmp_path / "r.json")
    faults.assert_refused(outcome, before, faults.snapshot(tmp_path), *words)


#: outputs that would overwrite the input: case -> (command arguments with {data})
OVERWRITE_CASES: dict[str, list[str]] = {
    "per-record-is-input": ["risk", "{data}", "--qi", "a,b", "--per-record", "{data}"],
    "html-is-input": ["risk", "{data}", "--qi", "a,b", "--suda", "--html", "{data}"],
    "perturb-output-is-input": ["perturb", "{data}", "--method", "noise", "--columns", "w", "-o", "{data}"],
    "perturb-json-is-input": ["perturb", "{data}", "--method", "noise", "--columns", "w", "-o", "{out}",
                              "--json", "{data}"],
}


@pytest.mark.parametrize("case", sorted(OVERWRITE_CASES))
def test_outputs_never_overwrite_the_input(faults, tmp_path: Path, case):
    data = tmp_path / "data.csv"
    data.write_text(GOOD)
    before = faults.snapshot(tmp_path)
    args = [a.replace("{data}", str(data)).replace("{out}", str(tmp_path / "out.csv")) for a in OVERWRITE_CASES[case]]
    outcome = faults.invoke(*args)
    faults.assert_refused(outcome, before, faults.snapshot(tmp_path), "input")
