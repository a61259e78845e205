"""``arx-loss``: ARX's Loss metric on hand-computed tables, and its search facts."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest

from veil.algorithms.lattice import exhaustive_search, search
from veil.classes import ClassTable
from veil.errors import ParameterError
from veil.hierarchy import flat, masking
from veil.models import KAnonymity
from veil.utility import METRICS, arx_attribute_losses, arx_loss, iloss

# 6 records; zip has 6 leaves (masking: level 2 = 476** / 479**, 3 leaves each); sex has 2 leaves (flat: F/M, *).
FRAME = pd.DataFrame({"zip": ["47677", "47602", "47678", "47905", "47909", "47906"],
                      "sex": ["F", "F", "M", "M", "F", "M"]})


@pytest.fixture
def table():
    hierarchies = {"zip": masking(FRAME["zip"]), "sex": flat(FRAME["sex"])}
    return ClassTable.from_pandas(FRAME, quasi_identifiers=["zip", "sex"], hierarchies=hierarchies)


def test_original_table_costs_nothing(table):
    assert arx_attribute_losses(table).tolist() == [0.0, 0.0]
    assert arx_loss(table) == 0.0


def test_generalization_normalised_by_domain_minus_one(table):
    node = table.generalize((2, 0))
    # zip: every value covers 3 of 6 leaves: (3 - 1)/(6 - 1) = 0.4 per record; sex at level 0: 0
    assert arx_attribute_losses(node).tolist() == pytest.approx([0.4, 0.0])
    # geometric mean of (1 + v): sqrt(1.4 * 1) - 1
    assert arx_loss(node) == pytest.approx(math.sqrt(1.4) - 1)
    # ILoss divides by |D| instead: zip (3 - 1)/6 = 1/3 per record, averaged with sex's 0: 1/6
    assert iloss(node) == pytest.approx(1 / 6)


def test_top_of_every_hierarchy_costs_one(table):
    top = table.generalize(tuple(h.height for h in table.hierarchies))
    # every value covers every leaf: (6 - 1)/(6 - 1) = 1 and (2 - 1)/(2 - 1) = 1; sqrt(2 * 2) - 1
    assert arx_loss(top) == pytest.approx(1.0)


def test_suppressed_records_cost_one_per_attribute(table):
    node = table.generalize((2, 0))
    # classes at (2, 0): (476**, F) 2, (476**, M) 1, (479**, M) 2, (479**, F) 1: suppress the two singletons
    suppressed = node.suppress(node.counts < 2)
    # zip: 4 kept records cost 0.4 each, 2 suppressed cost 1: (1.6 + 2)/6 = 0.6; sex: (0 + 2)/6 = 1/3
    assert arx_attribute_losses(suppressed).tolist() == pytest.approx([0.6, 1 / 3])
    assert arx_loss(suppressed) == pytest.approx(math.sqrt(1.6 * (4 / 3)) - 1)


def test_weights_are_scaled_by_the_largest_and_multiply_inside_the_mean(table):
    node = table.generalize((2, 1))
    # v = [0.4, 1]; weights 2 and 1 -> 1 and 0.5: sqrt((1.4 * 1) * (2 * 0.5)) - 1
    assert arx_loss(node, weights={"zip": 2, "sex": 1}) == pytest.approx(math.sqrt(1.4) - 1)
    # all-zero weights mean "unweighted" in ARX: sqrt(1.4 * 2) - 1
    assert arx_loss(node, weights=[0, 0]) == pytest.approx(math.sqrt(2.8) - 1)
    with pytest.raises(ParameterError, match="must not mix 0 with positive weights"):
        arx_loss(node, weights=[1, 0])


def test_registry_entry_value_and_search_loss(table):
    metric = METRICS["arx-loss"]
    node = table.generalize((2, 1))
    assert metric.value(node) == pytest.approx(math.sqrt(2.8) - 1)
    # the search minimises log(1 + Loss) = (log 1.4 + log 2) / 2: a sum over attributes, same order
    assert metric.loss(node) == pytest.approx((math.log(1.4) + math.log(2)) / 2)
    assert metric.additive and metric.bounded_by_unsuppressed and metric.monotone


def test_search_finds_the_exhaustive_optimum(table):
    loss = METRICS["arx-loss"].loss
    for limit in (0.0, 0.34):
        fast = search(table, [KAnonymity(k=2)], loss=loss, metric_name="arx-loss", suppression_limit=limit)
        slow = exhaustive_search(table, [KAnonymity(k=2)], loss=loss, suppression_limit=limit)
        assert fast.node == slow.node and fast.loss == pytest.approx(slow.loss)


def test_unsuppressed_loss_bounds_the_suppressed_one(table):
    # the fact the lattice search prunes with: suppressing never lowers ARX's Loss
    for node in [(0, 0), (1, 0), (2, 0), (2, 1), (5, 0)]:
        level = table.generalize(node)
        for mask in (level.counts < 2, np.ones(level.n_classes, dtype=bool)):
            assert arx_loss(level.suppress(mask)) >= arx_loss(level)


@pytest.mark.parametrize(("limit", "node", "arx"), [
    (0.0, (0, 4, 0, 2, 3, 2, 2, 1), 0.5915849773198221),
    (0.05, (0, 3, 0, 0, 1, 1, 1, 2), 0.2518517151856563),
])
def test_adult_k5_picks_arx_node_and_the_exhaustive_optimum(adult, limit, node, arx):
    # QIs: sex, age, race, marital-status, education, native-country, workclass, occupation.
    # ARX 3.9.2 (built from its source; KAnonymity(5), Metric.createLossMetric(), the same
    # hierarchies) returns these global optima and Loss values (getHighestScore()).
    # The exhaustive evaluation of all 6,480 nodes must agree with the search.
    base = ClassTable.from_dataset(adult)
    metric = METRICS["arx-loss"]
    fast = search(base, [KAnonymity(k=5)], loss=metric.loss, metric_name="arx-loss", suppression_limit=limit)
    slow = exhaustive_search(base, [KAnonymity(k=5)], loss=metric.loss, suppression_limit=limit)
    assert fast.node == slow.node == node
    assert fast.loss == slow.loss
    assert metric.value(fast.classes) == pytest.approx(arx, abs=1e-12)
    assert fast.nodes_checked < slow.nodes_checked / 10  # the bounds prune
