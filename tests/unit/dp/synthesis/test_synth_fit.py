"""The tree model fitted to noisy marginals, and its sampling."""

import numpy as np
import pytest

from veil.dp.synthesis._fit import fit_tree, sample_tree
from veil.dp.synthesis._fit import TreeModel


def test_noise_free_consistent_marginals_give_back_the_tree():
    joint01 = np.array([[300.0, 100.0], [0.0, 600.0]])        # x0, x1
    joint12 = np.array([[240.0, 60.0, 0.0], [70.0, 280.0, 350.0]])  # x1, x2
    ones = [joint01.sum(1), joint01.sum(0), joint12.sum(0)]
    model = fit_tree(ones, [np.ones(2), np.ones(2), np.ones(3)], [(0, 1), (1, 2)], [joint01, joint12], 1.0)
    assert model.total == pytest.approx(1000.0)
    assert model.nodes[1] == pytest.approx([300.0, 700.0])
    assert model.edges[(0, 1)] == pytest.approx(joint01, abs=1e-3)
    assert model.edges[(1, 2)] == pytest.approx(joint12, abs=1e-3)


def test_fit_makes_noisy_tables_non_negative_and_consistent():
    ones = [np.array([50.0, -3.0, 20.0]), np.array([40.0, 35.0])]
    table = np.array([[30.0, 25.0], [-4.0, 1.0], [12.0, 6.0]])
    model = fit_tree(ones, [np.full(3, 4.0), np.full(2, 4.0)], [(0, 1)], [table], 4.0)
    joint = model.edges[(0, 1)]
    assert (joint >= 0).all()
    assert joint.sum(1) == pytest.approx(model.nodes[0], abs=1e-6)
    assert joint.sum(0) == pytest.approx(model.nodes[1], abs=1e-6)
    assert model.nodes[0].sum() == pytest.approx(model.total)


def test_sampling_follows_the_tree():
    joint = np.array([[0.0, 500.0], [500.0, 0.0]])  # x1 = 1 - x0
    model = TreeModel(1000.0, [np.array([500.0, 500.0]), np.array([500.0, 500.0]), np.array([0.0, 1000.0])],
                      {(0, 1): joint, (1, 2): np.array([[0.0, 500.0], [0.0, 500.0]])})
    rows = sample_tree(model, 4000, np.random.default_rng(1))
    assert (rows[:, 1] == 1 - rows[:, 0]).all()
    assert (rows[:, 2] == 1).all()
    assert abs(rows[:, 0].mean() - 0.5) < 0.05


def test_a_column_without_an_edge_is_drawn_from_its_marginal():
    model = TreeModel(10.0, [np.array([0.0, 10.0])], {})
    assert sample_tree(model, 50, np.random.default_rng(0))[:, 0].tolist() == [1] * 50


def test_draw_rounds_the_counts_of_each_group_by_largest_remainder():
    from veil.dp.synthesis._fit import allocate

    rng = np.random.default_rng(0)
    given = np.array([0, 0, 0, 0, 1, 1, 1])
    out = allocate(rng, np.array([[0.25, 0.75], [1.0, 0.0]]), given)
    assert sorted(out[:4]) == [0, 1, 1, 1] and out[4:].tolist() == [0, 0, 0]
    out = allocate(rng, np.array([[0.5, 0.3, 0.2]]), np.zeros(10, dtype=np.int64))
    assert np.bincount(out, minlength=3).tolist() == [5, 3, 2]


def test_match_sums_by_hand():
    from veil.dp.synthesis._fit import match_sums

    table = np.array([[1.0, 2.0], [3.0, 4.0]])  # sums 3, 7 and 4, 6; total 10
    out = match_sums(table, np.array([5.0, 5.0]), np.array([4.0, 6.0]))
    # rows +1 and -1 per cell, columns unchanged: [[2, 3], [2, 3]]
    assert out.tolist() == [[2.0, 3.0], [2.0, 3.0]]
    out = match_sums(table, np.array([4.0, 8.0]), np.array([5.0, 7.0]))  # total 12: +0.5 +0.5 then -0.5
    assert out.sum(axis=1) == pytest.approx([4.0, 8.0]) and out.sum(axis=0) == pytest.approx([5.0, 7.0])
