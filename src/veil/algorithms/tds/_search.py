"""The state of one top-down specialization run: every attribute's cut and the partitions of its values."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from veil.algorithms._recoding import SUPPRESSED_LABEL
from veil.algorithms.tds._checks import _Candidate, _make_check
from veil.algorithms.tds._grouping import _group_columns, _representatives
from veil.algorithms.tds._taxonomy import _IntervalTaxonomy, _Taxonomy
from veil.classes import ClassTable
from veil.hierarchy import Hierarchy
from veil.models import PrivacyModel

_AnyTaxonomy = _Taxonomy | _IntervalTaxonomy


class _Search:
    """The state of one run: the cut of every attribute and its partitions."""

    def __init__(self, base: ClassTable, taxonomies: list[_AnyTaxonomy], models: Sequence[PrivacyModel]) -> None:
        self.base = base
        self.taxonomies = taxonomies
        self.q = len(taxonomies)
        self.leaf = base.codes.astype(np.int64)
        self.weights = base.counts.astype(np.float64)
        self.radices = [t.n_nodes for t in taxonomies]
        g0 = base.n_classes
        self.cut = np.empty((g0, self.q), dtype=np.int64)
        self.members: list[dict[int, np.ndarray]] = []
        self.cuts: list[set[int]] = []
        self.leaf_node: list[np.ndarray] = []
        for i, t in enumerate(taxonomies):
            self.cut[:, i] = t.top
            self.members.append({t.top: np.arange(g0, dtype=np.int64)} if g0 else {})
            self.cuts.append({t.top})
            self.leaf_node.append(np.full(t.hierarchy.n_values(0), t.top, dtype=np.int64))
        self._cut_hierarchies: dict[int, Hierarchy] = {}
        self.models = list(models)
        self.checks = [_make_check(m, base) for m in models]
        self.checks_done = 0

    # ---- facts
    def is_candidate(self, i: int, v: int) -> bool:
        t = self.taxonomies[i]
        return bool(t.level[v] > 0 and t.records[v] > 0 and v in self.members[i])

    def partition_preserving(self, i: int, v: int) -> bool:
        return bool(self.taxonomies[i].record_children[v] <= 1)

    def children_of_rows(self, i: int, v: int, rows: np.ndarray, split: int = 0) -> np.ndarray:
        return self.taxonomies[i].child_of(v, self.leaf[rows, i], split)

    def child_column(self, i: int) -> np.ndarray:
        """Each base class's node one level below its cut node in attribute ``i`` (itself at a leaf);
        hierarchies only (AnonyLoss is not defined on runtime intervals)."""
        t = self.taxonomies[i]
        assert isinstance(t, _Taxonomy)
        current = self.cut[:, i]
        level = t.level[current]
        below = t.node_of[np.maximum(level - 1, 0), self.leaf[:, i]]
        return np.where(level > 0, below, current)

    # ---- class tables
    def _cut_hierarchy(self, i: int, leaf_node: np.ndarray) -> Hierarchy:
        t = self.taxonomies[i]
        h = t.hierarchy
        return Hierarchy(
            [h.labels[0], t.label, np.array([SUPPRESSED_LABEL], dtype=object)],
            [np.arange(h.n_values(0)), leaf_node, np.zeros(h.n_values(0), dtype=np.int64)],
            name=t.name,
        )

    def cut_hierarchy(self, i: int) -> Hierarchy:
        cached = self._cut_hierarchies.get(i)
        if cached is None:
            cached = self._cut_hierarchy(i, self.leaf_node[i])
            self._cut_hierarchies[i] = cached
        return cached

    def class_table(self, specialize: _Candidate | None = None) -> ClassTable:
        """The class table of the current cut (or of the cut with one value specialized).

        Its codes are node ids at level 1 of a per-cut hierarchy (leaves → cut
        node → ``*``), so every model reads it like any generalized table,
        labels included; sensitive histograms are derived from the base table.
        """
        cut = self.cut
        hierarchies = [self.cut_hierarchy(i) for i in range(self.q)]
        if specialize is not None:
            i, v = specialize.i, specialize.v
            cut = cut.copy()
            cut[specialize.rows, i] = specialize.children
            t = self.taxonomies[i]
            leaf_node = self.leaf_node[i].copy()
            under = np.flatnonzero(t.leaves_under(v))
            leaf_node[under] = t.child_of(v, under, specialize.split)
            hierarchies[i] = self._cut_hierarchy(i, leaf_node)
        if self.base.n_classes == 0:
            ids, n = np.zeros(0, dtype=np.int64), 0
            codes = np.zeros((0, self.q), dtype=np.int32)
        else:
            ids, n = _group_columns([cut[:, a] for a in range(self.q)], self.radices)
            codes = cut[_representatives(ids, n)].astype(np.int32)
        return self.base.regroup(ids, codes, levels=tuple(1 for _ in range(self.q)), hierarchies=hierarchies)

    # ---- validity and specialization
    def valid(self, i: int, v: int, split: int = 0, *, partition_preserving: bool = False) -> bool:
        """Whether specializing ``v`` (QI ``i``; ``split``: a runtime interval's split) keeps every model satisfied.

        With ``partition_preserving`` (the specialization splits no class), the
        models that depend on the classes only are not asked.
        """
        candidate = _Candidate(self, i, v, split)
        for check in self.checks:
            if partition_preserving and check.partition_only:
                continue
            self.checks_done += 1
            if not check.valid(candidate):
                return False
        return True

    def specialize(self, i: int, v: int, split: int = 0) -> list[int]:
        """Replace ``v`` by its children in attribute ``i``'s cut; return the children carrying records."""
        t = self.taxonomies[i]
        rows = self.members[i].pop(v)
        children = self.children_of_rows(i, v, rows, split)
        self.cut[rows, i] = children
        under = np.flatnonzero(t.leaves_under(v))
        self.leaf_node[i][under] = t.child_of(v, under, split)
        self._cut_hierarchies.pop(i, None)
        self.cuts[i].discard(v)
        self.cuts[i].update(t.perform(v, split))
        order = np.argsort(children, kind="stable")
        ordered = children[order]
        starts = np.flatnonzero(np.r_[True, ordered[1:] != ordered[:-1]])
        ends = np.r_[starts[1:], len(ordered)]
        created = []
        for start, end in zip(starts, ends):
            child = int(ordered[start])
            self.members[i][child] = rows[order[start:end]]
            created.append(child)
        return created

