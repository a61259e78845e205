"""Hierarchy input that was accepted, ignored or crashed (issue 32, items 10, 16 and 17).

Each case is refused the fault corpus's way (exit 2, one ``error:`` line naming
the column, line or value, no traceback, nothing written, inputs unchanged), or,
where the input is legitimate (a UTF-8 BOM, a column name that needs quoting),
accepted and handled right.
"""

from __future__ import annotations

import shlex
from pathlib import Path

import pandas as pd
import pytest


def _table(folder: Path, *, race: bool = False) -> Path:
    """60 rows: age 20..79, sex, race and a diagnosis."""
    frame = pd.DataFrame({
        "age": [str(20 + i) for i in range(60)],
        "sex": ["F", "M"] * 30,
        "race": ["White", "Black", "Asian"] * 20,
        "diagnosis": ["flu", "cold", "hiv", "none"] * 15,
    })
    path = folder / "data.csv"
    frame.to_csv(path, index=False)
    return path


def _age_file(folder: Path, text: str | bytes, name: str = "age.csv") -> Path:
    path = folder / name
    if isinstance(text, str):
        text = text.encode("utf-8")
    path.write_bytes(text)
    return path


def _age_rows() -> str:
    return "".join(f"{a};{a // 10 * 10}-{a // 10 * 10 + 9};*\n" for a in range(20, 80))


def _anonymize(data: Path, folder: Path, *extra: object) -> list[object]:
    return ["anonymize", data, "--qi", "age,sex", "--hierarchy", "sex=suppress", "-k", "2",
            "-o", folder / "out.csv", "--json", folder / "out.json", *extra]


# ---- item 10: an empty label -------------------------------------------------------------

def test_an_empty_hierarchy_label_is_refused_with_its_line_and_level(faults, tmp_path):
    data = _table(tmp_path)
    race = tmp_path / "race.csv"
    race.write_text("White;;*\nBlack;Non-white;*\nAsian;Non-white;*\n", encoding="utf-8")
    before = faults.snapshot(tmp_path)
    outcome = faults.invoke("anonymize", data, "--qi", "race,sex", "--hierarchy", f"race={race}",
                            "--hierarchy", "sex=suppress", "-k", "2", "-o", tmp_path / "out.csv")
    faults.assert_refused(outcome, before, faults.snapshot(tmp_path), "race.csv", "line 1", "level 1", "empty")


def test_an_empty_label_in_a_built_hierarchy_is_refused():
    from veil.errors import HierarchyError
    from veil.hierarchy import Hierarchy

    with pytest.raises(HierarchyError, match="row 2 .*level 1.* empty"):
        Hierarchy.from_rows([["a", "x", "*"], ["b", "", "*"]], name="c")


# ---- item 16: encodings ------------------------------------------------------------------

@pytest.mark.parametrize("command", ["anonymize", "hierarchy-check"])
def test_a_hierarchy_file_that_is_not_utf8_is_refused_in_one_line(faults, tmp_path, command):
    data = _table(tmp_path)
    age = _age_file(tmp_path, _age_rows().replace("20-29", "20\xe929").encode("latin-1"))
    args = (_anonymize(data, tmp_path, "--hierarchy", f"age={age}") if command == "anonymize"
            else ["hierarchy", "check", data, "--hierarchy", f"age={age}"])
    before = faults.snapshot(tmp_path)
    outcome = faults.invoke(*args)
    faults.assert_refused(outcome, before, faults.snapshot(tmp_path), "age.csv", "UTF-8", "line 1")


def test_a_taxonomy_file_that_is_not_utf8_is_refused_in_one_line(faults, tmp_path):
    data = _table(tmp_path)
    tree = tmp_path / "race.csv"
    tree.write_bytes("*,Wh\xeete\n*,Black\n*,Asian\n".encode("latin-1"))
    before = faults.snapshot(tmp_path)
    outcome = faults.invoke("hierarchy", "check", data, "--hierarchy", f"race=taxonomy:{tree}")
    faults.assert_refused(outcome, before, faults.snapshot(tmp_path), "race.csv", "UTF-8")


