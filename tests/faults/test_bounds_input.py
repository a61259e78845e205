"""Unbounded work and bad input found by the hostile review (issues 32 and 33), each refused or fixed.

The lattice's size bound (issue 32 item 14), the identifier scan's patterns on adversarial
lengths (item 15), what the scan makes of ordinary survey columns (issue 33 item 6), the
label and features of TDS and ``veil utility`` (items 12, 13; issue 33 item 8), malformed
reports and pandas dtypes (item 16), and ``veil risk --top`` (item 17).
"""

from __future__ import annotations

import time
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

QIS16 = ",".join(f"q{i}" for i in range(16))


def _wide(folder: Path, n_qis: int = 16, rows: int = 100) -> Path:
    """``rows`` rows of ``n_qis`` columns with the five values 1..5 each (the reviewer's table)."""
    rng = np.random.default_rng(0)
    frame = pd.DataFrame({f"q{i}": rng.integers(1, 6, size=rows) for i in range(n_qis)})
    path = folder / "wide.csv"
    frame.to_csv(path, index=False)
    return path


# -- issue 32 item 14: the lattice has a size limit ------------------------------------------------


def test_sixteen_qis_are_refused_in_one_line_within_seconds(tmp_path: Path, faults) -> None:
    data = _wide(tmp_path)
    before = faults.snapshot(tmp_path)
    began = time.process_time()  # CPU time: the load of other processes does not count
    outcome = faults.invoke("anonymize", data, "--qi", QIS16, "--auto-hierarchies", "-k", "2",
                            "-o", tmp_path / "out.csv", "-q")
    seconds = time.process_time() - began
    faults.assert_refused(outcome, before, faults.snapshot(tmp_path), "16 quasi-identifiers", "nodes",
                          "max_nodes=10,000,000", "--algorithm mondrian", "--max-nodes")
    assert seconds < 5, seconds


def test_explore_refuses_the_same_lattice(tmp_path: Path, faults) -> None:
    data = _wide(tmp_path)
    levels = tmp_path / "levels.csv"  # 1..5 in three levels and *: 4^16 nodes
    levels.write_text("".join(f"{v};{(v - 1) // 2};{(v - 1) // 4};*\n" for v in range(1, 6)), encoding="utf-8")
    before = faults.snapshot(tmp_path)
    hierarchies = [f"--hierarchy=q{i}={levels}" for i in range(16)]
    outcome = faults.invoke("explore", data, "--qi", QIS16, *hierarchies, "-k", "2", "-q")
    faults.assert_refused(outcome, before, faults.snapshot(tmp_path), "nodes", "max_nodes")


def test_max_nodes_flag_and_config_key_bound_the_lattice(tmp_path: Path, faults) -> None:
    data = _wide(tmp_path, n_qis=3)
    before = faults.snapshot(tmp_path)
    outcome = faults.invoke("anonymize", data, "--qi", "q0,q1,q2", "--auto-hierarchies", "-k", "2",
                            "--max-nodes", "5", "-o", tmp_path / "out.csv")
    faults.assert_refused(outcome, before, faults.snapshot(tmp_path), "max_nodes=5")
    config = tmp_path / "release.yaml"
    config.write_text(
        "input: {path: wide.csv}\n"
        "attributes:\n" + "".join(f"  q{i}: {{role: quasi-identifier, hierarchy: auto}}\n" for i in range(3))
        + "models: [{type: k-anonymity, k: 2}]\nmax_nodes: 5\noutput: {path: out.csv}\n", encoding="utf-8")
    before = faults.snapshot(tmp_path)
    faults.assert_refused(faults.invoke("anonymize", config), before, faults.snapshot(tmp_path), "max_nodes=5")
    config.write_text(config.read_text().replace("max_nodes: 5", "max_nodes: 100000"), encoding="utf-8")
    assert faults.invoke("anonymize", config).exit_code == 0
    assert (tmp_path / "out.csv").exists()


