"""Mondrian's ranges of labels through ``veil anonymize``: published, verified, and read back.

Reproduction: ``--algorithm mondrian --option strict=false --option
categorical=ordered`` on Adult with its hierarchy files, ``-k 5`` and
``--html``, was refused after the run ("a released value of 'sex' is not its
record's generalization. Nothing was published."): the written release's
check read a range only as a numeric interval, so "[Female-Male]" or a range
of dates never held its record.  ``categorical=ordered`` alone (on race:
"[Amer-Indian-Eskimo-Black]") and a date QI failed the same way.
"""

from __future__ import annotations

import json

import pandas as pd
import pytest

from veil.datasets import adult_path

QIS = ["age", "sex", "race", "marital-status"]


def _adult(tmp_path, rows: int = 3000):
    """The first ``rows`` records of Adult (a shorter run; the ranges are the same kind)."""
    frame = pd.read_csv(adult_path(), sep=";", dtype=str, keep_default_na=False).head(rows)
    path = tmp_path / "adult.csv"
    frame.to_csv(path, sep=";", index=False)
    return path


def _flags(path, tmp_path, *options: str) -> list[str]:
    args = ["anonymize", path, "--qi", ",".join(QIS), "--sensitive", "salary-class", "--sep", ";",
            "-k", "5", "--algorithm", "mondrian", "-o", tmp_path / "out.csv", "--json", tmp_path / "report.json"]
    for q in QIS:
        args += ["--hierarchy", f"{q}={adult_path(f'adult_hierarchy_{q}.csv')}"]
    for option in options:
        args += ["--option", option]
    return args


@pytest.mark.parametrize("options", [("strict=false", "categorical=ordered"), ("categorical=ordered",)])
def test_ordered_categories_of_adult_are_published(faults, tmp_path, options):
    pytest.importorskip("matplotlib")
    path = _adult(tmp_path)
    result = faults.invoke(*_flags(path, tmp_path, *options), "--html", tmp_path / "report.html")
    assert result.exit_code == 0, result.text
    assert "Traceback" not in result.text
    released = pd.read_csv(tmp_path / "out.csv", dtype=str, keep_default_na=False)
    assert released["sex"].isin(["Male", "Female", "[Female-Male]"]).all()
    assert (released["race"].str.startswith("[") & (released["race"].str.count("-") >= 2)).any()
    report = json.loads((tmp_path / "report.json").read_text(encoding="utf-8"))
    assert report["verified"] is True
    assert report["recoding"]["details"]["dimensions"]["sex"] == "ordered"
    assert (tmp_path / "report.html").stat().st_size > 0


def test_a_date_quasi_identifier_is_published(faults, tmp_path):
    days = [f"2021-{1 + i % 12:02d}-{1 + i % 28:02d}" for i in range(120)]
    path = tmp_path / "visits.csv"
    pd.DataFrame({"day": days, "s": ["a", "b", "c"] * 40}).to_csv(path, index=False)
    result = faults.invoke("anonymize", path, "--qi", "day", "--kind", "day=date", "--sensitive", "s", "-k", "5",
                           "--algorithm", "mondrian", "-o", tmp_path / "out.csv")
    assert result.exit_code == 0, result.text
    released = pd.read_csv(tmp_path / "out.csv", dtype=str, keep_default_na=False)["day"]
    assert released.str.fullmatch(r"\[\d{4}-\d\d-\d\d-\d{4}-\d\d-\d\d\]").any()
