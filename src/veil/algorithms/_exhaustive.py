"""The exhaustive lattice search: every node evaluated, the reference for :func:`veil.algorithms.lattice.search`."""

from __future__ import annotations

import time
from collections.abc import Sequence

from veil.algorithms._nodes import Evaluator, LossFunction, SearchResult, infeasible, limit_records, prepare
from veil.classes import ClassTable
from veil.models._base import PrivacyModel

__all__ = ["exhaustive_search"]


def exhaustive_search(
    classes: ClassTable,
    models: Sequence[PrivacyModel],
    *,
    loss: LossFunction,
    suppression_limit: float = 0.0,
    min_levels: Sequence[int] | None = None,
    max_levels: Sequence[int] | None = None,
) -> SearchResult:
    """Evaluate every node and return the best solution (the reference for tests)."""
    start = time.perf_counter()
    lattice = prepare(classes, models, min_levels, max_levels)
    limit = limit_records(classes, suppression_limit)
    evaluator = Evaluator(classes, models, limit, loss, cache_size=0, refute=False)  # the reference: every table built
    best, best_key = None, None
    for node_arr in lattice.nodes():
        node = tuple(int(x) for x in node_arr)
        result = evaluator.evaluate(node)
        if result.satisfied:
            key = (float(result.loss), int(sum(node)), node)  # type: ignore[arg-type]
            if best_key is None or key < best_key:
                best, best_key = result, key
    if best is None:
        raise infeasible(evaluator, lattice, limit)
    return SearchResult(
        node=best.node, classes=best.classes, loss=float(best.loss),  # type: ignore[arg-type]
        nodes_total=lattice.size, nodes_checked=evaluator.checked,
        seconds=time.perf_counter() - start, algorithm="exhaustive",
        extra={"suppressed_records": best.suppressed_records},
    )