def test_max_nodes_bounds_the_engine_search_too(tmp_path: Path, faults) -> None:
    pytest.importorskip("duckdb")
    _wide(tmp_path, n_qis=2)
    (tmp_path / "h.csv").write_text("".join(f"{v};{(v - 1) // 2};*\n" for v in range(1, 6)), encoding="utf-8")
    config = tmp_path / "release.yaml"
    config.write_text(
        "input: {path: wide.csv}\nattributes:\n"
        + "".join(f"  q{i}: {{role: quasi-identifier, hierarchy: {{file: h.csv}}}}\n" for i in range(2))
        + "models: [{type: k-anonymity, k: 2}]\nmax_nodes: 5\nengine: duckdb\noutput: {path: out.csv}\n",
        encoding="utf-8")
    before = faults.snapshot(tmp_path)
    faults.assert_refused(faults.invoke("anonymize", config), before, faults.snapshot(tmp_path),
                          "9 nodes", "max_nodes=5")


def test_max_nodes_must_be_positive(tmp_path: Path, faults) -> None:
    data = _wide(tmp_path, n_qis=2)
    before = faults.snapshot(tmp_path)
    outcome = faults.invoke("anonymize", data, "--qi", "q0,q1", "--auto-hierarchies", "-k", "2",
                            "--max-nodes", "0", "-o", tmp_path / "out.csv")
    faults.assert_refused(outcome, before, faults.snapshot(tmp_path), "max_nodes")


def test_the_library_refuses_before_allocating() -> None:
    from veil.algorithms._lattice_size import check_lattice_size
    from veil.errors import ParameterError

    names = [f"q{i}" for i in range(40)]
    with pytest.raises(ParameterError, match="nodes") as info:
        check_lattice_size(names, [0] * 40, [9] * 40, memory=None)  # 10^40 nodes: a Python integer
    assert "10,000,000,000,000,000,000,000,000,000,000,000,000,000 nodes" in str(info.value)
    assert "\n" not in str(info.value)
    # under max_nodes but over the memory available: refused too, without suggesting a larger bound
    with pytest.raises(ParameterError, match="memory available") as info:
        check_lattice_size(names[:2], [0, 0], [9, 9], memory=1000)
    assert "--max-nodes" not in str(info.value)
    assert check_lattice_size(names[:2], [0, 0], [9, 9], memory=None) == 100


def test_datafly_is_not_bounded_by_the_lattice_size(tmp_path: Path, faults) -> None:
    data = _wide(tmp_path)
    outcome = faults.invoke("anonymize", data, "--qi", QIS16, "--auto-hierarchies", "-k", "2",
                            "--algorithm", "datafly", "-o", tmp_path / "out.csv", "-q")
    assert outcome.exit_code == 0, outcome.text


# -- issue 32 item 15: every pattern of the identifier scan is linear ------------------------------


def _sanitize_patterns() -> dict[str, "re.Pattern[str]"]:
    """Every regular expression of ``veil.sanitize``: each kind's value and column-name patterns, and
    every module-level pattern (compiled, or a text with regex syntax) of its modules."""
    import importlib
    import pkgutil
    import re

    import veil.sanitize
    from veil.sanitize._patterns import KINDS

    found: dict[str, re.Pattern[str]] = {}
    for kind in KINDS:
        if kind.value_regex is not None:
            found[f"{kind.name} value"] = kind.value_regex
        if kind.name_regex is not None:
            found[f"{kind.name} names"] = kind.name_regex
    for info in pkgutil.iter_modules(veil.sanitize.__path__):
        module = importlib.import_module(f"veil.sanitize.{info.name}")
        for attr, value in vars(module).items():
            if isinstance(value, re.Pattern):
                found[f"{info.name}.{attr}"] = value
            elif isinstance(value, str) and attr.isupper() and ("(?:" in value or "\\d" in value):
                found[f"{info.name}.{attr}"] = re.compile(value)
    return found


