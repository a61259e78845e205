"""The one pipeline: one plan, one problem check, one report for both row back-ends.

The table: eight records, one quasi-identifier ``age`` with the hierarchy
exact -> decade (``2*``, ``3*``, ``4*``) -> ``*``, and a sensitive ``disease``.
At the decade level the classes are 2* = {21, 22, 23, 24} (4 records),
3* = {31, 32, 33} (3) and 4* = {41} (1).  With k=2 only 4* violates, 1 record;
a suppression limit of 1/8 allows floor(0.125 * 8) = 1 suppressed record, so
the decade level is a solution, and level 0 (every class of 1) is not; with no
suppression allowed only the top (``*``, one class of 8) is.
"""

from __future__ import annotations

import pandas as pd
import pytest

import veil
from veil.dataset import Dataset
from veil.engines import anonymize_file
from veil.errors import HierarchyError, ParameterError
from veil.hierarchy import Hierarchy
from veil.models import DistinctLDiversity, KAnonymity
from veil.pipeline import MemoryRows, Plan, SuppressedGroup, check_problem, run
from veil.pipeline._plan import search

AGES = [21, 22, 23, 24, 31, 32, 33, 41]
DISEASE = ["flu", "cold", "flu", "cold", "flu", "cold", "flu", "cold"]
AGE = Hierarchy.from_rows([[str(a), f"{str(a)[0]}*", "*"] for a in AGES], name="age")


def _dataset() -> Dataset:
    frame = pd.DataFrame({"age": [str(a) for a in AGES], "disease": DISEASE})
    return Dataset.from_pandas(frame, quasi_identifiers=["age"], sensitive=["disease"]).with_hierarchies({"age": AGE})


def _csv(tmp_path) -> str:
    path = tmp_path / "in.csv"
    pd.DataFrame({"age": AGES, "disease": DISEASE}).to_csv(path, index=False)
    return str(path)


def _plan(**changes) -> Plan:
    options = dict(quasi_identifiers=["age"], sensitive=["disease"], hierarchies={"age": AGE}, mode="drop",
                   suppression_limit=0.125)
    options.update(changes)
    return Plan.make(options.pop("models", [KAnonymity(k=2)]), **options)


def test_memory_run_reaches_the_decade_level_with_one_record_suppressed():
    done = run(_plan(), MemoryRows(_dataset(), ["age", "disease"]))
    assert done.outcome.transformation == {"age": 1}
    assert done.report["suppressed"] == 1  # 4* = {41}
    assert done.report["records_out"] == 7  # 8 in, the one suppressed dropped
    assert sorted(done.released.data["age"]) == ["2*"] * 4 + ["3*"] * 3


def test_no_suppression_allowed_means_the_top():
    done = run(_plan(suppression_limit=0.0), MemoryRows(_dataset(), ["age", "disease"]))
    assert done.outcome.transformation == {"age": 2}
    assert done.report["suppressed"] == 0 and done.report["records_out"] == 8


@pytest.mark.parametrize("algorithm", ["lattice", "datafly"])
def test_engine_and_memory_give_one_report(algorithm, tmp_path):
    """The same plan through both back-ends: the same node and counts; the engine's
    report is the in-memory one's keys less ``columns``, plus the engine's own."""
    memory = veil.anonymize(_dataset(), [KAnonymity(k=2)], suppression_limit=0.125, suppressed="drop",
                            algorithm=algorithm, seed=1).report
    engine = anonymize_file(_csv(tmp_path), engine="local", quasi_identifiers=["age"], sensitive=["disease"],
                            hierarchies={"age": AGE}, models=[KAnonymity(k=2)], suppression_limit=0.125,
                            output=tmp_path / "out.csv", drop_suppressed=True, algorithm=algorithm, seed=1)
    assert engine.keys() == (memory.keys() - {"columns"}) | {"engine", "output", "classes", "seconds"}
    for key in ("transformation", "records", "records_out", "suppressed", "suppressed_dropped",
                "classes_released", "achieved", "suppressed_records", "models"):
        assert engine[key] == memory[key], key
    assert engine["transformation"] == {"age": 1} and engine["classes_released"] == 2  # 2* and 3*
    assert engine["classes"] == 8  # the input's classes: eight distinct ages
    assert list(engine["seconds"]) == ["group_count", "class_table", "search", "apply", "verify"]
    written = pd.read_csv(tmp_path / "out.csv", dtype=str)
    assert sorted(written["age"]) == ["2*"] * 4 + ["3*"] * 3


