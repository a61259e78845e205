"""MST's three private steps: 1-way marginals, a spanning tree of 2-way marginals, their measurement.

McKenna, Miklau & Sheldon (2021), "Winning the NIST Contest: A scalable and
general approach to differentially private synthetic data", JPC; the defaults
follow the authors' reference (``mechanisms/mst.py`` of private-pgm): ρ from
(ε, δ) by Canonne, Kamath & Steinke's conversion, a third of ρ per step, rare
1-way cells (noisy count below 3σ) merged into one "other" cell, the tree
chosen by d - 1 rounds of the exponential mechanism on the L1 error of the
1-way model.  Every noisy value comes from OpenDP (:mod:`veil.dp._sampler`).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from veil.dp._mechanisms import calibrated
from veil.dp._sampler import opendp
from veil.dp._selection import ExponentialMechanism

__all__ = ["cdp_delta", "cdp_rho", "gaussian_release", "Compressed", "measure_one_way", "compress",
           "select_tree", "measure_two_way", "counts", "marginal", "project_simplex", "CompressedTable"]


def cdp_delta(rho: float, eps: float) -> float:
    """The δ at which ρ-zCDP is (ε, δ)-DP: Canonne, Kamath & Steinke (2020), Prop. 12.

    :math:`\\delta = \\min_{\\alpha > 1} \\frac{e^{(\\alpha-1)(\\alpha\\rho-\\varepsilon)}}{\\alpha-1}
    (1 - 1/\\alpha)^{\\alpha}`; α by bisection on the derivative of the exponent
    (any α gives a valid bound, so an inexact search only errs upwards).
    """
    if rho <= 0.0:
        return 0.0
    lo, hi = 1.01, (eps + 1.0) / (2.0 * rho) + 2.0
    for _ in range(200):
        alpha = 0.5 * (lo + hi)
        if (2.0 * alpha - 1.0) * rho - eps + math.log1p(-1.0 / alpha) < 0.0:
            lo = alpha
        else:
            hi = alpha
    alpha = 0.5 * (lo + hi)
    expo = (alpha - 1.0) * (alpha * rho - eps) + alpha * math.log1p(-1.0 / alpha)
    return min(math.exp(expo) / (alpha - 1.0), 1.0)


def cdp_rho(eps: float, delta: float) -> float:
    """The largest ρ whose :func:`cdp_delta` at ε is at most δ (bisection, rounded down)."""
    lo, hi = 0.0, eps + 1.0
    for _ in range(200):
        mid = 0.5 * (lo + hi)
        if cdp_delta(mid, eps) <= delta:
            lo = mid
        else:
            hi = mid
    return lo


def gaussian_release(values: np.ndarray, *, sensitivity: float, rho: float) -> tuple[np.ndarray, float]:
    """``values`` plus OpenDP Gaussian noise certified ρ-zCDP at L2 ``sensitivity``, and its σ."""
    dp = opendp()
    space = (dp.vector_domain(dp.atom_domain(T=float, nan=False)), dp.l2_distance(T=float))

    def build(scale: float):
        return dp.m.make_gaussian(*space, scale=scale)

    meas, sigma = calibrated(build, sensitivity, rho, sensitivity / math.sqrt(2.0 * rho))
    flat = np.asarray(values, dtype=float).ravel()
    return np.asarray(meas(flat.tolist()), dtype=float).reshape(np.shape(values)), sigma


def counts(codes: np.ndarray, sizes: list[int], weights: np.ndarray | None = None) -> np.ndarray:
    """The contingency table of the columns of ``codes`` (shape ``sizes``), each row counted
    ``weights[i]`` times (once when ``weights`` is None)."""
    shape = tuple(int(k) for k in sizes)
    if not len(codes):
        return np.zeros(shape, dtype=float)
    key = np.ravel_multi_index(tuple(np.asarray(codes).T), shape)
    out = np.bincount(key, weights=None if weights is None else np.asarray(weights, dtype=float),
                      minlength=int(np.prod(shape)))
    return out.astype(float, copy=False).reshape(shape)


def marginal(codes: np.ndarray, weights: np.ndarray | None, sizes: list[int], cols) -> np.ndarray:
    """The marginal of the columns ``cols`` of a weighted class table.

    ``codes`` is the (m, d) int array of distinct encoded records (or of rows),
    ``weights`` their counts (None: 1 each), ``sizes`` the domain size of every
    one of the d columns; the result is a float array of shape
    ``tuple(sizes[c] for c in cols)``.  ``codes`` may also be an object with a
    ``marginal(cols)`` method (a class table, an engine's group counts), which
    then answers.
    """
    cols = [int(c) for c in cols]
    if hasattr(codes, "marginal"):  # a class table (or an engine's marginal queries) counts itself
        return codes.marginal(cols)
    return counts(np.asarray(codes)[:, cols], [sizes[c] for c in cols], weights)


def project_simplex(values: np.ndarray, total: float) -> np.ndarray:
    """The Euclidean projection of ``values`` onto ``{x >= 0, sum x = total}`` (Duchi et al. 2008)."""
    v = np.asarray(values, dtype=float).ravel()
    if total <= 0.0:
        return np.zeros_like(v).reshape(np.shape(values))
    u = np.sort(v)[::-1]
    css = np.cumsum(u) - total
    k = np.nonzero(u - css / np.arange(1, u.size + 1) > 0)[0][-1]
    theta = css[k] / (k + 1.0)
    return np.maximum(v - theta, 0.0).reshape(np.shape(values))


@dataclass(frozen=True, slots=True)
class Compressed:
    """One column's 1-way measurement on its compressed domain.

    ``support``: the original codes kept (noisy count >= 3σ); ``other``: the
    merged rest (empty when all are kept); ``y`` and ``var``: the noisy counts
    on the compressed domain (kept cells, then the "other" cell) and their
    noise variances.
    """

    support: np.ndarray
    other: np.ndarray
    y: np.ndarray
    var: np.ndarray

    @property
    def size(self) -> int:
        return int(self.y.size)

    def mapping(self, original: int) -> np.ndarray:
        """Original code -> compressed code."""
        out = np.full(original, self.support.size, dtype=np.int64)
        out[self.support] = np.arange(self.support.size)
        return out


def measure_one_way(codes: np.ndarray, sizes: list[int], rho: float,
                    weights: np.ndarray | None = None) -> tuple[list[np.ndarray], float]:
    """Every column's noisy 1-way marginal (one Gaussian release of L2 sensitivity √d) and the σ per cell;
    ``weights``: the count of each row of ``codes`` (a class table), None for 1 each."""
    flat = np.concatenate([marginal(codes, weights, sizes, [j]) for j in range(len(sizes))])
    noisy, sigma = gaussian_release(flat, sensitivity=math.sqrt(len(sizes)), rho=rho)
    return np.split(noisy, np.cumsum(sizes)[:-1]), sigma


def compress(y: np.ndarray, sigma: float) -> Compressed:
    """Keep the cells whose noisy count is at least 3σ; merge the rest into one "other" cell."""
    keep = y >= 3.0 * sigma
    support, other = np.nonzero(keep)[0], np.nonzero(~keep)[0]
    if other.size == 0:
        return Compressed(support, other, y.copy(), np.full(y.size, sigma * sigma))
    return Compressed(support, other, np.append(y[keep], y[~keep].sum()),
                      np.append(np.full(support.size, sigma * sigma), other.size * sigma * sigma))


def select_tree(codes: np.ndarray, model: list[np.ndarray], rho: float,
                weights: np.ndarray | None = None) -> list[tuple[int, int]]:
    """d - 1 edges of a spanning tree, each chosen by the exponential mechanism (ρ/(d-1) each)
    among the pairs joining two components, scored by the L1 error of the independent 1-way
    ``model`` (noisy counts) on the pair's 2-way marginal (sensitivity 1)."""
    d = len(model)
    if d < 2:
        return []
    sizes = [int(m.size) for m in model]
    pairs = [(a, b) for a in range(d) for b in range(a + 1, d)]
    scores = np.array([np.abs(marginal(codes, weights, sizes, (a, b))
                              - np.outer(model[a], model[b]) / max(model[a].sum(), 1e-12)).sum()
                       for a, b in pairs])
    eps = math.sqrt(8.0 * rho / (d - 1)) * (1.0 - 1e-9)
    mech = ExponentialMechanism(epsilon=eps, sensitivity=1.0)
    component = np.arange(d)
    edges: list[tuple[int, int]] = []
    for _ in range(d - 1):
        open_ = [i for i, (a, b) in enumerate(pairs) if component[a] != component[b]]
        a, b = pairs[open_[mech.select(scores[open_])]]
        component[component == component[b]] = component[a]
        edges.append((a, b))
    return edges


def measure_two_way(codes: np.ndarray, sizes: list[int], edges: list[tuple[int, int]],
                    rho: float, weights: np.ndarray | None = None) -> tuple[list[np.ndarray], float]:
    """The noisy 2-way marginals of ``edges`` (one Gaussian release of L2 sensitivity √|edges|)."""
    if not edges:
        return [], 0.0
    tables = [marginal(codes, weights, sizes, (a, b)) for a, b in edges]
    flat = np.concatenate([t.ravel() for t in tables])
    noisy, sigma = gaussian_release(flat, sensitivity=math.sqrt(len(edges)), rho=rho)
    parts = np.split(noisy, np.cumsum([t.size for t in tables])[:-1])
    return [p.reshape(t.shape) for p, t in zip(parts, tables)], sigma


class CompressedTable:
    """The marginals of ``table`` (original codes) on the compressed domains of ``parts``: each
    original marginal summed into its compressed cells (so no encoded row is mapped again)."""

    def __init__(self, table, parts: list[Compressed], sizes: list[int]) -> None:
        self.table, self.parts, self.sizes = table, parts, [int(k) for k in sizes]

    def marginal(self, cols) -> np.ndarray:
        cols = [int(c) for c in cols]
        full = marginal(self.table, None, self.sizes, cols)
        dims = tuple(self.parts[c].size for c in cols)
        maps = np.meshgrid(*[self.parts[c].mapping(self.sizes[c]) for c in cols], indexing="ij")
        key = np.ravel_multi_index(tuple(m.ravel() for m in maps), dims)
        return np.bincount(key, weights=full.ravel(), minlength=int(np.prod(dims))).reshape(dims)
