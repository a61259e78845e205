"""The lattice as a grid: node lists, per-node heights and down-set sizes, node indexes,
the search's sort of the nodes and the additive bounds, each against the plain numpy
computation it replaces (the bounds bit for bit: they decide the order nodes are judged in)."""

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from veil.algorithms._chains import lexsort, sort_rows
from veil.algorithms._bounds import loss_bounds
from veil.algorithms._nodes import Lattice, NodeSets, node_index, over_grid
from veil.classes import ClassTable
from veil.dataset import Dataset
from veil.hierarchy import Hierarchy
from veil.utility import get_metric


@st.composite
def lattices(draw, max_attributes=5):
    q = draw(st.integers(min_value=0, max_value=max_attributes))
    low = draw(st.lists(st.integers(0, 3), min_size=q, max_size=q))
    return Lattice(tuple(low), tuple(a + draw(st.integers(0, 3)) for a in low))


def meshgrid_nodes(lattice):
    ranges = [np.arange(a, b + 1, dtype=np.int16) for a, b in zip(lattice.low, lattice.high)]
    if not ranges:
        return np.zeros((1, 0), dtype=np.int16)
    return np.stack([g.ravel() for g in np.meshgrid(*ranges, indexing="ij")], axis=1)


@settings(deadline=None)
@given(lattices())
def test_nodes_heights_sizes_and_indexes_of_the_grid(lattice):
    nodes = lattice.nodes()
    assert nodes.dtype == np.int16 and nodes.flags.c_contiguous
    assert np.array_equal(nodes, meshgrid_nodes(lattice))
    sets = NodeSets(nodes)
    assert np.array_equal(sets.heights(), nodes.sum(axis=1, dtype=np.int64))
    assert np.array_equal(sets.below_sizes(), np.prod(nodes.astype(np.int64) - nodes.min(axis=0) + 1, axis=1))
    low, stride = node_index(nodes)
    assert np.array_equal(((nodes - low) * stride).sum(axis=1), np.arange(len(nodes)))


def test_over_grid_folds_in_attribute_order():
    # (start - v0) - v1 at every point, the first vector's entry the most significant
    out = over_grid([np.array([1.0, 2.0]), np.array([10.0, 20.0, 30.0])], np.subtract, 100.0)
    assert out.tolist() == [89.0, 79.0, 69.0, 88.0, 78.0, 68.0]
    assert over_grid([], np.add, 5.0).tolist() == [5.0]


floats = st.sampled_from([0.0, -0.0, 0.5, 1.0, 1e-300, np.inf, -np.inf, np.nan, 0.1 + 0.2, 0.3])


@settings(deadline=None)
@given(st.data())
def test_lexsort_is_numpys(data):
    n = data.draw(st.integers(0, 60))
    kinds = data.draw(st.lists(st.sampled_from(["small", "wide", "float", "bool"]), min_size=1, max_size=4))
    keys = []
    for kind in kinds:
        if kind == "float":
            keys.append(np.array(data.draw(st.lists(floats, min_size=n, max_size=n)), dtype=np.float64))
        elif kind == "bool":
            keys.append(np.array(data.draw(st.lists(st.booleans(), min_size=n, max_size=n)), dtype=np.bool_))
        else:
            top = 3 if kind == "small" else 1 << 40  # wide keys overflow the packing: numpy's sort
            keys.append(np.array(data.draw(st.lists(st.integers(-top, top), min_size=n, max_size=n)), dtype=np.int64))
    assert lexsort(tuple(keys)).tolist() == np.lexsort(tuple(keys)).tolist()


def test_lexsort_of_a_lattice_order():
    nodes = Lattice((0, 0, 1, 0), (2, 3, 2, 4)).nodes()
    sets = NodeSets(nodes)
    bounds = np.round(np.random.default_rng(0).random(len(nodes)), 1)  # many ties
    keys = (sets.heights(), bounds, sets.below_sizes())
    assert np.array_equal(lexsort(keys), np.lexsort(keys))


