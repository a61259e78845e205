"""Nodes refuted from the marginals of their attribute pairs, before their class table is built.

Every equivalence class of a node lies inside one cell of each two-attribute marginal at the
node's levels (the records that share the pair's generalized values).  A cell with fewer than
``m`` records therefore holds only classes smaller than ``m``: a model that asks every class
for at least ``m`` records (:attr:`~veil.models.PrivacyModel.smallest_class`: ``k`` of
k-anonymity, ``l`` of distinct l-diversity) suppresses at least every record of such a cell.
When one pair's small cells already hold more records than the suppression limit allows, the
node fails, and its class table need not be built.  This is the subset property of Incognito
(LeFevre, DeWitt & Ramakrishnan, "Incognito: efficient full-domain k-anonymity", SIGMOD 2005,
Section 3.1): a table that is not k-anonymous on a subset of its quasi-identifiers is not
k-anonymous on all of them.

A pair's marginal at the base levels is one ``bincount`` over the base table's classes, made the
first time a node asks for the pair; it is rolled up to a pair of levels by one more ``bincount``
of its cells, the first time a node asks for those levels.  Measured on Adult (8 QIs, 28 pairs, 2026-11-27): at 0%
suppression the pairs refute 49 of the 56 failing nodes that the k=10 search judges and 101 of
112 for k=5; at 5% the bound refutes 5 of 184 nodes and the search is slower, so the lattice
search asks the pairs only when no record may be suppressed (:class:`veil.algorithms._nodes.Evaluator`).
"""

from __future__ import annotations

import numpy as np

from veil.classes import ClassTable, dense_space, sum_by_key

__all__ = ["PairBound", "pair_bound", "MAX_VISITS"]


class PairBound:
    """The records a node suppresses at least, counted on the marginals of its attribute pairs.

    Parameters
    ----------
    base : ClassTable
        The search's base table (every node's levels are at least its own).
    smallest : int
        The fewest records a class may hold (the models' largest
        :attr:`~veil.models.PrivacyModel.smallest_class`).
    limit : int
        The records the search may suppress.

    Examples
    --------
    >>> import pandas as pd
    >>> from veil.classes import ClassTable, dense_space, sum_by_key
    >>> frame = pd.DataFrame({"a": list("xxxy"), "b": list("pqqq"), "c": list("uuuv")})
    >>> bound = PairBound(ClassTable.from_pandas(frame, quasi_identifiers=["a", "b", "c"]), 2, 0)
    >>> bound.refutes((0, 0, 0))  # the cell (a=x, b=p) holds one record, (a=y, b=q) another
    2
    >>> bound.refutes((1, 1, 1))  # every attribute at '*': one cell of four records
    0
    """

    def __init__(self, base: ClassTable, smallest: int, limit: int) -> None:
        self.base, self.smallest, self.limit = base, int(smallest), int(limit)
        self.offset = int(base.suppressed - base.input_suppressed)  # records the base itself suppresses
        hierarchies, levels = base.hierarchies, base.levels
        varying = [i for i, h in enumerate(hierarchies) if h.n_values(levels[i]) > 1]
        # a pair whose cells at the base levels are too many to count densely over the base's classes
        # (two large domains) is left out, with fewer refutations, never a wrong one
        self.pairs = [(i, j) for n, i in enumerate(varying) for j in varying[n + 1:]
                      if dense_space(hierarchies[i].n_values(levels[i]) * hierarchies[j].n_values(levels[j]),
                                     base.n_classes)]
        #: the pairs in the order they are asked: the last one to refute a node first
        self.order = list(range(len(self.pairs)))
        self._cells: list[tuple[np.ndarray, np.ndarray, np.ndarray] | None] = [None] * len(self.pairs)
        self._small: dict[tuple[int, int, int], int] = {}
        self._columns: dict[tuple[int, bool], np.ndarray] = {}

    def refutes(self, node: tuple[int, ...]) -> int:
        """The records ``node`` suppresses at least, counted on the first pair whose small
        cells hold more than the limit allows; 0 when no pair's do (the node may pass)."""
        known, pairs, order = self._small, self.pairs, self.order
        for position, p in enumerate(order):
            i, j = pairs[p]
            need = known.get((p, node[i], node[j]))
            if need is None:
                need = self._count(p, node[i], node[j])
            need += self.offset
            if need > self.limit:
                if position:
                    order.insert(0, order.pop(position))
                return need
        return 0

    def _count(self, p: int, first: int, second: int) -> int:
        """Pair ``p``'s records in cells smaller than ``smallest``, its attributes at levels
        ``first`` and ``second`` (its cells at the base levels rolled up by one ``bincount``)."""
        cells = self._cells[p]
        if cells is None:
            cells = self._cells[p] = self._pair_cells(p)
        codes_i, codes_j, records = cells
        (i, j), base = self.pairs[p], self.base
        hi, hj = base.hierarchies[i], base.hierarchies[j]
        width = hj.n_values(second)
        key = hi.rollup(base.levels[i], first)[codes_i] * width + hj.rollup(base.levels[j], second)[codes_j]
        totals = np.bincount(key, weights=records)
        need = int(round(totals[totals < self.smallest].sum()))
        self._small[(p, first, second)] = need
        return need

    def _pair_cells(self, p: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """Pair ``p``'s non-empty cells at the base levels: each one's two codes and records."""
        (i, j), base = self.pairs[p], self.base
        width = base.hierarchies[j].n_values(base.levels[j])
        space = base.hierarchies[i].n_values(base.levels[i]) * width
        summed = sum_by_key(self._column(i, space) * width + self._column(j, space), space, base.counts)
        assert summed is not None  # dense by the choice of pairs
        present, records, _ = summed
        first, second = np.divmod(present, width)
        return first, second, records

    def _column(self, i: int, space: int) -> np.ndarray:
        """Attribute ``i``'s codes in the base table, contiguous: int32 while keys below ``space`` fit."""
        wide = space >= 1 << 31
        column = self._columns.get((i, wide))
        if column is None:
            column = self._columns[(i, wide)] = self.base.codes[:, i].astype(np.int64 if wide else np.int32)
        return column


def pair_bound(base: ClassTable, smallest: int, limit: int) -> PairBound | None:
    """A :class:`PairBound` of ``base``, or None when counting its pairs' cells would visit more
    than :data:`MAX_VISITS` classes (one visit per class and pair)."""
    bound = PairBound(base, smallest, limit)
    return bound if bound.pairs and base.n_classes * len(bound.pairs) <= MAX_VISITS else None


#: The most class visits a search spends counting its pairs' cells (about 1.5 ms on 2 cores).
#: The pairs pay back only when they refute many nodes.  On Adult (18,109 base classes, 28 pairs:
#: 507,052 visits) they refute 38-101 nodes and save 0.2-4.4 ms a search; on a skewed synthetic
#: table (7 attributes, 21 pairs, Zipf values) they refuted 0-27 nodes, and the search was up to
#: 2.6 ms slower with 17,158 classes, 2-4 ms with 46,335 and 10-19 ms with 185,597
#: (``benchmarks/bench_pairs.py``).
MAX_VISITS = 1 << 19
