import math

import numpy as np
import pytest

from veil.dp import KaryRandomizedResponse, RandomizedResponse
from veil.errors import ParameterError


def test_epsilon_is_log_odds():
    assert RandomizedResponse(p=0.75).epsilon == pytest.approx(math.log(3))
    assert KaryRandomizedResponse(categories="abc", p=0.5).epsilon == pytest.approx(math.log(2))


def test_warner_estimator_is_unbiased_with_warner_variance():
    rr = RandomizedResponse(p=0.75)
    n, pi = 40000, 0.3
    truth = np.zeros(n, dtype=bool)
    truth[: int(pi * n)] = True
    noisy = rr.randomize(truth)
    # kept with probability p: fraction of unchanged answers
    assert abs(np.mean(noisy == truth) - 0.75) < 5 * math.sqrt(0.75 * 0.25 / n)
    est = rr.estimate(noisy)
    sd = math.sqrt(rr.variance(pi, n))
    assert abs(est - pi) < 5 * sd
    assert rr.estimated_variance(noisy) == pytest.approx(sd**2, rel=0.1)


def test_seed_identity_y_from_ry():
    # Y = p RY + (1 - p)(1 - RY) and RY = (Y + p - 1)/(2p - 1) invert each other
    rr = RandomizedResponse(p=0.8)
    ry = 0.6
    y = 0.8 * ry + 0.2 * (1 - ry)
    assert rr.estimate([1] * round(y * 1000) + [0] * round((1 - y) * 1000)) == pytest.approx(ry)


@pytest.mark.parametrize("p", [0.5, 1.0, 0.3, 1.2])
def test_p_out_of_range(p):
    with pytest.raises(ParameterError, match=r"'p' parameter of RandomizedResponse must be a float in \(0.5, 1\)"):
        RandomizedResponse(p=p)


def test_kary_estimator_unbiased():
    rr = KaryRandomizedResponse(categories=["a", "b", "c"], p=0.7)
    truth = ["a"] * 1500 + ["b"] * 900 + ["c"] * 600
    est = rr.estimate(rr.randomize(truth))
    # sd of each estimate <= sqrt(0.25 / n) / (p - q), q = 0.15
    tol = 5 * math.sqrt(0.25 / 3000) / 0.55
    assert abs(est["a"] - 0.5) < tol and abs(est["b"] - 0.3) < tol and abs(est["c"] - 0.2) < tol
    with pytest.raises(ParameterError):
        rr.randomize(["z"])
