"""The generalization lattice of one configuration: every node judged, for the lattice view."""

from __future__ import annotations

import math
from collections.abc import Sequence
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
    satisfied = np.zeros(len(nodes), dtype=np.bool_)
    for i, node in enumerate(nodes):  # one regroup of the class table per node, never the rows
        table = base.generalize(tuple(int(x) for x in node))
        mask = np.zeros(table.n_classes, dtype=np.bool_)
        for model in models:
            mask |= np.asarray(model.violating(table), dtype=np.bool_)
        if int(table.counts[mask].sum()) > limit:
            continue
        kept = table.suppress(mask)
        satisfied[i] = all(model.check(kept) for model in models)
    # node index in mixed radix: the node one level lower on attribute j is index - stride[j]
    strides = np.array([math.prod(h + 1 for h in heights[j + 1:]) for j in range(len(heights))], dtype=np.int64)
    below = np.zeros(len(nodes), dtype=np.bool_)
    for j, stride in enumerate(strides):
        has = nodes[:, j] > 0
        below[has] |= satisfied[np.flatnonzero(has) - stride]
    status = np.where(satisfied, np.where(below, PRUNED, SATISFYING), FAILING)
    return LatticeView(tuple(base.quasi_identifiers), nodes, status,
                       tuple(int(x) for x in optimum) if optimum is not None else None)
