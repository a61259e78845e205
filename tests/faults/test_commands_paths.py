"""Clashing paths: no command writes over one of its inputs, or writes one output twice.

Each destination is refused before any work starts (exit 2, one line), every
input stays byte-identical and nothing is written.
"""

from __future__ import annotations

from pathlib import Path

import pytest

DATA = "a,b,s\n" + "".join(f"{i % 3},{i % 2},{'xy'[i % 2]}\n" for i in range(12))
POPULATION = "a,b\n" + "".join(f"{i % 3},{i % 2}\n" for i in range(30))
HIERARCHY = "0,*\n1,*\n2,*\n"
PEOPLE = "email,dx\n" + "".join(f"p{i}@x.org,{'ab'[i % 2]}\n" for i in range(12))
CONFIG = "columns:\n  email: {action: drop}\n"


@pytest.fixture
def files(tmp_path: Path) -> dict[str, Path]:
    contents = {"data.csv": DATA, "pop.csv": POPULATION, "h.csv": HIERARCHY, "people.csv": PEOPLE,
                "plan.yaml": CONFIG, "key.txt": "k" * 32 + "\n", "zip3.txt": "036\n059\n"}
    out = {}
    for name, text in contents.items():
        (tmp_path / name).write_text(text)
        out[name] = tmp_path / name
    (tmp_path / "link.csv").symlink_to(tmp_path / "data.csv")
    out["link.csv"] = tmp_path / "link.csv"
    return out


#: case -> (arguments with {name} for files, words of the error)
CASES: dict[str, tuple[list[str], tuple[str, ...]]] = {
    "check-json-is-data": (["check", "{data.csv}", "--qi", "a", "--json", "{data.csv}"], ("json output", "input")),
    "check-json-is-population": (["check", "{data.csv}", "--qi", "a,b", "--population", "{pop.csv}",
                                  "--json", "{pop.csv}"], ("input",)),
    "check-json-is-hierarchy": (["check", "{data.csv}", "--qi", "a", "--hierarchy", "a={h.csv}",
                                 "--json", "{h.csv}"], ("input",)),
    "check-json-through-symlink": (["check", "{data.csv}", "--qi", "a", "--json", "{link.csv}"], ("input",)),
    "check-json-dotted-path": (["check", "{data.csv}", "--qi", "a", "--json", "{dir}/sub/../data.csv"],
                               ("input",)),
    "check-json-is-folder": (["check", "{data.csv}", "--qi", "a", "--json", "{dir}"], ("folder",)),
    "risk-json-is-data": (["risk", "{data.csv}", "--qi", "a", "--json", "{data.csv}"], ("input",)),
    "risk-json-is-population": (["risk", "{data.csv}", "--qi", "a,b", "--population", "{pop.csv}",
                                 "--json", "{pop.csv}"], ("input",)),
    "risk-json-through-symlink": (["risk", "{link.csv}", "--qi", "a", "--json", "{data.csv}"], ("input",)),
    "risk-json-is-folder": (["risk", "{data.csv}", "--qi", "a", "--json", "{dir}"], ("folder",)),
    "risk-json-under-a-file": (["risk", "{data.csv}", "--qi", "a", "--json", "{data.csv}/r.json"],
                               ("not a folder",)),
    "scan-json-is-data": (["scan", "{people.csv}", "--json", "{people.csv}"], ("input",)),
    "scan-json-through-symlink": (["scan", "{link.csv}", "--json", "{data.csv}"], ("input",)),
    "scan-json-is-folder": (["scan", "{people.csv}", "--json", "{dir}"], ("folder",)),
    "deidentify-o-is-data": (["deidentify", "{people.csv}", "--profile", "safe-harbor", "-o", "{people.csv}"],
                             ("data output", "input")),
    "deidentify-report-is-data": (["deidentify", "{people.csv}", "--profile", "safe-harbor", "-o", "{dir}/o.csv",
                                   "--report", "{people.csv}"], ("report output", "input")),
    "deidentify-mapping-is-data": (["deidentify", "{people.csv}", "--profile", "safe-harbor", "-o", "{dir}/o.csv",
                                    "--link", "email", "--mapping-out", "{people.csv}"], ("mapping output",)),
    "deidentify-o-equals-report": (["deidentify", "{people.csv}", "--profile", "safe-harbor", "-o", "{dir}/o.csv",
                                    "--report", "{dir}/o.csv"], ("same file",)),
    "deidentify-o-equals-mapping": (["deidentify", "{people.csv}", "--profile", "safe-harbor", "-o", "{dir}/o.csv",
                                     "--mapping-out", "{dir}/o.csv"], ("same file",)),
    "deidentify-o-is-config": (["deidentify", "{people.csv}", "--config", "{plan.yaml}", "-o", "{plan.yaml}"],
                               ("input",)),
    "deidentify-o-is-key-file": (["deidentify", "{people.csv}", "--profile", "safe-harbor", "--key-file",
                                  "{key.txt}", "-o", "{key.txt}"], ("input",)),
    "deidentify-report-is-zip3": (["deidentify", "{people.csv}", "--profile", "safe-harbor", "--restricted-zip3",
                                   "{zip3.txt}", "-o", "{dir}/o.csv", "--report", "{zip3.txt}"], ("input",)),
    "deidentify-o-is-folder": (["deidentify", "{people.csv}", "--profile", "safe-harbor", "-o", "{dir}"],
                               ("folder",)),
}


