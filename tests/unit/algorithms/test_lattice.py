import numpy as np
import pytest

from veil.algorithms.lattice import Lattice, exhaustive_search, search
from veil.classes import ClassTable
from veil.datasets import load_lkc_patients
from veil.errors import InfeasibleError, ParameterError
from veil.models import EqualDistanceTCloseness, KAnonymity
from veil.utility import get_metric

LOSS = get_metric("loss")


def loss(c):
    return LOSS.loss(c)


def test_lattice_size_and_nodes():
    lattice = Lattice((0, 0, 1), (1, 2, 2))
    assert lattice.size == 2 * 3 * 2
    nodes = lattice.nodes()
    assert len(nodes) == lattice.size and nodes.min(axis=0).tolist() == [0, 0, 1]
    with pytest.raises(ParameterError):
        Lattice((2,), (1,))


@pytest.mark.slow
def test_adult_k5_golden(adult):
    """Adult, 8 QIs, k=5 with 0% and 5% suppression, ILoss: the optimum equals the
    exhaustive search's (all 6,480 nodes), and the pruned search checks far fewer."""
    classes = ClassTable.from_dataset(adult)
    for limit in (0.0, 0.05):
        reference = exhaustive_search(classes, [KAnonymity(k=5)], loss=loss, suppression_limit=limit)
        found = search(classes, [KAnonymity(k=5)], loss=loss, metric_name="loss", suppression_limit=limit)
        assert found.node == reference.node
        assert found.loss == pytest.approx(reference.loss)
        assert found.nodes_checked < 400 < reference.nodes_checked
        assert found.classes.counts.min() >= 5


def test_lkc_table_k2():
    classes = ClassTable.from_dataset(load_lkc_patients())
    found = search(classes, [KAnonymity(k=2)], loss=loss, metric_name="loss")
    reference = exhaustive_search(classes, [KAnonymity(k=2)], loss=loss)
    assert found.loss == pytest.approx(reference.loss) and found.node == reference.node
    assert found.classes.counts.min() >= 2


def test_level_bounds_are_respected():
    classes = ClassTable.from_dataset(load_lkc_patients())
    found = search(classes, [KAnonymity(k=2)], loss=loss, metric_name="loss", min_levels=(1, 1, 0), max_levels=(3, 1, 3))
    assert found.node[0] >= 1 and found.node[1] == 1


def test_infeasible_reports_best_node():
    classes = ClassTable.from_dataset(load_lkc_patients())
    # t = 0 with suppression 0: no node but the all-suppressed one could satisfy it
    with pytest.raises(InfeasibleError, match="would need to suppress") as info:
        search(classes, [KAnonymity(k=2), EqualDistanceTCloseness(sensitive="Surgery", t=0.0)],
               loss=loss, metric_name="loss", suppression_limit=0.0, max_levels=(1, 0, 1))
    assert info.value.best["suppressed_records"] > 0


def test_bad_suppression_limit():
    classes = ClassTable.from_dataset(load_lkc_patients())
    with pytest.raises(ParameterError, match=r"'suppression_limit' .* \[0, 1\]. Got 1.5"):
        search(classes, [KAnonymity(k=2)], loss=loss, suppression_limit=1.5)
    with pytest.raises(ParameterError, match="At least one privacy model"):
        search(classes, [], loss=loss)


def test_ties_resolve_like_the_exhaustive_search(adult):
    """On an exact tie in loss, the pruned search picks the same node as the
    exhaustive one (lowest sum of levels, then lexicographic)."""
    from veil.dataset import Dataset

    qis = ["sex", "age", "race", "marital-status", "education"]
    ds = Dataset.from_pandas(adult.frame, quasi_identifiers=qis, kinds={"age": "numeric"},
                             hierarchies={q: adult.hierarchies[q] for q in qis})
    classes = ClassTable.from_dataset(ds)
    height = get_metric("height")
    for k, limit in ((10, 0.02), (3, 0.01)):
        reference = exhaustive_search(classes, [KAnonymity(k=k)], loss=height.loss, suppression_limit=limit)
        found = search(classes, [KAnonymity(k=k)], loss=height.loss, metric_name="height", suppression_limit=limit)
        assert found.node == reference.node and found.loss == reference.loss


@pytest.mark.parametrize("metric", ["loss", "precision", "entropy", "arx-loss", "height"])
def test_a_node_that_suppresses_nothing_takes_its_bound_as_its_loss(adult, metric):
    """An additive metric's loss of an unsuppressed node is the sum of its per-attribute
    terms (the bound): the evaluator takes it from there, and it equals the measured loss."""
    from veil.algorithms._bounds import loss_bounds
    from veil.algorithms._nodes import Evaluator, limit_records

    spec = get_metric(metric)
    classes = ClassTable.from_dataset(adult)
    lattice = Lattice((0, 3, 0, 1, 2, 1, 1, 0), (1, 4, 1, 2, 3, 2, 2, 1))  # some nodes suppress nothing
    nodes = lattice.nodes()
    measured = Evaluator(classes, [KAnonymity(k=3)], limit_records(classes, 0.02), spec.loss)
    from_bounds = Evaluator(classes, [KAnonymity(k=3)], limit_records(classes, 0.02), spec.loss)
    from_bounds.know_bounds(nodes, loss_bounds(classes, lattice, spec.loss))
    unsuppressed = 0
    for node in map(tuple, nodes.tolist()):
        a, b = measured.evaluate(node), from_bounds.evaluate(node)
        assert a.satisfied == b.satisfied and a.suppressed_records == b.suppressed_records
        if a.satisfied:
            unsuppressed += a.suppressed_records == 0
            assert b.loss == pytest.approx(a.loss, rel=1e-12, abs=1e-12)
            assert from_bounds.exact_loss(b) == a.loss  # what a search reports is measured
    assert unsuppressed > 0  # the case under test happened
