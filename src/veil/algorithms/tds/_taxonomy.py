"""Taxonomy trees for top-down specialization: a hierarchy's, or numeric intervals grown at runtime.

Both kinds expose the same small interface to the search (node ids, records
and level per node, the children a specialization creates, the node labels),
so the search, the checks and the release do not know which kind they walk.

* :class:`_Taxonomy`: a categorical (or any) attribute's
  :class:`~veil.hierarchy.Hierarchy`; a value at level ``j`` specializes into
  the level ``j - 1`` values that roll up to it.
* :class:`_IntervalTaxonomy`: a numeric attribute whose tree is grown while the
  search runs (Fung et al.: "for numerical attributes, a taxonomy tree can be
  grown at runtime; each non-leaf node has two child nodes representing some
  optimal binary split of the parent interval").  An interval holding two or
  more distinct values can be split between any two consecutive values; each
  split point is a candidate of its own, scored by its InfoGain.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from veil.hierarchy import Hierarchy
from veil.utility import label_entropy


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

    grown = False

    @property
    def top(self) -> int:
        return int(self.offsets[-2])

    @property
    def n_nodes(self) -> int:
        return int(self.offsets[-1])

    def splits(self, v: int) -> list[tuple[float, int]]:
        """The ways to specialize ``v``, as (InfoGain, split id): one, into its children."""
        return [(float(self.info_gain[v]), 0)]

    def child_of(self, v: int, leaves: np.ndarray, split: int = 0) -> np.ndarray:
        """The child of ``v`` each of ``leaves`` (leaf codes under ``v``) moves to."""
        return self.node_of[self.level[v] - 1][leaves]

    def leaves_under(self, v: int) -> np.ndarray:
        """Boolean mask over the leaves: those under node ``v``."""
        return self.node_of[self.level[v]] == v

    def perform(self, v: int, split: int = 0) -> list[int]:
        """Record that ``v`` is specialized; return its children (all, with or without records)."""
        return [int(c) for c in self.children[v]]

    def order(self, v: int) -> tuple[int, int]:
        """Sort key of a cut's nodes: most general first, then hierarchy order."""
        return (-int(self.level[v]), int(v))

    def describe(self, v: int, split: int = 0) -> dict[str, object]:
        return {"level": int(self.level[v])}


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


def _round_point(a: float, b: float) -> float:
    """The roundest number in ``(a, b]``: the multiple of the largest power of ten that lies there.

    ``(24, 34]`` gives 30, ``(58, 63]`` gives 60, ``(44, 58]`` gives 50.
    """
    span = max(abs(a), abs(b), b - a)
    exponent = int(math.floor(math.log10(span))) + 1 if span > 0 else 0
    for j in range(exponent, exponent - 16, -1):
        step = 10.0 ** j
        point = (math.floor(a / step) + 1) * step
        if a < point <= b:
            return float(round(point, 12))
    return b  # pragma: no cover - 16 decades always find a point


def _number(x: float) -> str:
    return str(int(x)) if float(x).is_integer() else f"{x:g}"


