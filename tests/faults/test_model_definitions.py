"""Fault corpus: what a model measures, one definition for the search, the verification and ``check``.

Issue #32 items 2 and 9, issue #33 items 2, 3 and 11 (the ``*`` part); the definitions are
``veil.models._shown`` and ``docs/models.md`` ("What a release shows").
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pandas as pd

from .conftest import invoke


def _read(path: Path) -> pd.DataFrame:
    return pd.read_csv(path, dtype=str, keep_default_na=False)


def _groups(frame: pd.DataFrame, qis: list[str]) -> list[int]:
    """The sizes of the groups of released rows alike in every QI, the '*' group included."""
    return sorted(frame.groupby(qis).size().tolist())


def _check_json(tmp_path: Path, path: Path, *args: str) -> tuple[int, dict]:
    out = tmp_path / "check.json"
    if out.exists():
        out.unlink()
    run = invoke("check", path, "--json", out, *args)
    assert run.exception is None or isinstance(run.exception, SystemExit), run.text
    return run.exit_code, json.loads(out.read_text()) if out.exists() else {}


# ---------------------------------------------------------------- issue #32, item 2
def _lone_cancer(tmp_path: Path) -> Path:
    """200 common rows and one ``95,F,Z,cancer``: the last is the one record a node suppresses."""
    rows = [(str(20 + i % 40), "MF"[i % 2], "XY"[i % 2], ("flu", "cold", "hiv")[i % 3]) for i in range(200)]
    rows.append(("95", "F", "Z", "cancer"))
    path = tmp_path / "s.csv"
    pd.DataFrame(rows, columns=["age", "sex", "town", "diagnosis"]).to_csv(path, index=False)
    return path


def test_keep_never_publishes_a_suppressed_group_smaller_than_k(tmp_path):
    # before: the release held the row '*,*,*,cancer' alone (a group of one, its diagnosis shown)
    # while the report and `veil check --require "k>=5"` said k=5
    source, out, report = _lone_cancer(tmp_path), tmp_path / "out.csv", tmp_path / "out.json"
    run = invoke("anonymize", source, "--qi", "age,sex,town", "--sensitive", "diagnosis",
                 "--hierarchy", "age=interval:10,50", "--hierarchy", "sex=suppress", "--hierarchy", "town=suppress",
                 "-k", "5", "--suppression", "0.02", "--suppressed", "keep", "-o", out, "--json", report)
    assert run.exit_code == 0, run.text
    released = _read(out)
    assert min(_groups(released, ["age", "sex", "town"])) >= 5
    assert "cancer" not in set(released.loc[(released[["age", "sex", "town"]] == "*").all(axis=1), "diagnosis"])
    achieved = json.loads(report.read_text())["achieved"]
    code, checked = _check_json(tmp_path, out, "--qi", "age,sex,town", "--sensitive", "diagnosis", "--require", "k>=5")
    assert code == 0 and checked["k"] == achieved["k"] == min(_groups(released, ["age", "sex", "town"]))


def test_check_counts_a_group_of_star_rows_as_a_class(tmp_path):
    # before: `veil check` left the '*' rows out of the classes, so k=5 for a table whose
    # '*' group holds one record
    path = tmp_path / "r.csv"
    pd.DataFrame({"q": ["a"] * 5 + ["*"], "d": ["x", "y"] * 3}).to_csv(path, index=False)
    code, checked = _check_json(tmp_path, path, "--qi", "q", "--sensitive", "d", "--require", "k>=5")
    assert (code, checked["k"], checked["classes"]) == (1, 1, 2)


# ---------------------------------------------------------------- issue #32, item 9
def test_check_computes_k_on_the_values_the_file_shows(tmp_path):
    # before: `NA` and the empty cell were both read as missing, one class of 5 (k=5)
    path = tmp_path / "na.csv"
    path.write_text("zip,d\nNA,a\nNA,b\nNA,c\n,a\n,b\n")
    code, checked = _check_json(tmp_path, path, "--qi", "zip", "--sensitive", "d", "--require", "k>=5")
    assert (code, checked["k"], checked["classes"]) == (1, 2, 2)


def test_na_values_makes_na_a_value(tmp_path):
    # a text NA meant as a value (sodium, say): --na-values "" reads only empty cells as missing
    path = tmp_path / "na.csv"
    path.write_text("zip,d\n1,NA\n1,K\n2,NA\n2,\n")
    code, checked = _check_json(tmp_path, path, "--qi", "zip", "--sensitive", "d", "--na-values", "",
                                "--missing-sensitive", "ignore", "--require", "l>=2")
    assert code == 1 and checked["sensitive"]["d"]["distinct_l"] == 1  # zip 2 holds NA and a missing value
    code, checked = _check_json(tmp_path, path, "--qi", "zip", "--sensitive", "d", "--missing-sensitive", "ignore")
    assert code == 0 and checked["sensitive"]["d"]["distinct_l"] == 1  # default words: NA is missing too
    assert checked["sensitive"]["d"]["distinct_values"] == 1


# ---------------------------------------------------------------- issue #33, item 2
def _work_status(tmp_path: Path) -> tuple[Path, Path]:
    """54 records whose release under blank suppresses 5 (found by a search on random tables)."""
    rng = np.random.default_rng(122)
    n = int(rng.integers(20, 60))
    frame = pd.DataFrame({"a": rng.integers(0, 6, n).astype(str), "b": rng.choice(["x", "y", "z"], n),
                          "s": rng.choice(["p", "q", "r"], n, p=[0.6, 0.3, 0.1])})
    path, hierarchy = tmp_path / "w.csv", tmp_path / "a.csv"
    frame.to_csv(path, index=False)
    hierarchy.write_text("".join(f"{i};{i // 3};*\n" for i in range(6)))
    return path, hierarchy


def test_check_passes_a_release_anonymize_verified_with_the_same_t(tmp_path):
    # before: anonymize measured t against the input's distribution (the suppressed records' values
    # included) and reported t = 0.2778, verified; check counted the blanked '*' as a value and
    # reported t = 0.3333 and exited 1
    source, hierarchy = _work_status(tmp_path)
    out, report = tmp_path / "out.csv", tmp_path / "out.json"
    require = "k>=3, t<=0.3"
    run = invoke("anonymize", source, "--qi", "a,b", "--sensitive", "s", "--hierarchy", f"a={hierarchy}",
                 "--hierarchy", "b=suppress", "--require", require, "--suppression", "0.1", "--suppressed", "blank",
                 "-o", out, "--json", report)
    assert run.exit_code == 0, run.text
    achieved = json.loads(report.read_text())["achieved"]
    code, checked = _check_json(tmp_path, out, "--qi", "a,b", "--sensitive", "s", "--require", require)
    assert code == 0, checked
    assert checked["sensitive"]["s"]["t_equal"] == achieved["sensitive"]["s"]["t_equal"] <= 0.3
    assert checked["k"] == achieved["k"]


# ---------------------------------------------------------------- issue #33, item 3
def _blanks(tmp_path: Path) -> Path:
    """Classes of one income and blanks, and classes of two incomes."""
    zips = ["1"] * 4 + ["2"] * 4 + ["3"] * 4 + ["4"] * 4
    income = ["10", "", "", ""] + ["20", "", "", ""] + ["10", "20", "", ""] + ["30", "10", "", "20"]
    path = tmp_path / "inc.csv"
    pd.DataFrame({"zip": zips, "income": income}).to_csv(path, index=False)
    (tmp_path / "zip.csv").write_text("1;1-2;*\n2;1-2;*\n3;3-4;*\n4;3-4;*\n")
    return path


def _anonymize_incomes(tmp_path: Path, *extra: str) -> tuple[int, Path, Path, str]:
    out, report = tmp_path / "out.csv", tmp_path / "out.json"
    run = invoke("anonymize", _blanks(tmp_path), "--qi", "zip", "--sensitive", "income", "--hierarchy",
                 f"zip={tmp_path / 'zip.csv'}", "-k", "2", "-l", "income:2", "-o", out, "--json", report, *extra)
    return run.exit_code, out, report, run.text


def test_a_missing_sensitive_value_counts_only_under_value_and_is_warned_about(tmp_path):
    # before: classes of one income and blanks passed distinct 2-diversity and nothing said so;
    # --missing-sensitive did not exist
    code, out, report, text = _anonymize_incomes(tmp_path)
    assert code == 0, text
    payload = json.loads(report.read_text())
    assert payload["missing_sensitive"] == "value"
    assert any("only because a missing value counts" in w for w in payload["warnings"])
    code, out, report, text = _anonymize_incomes(tmp_path, "--missing-sensitive", "ignore")
    assert code == 0, text
    released = _read(out)
    real = released[released["income"] != ""]
    assert real.groupby("zip")["income"].nunique().min() >= 2  # two incomes besides the blanks, every class
    payload = json.loads(report.read_text())
    assert payload["missing_sensitive"] == "ignore" and not any("missing value" in w for w in payload["warnings"])
    code, checked = _check_json(tmp_path, out, "--qi", "zip", "--sensitive", "income", "--missing-sensitive",
                                "ignore", "--require", "l>=2")
    assert code == 0 and checked["sensitive"]["income"] == payload["achieved"]["sensitive"]["income"]


# ---------------------------------------------------------------- issue #33, item 11 (the '*' part)
def test_check_does_not_count_a_withheld_star_as_a_value(tmp_path):
    # before: the blanked '*' of suppressed records was a third distinct value
    path = tmp_path / "b.csv"
    path.write_text("q,d\na,flu\na,cold\n*,*\n*,*\n")
    code, checked = _check_json(tmp_path, path, "--qi", "q", "--sensitive", "d", "--require", "l>=2")
    assert code == 0
    assert checked["sensitive"]["d"]["distinct_values"] == 2 and checked["sensitive"]["d"]["distinct_l"] == 2


def test_anonymize_reads_na_as_a_value_when_asked(tmp_path):
    # before: --na-values did not exist (exit 2) and every NA was read as missing, released as an empty cell
    path = tmp_path / "na2.csv"
    path.write_text("zip,d\n1,NA\n1,K\n2,NA\n2,K\n3,NA\n")
    out = tmp_path / "out.csv"
    run = invoke("anonymize", path, "--qi", "zip", "--sensitive", "d", "--hierarchy", "zip=suppress", "-k", "2",
                 "--na-values", "", "-o", out)
    assert run.exit_code == 0, run.text
    assert sorted(_read(out)["d"]) == ["K", "K", "NA", "NA", "NA"]


def test_check_reads_a_blanked_numeric_sensitive_value(tmp_path):
    # a blank release of a numeric sensitive attribute holds '*' for the suppressed records' values:
    # check --kind NAME=numeric refused it ("declared numeric but has the non-numeric value '*'")
    path = tmp_path / "num.csv"
    path.write_text("q,s\na,1\na,2\na,3\n*,*\n*,*\n*,*\n")
    code, checked = _check_json(tmp_path, path, "--qi", "q", "--sensitive", "s", "--kind", "s=numeric",
                                "--require", "k>=3, t<=0.5")
    assert code == 0 and checked["sensitive"]["s"]["distinct_values"] == 3
