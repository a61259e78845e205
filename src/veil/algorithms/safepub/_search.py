"""SafePub's search: the exponential mechanism walks the lattice from the top (Bild et al. 2018, Algorithm 1).

The score of a node is ARX's differentially private variant of the loss
("granularity") metric (``MetricMDNMLoss.getScore``): on the sampled records,
with every class of fewer than k sampled records suppressed,

.. math::

    u(g) = -\\frac{1}{k - 1}\\Big(S + \\frac{1}{d}\\sum_{i=1}^{d}\\sum_{r\\ \\text{released}}
           \\frac{\\mathrm{leaves}(g_i(r))}{|\\mathrm{dom}_i|}\\Big)

where S counts the suppressed records (unsampled ones included), d the
quasi-identifiers and :math:`\\mathrm{leaves}(g_i(r)) / |\\mathrm{dom}_i|` is
the share of QI i's domain that record r's released value covers.  One record
more or fewer changes the bracket by at most k - 1 (it can lift a class of
k - 1 records out of suppression), so u has sensitivity 1 and each step of
the exponential mechanism draws candidate g with probability
:math:`\\propto e^{\\varepsilon_{step} u(g) / 2}`.

Dividing by k - 1 flattens the mechanism: a record's worth of loss is 1/(k - 1)
of a unit of score.  veil's default score (``score=smooth``) is instead minus a
smoothed bracket: a released class of c sampled records counts
max(c · share, 2(k - 1) - c) instead of c · share (share: its mean domain share
over the QIs).  Its count then moves by at most 1 for each record added or
removed, on both sides of the threshold k, so the bracket itself has
sensitivity 1 and needs no division (:func:`smooth_bracket`).  It charges a
class just above k as if it were partly suppressed, and is otherwise ARX's.

This module holds the walk, used when the lattice is too large to score whole
(or with ``search=walk``); a lattice within the bound is scored whole and
drawn from once instead (:mod:`veil.algorithms.safepub._lattice`).  The walk
spends a small share of the search budget (``walk_share``); the node released
is then drawn by the exponential mechanism, with the rest, among every node
the walk scored.  ARX releases instead the best pivot of its
walk by exact score, a choice made by no mechanism (see
``docs/algorithms/safepub.md``, "Differences from ARX").
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from veil.classes import ClassTable

__all__ = ["GranularityScore", "smooth_bracket", "walk", "search"]


def smooth_bracket(counts: np.ndarray, share: np.ndarray, k: int, records: int) -> float:
    """The smoothed granularity bracket of one node, from its released classes (``counts``: the sampled
    records of each class of at least k, ``share``: each one's mean domain share over the QIs).

    A released class of c records counts max(c · share, 2(k - 1) - c) rather than c · share, and every
    record not released counts 1: the count of a class moves by at most 1 for each record added to it
    (from k - 1 suppressed records to k released ones, by at most 1), so the bracket has sensitivity 1
    in records, not k - 1.
    """
    released = float(np.maximum(counts * share, 2.0 * (k - 1) - counts).sum())
    return (records - float(counts.sum())) + released


class GranularityScore:
    """``score(node)``: SafePub's granularity score of a node on the sampled records.

    Parameters
    ----------
    base : ClassTable
        The class table of every input record (level 0).
    sampled : numpy.ndarray of int
        Sampled records per class of ``base``.
    k : int
    smooth : bool
        ``False``: ARX's score (the bracket divided by k - 1); ``True``: minus the smoothed
        bracket (:func:`smooth_bracket`).  Both have sensitivity 1.
    """

    def __init__(self, base: ClassTable, sampled: np.ndarray, k: int, smooth: bool = False) -> None:
        self.base = base
        self.sampled = np.asarray(sampled, dtype=np.float64)
        self.k = k
        self.smooth = smooth
        self.records = base.n_records
        self._shares = [
            [h.leaf_counts(level) / float(h.n_values(0)) for level in range(h.height + 1)] for h in base.hierarchies
        ]

    def sampled_counts(self, table: ClassTable) -> np.ndarray:
        """Sampled records per class of ``table`` (a generalization of ``base``)."""
        if table is self.base:
            return self.sampled.copy()
        mapping = table.base_map
        held = mapping >= 0
        return np.bincount(mapping[held], weights=self.sampled[held], minlength=table.n_classes)

    def __call__(self, node: Sequence[int]) -> float:
        table = self.base.generalize(tuple(int(x) for x in node))
        counts = self.sampled_counts(table)
        codes = table.codes
        if self.smooth:
            kept = counts >= self.k
            share = sum(self._shares[i][level][codes[kept, i]] for i, level in enumerate(node)) / len(node)
            return -smooth_bracket(counts[kept], share, self.k, self.records)
        released = np.where(counts >= self.k, counts, 0.0)
        shares = sum(float(released @ self._shares[i][level][codes[:, i]]) for i, level in enumerate(node))
        d = len(node)
        loss = (self.records - released.sum()) + shares / d
        return -loss / (self.k - 1) if self.k > 1 else -loss


def _predecessors(node: tuple[int, ...], low: Sequence[int]) -> list[tuple[int, ...]]:
    return [node[:i] + (node[i] - 1,) + node[i + 1:] for i in range(len(node)) if node[i] > low[i]]


def walk(score: GranularityScore, low: Sequence[int], high: Sequence[int], *, steps: int,
         select) -> tuple[tuple[int, ...], dict[tuple[int, ...], float]]:
    """SafePub's walk (ARX's ``DataDependentEDDPAlgorithm``): the last pivot, and every node it scored.

    From the top node, each step adds the pivot's direct predecessors (one
    level lower in one QI) to the candidates, removes the pivot, and draws the
    next pivot among the candidates with ``select(scores) -> index`` (the
    exponential mechanism at the walk's ε / steps).  The scores of the top and
    of every candidate ever drawn from are returned with the last pivot.
    """
    pivot = tuple(int(x) for x in high)
    scored = {pivot: score(pivot)}
    candidates: dict[tuple[int, ...], float] = {}
    for _ in range(steps):  # steps of the walk (tens to hundreds), not rows
        for node in _predecessors(pivot, low):
            if node not in candidates:
                candidates[node] = scored[node] if node in scored else score(node)
                scored[node] = candidates[node]
        candidates.pop(pivot, None)
        if not candidates:
            break
        nodes = list(candidates)
        pivot = nodes[select([candidates[n] for n in nodes])]
    return pivot, scored


def search(score: GranularityScore, low: Sequence[int], high: Sequence[int], *, steps: int, epsilon: float,
           walk_share: float) -> tuple[tuple[int, ...], int]:
    """The node SafePub releases, and how many nodes it scored, spending exactly ``epsilon``.

    The walk spends ``walk_share · epsilon`` (ε / steps at each of its
    draws); the node released is then drawn by the exponential mechanism,
    with the rest of ``epsilon``, among every node the walk scored.  (ARX
    releases the best-scoring pivot of its walk, chosen on the exact scores:
    a choice no mechanism makes, outside the guarantee.)  With
    ``walk_share = 1`` the last pivot is released.
    """
    from veil.dp import ExponentialMechanism

    step = ExponentialMechanism(epsilon=epsilon * walk_share / steps, sensitivity=1.0)
    pivot, scored = walk(score, low, high, steps=steps, select=step.select)
    if walk_share >= 1.0:
        return pivot, len(scored)
    final = ExponentialMechanism(epsilon=epsilon * (1.0 - walk_share), sensitivity=1.0)
    nodes = list(scored)
    return nodes[final.select([scored[n] for n in nodes])], len(scored)
