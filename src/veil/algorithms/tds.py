"""High-dimensional top-down specialization (HDTDS) for LKC-privacy and other anti-monotone models.

Top-down specialization starts from the most general table (every
quasi-identifier at its hierarchy's top value) and pushes a *cut* of each
taxonomy tree downwards, one value at a time: at each step it specializes the
*valid* value of best score (valid: the table after the specialization still
satisfies every privacy model) and it stops when no value of any cut can be
specialized without breaking a model.  Different values of one attribute may
end at different levels (subtree generalization), which keeps much more detail
than full-domain generalization where the data allows it.

How it runs on veil's data structures
-------------------------------------
* The taxonomy of an attribute is its :class:`~veil.hierarchy.Hierarchy`: the
  nodes are the values of every level, and a value at level ``j`` specializes
  into its *children*, the level ``j - 1`` values that roll up to it.
* Everything works on the base class table (the distinct combinations of leaf
  codes, built once from the rows) and on integer node ids: ``cut[c, i]`` is
  the node that base class ``c`` carries in attribute ``i``.  Each node of a cut
  keeps the base classes it covers (its *partition*, the TIPS of Fung et al.),
  so a specialization touches only the classes of the value it specializes.
* InfoGain does not depend on the other attributes' cuts (``T[v]`` is every
  record whose value lies under ``v``): it is computed once per node.
* Validity is checked lazily, best candidate first: a specialization found
  invalid stays invalid for the rest of the run (the models are anti-monotone
  and the cut only moves down), so it is never checked again, and a valid
  candidate is checked again only when it is the best one.  For k-anonymity and
  LKC-privacy the check reads only the classes of the specialized value and only
  the QI subsets that contain its attribute (the rest of the table cannot
  change); any other anti-monotone model is checked on the whole candidate class
  table.
"""

from __future__ import annotations

import heapq
import time
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from functools import cached_property
from itertools import combinations
from typing import Any

import numpy as np
import pandas as pd

from veil._validation import check_choice, check_int
from veil.algorithms._recoding import SUPPRESSED_LABEL, Recoding
from veil.classes import ClassTable
from veil.dataset import Dataset
from veil.errors import HierarchyError, InfeasibleError, ParameterError, VerificationError
from veil.hierarchy import Hierarchy
from veil.models import KAnonymity, LKCPrivacy, PrivacyModel
from veil.models._distributions import exact_ratio, histogram
from veil.utility import label_entropy

__all__ = ["top_down_specialization", "SCORES"]

#: The scores a specialization can be ranked by.
SCORES: tuple[str, ...] = ("infogain", "infogain/anonyloss")

_OWNER = "top_down_specialization"
_TRACE_LENGTH = 20
_KEY_LIMIT = 1 << 62


# ----------------------------------------------------------------------------- grouping
def _group_columns(columns: Sequence[np.ndarray], radices: Sequence[int]) -> tuple[np.ndarray, int]:
    """Group rows by several integer columns: (group id of each row, number of groups).

    The columns are packed into one int64 key (mixed radix); when the key space
    would overflow, the partial key is factorized first.  Small key spaces are
    grouped with a presence array (linear time), others with a hash table.
    """
    n = len(columns[0])
    if n == 0:
        return np.zeros(0, dtype=np.int64), 0
    key = np.asarray(columns[0], dtype=np.int64)
    space = int(radices[0])
    for column, radix in zip(columns[1:], radices[1:]):
        if space * int(radix) >= _KEY_LIMIT:
            codes, uniques = pd.factorize(key, sort=False)
            key, space = codes.astype(np.int64), len(uniques)
        key = key * int(radix) + column
        space *= int(radix)
    if space <= 4 * n + 4096:
        present = np.zeros(space, dtype=np.bool_)
        present[key] = True
        ids = np.cumsum(present, dtype=np.int64) - 1
        return ids[key], int(ids[-1]) + 1
    codes, uniques = pd.factorize(key, sort=False)
    return codes.astype(np.int64, copy=False), len(uniques)


def _representatives(ids: np.ndarray, n_groups: int) -> np.ndarray:
    """The index of one row of each group (any row: they agree on the grouped columns)."""
    rows = np.empty(n_groups, dtype=np.int64)
    rows[ids] = np.arange(len(ids), dtype=np.int64)
    return rows


