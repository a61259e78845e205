"""The generalization lattice of one configuration: every node judged, for the lattice view."""

from __future__ import annotations

import math
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from veil.classes import ClassTable
from veil.dataset import Dataset
from veil.errors import ParameterError

__all__ = ["LatticeView", "lattice_view", "SATISFYING", "FAILING", "PRUNED", "MAX_NODES"]

SATISFYING, FAILING, PRUNED = "satisfying", "failing", "pruned"
#: The largest lattice the view judges node by node.
MAX_NODES = 20_000


@dataclass(frozen=True)
class LatticeView:
    """Every node of a lattice with its status.

    Attributes
    ----------
    nodes : numpy.ndarray of int, shape (n_nodes, n_qis)
    status : numpy.ndarray of str
        ``satisfying`` (meets every model within the suppression limit, and no
        node one step below does), ``pruned`` (meets them, but so does a node
        one step below: a generalization of a solution, which a search for the
        least loss under a monotone metric never needs to evaluate) or
        ``failing``.
    optimum : tuple of int or None
        The node the search chose.
    """

    quasi_identifiers: tuple[str, ...]
    nodes: np.ndarray
    status: np.ndarray
    optimum: tuple[int, ...] | None

    @property
    def level_sum(self) -> np.ndarray:
        return self.nodes.sum(axis=1)

    def counts(self) -> dict[str, int]:
        return {name: int((self.status == name).sum()) for name in (SATISFYING, PRUNED, FAILING)}


def lattice_view(
    dataset: Dataset,
    models: Sequence[Any],
    *,
    suppression_limit: float,
    optimum: Sequence[int] | None = None,
) -> LatticeView:
    """Judge every node of ``dataset``'s lattice against ``models`` (on its class table).

    When every model is monotone (under generalization, and with suppression
    when the limit allows any), a judged node settles every node above it (it
    satisfies) or below it (it fails), so only a fraction of the nodes is
    judged; otherwise each node is.

    A node satisfies the models when the records of the classes that violate
    one of them are at most ``floor(suppression_limit × records)`` and every
    model holds once they are suppressed: the rule of
    :func:`veil.anonymize`'s full-domain search.

    Raises
    ------
    ParameterError
        The lattice has more than :data:`MAX_NODES` nodes.
    """
    base = ClassTable.from_dataset(dataset)
    heights = [h.height for h in base.hierarchies]
    size = math.prod(h + 1 for h in heights)
    if size > MAX_NODES:
        raise ParameterError(f"The lattice has {size} nodes; the lattice view draws at most {MAX_NODES}.")
    grids = np.meshgrid(*[np.arange(h + 1) for h in heights], indexing="ij")
    nodes = np.stack([g.ravel() for g in grids], axis=1).astype(np.int64)
    limit = math.floor(suppression_limit * (base.n_records - base.input_suppressed) + 1e-9)

    def judge(node: np.ndarray, table: ClassTable | None = None) -> bool:  # one regroup, never the rows
        table = base.generalize(tuple(int(x) for x in node)) if table is None else table
        mask = np.zeros(table.n_classes, dtype=np.bool_)
        for model in models:
            mask |= np.asarray(model.violating(table), dtype=np.bool_)
        if int(table.counts[mask].sum()) > limit:
            return False
        kept = table.suppress(mask)
        return all(model.check(kept) for model in models)

    monotone = all(getattr(m, "monotone_generalization", False)
                   and (limit == 0 or getattr(m, "monotone_with_suppression", False)) for m in models)
    if monotone:
        satisfied = _tagged(nodes, judge)
    else:
        satisfied = np.fromiter((judge(n, t) for n, t in zip(nodes, _chained(base, nodes))), np.bool_, len(nodes))
    # node index in mixed radix: the node one level lower on attribute j is index - stride[j]
    strides = np.array([math.prod(h + 1 for h in heights[j + 1:]) for j in range(len(heights))], dtype=np.int64)
    below = np.zeros(len(nodes), dtype=np.bool_)
    for j, stride in enumerate(strides):
        has = nodes[:, j] > 0
        below[has] |= satisfied[np.flatnonzero(has) - stride]
    status = np.where(satisfied, np.where(below, PRUNED, SATISFYING), FAILING)
    return LatticeView(tuple(base.quasi_identifiers), nodes, status,
                       tuple(int(x) for x in optimum) if optimum is not None else None)


def _chained(base: ClassTable, nodes: np.ndarray) -> Iterator[ClassTable]:
    """The class table of each node, in the nodes' (lexicographic) order: a node one level above the
    previous one on the last attribute is rolled up from the previous table, which has fewer classes
    than the base."""
    previous: ClassTable | None = None
    for node in nodes:
        levels = tuple(int(x) for x in node)
        step = previous is not None and levels[:-1] == previous.levels[:-1] and levels[-1] == previous.levels[-1] + 1
        previous = previous.roll_up(levels) if step else base.generalize(levels)
        yield previous


def _bisected(values: np.ndarray) -> list[int]:
    """The distinct values in bisection order: the middle one, then the middles of each half, ..."""
    levels = sorted(set(values.tolist()))
    order, spans = [], [(0, len(levels) - 1)]
    while spans:
        low, high = spans.pop(0)
        if low > high:
            continue
        mid = (low + high) // 2
        order.append(levels[mid])
        spans += [(low, mid - 1), (mid + 1, high)]
    return order


def _tagged(nodes: np.ndarray, judge: Callable[[np.ndarray], bool]) -> np.ndarray:
    """Whether each node satisfies, for models that are monotone: a satisfying node's generalizations
    satisfy and a failing node's specializations fail, so each judged node settles its whole cone
    (predictive tagging, as ARX's Flash does).  Layers of equal level sum are judged in bisection
    order, which settles most of the lattice from few judged nodes."""
    known = np.zeros(len(nodes), dtype=np.bool_)
    satisfied = np.zeros(len(nodes), dtype=np.bool_)
    sums = nodes.sum(axis=1)
    for layer in _bisected(sums):
        for i in np.flatnonzero(sums == layer):  # the nodes of one layer that earlier judgements left open
            if known[i]:
                continue
            if judge(nodes[i]):
                cone = (nodes >= nodes[i]).all(axis=1)
                satisfied[cone] = True
            else:
                cone = (nodes <= nodes[i]).all(axis=1)
            known[cone] = True
    return satisfied
