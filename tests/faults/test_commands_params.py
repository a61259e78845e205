"""Bad parameters for each reading command, hostile column names, and secrets that must not leak."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

DATA = "a,b,s\n" + "".join(f"{i % 3},{i % 2},{'xy'[i % 2]}\n" for i in range(12))
PEOPLE = "email,dx\n" + "".join(f"p{i}@x.org,{'ab'[i % 2]}\n" for i in range(12))
SECRET = "Zq9-very-secret-key-material-0123456789"


@pytest.fixture
def folder(tmp_path: Path) -> Path:
    (tmp_path / "data.csv").write_text(DATA)
    (tmp_path / "people.csv").write_text(PEOPLE)
    (tmp_path / "bad.yaml").write_text("columns: [unclosed\n")
    (tmp_path / "list.yaml").write_text("- a\n- b\n")
    return tmp_path


#: case -> (arguments, {data}/{people}/{dir} substituted; words of the error)
CASES: dict[str, tuple[list[str], tuple[str, ...]]] = {
    "risk-unknown-qi": (["risk", "{data}", "--qi", "zip"], ("'zip'",)),
    "risk-empty-qi": (["risk", "{data}", "--qi", ","], ("--qi",)),
    "risk-fraction-zero": (["risk", "{data}", "--qi", "a", "--population-fraction", "0"], ("population",)),
    "risk-fraction-above-one": (["risk", "{data}", "--qi", "a", "--population-fraction", "1.5"], ("population",)),
    "risk-both-populations": (["risk", "{data}", "--qi", "a", "--population", "{data}", "--population-fraction",
                               "0.5"], ("either",)),
    "risk-threshold-negative": (["risk", "{data}", "--qi", "a", "--threshold", "-0.1"], ("threshold",)),
    "risk-long-separator": (["risk", "{data}", "--qi", "a", "--sep", ";;"], ("separator",)),
    "risk-unknown-encoding": (["risk", "{data}", "--qi", "a", "--encoding", "no-such-codec"], ("encoding",)),
    "risk-unknown-sensitive": (["risk", "{data}", "--qi", "a", "--sensitive", "nope"], ("'nope'",)),
    "check-unknown-qi": (["check", "{data}", "--qi", "zip"], ("'zip'",)),
    "check-empty-qi": (["check", "{data}", "--qi", " "], ("--qi",)),
    "check-bad-missing": (["check", "{data}", "--qi", "a", "--missing", "drop"], ("--missing",)),
    "check-bad-require": (["check", "{data}", "--qi", "a", "--require", "k>>5"], ("k>>5",)),
    "check-population-key-without-population": (["check", "{data}", "--qi", "a", "--require", "k_map>=3"],
                                                ("--population",)),
    "check-bad-hierarchy-option": (["check", "{data}", "--qi", "a", "--hierarchy", "a"], ("COL=SPEC",)),
    "check-missing-hierarchy-file": (["check", "{data}", "--qi", "a", "--hierarchy", "a={dir}/none.csv"],
                                     ("none.csv",)),
    "check-bad-kind": (["check", "{data}", "--qi", "a", "--kind", "a=weird"], ("kind",)),
    "check-missing-population": (["check", "{data}", "--qi", "a", "--population", "{dir}/none.csv"],
                                 ("No such file",)),
    "check-long-separator": (["check", "{data}", "--qi", "a", "--sep", "ab"], ("separator",)),
    "scan-sample-too-small": (["scan", "{people}", "--sample-size", "5"], ("sample_size",)),
    "scan-threshold-zero": (["scan", "{people}", "--threshold", "0"], ("threshold",)),
    "scan-threshold-above-one": (["scan", "{people}", "--threshold", "1.5"], ("threshold",)),
    "scan-negative-seed": (["scan", "{people}", "--seed", "-1"], ("seed",)),
    "scan-quote-separator": (["scan", "{people}", "--sep", '"'], ("separator",)),
    "deidentify-nothing-to-do": (["deidentify", "{people}", "-o", "{dir}/o.csv"], ("Nothing to do",)),
    "deidentify-unknown-profile": (["deidentify", "{people}", "--profile", "gdpr", "-o", "{dir}/o.csv"],
                                   ("--profile",)),
    "deidentify-missing-config": (["deidentify", "{people}", "--config", "{dir}/none.yaml", "-o", "{dir}/o.csv"],
                                  ("none.yaml",)),
    "deidentify-invalid-yaml": (["deidentify", "{people}", "--config", "{dir}/bad.yaml", "-o", "{dir}/o.csv"],
                                ("not valid YAML",)),
    "deidentify-config-not-a-mapping": (["deidentify", "{people}", "--config", "{dir}/list.yaml", "-o",
                                         "{dir}/o.csv"], ("mapping",)),
    "deidentify-unknown-link": (["deidentify", "{people}", "--profile", "safe-harbor", "--link", "nope", "-o",
                                 "{dir}/o.csv"], ("'nope'",)),
    "deidentify-bad-as-of": (["deidentify", "{people}", "--profile", "safe-harbor", "--as-of", "someday", "-o",
                              "{dir}/o.csv"], ("as_of",)),
    "deidentify-missing-key-file": (["deidentify", "{people}", "--profile", "safe-harbor", "--key-file",
                                     "{dir}/none.key", "-o", "{dir}/o.csv"], ("none.key",)),
    "deidentify-missing-zip3-file": (["deidentify", "{people}", "--profile", "safe-harbor", "--restricted-zip3",
                                      "{dir}/none.txt", "-o", "{dir}/o.csv"], ("none.txt",)),
    "describe-unknown-encoding": (["describe", "{data}", "--encoding", "klingon"], ("encoding",)),
    "describe-long-separator": (["describe", "{data}", "--sep", "||"], ("separator",)),
}


def _fill(args: list[str], folder: Path) -> list[str]:
    names = {"data": str(folder / "data.csv"), "people": str(folder / "people.csv"), "dir": str(folder)}
    out = []
    for arg in args:
        for key, value in names.items():
            arg = arg.replace("{" + key + "}", value)
        out.append(arg)
    return out


@pytest.mark.parametrize("case", list(CASES))
def test_bad_parameter_is_refused(faults, folder, case):
    args, mentions = CASES[case]
    before = faults.snapshot(folder)
    outcome = faults.invoke(*_fill(args, folder))
    faults.assert_refused(outcome, before, faults.snapshot(folder), *mentions)


HOSTILE = ["[bold]x", "[/]", "[link=https://evil.example]y", "[red]z[/red]", "\\[q]"]


@pytest.fixture
def hostile(tmp_path: Path) -> Path:
    path = tmp_path / "hostile.csv"
    import csv

    with open(path, "w", newline="") as handle:
        writer = csv.writer(handle)
        writer.writerow(HOSTILE)
        for i in range(12):
            writer.writerow([i % 3, i % 2, f"v{i % 4}", "a", "b"])
    return path


@pytest.mark.parametrize("command,shown", [
    (["describe", "{file}"], HOSTILE),
    (["scan", "{file}"], ["[bold]x", "[/]", "\\[q]"]),  # a wide table may fold the longer names
    (["risk", "{file}", "--qi", "[bold]x,[/]", "--sensitive", "[red]z[/red]"], ["[bold]x", "[/]", "[red]z[/red]"]),
    (["check", "{file}", "--qi", "[bold]x,[link=https://evil.example]y", "--sensitive", "[/]"], ["[/]"]),
    (["deidentify", "{file}", "--profile", "safe-harbor", "-o", "{out}"], ["[bold]x", "[/]"]),
])
def test_markup_in_column_names_is_printed_literally(faults, hostile, command, shown):
    args = [a.replace("{file}", str(hostile)).replace("{out}", str(hostile.parent / "o.csv")) for a in command]
    outcome = faults.invoke(*args, env={"COLUMNS": "400"})
    assert outcome.exit_code == 0, outcome.text
    assert outcome.exception is None or isinstance(outcome.exception, SystemExit)
    for name in shown:
        assert name in outcome.stdout, name


def test_markup_in_an_error_is_printed_literally(faults, hostile):
    outcome = faults.invoke("risk", hostile, "--qi", "[/]nope")
    assert outcome.exit_code == 2 and "[/]nope" in outcome.stderr


def test_secret_never_in_output_report_or_error(faults, tmp_path):
    people = tmp_path / "people.csv"
    people.write_text(PEOPLE)
    plan = tmp_path / "plan.yaml"
    plan.write_text("columns:\n  email: {action: pseudonymize, method: hmac}\n")
    out, report = tmp_path / "o.csv", tmp_path / "r.json"
    before = faults.snapshot(tmp_path)
    refused = faults.invoke("deidentify", people, "--config", plan, "-o", out, "--key-env", SECRET)
    faults.assert_refused(refused, before, faults.snapshot(tmp_path), "--key-env", secret=SECRET)
    short = faults.invoke("deidentify", people, "--config", plan, "-o", out, "--key-env", "K", env={"K": "short"})
    faults.assert_refused(short, before, faults.snapshot(tmp_path), "16 bytes", secret="short")
    done = faults.invoke("deidentify", people, "--config", plan, "-o", out, "--report", report, "--key-env", "K",
                         env={"K": SECRET})
    assert done.exit_code == 0, done.text
    assert SECRET not in done.text and SECRET not in out.read_text() and SECRET not in report.read_text()
    assert "@x.org" not in out.read_text()
    assert json.loads(report.read_text())["done"][0]["action"].startswith("pseudonym")