def _group_sums(ids: np.ndarray, n_groups: int, values: np.ndarray) -> np.ndarray:
    """Per-group sums of a weight vector (int64)."""
    return np.rint(np.bincount(ids, weights=values, minlength=n_groups)).astype(np.int64)


# ----------------------------------------------------------------------------- taxonomy
@dataclass(eq=False)
class _Taxonomy:
    """One attribute's hierarchy as a tree of integer node ids.

    Node ``offsets[l] + code`` is the value ``code`` of level ``l``.
    """

    name: str
    hierarchy: Hierarchy
    offsets: np.ndarray
    level: np.ndarray
    label: np.ndarray
    node_of: np.ndarray  # (n_levels, n_leaves): the node of each leaf at each level
    children: list[np.ndarray]
    records: np.ndarray  # records under each node
    record_children: np.ndarray  # children carrying records
    info_gain: np.ndarray

    @property
    def top(self) -> int:
        return int(self.offsets[-2])

    @property
    def n_nodes(self) -> int:
        return int(self.offsets[-1])


def _taxonomy(name: str, hierarchy: Hierarchy, leaf_labels: np.ndarray) -> _Taxonomy:
    """Build the node tree of ``hierarchy`` with each node's InfoGain.

    ``leaf_labels[f, y]``: records with leaf ``f`` and class label ``y``.
    """
    h = hierarchy
    sizes = [h.n_values(level) for level in range(h.n_levels)]
    offsets = np.concatenate([[0], np.cumsum(sizes)]).astype(np.int64)
    n_nodes = int(offsets[-1])
    level = np.repeat(np.arange(h.n_levels, dtype=np.int64), sizes)
    label = np.concatenate([np.asarray(h.labels[l], dtype=object) for l in range(h.n_levels)])
    node_of = np.stack([offsets[l] + h.maps[l].astype(np.int64) for l in range(h.n_levels)])
    parent = np.full(n_nodes, -1, dtype=np.int64)
    for l in range(1, h.n_levels):
        parent[offsets[l - 1]:offsets[l]] = offsets[l] + h.rollup(l - 1, l).astype(np.int64)
    n_labels = leaf_labels.shape[1]
    hist = np.zeros((n_nodes, n_labels), dtype=np.float64)
    for l in range(h.n_levels):
        block = np.zeros((sizes[l], n_labels), dtype=np.float64)
        np.add.at(block, h.maps[l], leaf_labels)
        hist[offsets[l]:offsets[l + 1]] = block
    records = np.rint(hist.sum(axis=1)).astype(np.int64)
    entropy = np.asarray(label_entropy(hist), dtype=np.float64).reshape(n_nodes)
    has_parent = parent >= 0
    weighted = np.bincount(parent[has_parent], weights=(records * entropy)[has_parent], minlength=n_nodes)
    gain = np.zeros(n_nodes, dtype=np.float64)
    inner = (level > 0) & (records > 0)
    gain[inner] = entropy[inner] - weighted[inner] / records[inner]
    gain = np.maximum(gain, 0.0)
    with_records = has_parent & (records > 0)
    record_children = np.bincount(parent[with_records], minlength=n_nodes).astype(np.int64)
    order = np.argsort(parent, kind="stable")
    bounds = np.searchsorted(parent[order], np.arange(n_nodes + 1))
    children = [order[bounds[v]:bounds[v + 1]] for v in range(n_nodes)]
    return _Taxonomy(name, h, offsets, level, label, node_of, children, records, record_children, gain)


# ----------------------------------------------------------------------------- validity checks
class _Candidate:
    """A specialization under check: value ``v`` of QI ``i``, the base classes of
    ``T[v]`` and the child each of them moves to."""

    def __init__(self, search: "_Search", i: int, v: int) -> None:
        self.search = search
        self.i = i
        self.v = v
        self.rows = search.members[i][v]
        self.children = search.children_of_rows(i, v, self.rows)

    @cached_property
    def view(self) -> "_LocalView":
        return _LocalView(self)


