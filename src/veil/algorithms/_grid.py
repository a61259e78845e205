"""The generalization lattice as a grid: a node's row, its predecessors, its up-set and down-set,
and folds over the grid (:meth:`veil.algorithms._nodes.Lattice.nodes` lists the nodes in C order)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

__all__ = ["NodeSets", "node_index", "over_grid", "predecessors"]


def over_grid(vectors: Sequence[np.ndarray], op: np.ufunc, start: Any) -> np.ndarray:
    """``op`` folded over one entry of each vector, at every point of the grid the vectors span
    (C order: the lexicographic order of :meth:`Lattice.nodes` when ``vectors[i]`` has one
    entry per level of attribute ``i``): ``op(...op(op(start, v0[a0]), v1[a1])..., v[a])``,
    in that order, so that float sums are the same as adding the attributes' terms one by one."""
    out = np.asarray([start])
    for vector in vectors:
        out = op.outer(out, vector).ravel()
    return out


def node_index(nodes: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The lowest levels and mixed-radix strides of a lattice's node list (lexicographic
    order), so that a node's row is ``((node - low) * stride).sum()``."""
    low = nodes[0].astype(np.int64)  # the first and last rows are the lowest and highest nodes
    radix = nodes[-1].astype(np.int64) - low + 1
    stride = np.ones(nodes.shape[1], dtype=np.int64)
    for i in range(nodes.shape[1] - 2, -1, -1):
        stride[i] = stride[i + 1] * radix[i + 1]
    return low, stride


def predecessors(nodes: np.ndarray, i: int, low: np.ndarray, stride: np.ndarray) -> list[int]:
    """Rows of the nodes one level lower than node ``i`` in one attribute."""
    node = nodes[i].astype(np.int64)
    base = int(((node - low) * stride).sum())
    return [base - int(stride[a]) for a in range(len(node)) if node[a] > low[a]]


class NodeSets:
    """Up-sets and down-sets of the nodes of a lattice (:meth:`Lattice.nodes`: every level
    vector between the lowest and the highest, in lexicographic order).

    Such a node list is a ``q``-dimensional grid in C order, so a node's down-set
    (up-set) is a box of it: :meth:`tag_below` and :meth:`tag_above` write through a
    box view of a per-node array, a few numpy calls whatever the number of attributes.
    """

    def __init__(self, nodes: np.ndarray) -> None:
        self.nodes = nodes
        self.low = nodes[0].astype(np.int64)  # the first and last rows are the lowest and highest nodes
        self.shape = tuple((nodes[-1].astype(np.int64) - self.low + 1).tolist())

    def _box(self, i: int, below: bool) -> tuple[slice, ...]:
        offsets = (self.nodes[i] - self.low).tolist()
        return tuple(slice(0, o + 1) for o in offsets) if below else tuple(slice(o, None) for o in offsets)

    def _mask(self, i: int, below: bool) -> np.ndarray:
        out = np.zeros(self.shape, dtype=np.bool_)
        out[self._box(i, below)] = True
        return out.reshape(-1)

    def _tag(self, status: np.ndarray, i: int, value: int, below: bool) -> None:
        box = status.reshape(self.shape)[self._box(i, below)]  # a view: writes reach ``status``
        box[box == 0] = value

    def tag_below(self, status: np.ndarray, i: int, value: int) -> None:
        """Set ``status`` (one entry per node, C-contiguous) to ``value`` where it is 0 on
        node ``i`` and every node that specializes it."""
        self._tag(status, i, value, below=True)

    def tag_above(self, status: np.ndarray, i: int, value: int) -> None:
        """Set ``status`` to ``value`` where it is 0 on node ``i`` and every node that generalizes it."""
        self._tag(status, i, value, below=False)

    def below_sizes(self) -> np.ndarray:
        """How many nodes each node's down-set holds (itself included): the product of each
        attribute's levels from the lowest one up to the node's."""
        return over_grid([np.arange(1, size + 1, dtype=np.int64) for size in self.shape], np.multiply, 1)

    def heights(self) -> np.ndarray:
        """Each node's height (the sum of its levels, int64)."""
        return over_grid([np.arange(size, dtype=np.int64) + a for a, size in zip(self.low.tolist(), self.shape)],
                         np.add, 0)

    def below(self, i: int) -> np.ndarray:
        """Mask of node ``i`` and every node that specializes it."""
        return self._mask(i, below=True)

    def above(self, i: int) -> np.ndarray:
        """Mask of node ``i`` and every node that generalizes it."""
        return self._mask(i, below=False)
