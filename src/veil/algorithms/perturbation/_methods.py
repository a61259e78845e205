"""Perturbation of numeric attributes as sdcMicro offers it: noise addition and rank swapping.

None of these is differential privacy: they protect by making values
uncertain, with the disclosure risk measured after the fact
(:mod:`veil.algorithms.perturbation._measures`), not bounded in advance.

* **Additive noise** (sdcMicro's ``addNoise(method="additive")``): each column
  :math:`x_j` gets independent normal noise of standard deviation
  ``noise``/100 times the column's: :math:`z_j = x_j + \\varepsilon_j`,
  :math:`\\varepsilon_j \\sim N(0, (\\tfrac{noise}{100} s_j)^2)` (default
  ``noise = 150``, sdcMicro's).
* **Correlated noise** (``addNoise(method="correlated2")``, Kim 1986; Brand
  2002): :math:`z_j = \\sqrt{1-\\delta^2}\\, x_j + \\delta\\, \\varepsilon_j`,
  :math:`\\varepsilon_j \\sim N(\\tfrac{1 - \\sqrt{1-\\delta^2}}{\\delta} \\bar x_j, s_j^2)`:
  every column keeps its mean and variance in expectation, the covariances are
  scaled by :math:`1 - \\delta^2` (default ``delta = 0.1``).
* **Rank swapping** (Moore 1996; sdcMicro's ``rankSwap``): the values of a
  column are swapped among records whose ranks differ by at most ``p`` percent
  of the records.  veil sorts the column, cuts the ranks into consecutive
  blocks of :math:`\\lfloor p n / 100 \\rfloor + 1` ranks and permutes the
  values at random inside each block, so a value moves by at most ``p`` % of
  the ranks and the column's values (its distribution) are released unchanged,
  only reassigned.  (sdcMicro swaps pairs, each partner drawn within the
  window; both bound the rank distance the same way.)
"""

from __future__ import annotations

import numpy as np

__all__ = ["additive_noise", "correlated_noise", "rank_swap"]


def additive_noise(x: np.ndarray, *, noise: float, rng: np.random.Generator) -> np.ndarray:
    """``x`` (n × m) plus independent normal noise of ``noise`` % of each column's standard deviation."""
    sd = x.std(axis=0, ddof=1) if len(x) > 1 else np.zeros(x.shape[1])
    return x + rng.normal(0.0, 1.0, size=x.shape) * (noise / 100.0 * sd)


def correlated_noise(x: np.ndarray, *, delta: float, rng: np.random.Generator) -> np.ndarray:
    """sdcMicro's ``correlated2``: means and variances kept, covariances scaled by ``1 - delta**2``."""
    d1 = np.sqrt(1.0 - delta ** 2)
    mean = x.mean(axis=0)
    sd = x.std(axis=0, ddof=1) if len(x) > 1 else np.zeros(x.shape[1])
    eps = rng.normal(0.0, 1.0, size=x.shape) * sd + (1.0 - d1) / delta * mean
    return d1 * x + delta * eps


def rank_swap(x: np.ndarray, *, p: float, rng: np.random.Generator) -> np.ndarray:
    """Each column's values permuted within consecutive blocks of ``floor(p n / 100) + 1`` ranks."""
    n, m = x.shape
    block = int(np.floor(p * n / 100.0)) + 1
    out = np.empty_like(x)
    blocks = np.arange(n) // block
    for j in range(m):  # a loop over the (few) columns, never over records
        order = np.argsort(x[:, j], kind="stable")
        shuffled = np.lexsort((rng.random(n), blocks))  # a random order inside each block of ranks
        out[order, j] = x[order[shuffled], j]
    return out
