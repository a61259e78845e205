"""Invariants of the risk measures (hypothesis)."""

from __future__ import annotations

from itertools import combinations

import numpy as np
import pandas as pd
from hypothesis import given, settings
from hypothesis import strategies as st

from veil.classes import ClassTable
from veil.hierarchy import Hierarchy
from veil.risk import assess, distinction, prosecutor_risk, quasi_identifier_ranking, separation

VALUES = ["a", "b", "c", "d"]


@st.composite
def frames(draw, min_rows=1, max_rows=30):
    n = draw(st.integers(min_rows, max_rows))
    cols = {name: draw(st.lists(st.sampled_from(VALUES), min_size=n, max_size=n)) for name in ("x", "y", "z")}
    return pd.DataFrame(cols)


def _classes(frame):
    hierarchy = {name: Hierarchy.from_rows([[v, "ab" if v in "ab" else "cd", "*"] for v in VALUES], name=name)
                 for name in ("x", "y", "z")}
    return ClassTable.from_pandas(frame, quasi_identifiers=["x", "y", "z"], hierarchies=hierarchy)


@settings(max_examples=60, deadline=None)
@given(frames())
def test_average_risk_is_classes_over_records(frame):
    classes = _classes(frame)
    risk = prosecutor_risk(classes)
    assert risk.average == classes.n_classes / len(frame)
    data = assess(classes).to_dict()
    assert data["marketer"]["average"] == data["journalist"]["average"] == risk.average


@settings(max_examples=60, deadline=None)
@given(frames(), st.lists(st.integers(0, 2), min_size=3, max_size=3))
def test_risk_never_increases_under_generalization(frame, levels):
    classes = _classes(frame)
    coarser = classes.generalize(levels)
    before, after = prosecutor_risk(classes), prosecutor_risk(coarser)
    assert after.highest <= before.highest
    assert after.average <= before.average
    assert after.records_at_risk <= before.records_at_risk
    assert separation(coarser) <= separation(classes) + 1e-15


@settings(max_examples=60, deadline=None)
@given(frames(min_rows=2, max_rows=20))
def test_separation_equals_pair_enumeration(frame):
    classes = _classes(frame)
    rows = frame.to_numpy()
    n = len(rows)
    for size in (1, 2, 3):
        for subset in combinations(range(3), size):
            names = [("x", "y", "z")[i] for i in subset]
            separated = sum(
                1 for i in range(n) for j in range(i + 1, n) if any(rows[i, c] != rows[j, c] for c in subset)
            )
            assert separation(classes, names) == separated / (n * (n - 1) / 2) or abs(
                separation(classes, names) - separated / (n * (n - 1) / 2)) < 1e-12
            assert distinction(classes, names) == len({tuple(r[list(subset)]) for r in rows}) / n


@settings(max_examples=40, deadline=None)
@given(frames(min_rows=2), st.randoms(use_true_random=False))
def test_results_do_not_depend_on_row_order(frame, rnd):
    order = list(range(len(frame)))
    rnd.shuffle(order)
    shuffled = frame.iloc[order].reset_index(drop=True)
    a = assess(_classes(frame), qi_subsets_max_size=3, population_fraction=0.3).to_dict()
    b = assess(_classes(shuffled), qi_subsets_max_size=3, population_fraction=0.3).to_dict()
    assert a == b


@settings(max_examples=40, deadline=None)
@given(frames(min_rows=2))
def test_ranking_agrees_with_direct_projection(frame):
    classes = _classes(frame)
    for score in quasi_identifier_ranking(classes):
        assert score.separation == separation(classes, score.attributes)
        assert score.distinction == distinction(classes, score.attributes)


@settings(max_examples=40, deadline=None)
@given(st.lists(st.integers(1, 6), min_size=1, max_size=25), st.sampled_from([0.01, 0.1, 0.3, 0.7, 1.0]))
def test_uniqueness_estimates_are_valid_fractions_or_none(sizes, fraction):
    values = np.repeat([f"v{i}" for i in range(len(sizes))], sizes)
    classes = ClassTable.from_pandas(pd.DataFrame({"q": values}), quasi_identifiers=["q"])
    data = assess(classes, population_fraction=fraction, qi_subsets_max_size=0).to_dict()["population_uniques"]
    for name in ("pitman", "zayatz", "snb", "dankar"):
        value = data[name]
        assert value is None or (0.0 <= value <= 1.0)
        assert (value is None) == (not data["valid"][name])
    if data["dankar"] is not None:
        assert data["model_used"] in ("pitman", "zayatz", "snb", "none", "sample")