class _LocalView:
    """The classes inside ``T[v]`` once ``v`` is specialized.

    The base classes of ``T[v]`` are merged once into the distinct combinations
    of cut nodes (``v`` replaced by its children); every local check groups
    these rows, never the whole table.
    """

    def __init__(self, candidate: _Candidate) -> None:
        search = candidate.search
        block = search.cut[candidate.rows]
        columns = [block[:, a] for a in range(search.q)]
        columns[candidate.i] = candidate.children
        ids, n = _group_columns(columns, search.radices)
        rep = _representatives(ids, n)
        self.rows = candidate.rows
        self.ids = ids
        self.n = n
        self.columns = [c[rep] for c in columns]
        self.radices = search.radices
        self.counts = _group_sums(ids, n, search.weights[candidate.rows])

    def sums(self, matrix: np.ndarray) -> np.ndarray:
        """Aggregate a per-base-class matrix ``(G0, s)`` to these rows, ``(n, s)``."""
        sub = matrix[self.rows]
        out = np.empty((self.n, sub.shape[1]), dtype=np.int64)
        for s in range(sub.shape[1]):
            out[:, s] = _group_sums(self.ids, self.n, sub[:, s])
        return out


class _Check:
    """How one model decides whether a specialization keeps it satisfied."""

    #: The model is a function of the partition into classes only: a
    #: specialization that splits no class cannot change its verdict.
    partition_only: bool = False

    def valid(self, candidate: _Candidate) -> bool:
        raise NotImplementedError


class _KAnonymityCheck(_Check):
    """k-anonymity: the classes the specialization creates (all inside ``T[v]``) hold ``k`` records."""

    partition_only = True

    def __init__(self, model: KAnonymity) -> None:
        self.k = model.k

    def valid(self, candidate: _Candidate) -> bool:
        view = candidate.view
        return bool(view.counts.min() >= self.k) if view.n else True


class _LKCCheck(_Check):
    """LKC-privacy on the qid groups that the specialization creates.

    Only the qids holding a child of ``v`` are new, and their records lie in
    ``T[v]``.  A qid of fewer than ``min(L, |QID|)`` values is a union of the
    groups of a longer qid that contains it (as large as the smallest of them,
    its confidence a weighted mean of theirs), so checking the subsets of
    exactly ``min(L, |QID|)`` attributes that contain ``v``'s is enough.
    """

    partition_only = True

    def __init__(self, model: LKCPrivacy, base: ClassTable) -> None:
        self.model = model
        self.size = min(model.L, len(base.quasi_identifiers))
        self.sensitive: np.ndarray | None = None
        if model.C < 1 and model.sensitive is not None:
            hist = histogram(base, model.sensitive, "LKCPrivacy")
            labels = [str(x) for x in hist.labels]
            wanted = labels if model.values is None else [x for x in model.values if x in labels]
            if wanted:
                self.sensitive = hist.counts[:, [labels.index(x) for x in wanted]]

    def valid(self, candidate: _Candidate) -> bool:
        view = candidate.view
        if view.n == 0:
            return True
        model, i = self.model, candidate.i
        hits = view.sums(self.sensitive).astype(np.float64) if self.sensitive is not None else None
        weights = view.counts.astype(np.float64)
        others = [a for a in range(len(view.columns)) if a != i]
        for subset in combinations(others, self.size - 1):
            attributes = (i, *subset)
            ids, n = _group_columns([view.columns[a] for a in attributes], [view.radices[a] for a in attributes])
            sizes = _group_sums(ids, n, weights)
            if sizes.min() < model.K:
                return False
            if hits is not None:
                for s in range(hits.shape[1]):
                    if (exact_ratio(_group_sums(ids, n, hits[:, s]), sizes) > model.C).any():
                        return False
        return True


class _ModelCheck(_Check):
    """Any other anti-monotone model: judged on the whole candidate class table."""

    def __init__(self, model: PrivacyModel) -> None:
        self.model = model

    def valid(self, candidate: _Candidate) -> bool:
        return bool(self.model.check(candidate.search.class_table(specialize=candidate)))


def _make_check(model: PrivacyModel, base: ClassTable) -> _Check:
    # exact types only: a subclass may change what the model judges
    if type(model) is KAnonymity:
        return _KAnonymityCheck(model)
    if type(model) is LKCPrivacy:
        return _LKCCheck(model, base)
    return _ModelCheck(model)


# ----------------------------------------------------------------------------- AnonyLoss
def _virtual_identifiers(models: Sequence[PrivacyModel], q: int) -> list[tuple[int, ...]]:
    """The QI subsets whose anonymity the models bound (Fung et al.'s VIDs).

    LKC-privacy bounds every qid of ``L`` values (the subsets of exactly
    ``min(L, q)`` attributes dominate the smaller ones); k-anonymity and every
    other model, the whole QID.
    """
    vids: dict[tuple[int, ...], None] = {}
    for model in models:
        if isinstance(model, LKCPrivacy):
            for subset in combinations(range(q), min(model.L, q)):
                vids[subset] = None
        else:
            vids[tuple(range(q))] = None
    return list(vids)


