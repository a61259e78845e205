"""AnonyLoss (Fung et al. 2005): the anonymity a specialization costs, for the InfoGain/AnonyLoss score."""

from __future__ import annotations

from collections.abc import Sequence
from itertools import combinations
from typing import TYPE_CHECKING, Any

import numpy as np

from veil.algorithms.tds._grouping import _group_columns, _group_sums, _representatives
from veil.models import LKCPrivacy, PrivacyModel

if TYPE_CHECKING:
    from veil.algorithms.tds._search import _Search


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
