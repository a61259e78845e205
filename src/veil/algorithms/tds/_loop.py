"""The greedy loop of top-down specialization (Algorithm 6.3.1): candidates, ranking, performing."""

from __future__ import annotations

import heapq
from collections.abc import Iterator, Sequence
from typing import Any

from veil.algorithms.tds._anonyloss import _AnonymityLoss, _virtual_identifiers
from veil.algorithms.tds._search import _Search

#: The scores a specialization can be ranked by.
SCORES: tuple[str, ...] = ("infogain", "infogain/anonyloss")

_TRACE_LENGTH = 20


class _Specializer:
    """The greedy loop of Algorithm 6.3.1: candidates, their ranking, and the specializations performed."""

    def __init__(self, search: _Search, score: str) -> None:
        self.search = search
        self.taxonomies = search.taxonomies
        self.anonymity = (_AnonymityLoss(search, _virtual_identifiers(search.models, search.q))
                          if score == SCORES[1] else None)
        self.heap: list[tuple[float, int, int, int, int]] = []  # (-InfoGain, QI, -level, node, split)
        self.active: set[tuple[int, int]] = set()
        self.pending: list[tuple[int, int]] = []
        self.changed: set[int] = set()
        self.free = 0
        self.invalidated = 0
        self.performed = 0
        self.trace: list[dict[str, Any]] = []

    def enter(self, i: int, nodes: Sequence[int]) -> None:
        """Register the values that entered attribute ``i``'s cut as candidates."""
        t, search = self.taxonomies[i], self.search
        for v in nodes:
            if not search.is_candidate(i, v):
                continue
            if search.partition_preserving(i, v):
                self.pending.append((i, v))
            elif self.anonymity is None:
                for gain, split in t.splits(v):
                    heapq.heappush(self.heap, (-gain, i, -int(t.level[v]), int(v), split))
            else:
                self.active.add((i, v))

    def settle(self) -> None:
        """Perform the pending partition-preserving specializations (and those they expose)."""
        while self.pending:
            i, v = self.pending.pop()
            if self.search.valid(i, v, partition_preserving=True):
                self.free += 1
                self.enter(i, self.search.specialize(i, v))
                self.changed.add(i)
            else:
                self.invalidated += 1

    def ranking(self) -> Iterator[tuple[int, int, int, float, float | None]]:
        """The active candidates, best score first: (QI, node, split, score, AnonyLoss)."""
        if self.anonymity is None:
            # InfoGain does not change: the heap pops each candidate once (it is then
            # performed, found invalid for good, or stale: another split of its interval won)
            while self.heap:
                neg, i, _, v, split = heapq.heappop(self.heap)
                if v in self.search.members[i]:
                    yield i, v, split, -neg, None
            return
        self.anonymity.update(self.search, self.changed)
        self.changed.clear()
        scored = []
        for i, v in self.active:
            t = self.taxonomies[i]
            loss = self.anonymity.loss(i, v)
            scored.append((-(float(t.info_gain[v]) / (loss + 1.0)), i, -int(t.level[v]), v, loss))
        scored.sort()
        for neg, i, _, v, loss in scored:
            yield i, v, 0, -neg, loss

    def step(self) -> bool:
        """Perform the valid specialization of best score; False when none is left."""
        for i, v, split, value, loss in self.ranking():
            if self.search.valid(i, v, split):
                break
            self.invalidated += 1  # anti-monotone: invalid for the rest of the run
            self.active.discard((i, v))
        else:
            return False
        t = self.taxonomies[i]
        if len(self.trace) < _TRACE_LENGTH:
            gain = value if t.grown else float(t.info_gain[v])
            step: dict[str, Any] = {"attribute": t.name, "value": str(t.label[v]), **t.describe(v, split),
                                    "score": round(float(value), 12), "info_gain": round(float(gain), 12)}
            if loss is not None:
                step["anonyloss"] = round(float(loss), 12)
            self.trace.append(step)
        self.active.discard((i, v))
        self.enter(i, self.search.specialize(i, v, split))
        self.changed.add(i)
        self.settle()
        self.performed += 1
        return True

    def run(self, max_iterations: int | None) -> str:
        for i, t in enumerate(self.taxonomies):
            self.enter(i, [t.top])
        self.settle()  # partition-preserving tops (e.g. Age's '*' above '[1-99)')
        # The seed's loop (Algorithm 6.3.1): "while some candidate v in the cut is valid", so the
        # run stops only when no candidate is valid; the score orders candidates and never stops
        # the run (a valid candidate of score 0 is performed last).  Neither TDS's "beneficial"
        # rule (ICDE 2005: more than one class in T[v]) nor a score > 0 threshold is the seed's,
        # and neither yields its Table 6.2, which is not an end point of this loop (Non-Technical
        # is still valid there): docs/algorithms/tds.md, tests/reference/test_tds_seed_examples.py.
        while max_iterations is None or self.performed < max_iterations:
            if not self.step():
                return "no valid candidate"
        return "max_iterations"
