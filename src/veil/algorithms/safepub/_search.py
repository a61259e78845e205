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
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from veil.classes import ClassTable

__all__ = ["GranularityScore", "walk"]


class GranularityScore:
    """``score(node)``: SafePub's granularity score of a node on the sampled records.

    Parameters
    ----------
    base : ClassTable
        The class table of every input record (level 0).
    sampled : numpy.ndarray of int
        Sampled records per class of ``base``.
    k : int
    """

    def __init__(self, base: ClassTable, sampled: np.ndarray, k: int) -> None:
        self.base = base
        self.sampled = np.asarray(sampled, dtype=np.float64)
        self.k = k
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
        released = np.where(counts >= self.k, counts, 0.0)
        codes = table.codes
        shares = sum(float(released @ self._shares[i][level][codes[:, i]]) for i, level in enumerate(node))
        d = len(node)
        loss = (self.records - released.sum()) + shares / d
        return -loss / (self.k - 1) if self.k > 1 else -loss


def _predecessors(node: tuple[int, ...], low: Sequence[int]) -> list[tuple[int, ...]]:
    return [node[:i] + (node[i] - 1,) + node[i + 1:] for i in range(len(node)) if node[i] > low[i]]


def walk(score: GranularityScore, low: Sequence[int], high: Sequence[int], *, steps: int, select) -> tuple[tuple[int, ...], int]:
    """The node SafePub releases, and how many nodes it scored.

    From the top node, each step adds the pivot's direct predecessors (one
    level lower in one QI) to the candidates, removes the pivot, and draws the
    next pivot among the candidates with ``select(scores) -> index`` (the
    exponential mechanism at ε_search / steps).  The last pivot drawn is
    returned: every choice of it is a draw of the mechanism, so the search
    spends exactly ε_search (ARX instead returns the best-scoring pivot, a
    choice made on the exact scores).
    """
    pivot = tuple(int(x) for x in high)
    candidates: dict[tuple[int, ...], float] = {}
    scored = 0
    for _ in range(steps):  # steps of the walk (tens to hundreds), not rows
        for node in _predecessors(pivot, low):
            if node not in candidates:
                candidates[node] = score(node)
                scored += 1
        candidates.pop(pivot, None)
        if not candidates:
            break
        nodes = list(candidates)
        pivot = nodes[select([candidates[n] for n in nodes])]
    return pivot, scored
