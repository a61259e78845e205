"""Whether a specialization keeps the models satisfied: local checks for k-anonymity and LKC-privacy."""

from __future__ import annotations

from functools import cached_property
from itertools import combinations
from typing import TYPE_CHECKING

import numpy as np

from veil.algorithms.tds._grouping import _group_columns, _group_sums, _representatives
from veil.classes import ClassTable
from veil.models import KAnonymity, LKCPrivacy, PrivacyModel
from veil.models._distributions import exact_ratio, histogram

if TYPE_CHECKING:
    from veil.algorithms.tds._search import _Search


# ----------------------------------------------------------------------------- validity checks
class _Candidate:
    """A specialization under check: value ``v`` of QI ``i`` (with ``split``, the
    split point of a runtime interval), the base classes of ``T[v]`` and the child
    each of them moves to."""

    def __init__(self, search: "_Search", i: int, v: int, split: int = 0) -> None:
        self.search = search
        self.i = i
        self.v = v
        self.split = split
        self.rows = search.members[i][v]
        self.children = search.children_of_rows(i, v, self.rows, split)

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