class _AnonymityLoss:
    """AnonyLoss of every candidate: the average drop of each VID's anonymity.

    ``A(VID)`` is the smallest group of the table on the VID's attributes;
    ``A_v(VID)`` the same after specializing ``v``; ``AnonyLoss(v)`` the mean of
    ``A(VID) - A_v(VID)`` over the VIDs that contain ``v``'s attribute.  Per VID
    and attribute, the smallest group of each value now (so that ``A_v`` outside
    ``T[v]`` is the first or second minimum) and the smallest group inside
    ``T[v]`` once ``v`` is specialized (one grouping for every ``v`` at once).
    A VID is recomputed only when a specialization touched one of its
    attributes.
    """

    def __init__(self, search: "_Search", vids: list[tuple[int, ...]]) -> None:
        self.vids = vids
        self.by_attribute = {i: [s for s in vids if i in s] for i in range(search.q)}
        self.cache: dict[tuple[int, ...], dict[str, Any]] = {}

    def update(self, search: "_Search", changed: set[int]) -> None:
        """Recompute the VIDs that contain an attribute whose cut changed since the last update."""
        stale = [vid for vid in self.vids if vid not in self.cache or not changed.isdisjoint(vid)]
        if not stale:
            return
        # merge the base classes that agree on every cut node and every node one level below:
        # each VID then groups these (far fewer) rows
        q = search.q
        columns = [search.cut[:, a] for a in range(q)] + [search.child_column(a) for a in range(q)]
        ids, n = _group_columns(columns, search.radices * 2)
        rep = _representatives(ids, n)
        cut = search.cut[rep]
        child = np.column_stack([c[rep] for c in columns[q:]])
        weights = _group_sums(ids, n, search.weights).astype(np.float64)
        for vid in stale:
            self.cache[vid] = self._compute(search, vid, cut, child, weights)

    @staticmethod
    def _compute(
        search: "_Search", vid: tuple[int, ...], cut: np.ndarray, child: np.ndarray, weights: np.ndarray
    ) -> dict[Any, Any]:
        columns = [cut[:, a] for a in vid]
        radices = [search.radices[a] for a in vid]
        ids, n = _group_columns(columns, radices)
        sizes = _group_sums(ids, n, weights)
        value_of_group = cut[_representatives(ids, n)]
        big = np.iinfo(np.int64).max
        out: dict[Any, Any] = {"A": int(sizes.min()) if n else 0}
        for position, i in enumerate(vid):
            n_nodes = search.taxonomies[i].n_nodes
            # smallest group per value of attribute i now: A_v outside T[v] is the smallest
            # over the other values (the first or the second minimum)
            node_min = np.full(n_nodes, big, dtype=np.int64)
            np.minimum.at(node_min, value_of_group[:, i], sizes)
            best = int(np.argmin(node_min))
            first_min = int(node_min[best])
            node_min[best] = big
            second_min = int(node_min.min())
            # smallest group inside T[v] once v is specialized, for every v of attribute i at once
            split = list(columns)
            split[position] = child[:, i]
            ids2, n2 = _group_columns(split, radices)
            sizes2 = _group_sums(ids2, n2, weights)
            inside = np.full(n_nodes, big, dtype=np.int64)
            np.minimum.at(inside, cut[_representatives(ids2, n2), i], sizes2)
            out[i] = (best, first_min, second_min, inside)
        return out

    def loss(self, i: int, v: int) -> float:
        losses = []
        for vid in self.by_attribute[i]:
            entry = self.cache[vid]
            best, first_min, second_min, inside = entry[i]
            outside = second_min if v == best else first_min
            after = min(outside, int(inside[v]))
            losses.append(entry["A"] - after)
        return float(np.mean(losses)) if losses else 0.0