def test_a_utf8_bom_in_a_hierarchy_file_is_accepted(faults, tmp_path):
    data = _table(tmp_path)
    age = _age_file(tmp_path, b"\xef\xbb\xbf" + _age_rows().encode("utf-8"))
    checked = faults.invoke("hierarchy", "check", data, "--hierarchy", f"age={age}")
    assert checked.exit_code == 0, checked.text
    released = faults.invoke(*_anonymize(data, tmp_path, "--hierarchy", f"age={age}"))
    assert released.exit_code == 0, released.text
    assert "\ufeff" not in (tmp_path / "out.csv").read_text(encoding="utf-8")


def test_a_utf8_bom_in_a_taxonomy_file_is_accepted(faults, tmp_path):
    data = _table(tmp_path)
    tree = tmp_path / "race.csv"
    tree.write_bytes(b"\xef\xbb\xbfPeople,White\nPeople,Black\nPeople,Asian\n")
    checked = faults.invoke("hierarchy", "check", data, "--hierarchy", f"race=taxonomy:{tree}")
    assert checked.exit_code == 0, checked.text


# ---- item 17: columns that do not exist, bad steps, long values, quoting -----------------

@pytest.mark.parametrize("command", ["anonymize", "risk", "check", "explore", "hierarchy-check", "hierarchy-build"])
def test_a_hierarchy_for_a_column_that_does_not_exist_is_refused(faults, tmp_path, command):
    data = _table(tmp_path)
    hierarchy = ["--hierarchy", "agee=interval:10,20"]
    args = {
        "anonymize": _anonymize(data, tmp_path, "--hierarchy", "age=interval:10", *hierarchy),
        "risk": ["risk", data, "--qi", "age,sex", *hierarchy, "--json", tmp_path / "out.json"],
        "check": ["check", data, "--qi", "age,sex", *hierarchy, "--json", tmp_path / "out.json"],
        "explore": ["explore", data, "--qi", "age,sex", "--hierarchy", "age=interval:10", "--hierarchy",
                    "sex=suppress", *hierarchy, "--k", "2", "--json", tmp_path / "out.json"],
        "hierarchy-check": ["hierarchy", "check", data, "--hierarchy", "age=interval:10", *hierarchy],
        "hierarchy-build": ["hierarchy", "build", data, "--qi", "age", "--spec", "agee=interval:10",
                            "-o", tmp_path / "out"],
    }[command]
    before = faults.snapshot(tmp_path)
    outcome = faults.invoke(*args)
    faults.assert_refused(outcome, before, faults.snapshot(tmp_path), "'agee'")


def test_hierarchy_build_refuses_a_spec_for_a_column_not_built(faults, tmp_path):
    data = _table(tmp_path)
    before = faults.snapshot(tmp_path)
    outcome = faults.invoke("hierarchy", "build", data, "--qi", "age", "--spec", "sex=suppress",
                            "-o", tmp_path / "out")
    faults.assert_refused(outcome, before, faults.snapshot(tmp_path), "'sex'", "--qi")


@pytest.mark.parametrize("spec", ["round:1e-320", "interval:1e-320", "round:1e-300,1e-290"])
def test_a_step_too_small_for_the_values_is_refused(faults, tmp_path, spec):
    data = _table(tmp_path)
    before = faults.snapshot(tmp_path)
    outcome = faults.invoke(*_anonymize(data, tmp_path, "--hierarchy", f"age={spec}"))
    faults.assert_refused(outcome, before, faults.snapshot(tmp_path), "'age'", "1e-")
    assert "nan" not in outcome.text.lower()


def test_a_long_value_missing_from_its_hierarchy_is_quoted_cut(faults, tmp_path):
    long_value = "x" * 1_000_000
    frame = pd.DataFrame({"code": ["a", "b", long_value] * 4, "sex": ["F", "M"] * 6})
    data = tmp_path / "data.csv"
    frame.to_csv(data, index=False)
    codes = tmp_path / "code.csv"
    codes.write_text("a;*\nb;*\n", encoding="utf-8")
    before = faults.snapshot(tmp_path)
    outcome = faults.invoke("anonymize", data, "--qi", "code,sex", "--hierarchy", f"code={codes}",
                            "--hierarchy", "sex=suppress", "-k", "2", "-o", tmp_path / "out.csv")
    faults.assert_refused(outcome, before, faults.snapshot(tmp_path), "'code'", "1,000,000 characters")
    assert len(outcome.stderr) < 1_000


