import math

import numpy as np
import pytest

from veil.dp import (BinaryTreeMechanism, clamp_nonnegative, consistent_counts,
                     distributed_laplace_shares, paillier_noisy_total, round_counts)
from veil.errors import ParameterError


def test_postprocessing_basics():
    assert round_counts([167.7, 83.4]).tolist() == [168, 83]
    assert clamp_nonnegative([-2.5, 3.0]).tolist() == [0.0, 3.0]
    x = consistent_counts([10.0, 20.0, 30.0], 66.0, total_variance_ratio=0)
    assert x.sum() == pytest.approx(66.0)
    assert np.allclose(np.diff(x), [10.0, 10.0])  # equal shift for equal variances
    y = consistent_counts([10.0, 20.0], 33.0)  # noisy total with equal variance: shift (33-30)/3
    assert y.tolist() == pytest.approx([11.0, 21.0])
    with pytest.raises(ParameterError):
        round_counts([float("nan")])


def test_tree_mechanism_error_grows_polylog():
    def mean_err(T, reps=4):
        errs = []
        for _ in range(reps):
            m = BinaryTreeMechanism(epsilon=1.0, sensitivity=1.0, horizon=T)
            x = np.ones(T)
            errs.append(np.mean(np.abs(m.release(x) - np.cumsum(x))))
        return float(np.mean(errs)), m.levels
    e_small, l_small = mean_err(64)
    e_big, l_big = mean_err(16384)
    # error ~ levels^1.5 (node scale = levels/eps, ~levels/2 nodes per prefix): ratio (15/7)^1.5 = 3.1,
    # whereas sqrt(T) growth would give 16.  Allow a factor 2 around the polylog prediction.
    predicted = (l_big / l_small) ** 1.5
    assert predicted / 2 < e_big / e_small < predicted * 2
    assert e_big / e_small < 16 / 2


def test_tree_validation():
    with pytest.raises(ParameterError, match="horizon"):
        BinaryTreeMechanism(epsilon=1.0, horizon=4).release(np.ones(5))
    with pytest.raises(ParameterError, match="'epsilon' parameter of BinaryTreeMechanism"):
        BinaryTreeMechanism(epsilon=0, horizon=4)


def test_distributed_gamma_shares_sum_to_laplace():
    rng = np.random.default_rng(2024)  # simulation path: explicit generator, seeded
    b, n = 3.0, 50
    sums = np.array([distributed_laplace_shares(n, scale=b, rng=rng).sum() for _ in range(6000)])
    # Laplace(b): E|Z| = b, Var = 2 b^2; a single share has much smaller spread
    assert abs(np.mean(np.abs(sums)) - b) < 5 * b / math.sqrt(6000)
    assert abs(np.var(sums) - 2 * b * b) < 0.15 * 2 * b * b
    with pytest.raises(ParameterError, match="Generator"):
        distributed_laplace_shares(3, scale=1.0, rng=None)


def test_paillier_aggregator_learns_noisy_total():
    from phe import paillier
    pub, priv = paillier.generate_paillier_keypair(n_length=512)
    readings = [3.0, 1.5, 4.0, 2.5, 0.0]
    out = paillier_noisy_total(readings, epsilon=1.0, sensitivity=5.0, rng=np.random.default_rng(1),
                               public_key=pub, private_key=priv)
    shares = distributed_laplace_shares(5, scale=5.0, rng=np.random.default_rng(1))
    assert out["value"] == pytest.approx(sum(readings) + shares.sum(), abs=1e-6)
    assert out["noise_scale"] == 5.0
    assert out["ciphertext"].public_key == pub  # the aggregator only ever held ciphertext
