"""MST's private steps: ρ from (ε, δ), the Gaussian release, compression, tree selection."""

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from veil.dp._budget import zcdp_epsilon
from veil.dp.synthesis._mst import (cdp_delta, cdp_rho, compress, counts, gaussian_release, measure_one_way,
                                    project_simplex, select_tree)


@pytest.mark.parametrize("eps, delta", [(1.0, 1e-9), (1.0, 1e-5), (0.1, 1e-6), (5.0, 1e-9)])
def test_cdp_rho_is_the_largest_rho_whose_delta_fits(eps, delta):
    rho = cdp_rho(eps, delta)
    assert cdp_delta(rho, eps) <= delta
    assert cdp_delta(rho * 1.001, eps) > delta
    # OpenDP's conversion (Canonne, Kamath & Steinke, Corollary 13) certifies the same ε
    assert zcdp_epsilon(rho, delta) == pytest.approx(eps, rel=1e-6)


def test_cdp_rho_is_below_the_classical_bound_inverse():
    # Bun & Steinke: ε = ρ + 2 sqrt(ρ ln 1/δ) is looser, so its ρ for ε=1, δ=1e-9 is smaller
    big_l = math.log(1e9)
    classical = (math.sqrt(big_l + 1.0) - math.sqrt(big_l)) ** 2
    assert classical < cdp_rho(1.0, 1e-9) < 2 * classical


def test_counts_by_hand():
    codes = np.array([[0, 1], [0, 1], [1, 0], [2, 1]])
    assert counts(codes, [3, 2]).tolist() == [[0, 2], [1, 0], [0, 1]]
    assert counts(codes[:, [0]], [3]).tolist() == [2, 1, 1]


def test_project_simplex_by_hand():
    assert project_simplex(np.array([3.0, 1.0, -1.0]), 2.0).tolist() == [2.0, 0.0, 0.0]
    assert project_simplex(np.array([1.0, 1.0]), 4.0).tolist() == [2.0, 2.0]
    assert project_simplex(np.array([1.0, 1.0]), -3.0).tolist() == [0.0, 0.0]


@settings(max_examples=50, deadline=None)
@given(st.lists(st.floats(-100, 100), min_size=1, max_size=30), st.floats(0.1, 500))
def test_project_simplex_is_a_non_negative_table_of_the_total(values, total):
    out = project_simplex(np.array(values), total)
    assert (out >= 0).all() and out.sum() == pytest.approx(total)


def test_gaussian_release_is_calibrated_to_rho():
    noisy, sigma = gaussian_release(np.zeros(2000), sensitivity=3.0, rho=0.5)
    assert sigma == pytest.approx(3.0 / math.sqrt(1.0), rel=1e-9)  # Δ/sqrt(2ρ)
    assert sigma >= 3.0  # OpenDP may widen by ulps, never narrow
    assert noisy.std() == pytest.approx(sigma, rel=0.1)


def test_measure_one_way_uses_sensitivity_sqrt_d():
    codes = np.zeros((10, 4), dtype=np.int64)
    ones, sigma = measure_one_way(codes, [2, 2, 2, 2], rho=0.02)
    # d marginals each of sensitivity 1: L2 sqrt(d); σ = sqrt(d / (2ρ)) = the reference's sqrt(3/(2ρ))·sqrt(d) at ρ/3
    assert sigma == pytest.approx(math.sqrt(4 / 0.04), rel=1e-9)
    assert [o.size for o in ones] == [2, 2, 2, 2]


def test_compress_merges_cells_below_three_sigma():
    part = compress(np.array([100.0, 2.0, 50.0, 1.0]), 10.0)
    assert part.support.tolist() == [0, 2] and part.other.tolist() == [1, 3]
    assert part.y.tolist() == [100.0, 50.0, 3.0]
    assert part.var.tolist() == [100.0, 100.0, 200.0]
    assert part.mapping(4).tolist() == [0, 2, 1, 2]


def test_compress_keeps_everything_when_all_are_large():
    part = compress(np.array([100.0, 40.0]), 10.0)
    assert part.size == 2 and part.other.size == 0


def test_select_tree_is_a_spanning_tree_and_finds_the_strong_pair():
    rng = np.random.default_rng(0)
    a = rng.integers(0, 3, 3000)
    codes = np.column_stack([a, a, rng.integers(0, 3, 3000), rng.integers(0, 2, 3000)])
    model = [counts(codes[:, [j]], [k]) for j, k in enumerate([3, 3, 3, 2])]
    edges = select_tree(codes, model, rho=1e4)  # near-deterministic selection
    assert len(edges) == 3
    assert (0, 1) in edges
    joined = {0}
    for _ in range(3):
        for x, y in edges:
            if (x in joined) != (y in joined):
                joined |= {x, y}
    assert joined == {0, 1, 2, 3}


def test_select_tree_of_one_column_is_empty():
    assert select_tree(np.zeros((5, 1), dtype=np.int64), [np.array([5.0])], rho=1.0) == []


@pytest.mark.parametrize("rho, d", [(0.005, 9), (0.01, 2), (1.0, 15)])
def test_the_selection_rounds_spend_at_most_their_third(rho, d):
    from veil.dp._selection import ExponentialMechanism

    eps = math.sqrt(8.0 * rho / (d - 1)) * (1.0 - 1e-9)  # as select_tree sets it
    assert (d - 1) * ExponentialMechanism(epsilon=eps, sensitivity=1.0).rho <= rho  # OpenDP's map
