"""``veil check --population``: k-map and δ-presence from the command line.

The example (QIs already generalized in both files; the population is given in
the released table's generalization, as ``--population`` requires)::

    released (6 records)            population (10 records)
    Zipcode Age  Disease            Zipcode Age   count
    4767*   2*   Flu                4767*   2*    4
    4767*   2*   Cancer             4767*   3*    2
    4767*   2*   Flu                4790*   2*    3
    4767*   3*   Flu                4790*   3*    1   (no released class: ignored)
    4790*   2*   Cancer
    *       *    Flu                (suppressed: a class of the release, not matched in the population)

Released classes and their population classes, |T_E| / |P_E|:

    (4767*, 2*): 3 / 4 = 0.75
    (4767*, 3*): 1 / 2 = 0.5
    (4790*, 2*): 1 / 3 = 0.333...

so k-map = min(4, 2, 3) = 2, δ_min = 1/3, δ_max = 3/4 (and k = 1, the
released table's own smallest class; 4 classes, the suppressed one included).
"""

from __future__ import annotations

import json

import pandas as pd
import pytest
from typer.testing import CliRunner

from veil.classes import ClassTable
from veil.cli import app
from veil.models import DeltaPresence, KMap

runner = CliRunner()

RELEASED = pd.DataFrame({
    "Zipcode": ["4767*", "4767*", "4767*", "4767*", "4790*", "*"],
    "Age": ["2*", "2*", "2*", "3*", "2*", "*"],
    "Disease": ["Flu", "Cancer", "Flu", "Flu", "Cancer", "Flu"],
})
# extra column and another column order: only the QIs matter
POPULATION = pd.DataFrame({
    "Name": list("ABCDEFGHIJ"),
    "Age": ["2*"] * 4 + ["3*"] * 2 + ["2*"] * 3 + ["3*"],
    "Zipcode": ["4767*"] * 6 + ["4790*"] * 4,
})


@pytest.fixture()
def files(tmp_path):
    released = tmp_path / "released.csv"
    population = tmp_path / "population.csv"
    RELEASED.to_csv(released, index=False, sep=";")
    POPULATION.to_csv(population, index=False, sep=";")
    return released, population


def _check(released, *args):
    return runner.invoke(app, ["check", str(released), "--qi", "Zipcode,Age", "--sensitive", "Disease", *args])


def test_example_through_the_cli_matches_the_python_api(files, tmp_path):
    released, population = files
    out = tmp_path / "report.json"
    result = _check(released, "--population", str(population), "--sep", ";", "--json", str(out))
    assert result.exit_code == 0, result.output
    assert "k-map" in result.stdout and "δ-presence" in result.stdout
    payload = json.loads(out.read_text())
    assert payload["k_map"] == 2
    assert payload["delta_presence"] == {"delta_min": 1 / 3, "delta_max": 0.75}
    assert payload["population_records"] == 10
    # the Python API gives the same numbers
    classes = ClassTable.from_pandas(RELEASED, quasi_identifiers=["Zipcode", "Age"], sensitive=["Disease"])
    assert KMap(k=1, population=POPULATION).achieved_level(classes) == payload["k_map"]
    assert DeltaPresence(delta_min=0, delta_max=1, population=POPULATION).achieved_level(classes) == (
        payload["delta_presence"]
    )
    # existing keys are unchanged; the new ones sit before "sensitive"; facts explain them
    assert (payload["records"], payload["classes"], payload["k"], payload["input_suppressed"]) == (6, 4, 1, 1)
    keys = list(payload)
    assert keys.index("quasi_identifiers") < keys.index("k_map") < keys.index("delta_presence") < keys.index("sensitive")
    assert {"k_map", "delta_presence", "log_base"} <= set(payload["facts"])
    assert payload["requirements"] == []


def test_population_keys_only_with_a_population(files, tmp_path):
    released, _ = files
    out = tmp_path / "report.json"
    result = _check(released, "--json", str(out))
    assert result.exit_code == 0, result.output
    payload = json.loads(out.read_text())
    assert not {"k_map", "delta_presence", "population_records"} & set(payload)
    assert "k_map" not in payload["facts"]
    assert "k-map" not in result.stdout


def test_separators_detected_per_file_and_parquet_population(files, tmp_path):
    released, _ = files
    comma = tmp_path / "population_comma.csv"
    POPULATION.to_csv(comma, index=False)
    parquet = tmp_path / "population.parquet"
    POPULATION.to_parquet(parquet, index=False)
    for population in (comma, parquet):  # no --sep: each CSV's separator is detected
        out = tmp_path / f"{population.suffix[1:]}.json"
        result = _check(released, "--population", str(population), "--json", str(out))
        assert result.exit_code == 0, result.output
        payload = json.loads(out.read_text())
        assert payload["k_map"] == 2 and payload["delta_presence"]["delta_max"] == 0.75


