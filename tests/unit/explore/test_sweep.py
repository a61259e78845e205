"""The sweep: grid parsing, per-point figures against single anonymize runs, the lattice view."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

import veil
from veil.dataset import Dataset
from veil.errors import InfeasibleError, ParameterError
from veil.explore import FAILING, PRUNED, SATISFYING, SweepSpec, explore, lattice_view, parse_values
from veil.hierarchy import Hierarchy
from veil.models import DistinctLDiversity, KAnonymity

AGE = Hierarchy.from_rows(
    [["20", "20-29", "*"], ["25", "20-29", "*"], ["31", "30-39", "*"], ["35", "30-39", "*"], ["47", "40-49", "*"]],
    name="age",
)
SEX = Hierarchy.from_rows([["M", "*"], ["F", "*"]], name="sex")


def small() -> Dataset:
    frame = pd.DataFrame({
        "age": ["20", "25", "20", "31", "35", "31", "35", "47", "47", "25"] * 3,
        "sex": ["M", "F", "M", "F", "M", "M", "F", "F", "M", "F"] * 3,
        "y": ["lo", "lo", "hi", "hi", "hi", "lo", "lo", "hi", "lo", "hi"] * 3,
    })
    return Dataset.from_pandas(frame, quasi_identifiers=["age", "sex"], sensitive=["y"],
                               hierarchies={"age": AGE, "sex": SEX})


@pytest.mark.parametrize(
    ("text", "kind", "expected"),
    [("2:5", int, (2, 3, 4, 5)), ("2:10:4", int, (2, 6, 10)), ("3,7", int, (3, 7)),
     ("0:0.1:0.05", float, (0.0, 0.05, 0.1)), ("0.02", float, (0.02,))],
)
def test_parse_values(text, kind, expected):
    assert parse_values(text, kind=kind) == expected


@pytest.mark.parametrize("text", ["5:2", "a:b", "1:2:0", "", "1:2:3:4"])
def test_parse_values_rejects(text):
    with pytest.raises(ParameterError):
        parse_values(text, option="--k")


def test_spec_needs_a_model_and_a_sensitive_attribute_for_l():
    with pytest.raises(ParameterError, match="at least one privacy model"):
        SweepSpec()
    with pytest.raises(ParameterError, match="sensitive attribute"):
        SweepSpec(l=(2,))


def test_grid_is_the_cartesian_product():
    spec = SweepSpec(k=(2, 3), l=(2,), suppression=(0.0, 0.1), sensitive="y")
    grid = spec.grid()
    assert len(grid) == 4
    assert {(g["k"], g["suppression"]) for g in grid} == {(2, 0.0), (2, 0.1), (3, 0.0), (3, 0.1)}


def test_each_point_is_what_a_single_anonymize_gives():
    data = small()
    spec = SweepSpec(k=(2, 3, 6, 31), suppression=(0.0, 0.1))
    exploration = explore(data, spec)
    assert len(exploration.points) == 8
    for point in exploration.points:
        params = point["parameters"]
        try:
            single = veil.anonymize(small(), [KAnonymity(k=params["k"])], suppression_limit=params["suppression"])
        except (InfeasibleError, ParameterError):
            assert not point["feasible"] and not point["frontier"]
            continue
        assert point["transformation"] == single.transformation
        assert point["privacy"]["k"] == single.report["achieved"]["k"]
        assert point["privacy"]["highest_risk"] == single.report["risk_after"]["prosecutor"]["highest"]
        assert point["utility"]["loss"] == single.report["utility"]["loss"]


def test_frontier_flags_match_the_points():
    exploration = explore(small(), SweepSpec(k=(2, 3, 4, 6), suppression=(0.0, 0.1)))
    xy = exploration.coordinates()
    for i, point in enumerate(exploration.points):
        if not point["feasible"]:
            continue
        better = (xy[:, 0] <= xy[i, 0]) & (xy[:, 1] <= xy[i, 1]) & ((xy[:, 0] < xy[i, 0]) | (xy[:, 1] < xy[i, 1]))
        assert point["frontier"] == (not better.any())


def test_workload_per_point_with_a_target():
    exploration = explore(small(), SweepSpec(k=(2, 6), suppression=(0.1,)), target="y", classifier="naive-bayes")
    assert exploration.objectives[1] == ("utility", "workload:naive-bayes", True)
    for point in exploration.points:
        assert 0.0 <= point["utility"]["workload:naive-bayes"] <= 1.0
    assert set(exploration.workload) >= {"u_base", "u_max", "target"}


def test_lattice_view_agrees_with_anonymize_restricted_to_each_node():
    data = small()
    models = [KAnonymity(k=3), DistinctLDiversity(sensitive="y", l=2)]
    view = lattice_view(data, models, suppression_limit=0.1)
    assert len(view.nodes) == 3 * 2
    for node, status in zip(view.nodes, view.status):
        levels = dict(zip(("age", "sex"), (int(x) for x in node)))
        try:
            veil.anonymize(data, models, suppression_limit=0.1, min_levels=levels, max_levels=levels)
            solution = True
        except InfeasibleError:
            solution = False
        assert (status in (SATISFYING, PRUNED)) == solution
        if status == PRUNED:  # some node one level lower on one attribute is a solution
            lower = [node - np.eye(2, dtype=np.int64)[j] for j in range(2) if node[j] > 0]
            assert any(view.status[(view.nodes == n).all(axis=1)][0] != FAILING for n in lower)


def test_a_huge_range_is_refused_before_it_is_expanded():
    import tracemalloc

    from veil.explore import MAX_SWEEP_POINTS

    tracemalloc.start()
    with pytest.raises(ParameterError, match=r"--k '1:100000000' has 100,000,000 values, more than a sweep runs"):
        parse_values("1:100000000", option="--k")
    assert tracemalloc.get_traced_memory()[1] < 10 << 20  # refused without building the values
    tracemalloc.stop()
    assert len(parse_values(f"1:{MAX_SWEEP_POINTS}", option="--k")) == MAX_SWEEP_POINTS


def test_a_grid_of_too_many_combinations_is_refused():
    with pytest.raises(ParameterError, match=r"The sweep has 1,000,000 points"):
        SweepSpec(k=tuple(range(2, 1002)), t=tuple(i / 1000 for i in range(1, 1001)), sensitive="s")