def test_engine_refuses_a_local_recoding_before_reading(tmp_path):
    with pytest.raises(ParameterError, match="The mondrian algorithm recodes rows in memory"):
        anonymize_file(_csv(tmp_path), engine="local", quasi_identifiers=["age"], hierarchies={"age": AGE},
                       models=[KAnonymity(k=2)], output=tmp_path / "out.csv", algorithm="mondrian")
    assert not (tmp_path / "out.csv").exists()


def test_search_without_rows_runs_the_class_table_search_only():
    plan = _plan()
    base = MemoryRows(_dataset(), ["age"]).class_table(plan, {})
    outcome = search(plan, plan.problem(base))  # no dataset: the rows are elsewhere
    assert outcome.data is None and outcome.transformation == {"age": 1}
    with pytest.raises(ParameterError, match="recodes rows in memory"):
        search(_plan(algorithm="mdav"), _plan(algorithm="mdav").problem(base))


def test_keep_adds_the_suppressed_group_drop_does_not():
    models = [KAnonymity(k=2), DistinctLDiversity(sensitive="disease", l=2)]
    kept = _plan(models=models, mode="keep").searched
    assert len(kept) == 3 and isinstance(kept[-1], SuppressedGroup)
    assert _plan(models=models, mode="drop").searched == tuple(models)
    assert _plan(models=[KAnonymity(k=2)], mode="keep").searched == (KAnonymity(k=2),)  # no sensitive model


@pytest.mark.parametrize(
    ("changes", "error", "message"),
    [
        ({"models": []}, ParameterError, "^At least one privacy model is needed"),
        ({"quasi_identifiers": []}, ParameterError, "^No quasi-identifier is declared"),
        ({"hierarchies": {}}, HierarchyError, r"^No hierarchy is given for the quasi-identifier\(s\) 'age'"),
        ({"label": "age"}, ParameterError, "^The class label 'age' is a quasi-identifier"),
        ({"label": "zip", "columns": ["age", "disease"]}, ParameterError, "^The class label 'zip' is not a column"),
        ({"min_levels": {"zip": 1}}, ParameterError, "^A level bound is given for 'zip'"),
        ({"options": {"strict": False}}, ParameterError, "^The lattice algorithm takes no options"),
        ({"algorithm": "mondrian", "max_levels": {"age": 1}}, ParameterError, "^Level bounds apply to full-domain"),
        ({"n_records": 1}, ParameterError, r"^k=2 is larger than the table \(1 records\)"),
        ({"algorithm": "annealing"}, ParameterError, "^The 'algorithm' parameter must be one of"),
    ],
)
def test_one_problem_check(changes, error, message):
    with pytest.raises(error, match=message):
        _plan(**changes)


def test_the_same_refusal_from_both_entry_points(tmp_path):
    """check_problem is the one check: veil.anonymize and anonymize_file say the same."""
    bare = Dataset.from_pandas(pd.DataFrame({"age": ["21", "22"]}), quasi_identifiers=["age"])
    with pytest.raises(HierarchyError) as memory:
        veil.anonymize(bare, [KAnonymity(k=2)])
    with pytest.raises(HierarchyError) as engine:
        anonymize_file(_csv(tmp_path), engine="local", quasi_identifiers=["age"], hierarchies={},
                       models=[KAnonymity(k=2)], output=tmp_path / "out.csv")
    assert str(memory.value) == str(engine.value)
    from veil.algorithms import get_algorithm

    with pytest.raises(ParameterError, match="^At least one privacy model"):
        check_problem([], ["age"], {"age": AGE}, get_algorithm("lattice"))


@pytest.mark.parametrize("engine", ["duckdb", "local"])
def test_engine_release_of_no_record(engine, tmp_path):
    """k=5 with the age capped at the decade: the classes are 4, 3 and 1 records, each
    below 5, so every record is suppressed (8 <= floor(1.0 * 8)) and, dropped, none is
    released: the report says so and has no figure of a released table."""
    report = anonymize_file(_csv(tmp_path), engine=engine, quasi_identifiers=["age"], hierarchies={"age": AGE},
                            models=[KAnonymity(k=5)], suppression_limit=1.0, max_levels={"age": 1},
                            output=tmp_path / "out.csv", drop_suppressed=True)
    assert (report["records"], report["records_out"], report["suppressed"], report["suppressed_dropped"]) == (8, 0, 8, 8)
    assert report["achieved"] is None and report["risk_after"] is None and report["classes_released"] == 0
    assert pd.read_csv(tmp_path / "out.csv").empty
