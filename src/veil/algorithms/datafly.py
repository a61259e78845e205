"""Datafly: Sweeney's greedy full-domain generalization heuristic.

Datafly (L. Sweeney, "Achieving k-anonymity privacy protection using
generalization and suppression", IJUFKS 10(5), 2002) climbs the
generalization lattice one step at a time: while the table needs more
suppression than allowed, it generalizes the quasi-identifier with the most
distinct values at its current level; then it suppresses the classes that
still violate.  It is fast (at most the sum of the hierarchy heights steps)
but not optimal; :func:`veil.algorithms.lattice.search` is.  It is offered
because users of ARX and μ-Argus know it and because on very wide tables it
gives a first answer in milliseconds.

Ties (two attributes with as many distinct values) go to the attribute listed
first.  With models that are not monotone under generalization with
suppression (t-closeness, entropy l-diversity, ...) a step may make things
worse; Datafly goes on climbing and returns the first node that satisfies
every model.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence

import numpy as np

from veil.algorithms._nodes import LossFunction, SearchResult, infeasible, limit_records, prepare
from veil.algorithms._nodes import Evaluator
from veil.classes import ClassTable
from veil.models._base import PrivacyModel

__all__ = ["datafly"]


def datafly(
    classes: ClassTable,
    models: Sequence[PrivacyModel],
    *,
    loss: LossFunction,
    suppression_limit: float = 0.0,
    min_levels: Sequence[int] | None = None,
    max_levels: Sequence[int] | None = None,
    progress: Callable[[int, int], None] | None = None,
) -> SearchResult:
    """Generalize greedily until the models hold within the suppression limit.

    Parameters
    ----------
    classes, models, suppression_limit, min_levels, max_levels
        As for :func:`veil.algorithms.lattice.search`; Datafly starts at
        ``min_levels`` and never goes above ``max_levels``.
    loss : callable
        ``loss(classes) -> float``, reported for the chosen node (not optimised).
    progress : callable, optional, ``progress(steps_done, steps_at_most)``.

    Returns
    -------
    SearchResult
        ``algorithm`` is ``"datafly"``; ``extra["path"]`` lists the nodes visited.

    Raises
    ------
    InfeasibleError
        Even the most general node needs more suppression than allowed.

    Examples
    --------
    >>> from veil.datasets import load_adult
    >>> from veil.models import KAnonymity
    >>> from veil.utility import get_metric
    >>> table = ClassTable.from_dataset(load_adult())
    >>> result = datafly(table, [KAnonymity(5)], suppression_limit=0.05,
    ...                  loss=lambda c: get_metric("loss").loss(c, k=5))
    >>> result.algorithm, result.extra["suppressed_records"] <= 0.05 * 30162
    ('datafly', True)
    """
    start = time.perf_counter()
    lattice = prepare(classes, list(models), min_levels, max_levels, enumerated=False)
    limit = limit_records(classes, suppression_limit)
    evaluator = Evaluator(classes, models, limit, loss, cache_size=0, hub_limit=0)
    result, path = _climb(classes, evaluator, lattice, limit, progress)
    return SearchResult(
        node=result.node,
        classes=result.classes,
        loss=float(result.loss),  # type: ignore[arg-type]
        nodes_total=lattice.size,
        nodes_checked=evaluator.checked,
        seconds=time.perf_counter() - start,
        algorithm="datafly",
        extra={"suppressed_records": result.suppressed_records, "nodes_refuted": evaluator.refuted,
               "path": [list(p) for p in path]},
    )


def _climb(classes: ClassTable, evaluator: Evaluator, lattice, limit: int,
           progress: Callable[[int, int], None] | None):
    """Step up the attribute with the most distinct values until the node satisfies; (result, path)."""
    node = list(lattice.low)
    high = list(lattice.high)
    steps_at_most = sum(b - a for a, b in zip(lattice.low, lattice.high))
    path = []
    while True:
        result = evaluator.evaluate(tuple(node))
        path.append(tuple(node))
        if progress is not None:
            progress(len(path) - 1, steps_at_most)
        if result.satisfied:
            break
        room = [i for i in range(len(node)) if node[i] < high[i]]
        if not room:
            raise infeasible(evaluator, lattice, limit)
        distinct = [
            len(np.unique(classes.hierarchies[i].rollup(classes.levels[i], node[i])[classes.codes[:, i]]))
            for i in room
        ]
        node[room[int(np.argmax(distinct))]] += 1
    if progress is not None:
        progress(steps_at_most, steps_at_most)
    return result, path
