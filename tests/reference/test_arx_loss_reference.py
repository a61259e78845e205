"""``arx-loss`` against ARX's own published figures.

ARX's test suite (``src/test/org/deidentifier/arx/test/TestUtilityMetricsLoss.java``,
arx-deidentifier/arx) pins, for Adult with ``occupation`` sensitive and the 8
other attributes as QIs (sex, age, race, marital-status, education,
native-country, workclass, salary-class), the optimal transformation of
several configurations and the per-attribute Loss values at it (the RANK
aggregate lists them sorted, largest first).  With ARX's default weighting of
generalization and suppression (0.5: a suppressed record costs 1 per
attribute) veil's :func:`arx_attribute_losses` at the same node, with the
classes that violate the same models suppressed, gives the same numbers to
the last of ARX's 10 (truncated) decimals.
"""

from __future__ import annotations

import numpy as np
import pytest

from veil.classes import ClassTable
from veil.datasets import adult_path, load_adult
from veil.hierarchy import from_csv
from veil.models import HierarchicalTCloseness, KAnonymity, RecursiveCLDiversity
from veil.utility import arx_attribute_losses

QIS = ("sex", "age", "race", "marital-status", "education", "native-country", "workclass", "salary-class")


@pytest.fixture(scope="module")
def base():
    dataset = load_adult(quasi_identifiers=QIS, sensitive=("occupation",))
    occupation = from_csv(adult_path("adult_hierarchy_occupation.csv"), name="occupation")
    return ClassTable.from_dataset(dataset, hierarchies={"occupation": occupation})


@pytest.mark.parametrize(("node", "models", "arx"), [
    # ARX case 1: k=5, suppression limit 100%; 3,914 of 30,162 records suppressed (0.1297659306 each at level 0)
    ((0, 3, 0, 0, 1, 0, 0, 0), [KAnonymity(k=5)],
     [0.297248193, 0.29678055] + [0.1297659306] * 6),
    # ARX case 4: k=5 and hierarchical 0.2-closeness of occupation, limit 5%
    ((1, 4, 0, 0, 3, 1, 2, 1), [KAnonymity(k=5), HierarchicalTCloseness(sensitive="occupation", t=0.2)],
     [1.0] * 5 + [0.3077954048, 0.0458855513, 0.0458855513]),
    # ARX case 5: recursive (4,5)-diversity of occupation, limit 5%
    ((0, 3, 0, 0, 3, 1, 2, 0), [RecursiveCLDiversity(sensitive="occupation", c=4.0, l=5)],
     [1.0, 1.0, 0.3028098269, 0.2240420249] + [0.0397520058] * 4),
])
def test_per_attribute_loss_equals_arx(base, node, models, arx):
    classes = base.generalize(node)
    violating = np.zeros(classes.n_classes, dtype=bool)
    for model in models:
        violating |= model.violating(classes)
    released = classes.suppress(violating)
    assert sorted(arx_attribute_losses(released).tolist(), reverse=True) == pytest.approx(arx, abs=1e-12)