#: Texts that make a backtracking engine try many splits: a prefix that starts a match, one
#: chunk repeated to 100 KB, and a last character that makes the whole match fail.
_PREFIXES = ("", "Aa A", "12 ", "a@a", "http://a")
_CHUNKS = ("a", "A", "1", "a ", "1 ", "a.", "a-", "Aa ", "_", "ab:")
_SUFFIXES = ("!",)
#: The patterns the scan runs unanchored (``sub``, ``split``, ``extract``); the others it fullmatches.
_SEARCHED = {"_patterns._CAMEL", "_patterns._NON_WORD", "_actions._AGE_TOP_CODE"}


@pytest.mark.parametrize("name", sorted(_sanitize_patterns()))
def test_every_scan_pattern_is_linear_on_100_kb(name: str) -> None:
    pattern = _sanitize_patterns()[name]
    match = pattern.search if name in _SEARCHED else pattern.fullmatch
    began = time.process_time()  # this process's CPU time: other processes' load does not count
    for prefix in _PREFIXES:
        for chunk in _CHUNKS:
            body = chunk * (100_000 // len(chunk))
            for suffix in _SUFFIXES:
                match(prefix + body + suffix)
    # 50 texts of 100 KB (about 0.2 s for a linear pattern); the name pattern took 0.2 s on ONE
    # text of 2,000 characters, 3 s on 8,000 (quadratic: about 8 min on 100 KB)
    assert time.process_time() - began < 2.0, name


def _long_names(folder: Path, length: int) -> Path:
    frame = pd.DataFrame({"who": ["Aa A" + "a" * (length + i) + "1" for i in range(10)], "age": range(30, 40)})
    path = folder / "long.csv"
    frame.to_csv(path, index=False)
    return path


def test_scan_of_long_capitalised_values_is_fast(tmp_path: Path, faults) -> None:
    data = _long_names(tmp_path, 10_000)  # 26 s in the review
    began = time.process_time()  # CPU time: the load of other processes does not count
    outcome = faults.invoke("scan", data)
    assert outcome.exit_code == 0, outcome.text
    assert time.process_time() - began < 2.0


def test_anonymize_scans_long_values_fast(tmp_path: Path, faults) -> None:
    data = _long_names(tmp_path, 100_000)  # 1 MB: past 300 s in the review
    began = time.process_time()  # CPU time: the load of other processes does not count
    outcome = faults.invoke("anonymize", data, "--qi", "age", "--hierarchy", "age=interval:10", "-k", "2",
                            "--insensitive", "who", "-o", tmp_path / "out.csv", "-q")
    assert outcome.exit_code in (0, 2), outcome.text
    assert "Traceback" not in outcome.text
    assert time.process_time() - began < 5.0


# -- issue 33 item 6: ordinary survey columns ------------------------------------------------------


def _trial(folder: Path, n: int = 453) -> Path:
    """A clinical trial's shape: age, sex, two continuous health scores (unique decimals)."""
    rng = np.random.default_rng(4)
    frame = pd.DataFrame({
        "age": rng.integers(20, 80, size=n), "sex": rng.choice(["F", "M"], size=n),
        "mcs": [f"{x:.6f}" for x in rng.normal(40, 12, size=n)],
        "pcs": [f"{x:.6f}" for x in rng.normal(48, 10, size=n)],
        "racegrp": rng.choice(["white", "black", "hispanic", "other"], size=n),
    })
    path = folder / "trial.csv"
    frame.to_csv(path, index=False)
    return path


def test_health_scores_are_released_as_insensitive_without_allow_identifier(tmp_path: Path, faults) -> None:
    data = _trial(tmp_path)
    outcome = faults.invoke("anonymize", data, "--qi", "age,sex", "--hierarchy", "age=interval:10,20",
                            "--hierarchy", "sex=suppress", "-k", "5", "--insensitive", "mcs,pcs",
                            "-o", tmp_path / "out.csv", "-q")
    assert outcome.exit_code == 0, outcome.text
    assert list(pd.read_csv(tmp_path / "out.csv").columns) == ["age", "sex", "mcs", "pcs"]


def test_scan_names_survey_kinds(tmp_path: Path, faults) -> None:
    import json

    data = _trial(tmp_path)
    frame = pd.read_csv(data)
    frame["education"] = np.resize(["1. < HS Grad", "2. HS Grad", "5. Advanced Degree"], len(frame))
    frame["region"] = np.resize(["1. New England", "2. Middle Atlantic"], len(frame))
    frame["maritl"] = np.resize(["1. Never Married", "2. Married"], len(frame))
    frame["educcat"] = np.resize(["hs", "college"], len(frame))
    frame["maritalcat"] = np.resize(["single", "married"], len(frame))
    frame["row"] = np.arange(20_001, 20_001 + len(frame))
    frame.to_csv(data, index=False)
    outcome = faults.invoke("scan", data, "--json", tmp_path / "scan.json")
    assert outcome.exit_code == 0, outcome.text
    columns = json.loads((tmp_path / "scan.json").read_text())["columns"]
    assert {c: columns[c]["kind"] for c in ("education", "region", "maritl", "educcat", "maritalcat", "racegrp")} == {
        "education": "education", "region": "region", "maritl": "marital_status", "educcat": "education",
        "maritalcat": "marital_status", "racegrp": "race"}
    assert all(columns[c]["category"] == "quasi-identifier"
               for c in ("education", "region", "maritl", "educcat", "maritalcat", "racegrp"))
    assert columns["mcs"]["category"] == columns["pcs"]["category"] == "none"
    assert not [e for e in columns["row"]["evidence"] if e["kind"] == "zip"]


# -- issue 32 items 12, 13; issue 33 item 8: the label, the features and the report of a workload --


def _wage(folder: Path, n: int = 600) -> Path:
    """A wage survey's shape: two QIs, a class attribute, and columns a release withholds."""
    rng = np.random.default_rng(5)
    age = rng.integers(20, 70, size=n)
    frame = pd.DataFrame({
        "age": age, "sex": rng.choice(["F", "M"], size=n),
        "maritl": rng.choice(["1. Never Married", "2. Married", "3. Widowed"], size=n),
        "income": rng.integers(1_000, 90_000, size=n),
        "salary-class": np.where(age + rng.integers(0, 30, size=n) > 60, ">50K", "<=50K"),
    })
    path = folder / "wage.csv"
    frame.to_csv(path, index=False)
    return path


def _age_file(folder: Path) -> Path:
    path = folder / "age.csv"
    path.write_text("".join(f"{a};{a // 10 * 10}-{a // 10 * 10 + 9};*\n" for a in range(20, 70)), encoding="utf-8")
    return path


def test_tds_reads_a_withheld_label_without_publishing_it(tmp_path: Path, faults) -> None:
    data = _wage(tmp_path)
    out = tmp_path / "out.csv"
    outcome = faults.invoke("anonymize", data, "--qi", "age,sex", "--hierarchy", f"age={_age_file(tmp_path)}",
                            "--hierarchy", "sex=suppress", "-k", "5", "--algorithm", "tds",
                            "--label", "salary-class", "-o", out, "--json", tmp_path / "r.json", "-q")
    assert outcome.exit_code == 0, outcome.text
    assert "salary-class" not in pd.read_csv(out).columns  # the label is withheld: read, never written
    import json

    assert json.loads((tmp_path / "r.json").read_text())["utility"]["classification"] is not None


def test_target_workload_learns_from_the_published_columns_only(tmp_path: Path, faults) -> None:
    data = _wage(tmp_path)
    outcome = faults.invoke("anonymize", data, "--qi", "age,sex", "--hierarchy", f"age={_age_file(tmp_path)}",
                            "--hierarchy", "sex=suppress", "--insensitive", "salary-class", "-k", "5",
                            "--target", "salary-class", "-o", tmp_path / "out.csv", "--json", tmp_path / "r.json",
                            "-q")
    assert outcome.exit_code == 0, outcome.text  # maritl and income are withheld: not features
    import json

    workload = json.loads((tmp_path / "r.json").read_text())["workload"]
    assert workload["features"] == ["age", "sex"]


def test_utility_needs_only_the_report(tmp_path: Path, faults) -> None:
    data = _wage(tmp_path)
    _age_file(tmp_path)
    faults.invoke("anonymize", data, "--qi", "age,sex", "--hierarchy", f"age={tmp_path / 'age.csv'}",
                  "--hierarchy", "sex=suppress", "--insensitive", "salary-class", "-k", "5",
                  "-o", tmp_path / "out.csv", "--json", tmp_path / "r.json", "-q")
    outcome = faults.invoke("utility", data, tmp_path / "out.csv", "--report", tmp_path / "r.json",
                            "--target", "salary-class", "--json", tmp_path / "u.json")
    assert outcome.exit_code == 0, outcome.text
    import json

    assert json.loads((tmp_path / "u.json").read_text())["features"] == ["age", "sex"]


@pytest.mark.parametrize("transformation", ['[1, 2]', '{"age": "x", "sex": 1}', '{"age": null, "sex": 1}',
                                            '{"age": true, "sex": 1}', '"age"'])
def test_utility_refuses_a_malformed_report(tmp_path: Path, faults, transformation: str) -> None:
    data = _wage(tmp_path)
    release = tmp_path / "release.csv"
    pd.read_csv(data)[["age", "sex", "salary-class"]].to_csv(release, index=False)
    report = tmp_path / "r.json"
    report.write_text('{"transformation": ' + transformation + '}', encoding="utf-8")
    before = faults.snapshot(tmp_path)
    outcome = faults.invoke("utility", data, release, "--report", report, "--target", "salary-class")
    faults.assert_refused(outcome, before, faults.snapshot(tmp_path), "transformation")


# -- issue 32 item 16 (part): Interval and Period columns; item 17 (part): risk --top ---------------


def test_interval_and_period_columns_are_read_as_text_labels() -> None:
    from veil import Dataset

    n = 40
    frame = pd.DataFrame({
        "band": pd.arrays.IntervalArray.from_breaks([0, 10, 20, 30, 40])[np.arange(n) % 4],
        "month": pd.period_range("2020-01", periods=4, freq="M")[np.arange(n) % 4],
        "s": ["u", "v"] * (n // 2),
    })
    frame.loc[5, "month"] = pd.NaT
    before = frame.copy()
    data = Dataset.from_pandas(frame, quasi_identifiers=["band", "month"], sensitive=["s"])
    assert list(data.frame["band"].iloc[:2]) == ["(0, 10]", "(10, 20]"]
    assert data.frame["month"].iloc[0] == "2020-01" and pd.isna(data.frame["month"].iloc[5])
    pd.testing.assert_frame_equal(frame, before)  # the caller's frame is not changed
    from veil.classes import ClassTable

    assert ClassTable.from_dataset(data).n_classes == 5  # 4 combinations, and the one with a missing month


def test_risk_refuses_a_negative_top(tmp_path: Path, faults) -> None:
    data = tmp_path / "d.csv"
    data.write_text("a,b\n" + "".join(f"{i % 3},{i % 2}\n" for i in range(12)), encoding="utf-8")
    before = faults.snapshot(tmp_path)
    outcome = faults.invoke("risk", data, "--qi", "a,b", "--top", "-1")
    faults.assert_refused(outcome, before, faults.snapshot(tmp_path), "--top", "-1")
