"""A junction tree over measured cliques, exact belief propagation on it, and marginals of any clique.

The graph has one node per column and an edge between two columns that share
a measured clique.  It is triangulated by greedy elimination (each step
eliminates the column whose neighbourhood, itself included, has the fewest
cells); the maximal elimination cliques are the nodes of the junction tree,
joined by a maximum spanning tree on the sizes of their intersections (the
separators), which has the running-intersection property for a perfect
elimination order.  Factors are numpy arrays whose axes are their columns in
increasing order, so aligning two factors is a reshape.

Belief propagation runs in log space (two passes, leaves to root and back)
and gives every maximal clique's marginal exactly; the marginal of a clique
inside no maximal clique is computed on the smallest subtree covering its
columns from the calibrated beliefs (:math:`P = \\prod_C \\mu_C / \\prod_S \\mu_S`),
summing out what is no longer needed clique by clique.
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass
from typing import Sequence

import numpy as np

__all__ = ["JunctionTree", "junction_tree", "model_size_mb", "align", "sum_to", "calibrate", "clique_marginal"]

Clique = tuple[int, ...]


def align(array: np.ndarray, cols: Clique, target: Clique, sizes: Sequence[int]) -> np.ndarray:
    """``array`` over ``cols`` (a subset of ``target``, both increasing) reshaped to broadcast over ``target``."""
    present = set(cols)
    return np.reshape(array, [int(sizes[c]) if c in present else 1 for c in target])


def logsumexp(array: np.ndarray, axis: tuple[int, ...] | None = None) -> np.ndarray:
    """:math:`\\log \\sum \\exp` over ``axis`` (all axes for None), shifted by the maximum."""
    top = np.max(array, axis=axis, keepdims=True)
    top = np.where(np.isfinite(top), top, 0.0)
    out = np.log(np.sum(np.exp(array - top), axis=axis, keepdims=True)) + top
    return out.reshape(()) if axis is None else np.squeeze(out, axis=axis)


def sum_to(array: np.ndarray, cols: Clique, keep: Clique, *, log: bool = False) -> np.ndarray:
    """Sum (``log``: log-sum-exp) ``array`` over ``cols`` down to the columns ``keep``."""
    keep_set = set(keep)
    axes = tuple(i for i, c in enumerate(cols) if c not in keep_set)
    if not axes:
        return array
    return logsumexp(array, axis=axes) if log else array.sum(axis=axes)


@dataclass(frozen=True, slots=True)
class JunctionTree:
    """Maximal ``cliques`` (increasing columns), tree ``edges`` between clique indices (``parent[i]``
    is i's neighbour towards clique 0, -1 for the root), a breadth-first ``order`` from the root,
    and the elimination ``elimination`` order of the columns."""

    sizes: tuple[int, ...]
    cliques: tuple[Clique, ...]
    parent: tuple[int, ...]
    order: tuple[int, ...]
    elimination: tuple[int, ...]
    #: each eliminated column's clique at its step (the column and its later neighbours)
    steps: tuple[Clique, ...]
    #: the columns each clique shares with its parent (empty for the root)
    separators: tuple[Clique, ...]
    #: the number of cells of each clique
    cells: tuple[int, ...]

    @property
    def size_mb(self) -> float:
        """The model's parameters in megabytes (8-byte floats), as the reference counts them."""
        return sum(self.cells) * 8 / 2 ** 20

    def separator(self, i: int) -> Clique:
        """The columns clique ``i`` shares with its parent."""
        return self.separators[i]

    def home(self, clique: Sequence[int]) -> int:
        """The index of a maximal clique containing ``clique`` (the smallest), or -1."""
        need = set(clique)
        fits = [i for i, c in enumerate(self.cliques) if need.issubset(c)]
        return min(fits, key=self.cells.__getitem__) if fits else -1


def _elimination(sizes: Sequence[int], adjacency: list[set[int]]) -> tuple[list[int], list[Clique]]:
    """Greedy elimination: the order and each step's clique (the column and its neighbours then)."""
    adj = [set(a) for a in adjacency]
    left = set(range(len(sizes)))
    order, cliques = [], []
    log_sizes = np.log(np.asarray(sizes, dtype=float))
    while left:
        a = min(left, key=lambda v: (log_sizes[list(adj[v])].sum() + log_sizes[v], v))
        nbrs = adj[a]
        for u, v in itertools.combinations(nbrs, 2):
            adj[u].add(v)
            adj[v].add(u)
        for u in nbrs:
            adj[u].discard(a)
        order.append(a)
        cliques.append(tuple(sorted(nbrs | {a})))
        left.remove(a)
    return order, cliques


def _maximal(cliques: list[Clique]) -> list[Clique]:
    sets = [set(c) for c in cliques]
    out = []
    for i, s in enumerate(sets):
        if not any((s < t) or (s == t and j < i) for j, t in enumerate(sets) if j != i):
            out.append(cliques[i])
    return sorted(out)


def _spanning_tree(cliques: list[Clique]) -> tuple[tuple[int, ...], tuple[int, ...]]:
    """Kruskal's maximum spanning tree on separator sizes (empty separators join components), rooted
    at clique 0: the parents and a breadth-first order."""
    k = len(cliques)
    pairs = sorted(itertools.combinations(range(k), 2), key=lambda p: -len(set(cliques[p[0]]) & set(cliques[p[1]])))
    comp = list(range(k))
    nbrs: list[list[int]] = [[] for _ in range(k)]
    for a, b in pairs:
        ca, cb = comp[a], comp[b]
        if ca != cb:
            comp = [ca if c == cb else c for c in comp]
            nbrs[a].append(b)
            nbrs[b].append(a)
    parent, order, queue = [-1] * k, [0], [0]
    seen = {0}
    while queue:
        node = queue.pop(0)
        for nb in sorted(nbrs[node]):
            if nb not in seen:
                seen.add(nb)
                parent[nb] = node
                order.append(nb)
                queue.append(nb)
    return tuple(parent), tuple(order)


def junction_tree(sizes: Sequence[int], cliques: Sequence[Sequence[int]]) -> JunctionTree:
    """The junction tree of the graph in which every clique of ``cliques`` is complete."""
    d = len(sizes)
    adjacency: list[set[int]] = [set() for _ in range(d)]
    for cl in cliques:
        for u, v in itertools.combinations(set(cl), 2):
            adjacency[u].add(v)
            adjacency[v].add(u)
    order, elim = _elimination(sizes, adjacency)
    maximal = _maximal(elim)
    parent, bfs = _spanning_tree(maximal)
    seps = tuple(() if p < 0 else tuple(sorted(set(c) & set(maximal[p]))) for c, p in zip(maximal, parent))
    cells = tuple(int(np.prod([sizes[c] for c in cl])) for cl in maximal)
    return JunctionTree(tuple(int(s) for s in sizes), tuple(maximal), parent, bfs, tuple(order), tuple(elim),
                        seps, cells)


def model_size_mb(sizes: Sequence[int], cliques: Sequence[Sequence[int]]) -> float:
    """The size in megabytes of the junction tree of ``cliques`` (the reference's hypothetical model size)."""
    return junction_tree(sizes, cliques).size_mb


def calibrate(tree: JunctionTree, potentials: list[np.ndarray], total: float) -> list[np.ndarray]:
    """Every maximal clique's marginal (counts summing to ``total``) of the model
    :math:`P(x) \\propto \\exp \\sum_C \\theta_C(x_C)`, by two passes of log-space belief propagation."""
    cl, sizes = tree.cliques, tree.sizes
    up: dict[int, np.ndarray] = {}
    inbox = [p.copy() for p in potentials]
    for i in reversed(tree.order[1:]):  # leaves to root
        sep, p = tree.separator(i), tree.parent[i]
        up[i] = sum_to(inbox[i], cl[i], sep, log=True)
        inbox[p] = inbox[p] + align(up[i], sep, cl[p], sizes)
    for i in tree.order[1:]:  # root to leaves: the parent's belief without i's own message
        sep, p = tree.separator(i), tree.parent[i]
        down = sum_to(inbox[p] - align(up[i], sep, cl[p], sizes), cl[p], sep, log=True)
        inbox[i] = inbox[i] + align(down, sep, cl[i], sizes)
    log_z = float(logsumexp(inbox[tree.order[0]]))
    return [total * np.exp(b - log_z) for b in inbox]


def _subtree(tree: JunctionTree, need: set[int]) -> list[int]:
    """The cliques of the smallest subtree covering ``need``, in breadth-first order from its top."""
    keep = set()
    cover: set[int] = set()
    for i in tree.order:  # greedily: every clique holding a needed column, then the paths between them
        if set(tree.cliques[i]) & need - cover:
            keep.add(i)
            cover |= set(tree.cliques[i])
    paths = set()
    for i in keep:
        node = i
        while node >= 0:
            paths.add(node)
            node = tree.parent[node]
    # prune the root side: climb down while the top has one child in the set and holds nothing needed
    sub = [i for i in tree.order if i in paths]
    while len(sub) > 1 and sub[0] not in keep and sum(tree.parent[j] == sub[0] for j in sub) == 1:
        sub = sub[1:]
    return sub


def clique_marginal(tree: JunctionTree, beliefs: list[np.ndarray], clique: Sequence[int]) -> np.ndarray:
    """The marginal (counts) of ``clique`` (increasing columns) from the calibrated ``beliefs``."""
    want = tuple(sorted(clique))
    home = tree.home(want)
    if home >= 0:
        return sum_to(beliefs[home], tree.cliques[home], want)
    sub = _subtree(tree, set(want))
    total = float(beliefs[sub[0]].sum())
    factor, cols = beliefs[sub[0]], tree.cliques[sub[0]]
    for pos, i in enumerate(sub):
        if pos > 0:  # multiply in P(C_i | S_i) = mu_C / mu_S
            sep = tree.separator(i)
            mu_s = sum_to(beliefs[i], tree.cliques[i], sep)
            cond = beliefs[i] / np.where(align(mu_s, sep, tree.cliques[i], tree.sizes) > 0,
                                         align(mu_s, sep, tree.cliques[i], tree.sizes), 1.0)
            union = tuple(sorted(set(cols) | set(tree.cliques[i])))
            factor = align(factor, cols, union, tree.sizes) * align(cond, tree.cliques[i], union, tree.sizes)
            cols = union
        done = set(sub[:pos + 1])
        later = set().union(set(), *[set(tree.separator(j)) for j in sub[pos + 1:] if tree.parent[j] in done])
        keep = tuple(c for c in cols if c in set(want) or c in later)
        factor, cols = sum_to(factor, cols, keep), keep
    out = sum_to(factor, cols, want)
    return out * (total / out.sum()) if out.sum() > 0 else out