# ----------------------------------------------------------------------------- the search
class _Search:
    """The state of one run: the cut of every attribute and its partitions."""

    def __init__(self, base: ClassTable, taxonomies: list[_Taxonomy], models: Sequence[PrivacyModel]) -> None:
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
        self.checks = [_make_check(m, base) for m in models]
        self.checks_done = 0

    # ---- facts
    def is_candidate(self, i: int, v: int) -> bool:
        t = self.taxonomies[i]
        return bool(t.level[v] > 0 and t.records[v] > 0 and v in self.members[i])

    def partition_preserving(self, i: int, v: int) -> bool:
        return bool(self.taxonomies[i].record_children[v] <= 1)

    def children_of_rows(self, i: int, v: int, rows: np.ndarray) -> np.ndarray:
        t = self.taxonomies[i]
        return t.node_of[t.level[v] - 1][self.leaf[rows, i]]

    def child_column(self, i: int) -> np.ndarray:
        """Each base class's node one level below its cut node in attribute ``i`` (itself at a leaf)."""
        t = self.taxonomies[i]
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
            under = t.node_of[t.level[v]] == v
            leaf_node[under] = t.node_of[t.level[v] - 1][under]
            hierarchies[i] = self._cut_hierarchy(i, leaf_node)
        if self.base.n_classes == 0:
            ids, n = np.zeros(0, dtype=np.int64), 0
            codes = np.zeros((0, self.q), dtype=np.int32)
        else:
            ids, n = _group_columns([cut[:, a] for a in range(self.q)], self.radices)
            codes = cut[_representatives(ids, n)].astype(np.int32)
        return self.base._derive(codes, ids, levels=tuple(1 for _ in range(self.q)), hierarchies=tuple(hierarchies))

    # ---- validity and specialization
    def valid(self, i: int, v: int, *, partition_preserving: bool = False) -> bool:
        """Whether specializing ``v`` (QI ``i``) keeps every model satisfied.

        With ``partition_preserving`` (the specialization splits no class), the
        models that depend on the classes only are not asked.
        """
        candidate = _Candidate(self, i, v)
        for check in self.checks:
            if partition_preserving and check.partition_only:
                continue
            self.checks_done += 1
            if not check.valid(candidate):
                return False
        return True

    def specialize(self, i: int, v: int) -> list[int]:
        """Replace ``v`` by its children in attribute ``i``'s cut; return the children carrying records."""
        t = self.taxonomies[i]
        rows = self.members[i].pop(v)
        children = self.children_of_rows(i, v, rows)
        self.cut[rows, i] = children
        under = t.node_of[t.level[v]] == v
        self.leaf_node[i][under] = t.node_of[t.level[v] - 1][under]
        self._cut_hierarchies.pop(i, None)
        self.cuts[i].discard(v)
        self.cuts[i].update(int(c) for c in t.children[v])
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


# ----------------------------------------------------------------------------- validation
def _check_inputs(
    dataset: Any, models: Any, label: Any, score: Any, max_iterations: Any
) -> tuple[list[PrivacyModel], int | None]:
    if not isinstance(dataset, Dataset):
        raise ParameterError(
            f"The 'dataset' parameter of {_OWNER} must be a veil.Dataset. Got {type(dataset).__name__} instead."
        )
    check_choice("score", score, _OWNER, SCORES)
    if max_iterations is not None:
        max_iterations = check_int("max_iterations", max_iterations, _OWNER, low=0)
    if isinstance(models, PrivacyModel):
        models = [models]
    models = list(models)
    if not models:
        raise ParameterError(
            f"The 'models' parameter of {_OWNER} needs at least one privacy model (e.g. KAnonymity(k=5))."
        )
    for model in models:
        if not isinstance(model, PrivacyModel):
            raise ParameterError(
                f"The 'models' parameter of {_OWNER} must hold privacy models. Got {type(model).__name__} instead."
            )
        if not model.monotone_generalization:
            raise ParameterError(
                f"Top-down specialization needs anti-monotone models (monotone under generalization: a "
                f"specialization never repairs a violation); {model.name} is not. Use the lattice search."
            )
    qis = dataset.quasi_identifiers
    if not qis:
        raise ParameterError("The dataset declares no quasi-identifiers; there is nothing to specialize.")
    if label is None:
        raise ParameterError(
            f"The 'label' parameter of {_OWNER} must name the class attribute whose InfoGain ranks the "
            "specializations (e.g. label='salary-class'). Got None instead."
        )
    if not isinstance(label, str):
        raise ParameterError(f"The 'label' parameter of {_OWNER} must be a column name. Got {label!r} instead.")
    if label not in dataset.columns:
        raise ParameterError(
            f"The 'label' parameter of {_OWNER} must be a column of the table. Got {label!r}, which is not "
            f"one (columns: {', '.join(dataset.columns)})."
        )
    if label in qis:
        raise ParameterError(
            f"The 'label' parameter of {_OWNER} names {label!r}, a quasi-identifier; the class label must be "
            "another attribute."
        )
    missing = [q for q in qis if q not in dataset.hierarchies]
    if missing:
        raise HierarchyError(
            f"No hierarchy is given for the quasi-identifier(s) {', '.join(map(repr, missing))}; top-down "
            "specialization needs a taxonomy (hierarchy) for every QI."
        )
    return models, max_iterations


