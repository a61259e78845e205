"""The Pareto frontier on hand-made points, and its defining property on random ones."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra.numpy import arrays

from veil.errors import ParameterError
from veil.explore import pareto_frontier


def test_hand_made_points_risk_and_loss_both_minimised():
    points = np.array([
        [0.50, 0.10],  # best loss: frontier
        [0.20, 0.30],  # frontier
        [0.50, 0.40],  # dominated by (0.50, 0.10) and (0.20, 0.30)
        [0.10, 0.90],  # best risk: frontier
        [0.20, 0.35],  # dominated by (0.20, 0.30): same risk, worse loss
    ])
    assert pareto_frontier(points, maximize=[False, False]).tolist() == [True, True, False, True, False]


def test_accuracy_is_maximised():
    # (risk, accuracy): (0.2, 0.80) beats (0.2, 0.75) and (0.3, 0.79); (0.1, 0.70) has the lowest risk
    points = np.array([[0.2, 0.80], [0.2, 0.75], [0.3, 0.79], [0.1, 0.70]])
    assert pareto_frontier(points, maximize=[False, True]).tolist() == [True, False, False, True]


def test_ties_stay_and_nan_never_joins():
    points = np.array([[0.2, 0.5], [0.2, 0.5], [np.nan, 0.0], [0.9, np.nan]])
    assert pareto_frontier(points, maximize=[False, False]).tolist() == [True, True, False, False]


def test_shape_is_checked():
    with pytest.raises(ParameterError, match="n_points, 2"):
        pareto_frontier(np.zeros((3, 3)), maximize=[False, False])


@settings(max_examples=60, deadline=None)
@given(arrays(np.float64, st.tuples(st.integers(1, 700), st.just(2)), elements=st.floats(0, 1, width=16)),
       st.lists(st.booleans(), min_size=2, max_size=2))
def test_pareto_property(points, maximize):
    # crosses the 512-point chunk boundary for large draws
    on = pareto_frontier(points, maximize=maximize)
    cost = points * np.where(maximize, -1.0, 1.0)
    for i in range(len(points)):
        dominated = ((cost <= cost[i]).all(axis=1) & (cost < cost[i]).any(axis=1)).any()
        assert on[i] == (not dominated)
    assert on.any()  # a finite non-empty set always has a non-dominated point
