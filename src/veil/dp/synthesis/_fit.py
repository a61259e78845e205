"""The model MST's noisy marginals define, fitted with numpy alone, and sampled.

MST measures every 1-way marginal and the 2-way marginals of a spanning tree,
so the maximum-entropy model consistent with a set of consistent marginals is
the tree model :math:`P(x) = \\prod_{(a,b)} P(x_a, x_b) / \\prod_a P(x_a)^{\\deg a - 1}`,
exactly what belief propagation on that tree represents.  veil fits it in
closed form instead of by mirror descent:

1. the total: the inverse-variance mean of every measured table's sum;
2. each column's marginal: the inverse-variance mean of its noisy 1-way
   counts and of the row (column) sums of each noisy 2-way table it is in,
   projected onto the non-negative tables with that total;
3. each tree edge: its noisy 2-way table moved to the nearest table (least
   squares) whose sums are both columns' marginals, projected the same way,
   then made consistent again by iterative proportional fitting.

Sampling is ancestral, root to leaves along the tree: the root from its
marginal, each child from P(child | parent), the counts of each group
rounded (largest remainder) rather than drawn.  All of it is post-processing of
the noisy marginals; the random draws of the sampling (numpy's generator) are
not privacy noise.
"""

from __future__ import annotations

from collections import deque
from dataclasses import dataclass

import numpy as np

from veil.dp.synthesis._mst import project_simplex

__all__ = ["TreeModel", "fit_tree", "sample_tree", "allocate", "match_sums"]

_IPF_ROUNDS = 50


@dataclass(frozen=True, slots=True)
class TreeModel:
    """The fitted tree: the total, each column's marginal and each edge's joint (counts)."""

    total: float
    nodes: list[np.ndarray]
    edges: dict[tuple[int, int], np.ndarray]


def _total(one_way: list, one_var: list, two_way: list, two_var: float) -> float:
    sums = [y.sum() for y in one_way] + [t.sum() for t in two_way]
    var = [v.sum() for v in one_var] + [t.size * two_var for t in two_way]
    w = 1.0 / np.asarray(var)
    return float(max(np.dot(w, sums) / w.sum(), 0.0))


def _node(j: int, y: np.ndarray, var: np.ndarray, edges: list, two_way: list, two_var: float,
          total: float) -> np.ndarray:
    num, den = y / var, 1.0 / var
    for (a, b), table in zip(edges, two_way):
        if j in (a, b):
            sums = table.sum(axis=1 if j == a else 0)
            v = table.shape[1 if j == a else 0] * two_var
            num, den = num + sums / v, den + 1.0 / v
    return project_simplex(num / den, total)


def match_sums(table: np.ndarray, rows: np.ndarray, cols: np.ndarray) -> np.ndarray:
    """The table nearest ``table`` (least squares) whose row and column sums are ``rows`` and
    ``cols`` (same total): a constant added along each row and each column."""
    n_r, n_c = table.shape
    gap = rows.sum() - table.sum()
    return (table + (rows - table.sum(axis=1))[:, None] / n_c + (cols - table.sum(axis=0))[None, :] / n_r
            - gap / (n_r * n_c))


def _ipf(table: np.ndarray, rows: np.ndarray, cols: np.ndarray) -> np.ndarray:
    t = table + 1e-9 * max(table.sum(), 1.0) / table.size
    for _ in range(_IPF_ROUNDS):
        t *= (rows / np.maximum(t.sum(axis=1), 1e-300))[:, None]
        t *= (cols / np.maximum(t.sum(axis=0), 1e-300))[None, :]
    return t


def fit_tree(one_way: list[np.ndarray], one_var: list[np.ndarray], edges: list[tuple[int, int]],
             two_way: list[np.ndarray], two_var: float) -> TreeModel:
    """Fit the tree model to the noisy 1-way (``one_way``, their variances ``one_var``) and
    2-way (``two_way`` on ``edges``, variance ``two_var`` per cell) counts."""
    total = _total(one_way, one_var, two_way, two_var)
    nodes = [_node(j, y, v, edges, two_way, two_var, total) for j, (y, v) in enumerate(zip(one_way, one_var))]
    joint = {}
    for (a, b), table in zip(edges, two_way):
        fitted = project_simplex(match_sums(table, nodes[a], nodes[b]), total)
        joint[(a, b)] = _ipf(fitted, nodes[a], nodes[b])
    return TreeModel(total, nodes, joint)


def allocate(rng: np.random.Generator, probs: np.ndarray, given: np.ndarray) -> np.ndarray:
    """For the rows with ``given == v``, values of the child in the proportions of row v of
    ``probs`` (rows sum to 1): the counts rounded by largest remainder, in a random order.

    Rounding instead of drawing each row independently removes the multinomial
    sampling error (as the reference's ``synthetic_data`` does).
    """
    k = probs.shape[1]
    n_v = np.bincount(given, minlength=probs.shape[0]).astype(float)
    target = n_v[:, None] * probs
    floor = np.floor(target - 1e-9).clip(min=0.0)
    short = np.clip(n_v - floor.sum(axis=1), 0, k).astype(np.int64)
    order = np.argsort(-(target - floor) + 1e-12 * rng.random(target.shape), axis=1)
    rank = np.empty_like(order)
    np.put_along_axis(rank, order, np.arange(k)[None, :].repeat(len(order), axis=0), axis=1)
    counts = (floor + (rank < short[:, None])).astype(np.int64).ravel()
    values = np.repeat(np.tile(np.arange(k), probs.shape[0]), counts)
    perm = rng.permutation(given.size)
    small = given[perm].astype(np.uint16) if probs.shape[0] <= 1 << 16 else given[perm]
    rows = perm[np.argsort(small, kind="stable")]  # grouped by value, in random order (radix sort on uint16)
    out = np.empty(given.size, dtype=np.int64)
    out[rows] = values
    return out


def _normalised(node: np.ndarray) -> np.ndarray:
    return node / node.sum() if node.sum() > 0 else np.full(node.size, 1.0 / node.size)


def _conditional(joint: np.ndarray) -> np.ndarray:
    rows = joint.sum(axis=1, keepdims=True)
    uniform = np.full_like(joint, 1.0 / joint.shape[1])
    return np.where(rows > 0, joint / np.where(rows > 0, rows, 1.0), uniform)


def sample_tree(model: TreeModel, rows: int, rng: np.random.Generator) -> np.ndarray:
    """``rows`` records drawn from the tree model, root (column 0) to leaves, as codes."""
    d = len(model.nodes)
    out = np.zeros((rows, d), dtype=np.int64, order="F")  # column by column
    root = model.nodes[0]
    p = _normalised(root)
    out[:, 0] = allocate(rng, p[None, :], np.zeros(rows, dtype=np.int64))
    seen, queue = {0}, deque([0])
    while queue:
        parent = queue.popleft()
        for (a, b), joint in model.edges.items():
            if parent not in (a, b) or (b if parent == a else a) in seen:
                continue
            child = b if parent == a else a
            table = joint if parent == a else joint.T
            out[:, child] = allocate(rng, _conditional(table), out[:, parent])
            seen.add(child)
            queue.append(child)
    for j in set(range(d)) - seen:  # not joined to the tree (only when there is no edge): independent
        out[:, j] = allocate(rng, _normalised(model.nodes[j])[None, :], np.zeros(rows, dtype=np.int64))
    return out