def _leaf_label_counts(base: ClassTable, i: int, label: str) -> np.ndarray:
    """``(n_leaves, n_labels)``: records of each leaf of QI ``i`` with each class label."""
    hist = base.sensitive[label].counts
    n_leaves = base.hierarchies[i].n_values(0)
    v = hist.shape[1]
    if base.n_classes == 0 or v == 0:
        return np.zeros((n_leaves, v), dtype=np.float64)
    index = (base.codes[:, i].astype(np.int64)[:, None] * v + np.arange(v)).ravel()
    return np.bincount(index, weights=hist.ravel(), minlength=n_leaves * v).reshape(n_leaves, v)


# ----------------------------------------------------------------------------- public
def top_down_specialization(
    dataset: Dataset,
    models: Sequence[PrivacyModel],
    *,
    label: str,
    score: str = "infogain",
    max_iterations: int | None = None,
) -> Recoding:
    """Anonymize by high-dimensional top-down specialization (HDTDS).

    Starts from the topmost cut (every quasi-identifier at its hierarchy's top
    value) and repeatedly performs the *valid* specialization of best score,
    replacing one value ``v`` of a cut by its children (the values one level
    below it that roll up to it); a specialization is valid when the table
    after it still satisfies every model.  Stops when no value of any cut can be
    specialized validly.  Values of one attribute may end at different levels
    (subtree generalization).  No record is suppressed.

    Parameters
    ----------
    dataset : Dataset
        The table, its schema and a hierarchy (taxonomy) for every QI.
    models : sequence of PrivacyModel
        Every model must hold on the output.  Each must be anti-monotone under
        specialization (``monotone_generalization``): k-anonymity,
        :class:`~veil.models.LKCPrivacy`, l-diversity, t-closeness, ...
        k-anonymity and LKC-privacy are checked locally (only the classes of
        the specialized value); other models on the whole candidate table.
    label : str
        The class attribute (a column that is not a QI); its InfoGain ranks
        the specializations.
    score : {"infogain", "infogain/anonyloss"}, default "infogain"
        ``"infogain"``: :math:`\\mathrm{InfoGain}(v)` (HDTDS, Mohammed et al.
        2009).  ``"infogain/anonyloss"``:
        :math:`\\mathrm{InfoGain}(v) / (\\mathrm{AnonyLoss}(v) + 1)` (TDS, Fung
        et al. 2005, 2007), which prefers specializations that cost little
        anonymity.
    max_iterations : int in [0, inf), optional
        Stop after this many scored specializations (default: until no valid
        candidate remains).

    Returns
    -------
    Recoding
        ``data``: every input column, row-aligned with the input, each QI
        replaced by the label of its cut node (records suppressed on input keep
        ``*``).  ``details``: ``cuts`` (per QI, the labels of the final cut, most
        general first), ``specializations`` (scored ones performed),
        ``partition_preserving`` (free ones, see Notes), ``trace`` (the first
        20 scored specializations: attribute, value, level, score, InfoGain
        and, with ``"infogain/anonyloss"``, AnonyLoss), ``invalidated``
        (candidates found invalid), ``validity_checks`` (model checks run),
        ``stopped`` (``"no valid candidate"`` or ``"max_iterations"``),
        ``models``, ``score``, ``label``, ``max_iterations``.  ``suppressed``
        counts the records that arrived with ``*`` in every QI (TDS suppresses
        none); ``groups`` the equivalence classes of the output.

    Raises
    ------
    ParameterError
        No models, a model that is not anti-monotone, a missing, unknown or QI
        ``label``, an unknown ``score``, a negative ``max_iterations``, or a
        model parameter the table cannot meet (e.g. ``L`` above the number of QIs).
    HierarchyError
        A QI has no hierarchy.
    InfeasibleError
        Even the topmost cut violates a model (e.g. ``K`` above the number of
        records, or a sensitive value more frequent than ``C`` in the table).
    VerificationError
        The final table fails a model when checked from scratch (a bug).

    Notes
    -----
    InfoGain of specializing :math:`v` into its children :math:`c`, with
    :math:`T[x]` the records whose value lies under :math:`x` and :math:`E` the
    entropy of the class label in bits:

    .. math::

        \\mathrm{InfoGain}(v) = E(T[v]) - \\sum_c \\frac{|T[c]|}{|T[v]|} E(T[c])

    It does not depend on the other attributes' cuts, so it is computed once.
    AnonyLoss is the mean, over the virtual identifiers (VIDs) containing
    :math:`v`'s attribute, of :math:`A(VID) - A_v(VID)`, the drop of the
    smallest group size on the VID; the VIDs are the whole QID for k-anonymity
    and other models and every set of :math:`\\min(L, |QID|)` attributes for
    LKC-privacy (its confidence bound is not part of AnonyLoss).  Ties are
    broken by QI order, then by the value's position in its hierarchy (higher
    levels first).

    A specialization that splits no class (the value's records all fall under
    one child, e.g. a padding level of the hierarchy, like Age's ``*`` above
    ``[1-99)``) is *partition-preserving*: it is performed as soon as its value
    enters the cut, before any scored one, since it cannot break a model that
    depends only on the classes (k-anonymity, LKC) and loses no information;
    other models still check it.  Values no record carries stay in the cut
    but are never candidates.

    The result is a heuristic, not an optimum: a greedy choice is never undone,
    so a different order can reach a cut of higher utility.  Because the
    models are anti-monotone (a specialization never repairs a violation), a
    candidate found invalid is never checked again, and at the end every
    further specialization of the returned cut violates some model.

    References
    ----------
    N. Mohammed, B. C. M. Fung, P. C. K. Hung and C. Lee, "Anonymizing
    healthcare data: a case study on the blood transfusion service", KDD 2009,
    Algorithm 1 (HDTDS); seed 004 (Fung et al., *Introduction to PPDP*,
    Algorithm 6.3.1).  B. C. M. Fung, K. Wang and P. S. Yu, "Top-down
    specialization for information and privacy preservation", ICDE 2005,
    Section 3 (Score, InfoGain, AnonyLoss); "Anonymizing classification data for
    privacy preservation", IEEE TKDE 19(5), 2007.

    Examples
    --------
    >>> from veil.datasets import load_lkc_patients
    >>> from veil.models import LKCPrivacy
    >>> lkc = LKCPrivacy(L=2, K=2, C=0.5, sensitive="Surgery", values=("Transgender",))
    >>> result = top_down_specialization(load_lkc_patients(), [lkc], label="Transfuse")
    >>> result.data["Job"].tolist()[:4]
    ['Janitor', 'Professional', 'Mover', 'Professional']
    >>> result.details["cuts"]["Age"]
    ['[30-60)', '24', '63']
    """
    start = time.perf_counter()
    models, max_iterations = _check_inputs(dataset, models, label, score, max_iterations)
    qis = dataset.quasi_identifiers
    sensitive = list(dataset.sensitive)
    if label not in sensitive:
        sensitive.append(label)
    base = ClassTable.from_dataset(dataset, sensitive=sensitive)
    taxonomies = [
        _taxonomy(name, h, _leaf_label_counts(base, i, label))
        for i, (name, h) in enumerate(zip(qis, base.hierarchies))
    ]
    search = _Search(base, taxonomies, models)

    top = search.class_table()
    failing = [m.name for m in models if not m.check(top)]  # also validates model parameters
    if failing:
        raise InfeasibleError(
            f"Even the most general table (every quasi-identifier at its hierarchy's top value) violates "
            f"{', '.join(failing)}; top-down specialization cannot meet it without suppression. Relax the "
            "model or use the lattice search with a suppression limit."
        )

    anonymity = _AnonymityLoss(search, _virtual_identifiers(models, search.q)) if score == SCORES[1] else None
    heap: list[tuple[float, int, int, int]] = []  # (-InfoGain, QI, -level, node): best first
    active: set[tuple[int, int]] = set()
    pending: list[tuple[int, int]] = []
    changed: set[int] = set()
    counts = {"free": 0, "invalidated": 0}

    def enter(i: int, nodes: Sequence[int]) -> None:
        """Register the values that entered attribute ``i``'s cut as candidates."""
        t = taxonomies[i]
        for v in nodes:
            if not search.is_candidate(i, v):
                continue
            if search.partition_preserving(i, v):
                pending.append((i, v))
            elif anonymity is None:
                heapq.heappush(heap, (-float(t.info_gain[v]), i, -int(t.level[v]), int(v)))
            else:
                active.add((i, v))

    def settle() -> None:
        """Perform the pending partition-preserving specializations (and those they expose)."""
        while pending:
            i, v = pending.pop()
            if search.valid(i, v, partition_preserving=True):
                counts["free"] += 1
                enter(i, search.specialize(i, v))
                changed.add(i)
            else:
                counts["invalidated"] += 1

    def ranking() -> Iterator[tuple[int, int, float, float | None]]:
        """The active candidates, best score first: (QI, node, score, AnonyLoss)."""
        if anonymity is None:
            # InfoGain does not change: the heap pops each candidate once (it is then
            # performed, or found invalid for good)
            while heap:
                neg, i, _, v = heapq.heappop(heap)
                yield i, v, -neg, None
            return
        anonymity.update(search, changed)
        changed.clear()
        scored = []
        for i, v in active:
            t = taxonomies[i]
            loss = anonymity.loss(i, v)
            scored.append((-(float(t.info_gain[v]) / (loss + 1.0)), i, -int(t.level[v]), v, loss))
        scored.sort()
        for neg, i, _, v, loss in scored:
            yield i, v, -neg, loss

    for i, t in enumerate(taxonomies):
        enter(i, [t.top])
    settle()  # partition-preserving tops (e.g. Age's '*' above '[1-99)')

    trace: list[dict[str, Any]] = []
    performed = 0
    stopped = "no valid candidate"
    while True:
        if max_iterations is not None and performed >= max_iterations:
            stopped = "max_iterations"
            break
        best = None
        for i, v, value, loss in ranking():
            if search.valid(i, v):
                best = (i, v, value, loss)
                break
            counts["invalidated"] += 1  # anti-monotone: invalid for the rest of the run
            active.discard((i, v))
        if best is None:
            break
        i, v, value, loss = best
        t = taxonomies[i]
        if len(trace) < _TRACE_LENGTH:
            step: dict[str, Any] = {
                "attribute": t.name,
                "value": str(t.label[v]),
                "level": int(t.level[v]),
                "score": round(float(value), 12),
                "info_gain": round(float(t.info_gain[v]), 12),
            }
            if loss is not None:
                step["anonyloss"] = round(float(loss), 12)
            trace.append(step)
        active.discard((i, v))
        enter(i, search.specialize(i, v))
        changed.add(i)
        settle()
        performed += 1

    final = search.class_table()
    failed = [m.name for m in models if not m.check(final)]
    if failed:
        raise VerificationError(
            f"Top-down specialization produced a table that fails {', '.join(failed)}. This is a bug in veil; "
            "please report it with the configuration."
        )

    data = dataset.frame.copy()
    if base.n_classes:
        row_class = base.row_classes()
    else:  # every record arrived suppressed
        row_class = np.full(dataset.n_records, -1, dtype=np.int64)
    kept = row_class >= 0
    for i, (name, t) in enumerate(zip(qis, taxonomies)):
        labels = np.full(len(data), SUPPRESSED_LABEL, dtype=object)
        labels[kept] = t.label[search.cut[row_class[kept], i]]
        data[name] = pd.array(labels, dtype=object)

    cuts = {}
    for i, t in enumerate(taxonomies):
        nodes = sorted(search.cuts[i], key=lambda node: (-int(t.level[node]), int(node)))
        cuts[t.name] = [str(t.label[node]) for node in nodes]
    details = {
        "score": score,
        "label": label,
        "models": [m.name for m in models],
        "specializations": performed,
        "partition_preserving": counts["free"],
        "invalidated": counts["invalidated"],
        "validity_checks": search.checks_done,
        "stopped": stopped,
        "max_iterations": max_iterations,
        "cuts": cuts,
        "trace": trace,
    }
    return Recoding(
        data=data,
        algorithm="hdtds",
        suppressed=int(base.input_suppressed),
        groups=int(final.n_classes),
        seconds=time.perf_counter() - start,
        details=details,
    )