def reference_bounds(classes, lattice, loss):
    """loss_bounds as it was: the terms added per node from the node list."""
    low, high = list(lattice.low), list(lattice.high)
    nodes = lattice.nodes()
    total = np.full(len(nodes), float(loss(classes.generalize(low))), dtype=np.float64)
    for i, (a, b) in enumerate(zip(low, high)):
        if a == b:
            continue
        reference = high.copy()
        reference[i] = a
        coarse = classes.generalize(reference)
        start = float(loss(coarse))
        terms = np.zeros(b + 1, dtype=np.float64)
        for level in range(a + 1, b + 1):
            reference[i] = level
            terms[level] = float(loss(classes.generalize(reference))) - start
        total += terms[nodes[:, i]]
    return total


@st.composite
def tables(draw):
    """A small table with 1-4 QIs, each with a random hierarchy (the lattice's highest levels
    may stop below the top, so that the coarse tables have more than one value per attribute)."""
    n = draw(st.integers(min_value=1, max_value=40))
    columns, hierarchies = {}, {}
    for q in range(draw(st.integers(min_value=1, max_value=4))):
        n_values = draw(st.integers(min_value=1, max_value=7))
        groups, levels = list(range(n_values)), [[f"v{i}" for i in range(n_values)]]
        for d in range(draw(st.integers(min_value=0, max_value=3))):
            fan = draw(st.integers(min_value=2, max_value=3))
            groups = [g // fan for g in groups]
            levels.append([f"L{d + 1}_{g}" for g in groups])
        rows = [[level[i] for level in levels] + ["*"] for i in range(n_values)]
        hierarchies[f"q{q}"] = Hierarchy.from_rows(rows, name=f"q{q}")
        columns[f"q{q}"] = draw(st.lists(st.sampled_from(levels[0]), min_size=n, max_size=n))
    return Dataset.from_pandas(pd.DataFrame(columns), quasi_identifiers=list(columns), hierarchies=hierarchies)


@settings(max_examples=60, deadline=None)
@given(tables(), st.sampled_from(["loss", "precision", "entropy", "arx-loss", "height"]), st.data())
def test_bounds_are_the_reference_bit_for_bit(dataset, metric, data):
    classes = ClassTable.from_dataset(dataset)
    heights = [h.height for h in classes.hierarchies]
    low = [data.draw(st.integers(0, h)) for h in heights]
    lattice = Lattice(tuple(low), tuple(data.draw(st.integers(a, h)) for a, h in zip(low, heights)))
    loss = get_metric(metric).loss
    assert loss_bounds(classes, lattice, loss).tobytes() == reference_bounds(classes, lattice, loss).tobytes()


@pytest.mark.parametrize("metric", ["loss", "entropy", "arx-loss"])
def test_adult_bounds_are_the_reference_bit_for_bit(adult, metric):
    classes = ClassTable.from_dataset(adult)
    lattice = Lattice((0,) * 8, tuple(h.height for h in classes.hierarchies))
    loss = get_metric(metric).loss
    assert loss_bounds(classes, lattice, loss).tobytes() == reference_bounds(classes, lattice, loss).tobytes()


@settings(deadline=None)
@given(st.data())
def test_sorted_rows_keep_their_order_among_all(data):
    n = data.draw(st.integers(0, 50))
    keys = (np.array(data.draw(st.lists(st.integers(0, 3), min_size=n, max_size=n)), dtype=np.int64),
            np.array(data.draw(st.lists(floats, min_size=n, max_size=n)), dtype=np.float64))
    chosen = np.array(data.draw(st.lists(st.booleans(), min_size=n, max_size=n)), dtype=np.bool_)
    everything = np.lexsort(keys)
    assert sort_rows(chosen, keys).tolist() == everything[chosen[everything]].tolist()