class _IntervalTaxonomy:
    """A numeric attribute's tree of half-open intervals ``[low-high)``, grown by binary splits at runtime.

    Nodes are created when a split is performed; node ids are dense, the root
    is 0.  ``level`` is 1 for an interval with two or more distinct values
    (it can be split) and 0 otherwise.
    """

    grown = True

    def __init__(self, name: str, hierarchy: Hierarchy, positions: np.ndarray, leaf_labels: np.ndarray,
                 low: float, high: float) -> None:
        self.name = name
        self.hierarchy = hierarchy  # flat: the leaves are the distinct values
        self.positions = positions.astype(np.float64)  # value of each leaf code
        self.leaf_labels = leaf_labels  # (n_leaves, n_labels) records per leaf and class label
        present = leaf_labels.sum(axis=1) > 0
        self.values = np.unique(self.positions[present])  # distinct values carrying records
        # prefix sums of the label histogram over the values in order
        rank = np.searchsorted(self.values, self.positions)
        by_value = np.zeros((len(self.values) + 1, leaf_labels.shape[1]))
        np.add.at(by_value, np.minimum(rank[present], len(self.values)), leaf_labels[present])
        self.prefix = np.vstack([np.zeros((1, leaf_labels.shape[1])), np.cumsum(by_value[:-1], axis=0)])
        capacity = 2 * len(self.values) + 1
        self.n_nodes = capacity
        self.top = 0
        self.label = np.array([f"#{j}" for j in range(capacity)], dtype=object)  # unused ids: placeholders
        self.low = np.zeros(capacity)
        self.high = np.zeros(capacity)
        self.first = np.zeros(capacity, dtype=np.int64)  # first and last value index in the node
        self.last = np.zeros(capacity, dtype=np.int64)
        self.level = np.zeros(capacity, dtype=np.int64)
        self.records = np.zeros(capacity, dtype=np.int64)
        self.info_gain = np.zeros(capacity)
        self.record_children = np.full(capacity, 2, dtype=np.int64)  # a split always splits records
        self.children: list[list[int]] = [[] for _ in range(capacity)]
        self.created = 0
        self._gains: dict[int, np.ndarray] = {}
        self._new(low, high, 0, len(self.values) - 1)

    def _new(self, low: float, high: float, first: int, last: int) -> int:
        v = self.created
        self.created += 1
        self.low[v], self.high[v], self.first[v], self.last[v] = low, high, first, last
        self.label[v] = f"[{_number(low)}-{_number(high)})"
        self.level[v] = 1 if last > first else 0
        self.records[v] = int(round(float((self.prefix[last + 1] - self.prefix[first]).sum()))) if last >= first else 0
        gains = self._split_gains(v)
        self.info_gain[v] = float(gains.max()) if len(gains) else 0.0
        return v

    def _split_gains(self, v: int) -> np.ndarray:
        """InfoGain of splitting ``v`` after each of its values but the last (split id = that value's index)."""
        first, last = int(self.first[v]), int(self.last[v])
        if last <= first:
            self._gains[v] = np.zeros(0)
            return self._gains[v]
        total = self.prefix[last + 1] - self.prefix[first]
        left = self.prefix[first + 1:last + 1] - self.prefix[first]
        right = total[None, :] - left
        n, n_left, n_right = total.sum(), left.sum(axis=1), right.sum(axis=1)
        entropy = float(np.asarray(label_entropy(total[None, :])).reshape(-1)[0])
        e_left = np.asarray(label_entropy(left), dtype=np.float64).reshape(-1)
        e_right = np.asarray(label_entropy(right), dtype=np.float64).reshape(-1)
        self._gains[v] = np.maximum(entropy - (n_left * e_left + n_right * e_right) / n, 0.0)
        return self._gains[v]

    def point(self, v: int, split: int) -> float:
        """The split value of split ``split`` (after value index ``split``): the roundest in between."""
        return _round_point(float(self.values[split]), float(self.values[split + 1]))

    def splits(self, v: int) -> list[tuple[float, int]]:
        first = int(self.first[v])
        return [(float(g), first + j) for j, g in enumerate(self._gains[v])]

    def child_of(self, v: int, leaves: np.ndarray, split: int = 0) -> np.ndarray:
        left = self.positions[leaves] < self.point(v, split)
        return np.where(left, self.created, self.created + 1)  # the ids perform() will give them

    def leaves_under(self, v: int) -> np.ndarray:
        return (self.positions >= self.low[v]) & (self.positions < self.high[v])

    def perform(self, v: int, split: int = 0) -> list[int]:
        t = self.point(v, split)
        left = self._new(float(self.low[v]), t, int(self.first[v]), split)
        right = self._new(t, float(self.high[v]), split + 1, int(self.last[v]))
        self.children[v] = [left, right]
        return [left, right]

    def order(self, v: int) -> tuple[float, float]:
        return (float(self.low[v]), -float(self.high[v]))

    def describe(self, v: int, split: int = 0) -> dict[str, object]:
        return {"level": int(self.level[v]), "split_at": self.point(v, split)}
