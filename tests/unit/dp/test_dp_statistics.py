"""Each mechanism against its exact distribution.

OpenDP draws the noise from a CSPRNG that cannot be seeded, so instead of a seed each test
states its false-alarm probability: every chi-square / KS test fails a correct mechanism with
probability 1e-4 (p-value threshold), and the sample sizes give power against the wrong
distribution (e.g. permute-and-flip vs the exponential mechanism: chi-square ~ 200 at n = 20000).
"""

import math

import numpy as np
import pytest
from scipy import stats

from veil.dp import (ExponentialMechanism, GaussianMechanism, GeometricMechanism,
                     LaplaceMechanism, PermuteAndFlip, RandomizedResponse)

ALPHA = 1e-4
SCORES = [0.0, 1.0, 2.0, 3.0]


def _chi2(observed, probs):
    n = observed.sum()
    return stats.chisquare(observed, probs * n).pvalue


def _draws(mech, n=20_000):
    return np.bincount([mech.select(SCORES) for _ in range(n)], minlength=len(SCORES))


def test_exponential_mechanism_matches_exp_eps_u_over_2delta():
    mech = ExponentialMechanism(epsilon=1.0)
    counts = _draws(mech)
    assert _chi2(counts, mech.probabilities(SCORES)) > ALPHA
    pf = PermuteAndFlip(epsilon=1.0).probabilities(SCORES)
    assert _chi2(counts, pf) < ALPHA          # and it is not permute-and-flip


def test_permute_and_flip_matches_its_exact_distribution():
    mech = PermuteAndFlip(epsilon=1.0)
    counts = _draws(mech)
    assert _chi2(counts, mech.probabilities(SCORES)) > ALPHA
    assert _chi2(counts, ExponentialMechanism(epsilon=1.0).probabilities(SCORES)) < ALPHA


def test_geometric_matches_the_discrete_laplace_pmf():
    mech = GeometricMechanism(epsilon=0.5, sensitivity=1)      # b = 2
    z = np.asarray(mech.release(np.zeros(20_000, dtype=np.int64)))
    a = math.exp(-1 / mech.scale)
    support = np.arange(-8, 9)
    pmf = (1 - a) / (1 + a) * a ** np.abs(support)             # Pr[Z = z]
    observed = np.array([(z == k).sum() for k in support] + [(np.abs(z) > 8).sum()])
    probs = np.append(pmf, 1 - pmf.sum())
    assert _chi2(observed, probs) > ALPHA


def test_laplace_matches_its_cdf():
    mech = LaplaceMechanism(epsilon=0.5, sensitivity=1.0)      # b = 2
    z = mech.release(np.zeros(5_000))
    assert stats.kstest(z, stats.laplace(scale=mech.scale).cdf).pvalue > ALPHA


def test_gaussian_matches_its_cdf():
    mech = GaussianMechanism(epsilon=1.0, delta=1e-5)
    z = mech.release(np.zeros(5_000))
    assert stats.kstest(z, stats.norm(scale=mech.scale).cdf).pvalue > ALPHA


def test_randomized_response_keeps_with_probability_p():
    rr = RandomizedResponse(p=0.75)
    kept = rr.randomize(np.ones(20_000, dtype=bool)).sum()
    assert stats.binomtest(int(kept), 20_000, 0.75).pvalue > ALPHA
