"""The Earth Mover's Distances of t-closeness from the (class, value, count) pairs that occur.

The same integers as the dense formulas of :mod:`veil.models._t_closeness`, in time and memory
that follow the pairs (and the values once, for the overall distribution), never classes x
values.  With ``N`` records in the table, ``o_v`` of them of value ``v``, ``n_j`` in class
``j`` and ``c_jv`` of both, every class's value ``v`` differs by ``e_jv = c_jv N - o_v n_j``
(``(p - q) n_j N``): a value absent from the class by ``-o_v n_j``, so the absent values of a
class are summed at once from the overall's totals.
"""

from __future__ import annotations

import numpy as np

from veil.classes import ClassValueCounts, SensitiveHistogram
from veil.hierarchy import Hierarchy
from veil.models._distributions import exact_ratio

__all__ = ["pair_equal_distances", "pair_ordered_distances", "pair_hierarchical_distances"]


def _sizes(hist: SensitiveHistogram) -> tuple[ClassValueCounts, int, np.ndarray]:
    """The pairs, ``N`` (the overall's total) and each class's size ``n_j``."""
    pairs = hist.pairs
    return pairs, int(np.asarray(hist.overall, dtype=np.int64).sum()), pairs.class_sizes()


def _absolute_sums(pairs: ClassValueCounts, total: int, n: np.ndarray, inside: np.ndarray,
                   shares: np.ndarray) -> np.ndarray:
    """Per class, :math:`\\sum_u |C_{ju} N - n_j O_u|` over every unit ``u`` (a value, or a node of a
    hierarchy): ``inside`` holds each pair's ``C`` (its unit's count in its class, one pair per
    class and unit), ``shares`` each pair's ``O``; a unit the class lacks adds ``n_j O_u``."""
    sizes = n.take(pairs.classes)
    present = pairs.class_sums(np.abs(inside * total - sizes * shares))
    return present + n * (total - pairs.class_sums(shares))


def pair_equal_distances(hist: SensitiveHistogram) -> np.ndarray:
    """:func:`~veil.models._t_closeness.equal_distances` from the pairs:
    :math:`\\sum_v |e_{jv}| / (2 n_j N)`."""
    pairs, total, n = _sizes(hist)
    overall = np.asarray(hist.overall, dtype=np.int64)
    num = _absolute_sums(pairs, total, n, pairs.counts, overall.take(pairs.values))
    return exact_ratio(num, 2 * n * total)


def pair_ordered_distances(hist: SensitiveHistogram) -> np.ndarray:
    """:func:`~veil.models._t_closeness.ordered_distances` from the pairs:
    :math:`\\sum_{i} |\\sum_{v \\le i} e_{jv}| / ((m - 1) n_j N)`.

    The running sum at position ``i`` is ``C_j(i) N - n_j O(i)`` (``C``, ``O``: the class's and the
    table's counts of values up to ``i``).  Between two values of the class ``C_j`` stays put
    while ``O`` grows, so each run's terms change sign at most once, where ``O`` passes
    ``C_j N / n_j``: found by a binary search, each side summed from the prefix sums of ``O``.
    """
    pairs, total, n = _sizes(hist)
    m = hist.n_values
    if m <= 1 or pairs.n_classes == 0:
        return np.zeros(pairs.n_classes)
    cumulative = np.cumsum(np.asarray(hist.overall, dtype=np.int64))  # O(i)
    prefix = np.zeros(m + 1, dtype=np.int64)
    np.cumsum(cumulative, out=prefix[1:])  # sum of O(i') for i' < i
    values = pairs.values.astype(np.int64)
    begin = pairs.starts[:-1]
    held = begin < pairs.starts[1:]
    # the run before a class's first value: C = 0, terms n_j O(i)
    first = np.full(pairs.n_classes, m, dtype=np.int64)
    first[held] = values[begin[held]]
    lead = n * prefix[first]
    # the run from each pair's value to the class's next value (or the end): C its running count
    ends = np.append(values[1:], m)
    last = np.append(pairs.classes[1:] != pairs.classes[:-1], True)
    ends[last] = m
    running = np.cumsum(pairs.counts)
    running -= np.append(0, running)[pairs.starts[:-1]].take(pairs.classes)
    sizes = n.take(pairs.classes)
    level = running * total
    turn = np.searchsorted(cumulative, level // np.maximum(sizes, 1), side="right")
    turn = np.clip(turn, values, ends)
    below = (turn - values) * level - sizes * (prefix[turn] - prefix[values])
    above = sizes * (prefix[ends] - prefix[turn]) - (ends - turn) * level
    return exact_ratio(lead + pairs.class_sums(below + above), (m - 1) * n * total)


def pair_hierarchical_distances(hist: SensitiveHistogram, hierarchy: Hierarchy) -> np.ndarray:
    """:func:`~veil.models._t_closeness.hierarchical_distances` from the pairs.

    A node's :math:`\\min(pos, neg)` is half its children's :math:`\\sum |e|` less its own
    :math:`|e|`, so twice the cost telescopes to :math:`A_0 + \\dots + A_{H-1} - H A_H`, with
    :math:`A_l` the sum of :math:`|e|` over the nodes at level :math:`l`; a node's ``e`` is
    ``C N - n_j O`` of the counts under it, so each level is the pairs rolled up to its nodes.
    """
    pairs, total, n = _sizes(hist)
    height = hierarchy.height
    if pairs.n_classes == 0 or height == 0:
        return np.zeros(pairs.n_classes)
    overall = np.asarray(hist.overall, dtype=np.int64)
    present = (overall > 0) | (pairs.value_totals() > 0)
    leaf = np.full(hist.n_values, -1, dtype=np.int64)
    leaf[present] = hierarchy.leaf_index(hist.labels[present], column=hist.name)
    twice = np.zeros(pairs.n_classes, dtype=np.int64)
    for level in range(height + 1):  # a few levels, each vectorised over the pairs
        node = leaf if level == 0 else np.where(leaf >= 0, np.asarray(hierarchy.rollup(0, level)).take(
            np.maximum(leaf, 0)), -1)
        k = hierarchy.n_values(level)
        shares = np.rint(np.bincount(node[present], weights=overall[present].astype(np.float64),
                                     minlength=k)).astype(np.int64)
        at = pairs.with_values(node, k)  # each class's counts under each node
        sums = _absolute_sums(at, total, n, at.counts, shares.take(at.values))
        twice += sums if level < height else -height * sums
    return exact_ratio(twice, 2 * height * n * total)
