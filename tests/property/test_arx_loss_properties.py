"""Property tests of ``arx-loss`` and the facts it declares to the search (hypothesis)."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from veil.algorithms.lattice import exhaustive_search, search
from veil.classes import ClassTable
from veil.errors import InfeasibleError, ParameterError
from veil.testing import anonymization_inputs
from veil.utility import METRICS, arx_loss

SETTINGS = settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])


@SETTINGS
@given(inputs=anonymization_inputs(max_rows=30), limit=st.sampled_from([0.0, 0.1, 0.3, 1.0]))
def test_search_finds_the_exhaustive_optimum_of_arx_loss(inputs, limit):
    """The precomputed additive bounds (``additive``) never prune the optimum."""
    dataset, models = inputs
    classes = ClassTable.from_dataset(dataset)
    loss = METRICS["arx-loss"].loss
    try:
        reference = exhaustive_search(classes, models, loss=loss, suppression_limit=limit)
    except (InfeasibleError, ParameterError) as exc:
        with pytest.raises(type(exc)):
            search(classes, models, loss=loss, metric_name="arx-loss", suppression_limit=limit)
        return
    found = search(classes, models, loss=loss, metric_name="arx-loss", suppression_limit=limit,
                   terms=METRICS["arx-loss"].terms)
    assert found.loss == pytest.approx(reference.loss, rel=1e-9, abs=1e-12)


@SETTINGS
@given(inputs=anonymization_inputs(max_rows=30), data=st.data())
def test_unsuppressed_loss_bounds_every_generalization_with_any_suppression(inputs, data):
    """``bounded_by_unsuppressed``: a node's table without suppression costs no more than
    any generalization of it with any classes suppressed."""
    dataset, _ = inputs
    classes = ClassTable.from_dataset(dataset)
    heights = [h.height for h in classes.hierarchies]
    low = [data.draw(st.integers(0, h)) for h in heights]
    high = [data.draw(st.integers(a, h)) for a, h in zip(low, heights)]
    coarse = classes.generalize(high)
    mask = np.array(data.draw(st.lists(st.booleans(), min_size=coarse.n_classes, max_size=coarse.n_classes)),
                    dtype=bool)
    assert arx_loss(classes.generalize(low)) <= arx_loss(coarse.suppress(mask)) + 1e-12
    # and log(1 + Loss) is a sum of per-attribute terms on unsuppressed tables (``additive``)
    loss = METRICS["arx-loss"].loss
    base = loss(classes.generalize([0] * len(heights)))
    terms = sum(loss(classes.generalize([lvl if j == i else 0 for j in range(len(heights))])) - base
                for i, lvl in enumerate(high))
    assert loss(coarse) == pytest.approx(base + terms, abs=1e-9)