@pytest.mark.parametrize(("require", "code", "met"), [
    ("k_map>=2, delta_max<=0.75, delta_min>=0.3", 0, [True, True, True]),
    ("K_MAP>=2, delta_max==0.75, k>=1", 0, [True, True, True]),  # keys are case-insensitive, like k
    ("k_map>=3", 1, [False]),
    ("delta_max<0.75", 1, [False]),  # exact: 3/4 is not below 0.75
    ("delta_min>=0.34, k_map>=1", 1, [False, True]),
    ("k_map>=2, l>=2", 1, [True, False]),  # population and table clauses judged together
])
def test_require_on_population_levels(files, tmp_path, require, code, met):
    released, population = files
    out = tmp_path / "report.json"
    result = _check(released, "--population", str(population), "--require", require, "--json", str(out))
    assert result.exit_code == code, result.output
    reqs = json.loads(out.read_text())["requirements"]
    assert [r["clause"] for r in reqs] == [c.strip() for c in require.split(",")]
    assert [r["met"] for r in reqs] == met


def test_requirement_actual_levels(files, tmp_path):
    released, population = files
    out = tmp_path / "report.json"
    result = _check(released, "--population", str(population), "--require", "k_map>=2, delta_min>=0.25, delta_max<=1",
                    "--json", str(out))
    assert result.exit_code == 0, result.output
    assert json.loads(out.read_text())["requirements"] == [
        {"clause": "k_map>=2", "met": True, "actual": 2.0},
        {"clause": "delta_min>=0.25", "met": True, "actual": 1 / 3},
        {"clause": "delta_max<=1", "met": True, "actual": 0.75},
    ]


def _write(tmp_path, name, frame):
    path = tmp_path / name
    frame.to_csv(path, index=False, sep=";")
    return path


@pytest.mark.parametrize(("case", "message"), [
    ("no_age_column", "has no quasi-identifier column 'Age'"),
    ("class_absent", "1 class(es) of the table are larger than the matching population class"),
    ("class_too_small", "1 class(es) of the table are larger than the matching population class"),
    ("no_such_file", "--population: No such file"),
    ("ragged_csv", "--population: "),
    ("corrupt_parquet", "--population: Cannot read"),
    ("require_without_population", "needs a population table; give one (--population FILE)"),
    ("malformed_population_clause", "Malformed requirement clause 'k_map>=three'"),
    ("unknown_key_lists_population_keys", "known keys: k, risk"),
])
def test_errors_exit_2_with_one_line(files, tmp_path, case, message):
    released, population = files
    args = ["--population", str(population), "--sep", ";"]
    if case == "no_age_column":
        args[1] = str(_write(tmp_path, "p.csv", POPULATION.drop(columns="Age")))
    elif case == "class_absent":  # no (4790*, 2*) in the population
        args[1] = str(_write(tmp_path, "p.csv", POPULATION[POPULATION["Zipcode"] != "4790*"]))
    elif case == "class_too_small":  # (4767*, 2*): 3 released, 2 in the population
        args[1] = str(_write(tmp_path, "p.csv", POPULATION.drop(index=[0, 1])))
    elif case == "no_such_file":
        args[1] = str(tmp_path / "nope.csv")
    elif case == "ragged_csv":
        bad = tmp_path / "ragged.csv"
        bad.write_text("Zipcode;Age\n4767*;2*\n4767*;2*;extra\n")
        args[1] = str(bad)
    elif case == "corrupt_parquet":
        bad = tmp_path / "bad.parquet"
        bad.write_bytes(b"not parquet at all")
        args[1] = str(bad)
    elif case == "require_without_population":
        args = ["--sep", ";", "--require", "k>=1, k_map>=2"]
    elif case == "malformed_population_clause":
        args += ["--require", "k_map>=three"]
    elif case == "unknown_key_lists_population_keys":
        args += ["--require", "kmapp>=2"]
    result = _check(released, *args)
    assert result.exit_code == 2, result.output
    assert message in result.stderr
    assert result.stderr.startswith("error:") and result.stderr.count("\n") == 1, result.stderr
    if case == "unknown_key_lists_population_keys":
        assert "k_map, delta_min, delta_max" in result.stderr
    # messages never quote QI values of records (veil.errors)
    assert "4767" not in result.stderr and "4790" not in result.stderr


def test_every_record_suppressed_reports_no_level(tmp_path, files):
    # no class but the suppressed one (a class of the release, not matched in a population): k-map and
    # delta-presence have no level (null), as anonymize reports no achieved
    # figure for such a release (before: 0, which read as a table failing every bound)
    _, population = files
    released = _write(tmp_path, "all_suppressed.csv", pd.DataFrame({"Zipcode": ["*"] * 2, "Age": ["*"] * 2,
                                                                     "Disease": ["Flu", "Cancer"]}))
    out = tmp_path / "report.json"
    result = _check(released, "--population", str(population), "--sep", ";", "--json", str(out))
    assert result.exit_code == 0, result.output
    payload = json.loads(out.read_text())
    assert (payload["classes"], payload["k_map"], payload["delta_presence"]) == (
        1, None, {"delta_min": None, "delta_max": None})