@pytest.mark.parametrize("case", list(CASES))
def test_clashing_path_is_refused_before_work(faults, tmp_path, files, case):
    template, mentions = CASES[case]
    names = {**{k: str(v) for k, v in files.items()}, "dir": str(tmp_path)}
    args = [a.replace("{", "{0[").replace("}", "]}").format(names) if "{" in a else a for a in template]
    before = faults.snapshot(tmp_path)
    outcome = faults.invoke(*args)
    faults.assert_refused(outcome, before, faults.snapshot(tmp_path), *mentions)


@pytest.mark.parametrize("command", [
    ["check", "{data.csv}", "--qi", "a", "--json", "{out}"],
    ["risk", "{data.csv}", "--qi", "a", "--json", "{out}"],
    ["scan", "{people.csv}", "--json", "{out}"],
])
def test_outputs_written_once_and_inputs_unchanged(faults, tmp_path, files, command):
    names = {**{k: str(v) for k, v in files.items()}, "out": str(tmp_path / "out" / "report.json")}
    args = [a.replace("{", "{0[").replace("}", "]}").format(names) if "{" in a else a for a in command]
    before = faults.snapshot(tmp_path)
    outcome = faults.invoke(*args)
    assert outcome.exit_code == 0, outcome.text
    after = faults.snapshot(tmp_path)
    # exactly one new file (and its folder), nothing else touched, no temporary left
    assert {k: v for k, v in after.items() if k in before} == before
    assert sorted(set(after) - set(before)) == ["out/", "out/report.json"]


def test_deidentify_writes_its_outputs_as_a_set(faults, tmp_path, files):
    out, report, mapping = tmp_path / "o.csv", tmp_path / "r.json", tmp_path / "m.csv"
    before = faults.snapshot(tmp_path)
    outcome = faults.invoke("deidentify", files["people.csv"], "--profile", "safe-harbor", "--link", "email",
                            "-o", out, "--report", report, "--mapping-out", mapping)
    assert outcome.exit_code == 0, outcome.text
    after = faults.snapshot(tmp_path)
    assert {k: v for k, v in after.items() if k in before} == before
    assert sorted(set(after) - set(before)) == ["m.csv", "o.csv", "r.json"]
    assert "@x.org" not in out.read_text() and "@x.org" not in report.read_text()


def test_deidentify_failing_part_way_writes_nothing(faults, tmp_path, files):
    # the plan names a date action on a column of e-mail addresses: it fails after the read
    plan = tmp_path / "bad.yaml"
    plan.write_text("columns:\n  email: {action: truncate_dates}\n")
    before = faults.snapshot(tmp_path)
    outcome = faults.invoke("deidentify", files["people.csv"], "--config", plan, "-o", tmp_path / "o.csv",
                            "--report", tmp_path / "r.json")
    faults.assert_refused(outcome, before, faults.snapshot(tmp_path), "email")
