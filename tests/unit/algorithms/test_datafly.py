"""Datafly (Sweeney 2002): greedy full-domain generalization."""

import numpy as np
import pandas as pd
import pytest

from veil.algorithms.datafly import datafly
from veil.algorithms.lattice import exhaustive_search
from veil.classes import ClassTable
from veil.errors import InfeasibleError
from veil.hierarchy import Hierarchy
from veil.models import DistinctLDiversity, KAnonymity
from veil.utility import get_metric

LOSS = get_metric("loss")


def loss(c):
    return LOSS.loss(c)


def _table():
    """Six records.  zip has 4 distinct values, sex 2, so Datafly generalizes zip first:
    zip 1301*/1302* splits the records 3/3, and with sex still exact the classes are
    {1301*,F}:2, {1301*,M}:1, {1302*,F}:1, {1302*,M}:2 -> not 2-anonymous.  Now zip
    (2 values) and sex (2) tie: the first listed (zip) goes up again, to 130**: classes
    {F}:3 and {M}:3, 2-anonymous.  Path: (0,0) -> (1,0) -> (2,0)."""
    frame = pd.DataFrame({
        "zip": ["13011", "13012", "13011", "13021", "13022", "13022"],
        "sex": ["F", "F", "M", "F", "M", "M"],
    })
    zip_h = Hierarchy.from_rows([
        ["13011", "1301*", "130**"], ["13012", "1301*", "130**"],
        ["13021", "1302*", "130**"], ["13022", "1302*", "130**"],
    ], name="zip")
    sex_h = Hierarchy.from_rows([["F", "*"], ["M", "*"]], name="sex")
    return ClassTable.from_pandas(frame, quasi_identifiers=["zip", "sex"], hierarchies={"zip": zip_h, "sex": sex_h})


def test_hand_worked_path():
    result = datafly(_table(), [KAnonymity(k=2)], loss=loss)
    assert result.algorithm == "datafly"
    assert result.extra["path"] == [[0, 0], [1, 0], [2, 0]]
    assert result.node == (2, 0)
    assert sorted(result.classes.counts.tolist()) == [3, 3]
    assert result.nodes_checked == 3


def test_suppression_stops_earlier():
    # with one record allowed to be suppressed, (1,0) needs 2 (the two singletons): still
    # too many; with 2 allowed (2/6), Datafly stops at (1,0) and suppresses them
    result = datafly(_table(), [KAnonymity(k=2)], loss=loss, suppression_limit=2 / 6)
    assert result.node == (1, 0) and result.extra["suppressed_records"] == 2


def test_output_satisfies_models_and_is_no_better_than_the_optimum(adult):
    classes = ClassTable.from_dataset(adult)
    models = [KAnonymity(k=5), DistinctLDiversity(sensitive="salary-class", l=2)]
    result = datafly(classes, models, loss=loss, suppression_limit=0.05)
    assert all(m.check(result.classes) for m in models)
    assert result.extra["suppressed_records"] <= int(0.05 * adult.n_records)
    # the path climbs one level of one attribute per step
    steps = np.diff(np.array(result.extra["path"]), axis=0)
    assert (steps.sum(axis=1) == 1).all() and (steps >= 0).all()


def test_never_beats_exhaustive_optimum():
    classes = _table()
    for k in (1, 2, 3):
        greedy = datafly(classes, [KAnonymity(k=k)], loss=loss)
        best = exhaustive_search(classes, [KAnonymity(k=k)], loss=loss)
        assert greedy.loss >= best.loss - 1e-12


def test_infeasible():
    with pytest.raises(InfeasibleError, match="would need to suppress"):
        datafly(_table(), [KAnonymity(k=4)], loss=loss, max_levels=(1, 1))
