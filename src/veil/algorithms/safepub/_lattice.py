"""SafePub's search over the whole lattice: every node scored at once, then one draw of the exponential mechanism.

**The privacy argument.**  The candidates are every node between the lowest and
the highest levels of the hierarchies: a set fixed by the hierarchies and the
levels allowed, before any record is read (the records neither add nor remove a
candidate).  Each candidate's score
(:class:`~veil.algorithms.safepub._search.GranularityScore`) has sensitivity 1:
ARX's score is the granularity bracket, which one record more or fewer moves by
at most k - 1, divided by k - 1; the smoothed score (the default) is minus a
bracket that one record moves by at most 1
(:func:`~veil.algorithms.safepub._search.smooth_bracket`).  One draw of the
exponential mechanism with probability :math:`\\propto e^{\\varepsilon u(g) / 2}`
over a fixed candidate set with a sensitivity-1 score is ε-DP (McSherry &
Talwar 2007, Theorem 6), so the search spends exactly ε_search, in one draw,
with no walk and no other data-dependent choice.  The draw is veil's
:class:`veil.dp.ExponentialMechanism` (OpenDP's report-noisy-max with Gumbel
noise).  The scores are computed on the sampled records, as the walk's are, and
the search composes with the sampling and suppression (ε − ε_search)
sequentially, as in SafePub.

**The work.**  The lattice is walked depth first along a spanning tree: the
parent of a node is the node one level lower in its last raised QI, so each
node's classes are its parent's classes with one column rolled up one level and
merged.  Each node costs a few array passes over its parent's classes (the
classes with at least one sampled record), and at most ``depth`` tables are held
at once (the depth is the sum of the hierarchies' heights): the whole costs at
most nodes × classes, and in practice a fifth of that (Adult: 12,960 nodes,
about 17,000 classes, 4.2e7 class rows visited).  The QIs of most
values are raised first, so that a node's parent differs from it in a QI of few
values and holds few more classes than the node.  Whether the whole
lattice is scored is decided before anything is allocated, from the number of
nodes, a fact of the hierarchies (:func:`lattice_fits`).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import NamedTuple

import numpy as np

from veil.classes import ClassTable
from veil.classes._grouping import factorize_keys, group_keys, key_space, pack_codes
from veil.algorithms.safepub._search import smooth_bracket
from veil.errors import ParameterError

__all__ = ["MAX_LATTICE_NODES", "LatticeScores", "lattice_size", "lattice_fits", "too_large",
           "score_lattice", "lattice_search"]

#: The whole lattice is scored only when it has at most this many nodes (Adult's nine QIs: 12,960 nodes,
#: about 17,000 classes holding a sampled record, scored in about 2.5 s of CPU).
MAX_LATTICE_NODES = 100_000


def lattice_size(low: Sequence[int], high: Sequence[int]) -> int:
    """The number of nodes between ``low`` and ``high`` (a product of Python ints: nothing is allocated)."""
    return math.prod(int(h) - int(lo) + 1 for lo, h in zip(low, high))


def lattice_fits(base: ClassTable, low: Sequence[int], high: Sequence[int]) -> bool:
    """Whether the whole lattice is scored: at most :data:`MAX_LATTICE_NODES` nodes and the finest node's
    codes packed in one int64 key.

    Both are facts of the hierarchies and the levels allowed, never of the records: a choice between
    two mechanisms made on the data would itself depend on the data, outside either one's guarantee.
    """
    radices = [h.n_values(level) for h, level in zip(base.hierarchies, low)]
    return lattice_size(low, high) <= MAX_LATTICE_NODES and key_space(radices) < 1 << 62


def too_large() -> ParameterError:
    """The refusal of ``search=lattice`` on a lattice that :func:`lattice_fits` rejects."""
    return ParameterError(
        f"search=lattice needs a lattice of at most {MAX_LATTICE_NODES:,} nodes whose finest codes pack in 62 "
        "bits; this one is larger. Use search=walk (or leave search at auto).")


@dataclass(frozen=True)
class LatticeScores:
    """Every node of a lattice (``nodes``, one row per node, one level per QI) and its score."""

    nodes: np.ndarray
    scores: np.ndarray

    def node(self, index: int) -> tuple[int, ...]:
        return tuple(int(x) for x in self.nodes[index])


class _Classes(NamedTuple):
    """The classes of one node that hold a sampled record: a code column per QI, the packed key, the sampled counts."""

    columns: tuple[np.ndarray, ...]
    key: np.ndarray
    sampled: np.ndarray


def _finest(base: ClassTable, sampled: np.ndarray, low: Sequence[int], strides: Sequence[int]) -> _Classes:
    """The classes at ``low`` (the root of the walk), from the base classes that hold a sampled record."""
    held = np.flatnonzero(sampled > 0)
    columns = [h.rollup(base.levels[i], low[i])[base.codes[held, i]] for i, h in enumerate(base.hierarchies)]
    radices = [h.n_values(level) for h, level in zip(base.hierarchies, low)]
    if len(held) == 0:
        return _Classes(tuple(np.zeros(0, np.int32) for _ in columns), np.zeros(0, np.int64), np.zeros(0))
    key = pack_codes(columns, radices).astype(np.int64)
    keys, inverse = group_keys(key, key_space(radices))
    counts = np.bincount(inverse, weights=sampled[held].astype(np.float64), minlength=len(keys))
    member = np.empty(len(keys), dtype=np.int64)
    member[inverse] = np.arange(len(inverse), dtype=np.int64)
    columns = [c[member] for c in columns]
    return _Classes(tuple(columns), _packed(columns, strides), counts)


def _packed(columns: Sequence[np.ndarray], strides: Sequence[int]) -> np.ndarray:
    key = np.zeros(len(columns[0]) if columns else 0, dtype=np.int64)
    for column, stride in zip(columns, strides):
        key += column.astype(np.int64) * stride
    return key


def _raised(parent: _Classes, j: int, rollup: np.ndarray, stride: int) -> _Classes:
    """The classes one level higher in QI ``j``: column ``j`` rolled up, classes with equal codes merged."""
    old = parent.columns[j]
    new = rollup[old]
    key = parent.key + (new.astype(np.int64) - old) * stride  # the other columns' parts of the key are unchanged
    inverse, keys = factorize_keys(key)
    counts = np.bincount(inverse, weights=parent.sampled, minlength=len(keys))
    member = np.empty(len(keys), dtype=np.int64)
    member[inverse] = np.arange(len(inverse), dtype=np.int64)
    columns = tuple(new[member] if i == j else c[member] for i, c in enumerate(parent.columns))
    return _Classes(columns, keys, counts)


def _score(classes: _Classes, node: Sequence[int], shares: Sequence[Sequence[np.ndarray]], k: int,
           records: int, smooth: bool) -> float:
    """The score of ``node`` from its classes, as ``GranularityScore`` gives it (see its module)."""
    released = classes.sampled >= k
    counts = classes.sampled[released]
    if smooth:
        share = sum(shares[i][level][classes.columns[i][released]] for i, level in enumerate(node)) / len(node)
        return -smooth_bracket(counts, share, k, records)
    share = sum(float(counts @ shares[i][level][classes.columns[i][released]]) for i, level in enumerate(node))
    loss = (records - counts.sum()) + share / len(node)
    return -loss / (k - 1) if k > 1 else -loss


def score_lattice(base: ClassTable, sampled: np.ndarray, k: int, low: Sequence[int],
                  high: Sequence[int], *, smooth: bool = False) -> LatticeScores:
    """SafePub's granularity score of every node between ``low`` and ``high`` (see the module notes).

    Parameters
    ----------
    base : ClassTable
        The class table of every input record.
    sampled : numpy.ndarray of int
        Sampled records per class of ``base``.
    k : int
        Classes with fewer sampled records are suppressed.
    low, high : sequence of int
        The lowest and highest level of each QI.
    smooth : bool
        The smoothed score (``GranularityScore(..., smooth=True)``) rather than ARX's.
    """
    hierarchies = base.hierarchies
    low, high = [int(x) for x in low], [int(x) for x in high]
    d = len(low)
    radices = [h.n_values(level) for h, level in zip(hierarchies, low)]
    strides = [math.prod(radices[i + 1:]) for i in range(d)]
    shares = [[h.leaf_counts(level) / float(h.n_values(0)) for level in range(h.height + 1)] for h in hierarchies]
    order = sorted(range(d), key=lambda i: -radices[i])  # QIs of many values raised first: see the module notes
    nodes = np.empty((lattice_size(low, high), d), dtype=np.int32)
    scores = np.empty(len(nodes), dtype=np.float64)
    # depth first: (node, its parent's classes or its own, the QI raised from the parent or None, first QI to raise)
    stack: list[tuple[tuple[int, ...], _Classes, int | None, int]] = [
        (tuple(low), _finest(base, sampled, low, strides), None, 0)]
    done = 0
    while stack:  # one pass per node of the lattice (nodes, not rows or classes)
        node, classes, raised, first = stack.pop()
        if raised is not None:
            rollup = hierarchies[raised].rollup(node[raised] - 1, node[raised])
            classes = _raised(classes, raised, rollup, strides[raised])
        nodes[done] = node
        scores[done] = _score(classes, node, shares, k, base.n_records, smooth)
        done += 1
        for place in range(d - 1, first - 1, -1):  # the children: one level higher in a QI from the last raised on
            j = order[place]
            if node[j] < high[j]:
                stack.append((node[:j] + (node[j] + 1,) + node[j + 1:], classes, j, place))
    return LatticeScores(nodes=nodes, scores=scores)


def lattice_search(base: ClassTable, sampled: np.ndarray, k: int, low: Sequence[int], high: Sequence[int], *,
                   epsilon: float, smooth: bool = False) -> tuple[tuple[int, ...], int]:
    """The node released by one draw of the exponential mechanism at ``epsilon`` over every node of the
    lattice (probability :math:`\\propto e^{\\varepsilon u / 2}`, sensitivity 1), and the number of nodes scored."""
    from veil.dp import ExponentialMechanism

    lattice = score_lattice(base, sampled, k, low, high, smooth=smooth)
    chosen = ExponentialMechanism(epsilon=epsilon, sensitivity=1.0).select(lattice.scores)
    return lattice.node(chosen), len(lattice.scores)
