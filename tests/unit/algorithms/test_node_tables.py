"""The lattice search's table machinery: ClassTable.roll_up, the TableStore and the
Evaluator's choice of source (a cached node, a hub or the base) give the same class
tables as ClassTable.generalize from the base."""

import numpy as np
import pytest

from veil.algorithms._nodes import Evaluator, Lattice, TableStore
from veil.classes import ClassTable
from veil.datasets import load_lkc_patients
from veil.models import KAnonymity


def _as_set(table: ClassTable) -> set[tuple[int, ...]]:
    return {(*row, int(n)) for row, n in zip(table.codes.tolist(), table.counts.tolist())}


@pytest.fixture(scope="module")
def classes():
    return ClassTable.from_dataset(load_lkc_patients())


def test_roll_up_equals_generalize(classes):
    heights = [h.height for h in classes.hierarchies]
    for node in Lattice(tuple(0 for _ in heights), tuple(heights)).nodes().tolist():
        node = tuple(node)
        rolled, generalized = classes.roll_up(node), classes.generalize(node)
        assert rolled.levels == node
        assert _as_set(rolled) == _as_set(generalized)
        assert rolled.n_records == generalized.n_records and rolled.suppressed == generalized.suppressed


def test_roll_up_to_own_levels_is_the_table(classes):
    assert classes.roll_up(classes.levels) is classes


def test_store_finds_the_smallest_finer_table_and_drops_the_oldest(classes):
    store = TableStore(2, len(classes.levels))
    q = len(classes.levels)
    fine, coarse = (0,) * q, (1,) * q
    store.put(fine, classes)
    store.put(coarse, classes.roll_up(coarse))
    assert store.smallest_finer(coarse) is store.get(coarse)  # fewer classes than the base
    assert store.smallest_finer((1,) + (0,) * (q - 1)) is classes  # the only one finer
    store.get(fine)  # now the most recently used
    store.put((2,) + (1,) * (q - 1), classes.roll_up((2,) + (1,) * (q - 1)))  # drops ``coarse``
    assert store.get(coarse) is None and store.get(fine) is classes
    assert len(store.slots) == 2


def test_empty_store_has_nothing(classes):
    store = TableStore(0, len(classes.levels))
    store.put((0,) * len(classes.levels), classes)
    assert store.get((0,) * len(classes.levels)) is None
    assert TableStore(3, len(classes.levels)).smallest_finer((1,) * len(classes.levels)) is None


@pytest.mark.parametrize("cache_size, hub_limit", [(32, 128), (2, 2), (0, 0)])
def test_evaluator_tables_match_generalize(classes, cache_size, hub_limit):
    """Every node asked twice, in an order that mixes coarse and fine nodes, so that
    tables come from cached nodes, hubs and the base."""
    heights = [h.height for h in classes.hierarchies]
    nodes = Lattice(tuple(0 for _ in heights), tuple(heights)).nodes()
    order = np.random.default_rng(7).permutation(np.concatenate([np.arange(len(nodes))] * 2))
    evaluator = Evaluator(classes, [KAnonymity(k=2)], 0, lambda c: 0.0, cache_size=cache_size, hub_limit=hub_limit)
    for i in order:
        node = tuple(nodes[i].tolist())
        table = evaluator.table(node)
        assert table.levels == node
        assert _as_set(table) == _as_set(classes.generalize(node))
