"""Additive metrics' per-attribute terms (``Metric.terms``) on hand-computed tables, and the
search's bounds read from them (issue #16)."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from veil.algorithms._bounds import loss_bounds
from veil.algorithms._nodes import Lattice
from veil.algorithms.lattice import search
from veil.classes import ClassTable
from veil.errors import ParameterError
from veil.hierarchy import flat, masking
from veil.models import KAnonymity
from veil.utility import METRICS, Metric, get_metric, register_metric

# 6 records; zip has 6 leaves (masking: level 1 = 4767*/4760*/4790*, level 2 = 476**/479**);
# sex has 2 leaves (flat: F/M, *).
FRAME = pd.DataFrame({"zip": ["47677", "47602", "47678", "47905", "47909", "47906"],
                      "sex": ["F", "F", "M", "M", "F", "M"]})
WITH_TERMS = [name for name, m in METRICS.items() if m.has_terms]


@pytest.fixture
def table():
    hierarchies = {"zip": masking(FRAME["zip"]), "sex": flat(FRAME["sex"])}
    return ClassTable.from_pandas(FRAME, quasi_identifiers=["zip", "sex"], hierarchies=hierarchies)


def test_the_metrics_that_declare_terms():
    assert set(WITH_TERMS) == {"height", "precision", "loss", "arx-loss"}
    assert all(METRICS[name].additive for name in WITH_TERMS)
    assert not METRICS["entropy"].has_terms and METRICS["entropy"].additive  # measured by the search
    assert METRICS["discernibility"].terms(None, 0, [0]) is None  # type: ignore[arg-type]


def test_iloss_terms_by_hand(table):
    terms = get_metric("loss").terms(table, 0, [0, 1, 2, 5])
    # zip at level 1: 4767* covers 2 of 6 leaves for 2 records, 4790* covers 3 for 3 records
    # (47905, 47909, 47906), 4760* 1: sum of (LN - 1) = 2*1 + 3*2 = 8; at level 2 every value covers
    # 3: 6*2 = 12; at the top 6*5 = 30.  Over |D_zip| = 6 and |D| * N_a = 6 * 2
    assert terms.tolist() == pytest.approx([0.0, 8 / 6 / 12, 12 / 6 / 12, 30 / 6 / 12])
    # with weights (zip 2, sex 1): twice as much
    weighted = get_metric("loss").terms(table, 0, [0, 1, 2, 5], weights={"zip": 2.0})
    assert weighted.tolist() == pytest.approx((2 * terms).tolist())
    assert get_metric("loss").terms(table, 1, [0, 1]).tolist() == pytest.approx([0.0, 6 * 1 / 2 / 12])


def test_arx_loss_terms_by_hand(table):
    terms = get_metric("arx-loss").terms(table, 0, [0, 2, 5])
    # v_zip at level 2 = (3 - 1)/(6 - 1) = 0.4; at the top 1; the term is log(1 + v) / N_a
    assert terms.tolist() == pytest.approx([0.0, np.log(1.4) / 2, np.log(2.0) / 2])


def test_precision_and_height_terms_by_hand(table):
    # zip's hierarchy has height 5: a kept record is charged level / 5, over |D| * N_a = 12
    assert get_metric("precision").terms(table, 0, [0, 2, 5]).tolist() == pytest.approx(
        [0.0, 6 * 2 / 5 / 12, 6 * 5 / 5 / 12])
    assert get_metric("height").terms(table, 1, [0, 1]).tolist() == [0.0, 1.0]


@pytest.mark.parametrize("metric", WITH_TERMS)
@pytest.mark.parametrize("weights", [None, {"zip": 2.0, "sex": 0.5}])
def test_the_lowest_node_plus_the_terms_is_every_unsuppressed_loss(table, metric, weights):
    spec = get_metric(metric)
    lattice = Lattice((0, 0), tuple(h.height for h in table.hierarchies))

    def loss(c):
        return spec.loss(c, weights=weights)

    from_terms = loss_bounds(table, lattice, loss, lambda c, i, levels: spec.terms(c, i, levels, weights=weights))
    measured = loss_bounds(table, lattice, loss)
    for node, bound, generic in zip(map(tuple, lattice.nodes().tolist()), from_terms, measured):
        assert bound == pytest.approx(loss(table.generalize(node)), rel=1e-12, abs=1e-15)
        assert bound == pytest.approx(generic, rel=1e-12, abs=1e-15)


def test_terms_from_a_generalized_base_read_its_own_marginal(table):
    """A base above level 0 counts its marginal from its classes (not the original leaves)."""
    base = table.generalize((1, 0))
    spec = get_metric("loss")
    terms = spec.terms(base, 0, [1, 2, 5])
    assert (terms - terms[0]).tolist() == pytest.approx(
        [spec.loss(base.generalize((level, 0))) - spec.loss(base) for level in (1, 2, 5)])


def test_a_search_with_terms_finds_the_same_node_on_adult(adult):
    classes = ClassTable.from_dataset(adult)
    for metric in WITH_TERMS:
        spec = get_metric(metric)
        for k, limit in ((5, 0.0), (10, 0.02)):
            plain = search(classes, [KAnonymity(k=k)], loss=spec.loss, metric_name=metric, suppression_limit=limit)
            fast = search(classes, [KAnonymity(k=k)], loss=spec.loss, metric_name=metric, suppression_limit=limit,
                          terms=spec.terms)
            assert fast.node == plain.node and fast.loss == plain.loss


def test_terms_need_an_additive_metric():
    with pytest.raises(ParameterError, match="must be additive"):
        register_metric(Metric("terms-only", "x", lower_is_better=True, monotone=True,
                               _value=lambda c, **_: 0.0, _terms=lambda c, i, levels, **_: np.zeros(len(levels))))
