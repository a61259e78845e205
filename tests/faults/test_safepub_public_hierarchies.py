"""SafePub's guarantee needs every hierarchy fixed before the data is read (docs/algorithms/safepub.md):
a hierarchy built from the column's values (a builder such as ``interval:5,10``, ``auto``, ``suppress``)
would make the released generalizations and the search's candidates depend on the records. Each way
of asking for one is refused (one line, exit 2, nothing written); a file is accepted."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from tests.faults.conftest import invoke, snapshot
from veil.anonymization import anonymize
from veil.errors import ParameterError
from veil.hierarchy import Hierarchy

AGES = [str(a) for a in range(20, 60)]


@pytest.fixture
def work(tmp_path: Path) -> Path:
    rng = np.random.default_rng(5)
    n = 2000
    pd.DataFrame({"age": rng.choice(AGES, n), "sex": rng.choice(["F", "M"], n)}).to_csv(tmp_path / "data.csv",
                                                                                       index=False)
    Hierarchy.from_rows([[a, f"{int(a) // 10 * 10}-{int(a) // 10 * 10 + 9}", "*"] for a in AGES]).to_csv(
        tmp_path / "age.csv")
    Hierarchy.from_rows([["F", "*"], ["M", "*"]]).to_csv(tmp_path / "sex.csv")
    return tmp_path


def _run(work: Path, *hierarchy: str):
    return invoke("anonymize", work / "data.csv", "--qi", "age,sex", "--algorithm", "safepub", "--epsilon", "2",
                  "--delta", "1e-3", "-o", work / "out" / "o.csv", "--json", work / "out" / "o.json", *hierarchy)


@pytest.mark.parametrize("spec", ["interval:5,10", "auto", "suppress"])
def test_a_builder_hierarchy_is_refused(work, spec):
    before = snapshot(work)
    done = _run(work, "--hierarchy", f"age={spec}", "--hierarchy", f"sex={work / 'sex.csv'}")
    assert done.exit_code == 2
    line = done.stderr.strip()
    assert line.count("\n") == 0 and line.startswith("error: attributes.age.hierarchy: a differentially private")
    assert f"{spec!r} is built from the column's values" in line
    assert snapshot(work) == before


def test_auto_hierarchies_is_refused_before_it_reads_or_prints_anything(work):
    before = snapshot(work)
    done = _run(work, "--auto-hierarchies")
    assert done.exit_code == 2 and done.stdout == ""  # no "hierarchies: age=auto (... 20 to 59)" line
    assert done.stderr.strip().startswith("error: --auto-hierarchies builds hierarchies from the data")
    assert snapshot(work) == before


def test_a_configuration_with_a_builder_is_refused(work):
    (work / "release.yaml").write_text(
        f"input: {{path: {work / 'data.csv'}}}\n"
        "attributes:\n  age: {role: quasi-identifier, hierarchy: {intervals: {widths: [5, 10]}}}\n"
        f"  sex: {{role: quasi-identifier, hierarchy: {{file: {work / 'sex.csv'}}}}}\n"
        "models: [{type: dp, epsilon: 2, delta: 0.001}]\nalgorithm: safepub\nsuppression_limit: 1.0\n"
        f"output: {{path: {work / 'out' / 'o.csv'}}}\n")
    before = snapshot(work)
    done = invoke("anonymize", work / "release.yaml")
    assert done.exit_code == 2 and "attributes.age.hierarchy: a differentially private release" in done.stderr
    assert snapshot(work) == before


def test_files_are_accepted(work):
    done = _run(work, "--hierarchy", f"age={work / 'age.csv'}", "--hierarchy", f"sex={work / 'sex.csv'}")
    assert done.exit_code == 0, done.stderr
    assert (work / "out" / "o.csv").exists()


@pytest.mark.parametrize("asked", [dict(hierarchies={"age": "interval:5,10"}), dict(auto_hierarchies=True)])
def test_the_python_api_refuses_a_builder_too(work, asked):
    frame = pd.read_csv(work / "data.csv", dtype=str)
    with pytest.raises(ParameterError, match="builds a hierarchy from the data; a differentially private release"):
        anonymize(frame, quasi_identifiers=["age"], kinds={"age": "numeric"}, algorithm="safepub",
                  options={"epsilon": 2, "delta": 1e-3}, **asked)