def test_a_long_quoted_value_is_cut_in_every_error():
    from veil.errors import HierarchyError, ParameterError

    text = str(ParameterError(f"The value {'y' * 50_000!r} is wrong; fix it."))
    assert len(text) < 400 and text.endswith("is wrong; fix it.") and "50,000 characters" in text
    assert str(HierarchyError("short 'value' stays")) == "short 'value' stays"


def test_hierarchy_build_prints_a_command_that_names_quoted_columns(faults, tmp_path):
    frame = pd.DataFrame({"zip, code": ["47677", "47678", "47602", "47905"] * 5,
                          'a "b"=c': ["x", "y"] * 10})
    data = tmp_path / "data.csv"
    frame.to_csv(data, index=False)
    outcome = faults.invoke("hierarchy", "build", data, "--qi", '"zip, code","a ""b""=c"', "-o", tmp_path / "h")
    assert outcome.exit_code == 0, outcome.text
    command = next(line for line in outcome.stdout.splitlines() if "veil anonymize" in line)
    words = shlex.split(command.strip())
    assert words[:2] == ["veil", "anonymize"]
    rerun = faults.invoke(*words[1:], "-o", tmp_path / "out.csv")
    assert rerun.exit_code == 0, rerun.text
    released = pd.read_csv(tmp_path / "out.csv", dtype=str)
    assert set(released.columns) >= {"zip, code", 'a "b"=c'}


def test_explore_reads_a_quoted_sensitive_column(faults, tmp_path):
    frame = pd.DataFrame({"age": [str(20 + i % 40) for i in range(80)],
                          "illness, group": ["flu", "cold", "hiv", "none"] * 20})
    data = tmp_path / "data.csv"
    frame.to_csv(data, index=False)
    outcome = faults.invoke("explore", data, "--qi", "age", "--sensitive", '"illness, group"',
                            "--hierarchy", "age=interval:10,20", "--k", "2", "--l", "2", "--no-lattice",
                            "--json", tmp_path / "out.json")
    assert outcome.exit_code == 0, outcome.text


# ---- the same class of hole: numbers beyond a float, masks of unbounded length ------------

@pytest.mark.parametrize("spec", ["interval:10", "round:10", "auto"])
def test_a_number_beyond_a_float_is_no_traceback(faults, tmp_path, spec):
    frame = pd.DataFrame({"v": ["1", "2", "3", "1e309", "5"] * 4, "sex": ["F", "M"] * 10})
    data = tmp_path / "data.csv"
    frame.to_csv(data, index=False)
    args = ["anonymize", data, "--qi", "v,sex", "--hierarchy", f"v={spec}", "--hierarchy", "sex=suppress",
            "-k", "2", "-o", tmp_path / "out.csv"]
    before = faults.snapshot(tmp_path)
    outcome = faults.invoke(*args)
    if spec == "auto":  # not numbers: 5 categories without an order, straight to *
        assert outcome.exit_code == 0, outcome.text
        assert "v=auto (suppress) because 5 categories" in outcome.stdout
        return
    faults.assert_refused(outcome, before, faults.snapshot(tmp_path), "'v'", "'1e309'", "finite")


def test_a_mask_of_thousands_of_levels_is_refused(faults, tmp_path):
    frame = pd.DataFrame({"code": ["12", "13", "14", "9" * 5000] * 4, "sex": ["F", "M"] * 8})
    data = tmp_path / "data.csv"
    frame.to_csv(data, index=False)
    before = faults.snapshot(tmp_path)
    outcome = faults.invoke("anonymize", data, "--qi", "code,sex", "--hierarchy", "code=mask:1",
                            "--hierarchy", "sex=suppress", "-k", "2", "-o", tmp_path / "out.csv")
    faults.assert_refused(outcome, before, faults.snapshot(tmp_path), "'code'", "5,000 levels", "mask:N")
