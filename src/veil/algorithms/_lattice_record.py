"""What a lattice search saw, summed per height: the record behind the report's lattice picture.

A search keeps one ``int8`` per node (``1`` judged and satisfying, ``-1``
judged and failing, ``0`` never judged: tagged by a monotone model's
predictive tagging or pruned by the loss bound).  :func:`search_record`
sums it per *height* (a node's level sum) with ``numpy.bincount``, so the
record is a few short lists whatever the lattice's size, and nothing per
node survives the search.
"""

from __future__ import annotations

from typing import Any

import numpy as np

__all__ = ["SATISFYING", "FAILING", "NOT_EVALUATED", "search_record"]

#: The three outcomes of a node, as the record names them.
SATISFYING, FAILING, NOT_EVALUATED = "satisfying", "failing", "not_evaluated"


def search_record(nodes: np.ndarray, outcome: np.ndarray) -> dict[str, Any]:
    """Nodes satisfying / failing / not evaluated, per height.

    Parameters
    ----------
    nodes : numpy.ndarray of int, shape (n_nodes, n_qis)
        The lattice's nodes (one level per quasi-identifier).
    outcome : numpy.ndarray of int8, shape (n_nodes,)
        ``1`` judged and satisfying, ``-1`` judged and failing, ``0`` not judged.

    Returns
    -------
    dict
        ``{"heights": [h_min, ..., h_max], "satisfying": [...], "failing": [...],
        "not_evaluated": [...]}``: one count per height, the three summing to
        the nodes of that height.

    Examples
    --------
    >>> nodes = np.array([[0, 0], [0, 1], [1, 0], [1, 1]])
    >>> search_record(nodes, np.array([-1, 1, 0, 0], dtype=np.int8))
    {'heights': [0, 1, 2], 'satisfying': [0, 1, 0], 'failing': [1, 0, 0], 'not_evaluated': [0, 1, 1]}
    """
    heights = nodes.sum(axis=1, dtype=np.int64) if nodes.size else np.zeros(len(nodes), dtype=np.int64)
    low = int(heights.min()) if len(heights) else 0
    shifted = heights - low
    size = int(shifted.max()) + 1 if len(shifted) else 1
    counts = {name: np.bincount(shifted[outcome == code], minlength=size)
              for name, code in ((SATISFYING, 1), (FAILING, -1), (NOT_EVALUATED, 0))}
    return {"heights": list(range(low, low + size)), **{name: [int(x) for x in c] for name, c in counts.items()}}
