"""Walks over the generalization lattice shared by the lattice search's strategies:
greedy descent, binary search along chains with predictive tagging, and the walk over
the candidates in a fixed order."""

from __future__ import annotations

from collections.abc import Callable, Sequence

import numpy as np

from veil.algorithms._nodes import Evaluator, NodeEvaluation, NodeSets, node_index, predecessors

__all__ = ["descend", "classify", "walk_candidates", "lexsort", "sort_rows", "single_attribute_failures"]


def lexsort(keys: Sequence[np.ndarray]) -> np.ndarray:
    """``numpy.lexsort(keys)``: the order by the last key, then the one before, ..., then the
    position (int64).

    Each key is replaced by its rank among its distinct values (floats by ``numpy.unique``,
    which ranks equal values, NaNs included, together as the stable sort does), the ranks and
    the position are packed into one int64 and sorted at once: a few times faster than the
    stable sort's passes over a float key.  Keys whose ranks do not fit are sorted by numpy.
    """
    n = len(keys[0]) if keys else 0
    packed, span = np.zeros(n, dtype=np.int64), max(n, 1)
    for key in reversed(keys):  # the most significant first
        if key.dtype.kind in "iub":
            rank = key.astype(np.int64) - (int(key.min()) if n else 0)
            size = int(rank.max()) + 1 if n else 1
        else:
            uniq, rank = np.unique(key, return_inverse=True)
            size = len(uniq)
        span *= size
        if span >= 1 << 62:
            return np.lexsort(keys)
        packed *= size
        packed += rank.reshape(-1)
    packed *= max(n, 1)
    packed += np.arange(n, dtype=np.int64)
    packed.sort()
    return packed % max(n, 1)


def sort_rows(chosen: np.ndarray, keys: Sequence[np.ndarray]) -> np.ndarray:
    """The rows where ``chosen`` (a mask) is true, in the order :func:`lexsort` gives them
    among all rows (``keys`` has one entry per row): only those rows are sorted."""
    rows = np.flatnonzero(chosen)
    return rows[lexsort([key[rows] for key in keys])]


def single_attribute_failures(nodes: np.ndarray, status: np.ndarray, step: Callable[[int], bool]) -> None:
    """Judge, for each attribute, the nodes with every other attribute at its highest level,
    to find the highest level of that attribute whose node fails (a binary search; the highest
    node itself is known to pass).

    Such a node has a handful of classes, and where the models are monotone its failure settles
    every node with that attribute at that level or below (``step`` judges a node and tags its
    down-set when it fails; ``status`` is -1 for a node known to fail, 1 to pass).  A lattice
    search whose bounds keep it among low nodes never judges these high ones itself.  Measured on
    Adult with k=5 and 0.2-closeness at 0% (2026-11-27): 6 of the 8 attributes have a failing
    level; the search judges 22 nodes instead of 28 (``benchmarks/bench_search.py``).
    """
    low, stride = node_index(nodes)
    high = nodes[-1].astype(np.int64)
    top = len(nodes) - 1
    for a in range(nodes.shape[1]):
        left, right = int(low[a]), int(high[a]) - 1
        while left <= right:
            mid = (left + right) // 2
            row = top - (int(high[a]) - mid) * int(stride[a])
            if status[row] == -1 or (status[row] == 0 and not step(row)):
                left = mid + 1  # fails: look for a higher failing level
            else:
                right = mid - 1


def descend(
    nodes: np.ndarray, bounds: np.ndarray, current: int, step: Callable[[int], bool]
) -> int:
    """Greedy descent from the solution ``current``: move to the predecessor with
    the lowest bound that ``step`` accepts as a solution, until none is."""
    low, stride = node_index(nodes)
    while True:
        for i in sorted(predecessors(nodes, current, low, stride), key=lambda j: bounds[j]):
            if step(i):
                current = i
                break
        else:
            return current


def classify(
    evaluator: "Evaluator", nodes: np.ndarray, known: dict[int, NodeEvaluation]
) -> np.ndarray:
    """Status of every node (1 solution, -1 not) for monotone models, by binary
    search along chains with predictive tagging (the idea of OLA and Flash).

    Along a chain of generalizations monotone models switch once, from failing
    to satisfied; a binary search finds the switch, then nodes above a solution
    are tagged solutions and nodes below a failure failures (no class tables).
    """
    n, q = nodes.shape
    status = np.zeros(n, dtype=np.int8)
    sets = NodeSets(nodes)
    low, stride = node_index(nodes)
    high = nodes.max(axis=0).astype(np.int64)
    span = np.maximum(high - low, 1)

    def index_of(node: np.ndarray) -> int:
        return int(((node.astype(np.int64) - low) * stride).sum())

    def judge(i: int) -> bool:
        node = tuple(nodes[i].tolist())
        result = evaluator.evaluate(node)
        known[i] = result
        if result.satisfied:
            sets.tag_above(status, i, 1)
        else:
            sets.tag_below(status, i, -1)
        return result.satisfied

    for start in lexsort((sets.heights(),)):
        if status[start] != 0:
            continue
        chain = [int(start)]
        current = nodes[start].astype(np.int64)
        while True:
            room = current < high
            if not room.any():
                break
            # climb the attribute that is relatively least generalized
            relative = np.where(room, (current - low) / span, np.inf)
            attr = int(np.argmin(relative))
            current = current.copy()
            current[attr] += 1
            i = index_of(current)
            if status[i] != 0:
                break
            chain.append(i)
        lo, hi = 0, len(chain) - 1
        while lo <= hi:
            mid = (lo + hi) // 2
            if status[chain[mid]] != 0:
                satisfied = status[chain[mid]] == 1
            else:
                satisfied = judge(chain[mid])
            if satisfied:
                hi = mid - 1
            else:
                lo = mid + 1
    return status


def walk_candidates(order: np.ndarray, judge: Callable[[int], object],
                    is_open: Callable[[np.ndarray], np.ndarray]) -> None:
    """Judge, in ``order``, each node that ``is_open`` (asked of a chunk of rows) accepts.

    For candidate sets that only shrink (a node once out never comes back: the best
    loss only falls, statuses and judgements only settle), so one pointer walks
    ``order`` once, a chunk of 256 nodes at a time, instead of filtering and sorting
    the whole lattice before each judgement.
    """
    position = 0
    while position < len(order):
        chunk = order[position:position + 256]
        open_ = is_open(chunk)
        first = int(open_.argmax())
        if not open_[first]:
            position += len(chunk)
            continue
        position += first
        judge(int(order[position]))
