"""Property tests of the additive metrics' per-attribute terms (``Metric.terms``, hypothesis):
the bounds read from them are every unsuppressed node's loss, as the measured bounds are."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from veil.algorithms._bounds import loss_bounds
from veil.algorithms._nodes import Lattice
from veil.classes import ClassTable
from veil.testing import anonymization_inputs
from veil.utility import METRICS

SETTINGS = settings(max_examples=80, deadline=None, suppress_health_check=[HealthCheck.too_slow])
WITH_TERMS = sorted(name for name, m in METRICS.items() if m.has_terms)


@SETTINGS
@given(inputs=anonymization_inputs(max_rows=30), metric=st.sampled_from(WITH_TERMS), data=st.data())
def test_bounds_from_terms_are_the_unsuppressed_losses(inputs, metric, data):
    dataset, _ = inputs
    spec = METRICS[metric]
    classes = ClassTable.from_dataset(dataset)
    heights = [h.height for h in classes.hierarchies]
    q = len(heights)
    # a base above level 0 (its marginal counted from its classes), and a sub-lattice above it
    base_levels = [data.draw(st.integers(0, h)) for h in heights]
    base = classes.generalize(base_levels)
    low = [data.draw(st.integers(a, h)) for a, h in zip(base_levels, heights)]
    high = [data.draw(st.integers(a, h)) for a, h in zip(low, heights)]
    if metric == "arx-loss":  # ARX refuses 0 beside a positive weight
        weights = data.draw(st.one_of(st.none(), st.lists(st.floats(0.1, 4.0), min_size=q, max_size=q)))
    else:
        weights = data.draw(st.one_of(st.none(), st.lists(st.floats(0.0, 4.0), min_size=q, max_size=q)))

    def loss(c):
        return spec.loss(c, weights=weights)

    lattice = Lattice(tuple(low), tuple(high))
    from_terms = loss_bounds(base, lattice, loss, lambda c, i, levels: spec.terms(c, i, levels, weights=weights))
    measured = loss_bounds(base, lattice, loss)
    np.testing.assert_allclose(from_terms, measured, rtol=1e-9, atol=1e-12)
    for node, bound in zip(map(tuple, lattice.nodes().tolist()), from_terms):
        assert bound == pytest.approx(loss(base.generalize(node)), rel=1e-9, abs=1e-12)
