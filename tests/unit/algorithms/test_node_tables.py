"""The lattice search's table machinery: ClassTable.roll_up, the TableStore and the
Evaluator's choice of source (a cached node, a hub or the base) give the same class
tables as ClassTable.generalize from the base."""

import numpy as np
import pandas as pd
import pytest

from veil.algorithms._nodes import Evaluator, Lattice, NodeSets, TableStore
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


@pytest.mark.parametrize("low, high", [((0, 0, 1), (1, 2, 3)), ((2,), (4,)), ((0, 1, 0, 0), (1, 1, 2, 1))])
def test_node_sets_tag_the_down_and_up_sets(low, high):
    nodes = Lattice(low, high).nodes()
    sets = NodeSets(nodes)
    rng = np.random.default_rng(3)
    for i in range(len(nodes)):
        below = np.all(nodes <= nodes[i], axis=1)
        above = np.all(nodes >= nodes[i], axis=1)
        assert np.array_equal(sets.below(i), below) and np.array_equal(sets.above(i), above)
        status = rng.integers(-1, 2, len(nodes)).astype(np.int8)
        for tag, box, value in ((sets.tag_below, below, -1), (sets.tag_above, above, 1)):
            expected = status.copy()
            expected[(expected == 0) & box] = value
            tagged = status.copy()
            tag(tagged, i, value)
            assert np.array_equal(tagged, expected)


def test_equal_distances_with_few_values_match_the_matrix_path():
    """equal_distances sums a few values column by column; padded with values that occur
    nowhere (more than 8 values) it takes the matrix path: the same floats."""
    from veil.classes import SensitiveHistogram
    from veil.models._t_closeness import equal_distances

    rng = np.random.default_rng(5)
    for m in (1, 2, 3, 8):
        counts = rng.integers(0, 9, size=(50, m)).astype(np.int64)
        counts[rng.integers(0, 50, 5)] = 0  # empty classes: 0/0 reads 0
        overall = counts.sum(axis=0) + rng.integers(0, 5, m)
        few = SensitiveHistogram("s", np.array([str(v) for v in range(m)]), counts, overall)
        padded = SensitiveHistogram("s", np.array([str(v) for v in range(m + 9)]),
                                    np.hstack([counts, np.zeros((50, 9), np.int64)]),
                                    np.concatenate([overall, np.zeros(9, np.int64)]))
        fast, matrix = equal_distances(few), equal_distances(padded)
        assert np.array_equal(fast, matrix) and (m == 1 or not np.all(fast == 0))
        assert np.all(fast[counts.sum(axis=1) == 0] == 0)


def test_suppress_keeps_classes_counts_and_the_base_map(classes):
    table = classes.roll_up((1,) * len(classes.levels))
    mask = table.counts < 3
    assert mask.any() and not mask.all()
    suppressed = table.suppress(mask)
    mask[:] = False  # the suppressed table does not see later changes to the mask
    assert suppressed.suppressed == int(table.counts[table.counts < 3].sum())
    assert np.array_equal(suppressed.counts, table.counts[table.counts >= 3])
    assert np.array_equal(suppressed.codes, table.codes[table.counts >= 3])
    rows = suppressed.row_classes()
    assert (rows == -1).sum() == suppressed.suppressed
    assert np.array_equal(np.bincount(rows[rows >= 0], minlength=suppressed.n_classes), suppressed.counts)


def test_iloss_shortcuts_give_the_same_floats(classes):
    """ILoss reads no codes for an attribute at level 0 or at a level with one value;
    the floats equal those of the per-class formula, suppressed tables included."""
    from veil.utility import get_metric

    def formula(table):
        total = 0.0
        for i, (h, level) in enumerate(zip(table.hierarchies, table.levels)):
            domain = h.n_values(0)
            if domain > 1:
                covered = h.leaf_counts(level)[table.codes[:, i]]
                total += (float(np.dot(table.counts, covered - 1)) + table.suppressed * (domain - 1)) / domain
        return total / (table.n_records * len(table.levels))

    heights = [h.height for h in classes.hierarchies]
    for node in Lattice(tuple(0 for _ in heights), tuple(heights)).nodes().tolist():
        table = classes.roll_up(tuple(node))
        for candidate in (table, table.suppress(table.counts < 2)):
            assert get_metric("loss").loss(candidate) == formula(candidate)


def test_hubs_keep_small_domains_at_level_zero():
    """An attribute with at most SMALL_DOMAIN values at level 0 stays at level 0 in the hubs
    (one hub serves each of its levels); a larger one is capped at level 1."""
    from veil.algorithms._nodes import SMALL_DOMAIN

    small = [str(v) for v in range(SMALL_DOMAIN)]
    large = [str(v) for v in range(SMALL_DOMAIN + 1)]
    frame = pd.DataFrame({"s": small * 3, "l": (large * 3)[: 3 * SMALL_DOMAIN]})
    from veil.hierarchy import Hierarchy

    hierarchies = {"s": Hierarchy.from_rows([[v, "x", "*"] for v in small]),
                   "l": Hierarchy.from_rows([[v, "y", "*"] for v in large])}
    table = ClassTable.from_pandas(frame, quasi_identifiers=["s", "l"], hierarchies=hierarchies)
    evaluator = Evaluator(table, [KAnonymity(k=2)], 0, lambda c: 0.0)
    assert evaluator.hub_cap == (0, 1)
    for node in [(2, 2), (1, 2), (2, 2)]:  # the second request of hub (0, 1) builds it
        assert _as_set(evaluator.table(node)) == _as_set(table.generalize(node))
    assert list(evaluator.hubs.slots) == [(0, 1)]


def test_a_store_without_levels_finds_its_nodes_but_no_finer_one(classes):
    q = len(classes.levels)
    store = TableStore(2, q, finer=False)
    coarse = classes.generalize((1,) * q)
    store.put((1,) * q, coarse)
    assert store.get((1,) * q) is coarse and store.get((0,) * q) is None
    with pytest.raises(ValueError, match="finer=False"):
        store.smallest_finer((2,) * q)
