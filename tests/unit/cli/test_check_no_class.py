"""``veil check`` on a table with no class: a release whose every record is suppressed.

Before: the file ``veil anonymize --suppressed drop`` writes for such a table (a header, no
row) was refused (exit 2, "has a header but no data rows"), and a blanked one was reported
with k=0 and every level 0, so ``--require "k>=2"`` failed (exit 1) on the very release
``anonymize`` had found to meet 2-anonymity.  Now the per-class levels are ``null``/"—" and a
requirement in its model's direction holds vacuously, as anonymize decides.  A blanked release
of such a table shows one class (its records, ``*`` in every QI: k counts it, issue #32) and no
sensitive value: the sensitive models hold vacuously on it.
"""

from __future__ import annotations

import json

import pandas as pd
import pytest
from typer.testing import CliRunner

from veil.cli import app

_ALL_SUPPRESSED = "zip,age,diag\n*,*,flu\n*,*,cold\n*,*,flu\n"


def _release(tmp_path, mode: str, suffix: str = ".csv"):
    """The release ``anonymize`` writes for a table whose every record arrives suppressed."""
    path = tmp_path / "in.csv"
    path.write_text(_ALL_SUPPRESSED)
    out = tmp_path / f"out-{mode}{suffix}"
    report = tmp_path / f"report-{mode}.json"
    run = CliRunner().invoke(app, ["anonymize", str(path), "--qi", "zip,age", "--sensitive", "diag", "--auto-hierarchies",
                                   "-k", "2", "-l", "diag:2", "--suppressed", mode, "-o", str(out), "--json", str(report)])
    assert run.exit_code == 0, run.output
    return out, json.loads(report.read_text())


def _check(path, *extra):
    return CliRunner().invoke(app, ["check", str(path), "--qi", "zip,age", "--sensitive", "diag", *extra])


@pytest.mark.parametrize("suffix", [".csv", ".parquet"])
def test_a_dropped_release_with_no_row_is_checked(tmp_path, suffix):
    out, _ = _release(tmp_path, "drop", suffix)
    assert len(pd.read_parquet(out) if suffix == ".parquet" else pd.read_csv(out)) == 0  # a header, no row
    report = tmp_path / "check.json"
    run = _check(out, "--require", "k>=2, l>=2", "--json", str(report))
    assert run.exit_code == 0, run.output
    assert "0 records, 0 classes" in run.output
    assert "header and no rows" in run.output
    payload = json.loads(report.read_text())
    assert (payload["records"], payload["classes"], payload["k"]) == (0, 0, None)
    assert [r["met"] for r in payload["requirements"]] == [True, True]


@pytest.mark.parametrize("engine", ["local", "duckdb"])
def test_the_engine_path_checks_it_too(tmp_path, engine):
    out, _ = _release(tmp_path, "drop")
    run = _check(out, "--require", "k>=2", "--engine", engine)
    assert run.exit_code == 0, run.output


def test_a_truly_empty_file_is_still_refused(tmp_path):
    empty = tmp_path / "empty.csv"
    empty.write_text("")
    run = _check(empty)
    assert run.exit_code == 2
    assert "is empty" in run.output


def test_a_header_only_file_still_needs_its_columns(tmp_path):
    out, _ = _release(tmp_path, "drop")
    run = CliRunner().invoke(app, ["check", str(out), "--qi", "zip,nope"])
    assert run.exit_code == 2
    assert "'nope' is not in the table" in run.output


def test_per_class_levels_are_null_not_zero(tmp_path):
    out, anonymized = _release(tmp_path, "drop")
    report = tmp_path / "check.json"
    run = _check(out, "--json", str(report))
    assert run.exit_code == 0, run.output
    payload = json.loads(report.read_text())
    assert payload["classes"] == 0
    assert payload["k"] is None and payload["max_prosecutor_risk"] is None and payload["average_risk"] is None
    diag = payload["sensitive"]["diag"]
    assert diag["distinct_l"] is None and diag["entropy_l"] is None and diag["recursive_cl"]["c"] is None
    assert diag["t_equal"] is None and diag["alpha_k"] == {"alpha": None, "k": None}
    assert not any("reported as 0" in n for n in payload["notes"])
    assert any(n.startswith("no class") for n in payload["notes"])
    k_row = next(line for line in run.output.splitlines() if "k-anonymity" in line)
    assert "—" in k_row and "0" not in k_row
    # anonymize found the models met on this table: --require on them agrees
    assert anonymized["classes_released"] == 0
    agreed = _check(out, "--require", "k>=2, l[diag]>=2, t<=0.1, lkc(L=1,K=2,C=0.5), records_at_risk<=0")
    assert agreed.exit_code == 0, agreed.output


def test_a_blanked_release_is_one_class_showing_no_sensitive_value(tmp_path):
    out, anonymized = _release(tmp_path, "blank")
    report = tmp_path / "check.json"
    agreed = _check(out, "--require", "k>=2, l[diag]>=2, t<=0.1", "--json", str(report))
    assert agreed.exit_code == 0, agreed.output
    payload = json.loads(report.read_text())
    assert (payload["classes"], payload["k"]) == (1, 3) == (anonymized["classes_released"], anonymized["achieved"]["k"])
    assert [r["met"] for r in payload["requirements"]] == [True, True, True]
    assert any("no class shows a value of 'diag'" in n for n in payload["sensitive"]["diag"]["notes"])
    assert _check(out, "--require", "k>=4").exit_code == 1  # the one class holds 3 records


def test_a_clause_against_the_model_direction_fails(tmp_path):
    out, _ = _release(tmp_path, "drop")
    for clause in ("k<=5", "k==2", "t>=0.1"):
        run = _check(out, "--require", clause)
        assert run.exit_code == 1, (clause, run.output)
        assert "no level to compare" in run.output


def test_a_malformed_clause_is_refused_with_no_class(tmp_path):
    out, _ = _release(tmp_path, "drop")
    for clause in ("l[nope]>=2", "lkc(L=1,K=2,C=0.5,Q=1)", "k>=2,"):
        run = _check(out, "--require", clause)
        assert run.exit_code == 2, (clause, run.output)


def test_population_levels_are_null_and_judged_vacuously(tmp_path):
    out, _ = _release(tmp_path, "blank")  # its one class is the suppressed records': not matched in a population
    population = tmp_path / "pop.csv"
    population.write_text("zip,age\n*,*\n4767*,2*\n")
    report = tmp_path / "check.json"
    run = _check(out, "--population", str(population), "--require", "k_map>=2, delta_max<=0.5", "--json", str(report))
    assert run.exit_code == 0, run.output
    payload = json.loads(report.read_text())
    assert payload["k_map"] is None
    assert payload["delta_presence"] == {"delta_min": None, "delta_max": None}
    assert payload["population_records"] == 2


def test_a_table_with_classes_is_reported_as_before(tmp_path):
    path = tmp_path / "t.csv"
    path.write_text("zip,age,diag\n1,2,flu\n1,2,cold\n3,4,flu\n*,*,flu\n")
    report = tmp_path / "check.json"
    run = _check(path, "--require", "k>=3", "--json", str(report))
    assert run.exit_code == 1  # the class (3,4) has one record
    payload = json.loads(report.read_text())
    assert payload["k"] == 1 and payload["requirements"][0]["actual"] == 1.0
