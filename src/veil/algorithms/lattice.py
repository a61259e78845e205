"""Optimal full-domain generalization with record suppression: a pruned lattice search.

The *generalization lattice* holds one node per vector of hierarchy levels
(one level per quasi-identifier); a node's successors generalize one attribute
one level more.  At each node, the classes that violate a requested privacy
model are suppressed; the node is a solution when no more than the suppression
limit's records had to be suppressed (and table-level models hold afterwards).
The search returns the solution with the least information loss.

Exactness with pruning
----------------------
The search is exact: it returns the same optimum as evaluating every node
(:func:`exhaustive_search`, used by the tests).  It prunes in two sound ways:

* **Loss bound.**  Every metric veil optimises has a lower bound that does not
  depend on suppression and never decreases under generalization: the loss of
  the node's table *before* suppression (suppressing a record never lowers
  the loss: a suppressed record costs at least as much as a generalized one).
  For additive metrics (height, precision, ILoss, non-uniform entropy) the
  bound of every node is computed up front from one-attribute generalizations,
  and nodes are visited in increasing bound order: the search stops as soon as
  the next bound reaches the best loss found.  For the other metrics the bound
  is computed when a node is visited, and prunes the node's successors when
  it reaches the best loss (only for metrics declared monotone).
* **Monotone models.**  When every requested model is monotone under
  generalization *with* suppression (k-anonymity, distinct l-diversity), a
  node below a failing node fails and a node above a solution is a solution;
  such nodes are tagged without evaluating the models.  Models that are not
  monotone with suppression (t-closeness, δ-disclosure, entropy and recursive
  l-diversity, ...) disable this tagging, never the exactness.

This follows the spirit of ARX's Flash/OLA algorithms (Kohlmayer et al.,
"Flash: efficient, stable and optimal k-anonymity", PASSAT 2012; El Emam et
al., "A globally optimal k-anonymity method for the de-identification of
health data", JAMIA 16(5), 2009) with a best-first order on the loss bound.

What the search saw
-------------------
Each strategy keeps one ``int8`` per node (judged satisfying, judged failing,
not judged: tagged or pruned) and returns it summed per height (level sum)
as ``SearchResult.extra["lattice"]``
(:func:`veil.algorithms._lattice_record.search_record`): a few short lists,
from which the anonymize report draws its lattice picture.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from veil.algorithms._nodes import (
    ADDITIVE_METRICS, Evaluator, Lattice, LossFunction, NodeEvaluation, NodeSets, SearchResult, infeasible,
    limit_records, prepare,
)
from veil.algorithms._bounds import Terms, loss_bounds
from veil.algorithms._chains import classify, descend, lexsort, single_attribute_failures, sort_rows, walk_candidates
from veil.algorithms._lattice_record import search_record
from veil.classes import ClassTable
from veil.utility import METRICS
from veil.models._base import PrivacyModel

__all__ = ["Lattice", "SearchResult", "NodeEvaluation", "search", "exhaustive_search", "ADDITIVE_METRICS"]

# old private names, kept for one release (the node machinery moved to veil.algorithms._nodes)
_Evaluator, _limit_records, _bounds, _prepare, _infeasible = Evaluator, limit_records, loss_bounds, prepare, infeasible

def _search_top_down(
    evaluator: "Evaluator",
    lattice: Lattice,
    nodes: np.ndarray,
    bounds: np.ndarray,
    limit: int,
    start: float,
    progress: Callable[[int, int], None] | None,
) -> SearchResult:
    """Monotone models and an additive metric: a greedy descent gives a first
    solution, then every node whose bound is below the best loss is settled,
    largest down-set first, so that a failing node tags the most nodes."""
    n, q = nodes.shape
    status = np.zeros(n, dtype=np.int8)  # 1 solution, -1 not, 0 unknown
    sets = NodeSets(nodes)
    evaluated = np.zeros(n, dtype=np.bool_)
    losses = np.full(n, np.inf)
    heights = sets.heights()
    results: dict[int, NodeEvaluation] = {}
    least = [np.inf]  # losses.min(), kept as the nodes are judged

    def judge(i: int) -> bool:
        result = evaluator.evaluate(tuple(nodes[i].tolist()))
        evaluated[i] = True
        results[i] = result
        if result.satisfied:
            losses[i] = result.loss
            least[0] = min(least[0], result.loss)
            sets.tag_above(status, i, 1)
        else:
            sets.tag_below(status, i, -1)
        status[i] = 1 if result.satisfied else -1
        if progress is not None and evaluator.checked % 32 == 0:
            progress(evaluator.checked, n)
        return result.satisfied

    current = n - 1  # the top node (nodes are in lexicographic order)
    if not judge(current):
        raise infeasible(evaluator, lattice, limit)

    def step(i: int) -> bool:
        if status[i] == -1:
            return False
        if not evaluated[i]:
            judge(i)
        return bool(status[i] == 1)

    def is_open(c: np.ndarray | slice) -> np.ndarray:
        return (status[c] != -1) & ~evaluated[c] & (bounds[c] <= least[0] + 1e-12)

    if limit == 0 and evaluator.pairs is None:  # no pairs to refute from: the cheap high nodes first
        single_attribute_failures(nodes, status, step)
    descend(nodes, bounds, current, step)
    # settle the candidates (not failing, not judged, bound within the best loss), largest down-set first, then
    # the highest (bound, height, index); no node becomes one later, so only today's are sorted
    walk_candidates(sort_rows(is_open(slice(None)), (heights, bounds, sets.below_sizes()))[::-1], judge, is_open)
    if progress is not None:
        progress(n, n)
    record = _record(heights, np.where(evaluated, status, 0).astype(np.int8))
    return _least_loss_result(nodes, losses, heights, results, evaluator, start, record=record)


def _record(heights: np.ndarray, outcome: np.ndarray) -> dict[str, Any]:
    """The search record (:func:`search_record`) of nodes of these heights: it sums each node's
    row of levels, so a column of the heights gives the same record without the sum."""
    return search_record(heights[:, None], outcome)


def _least_loss_result(nodes: np.ndarray, losses: np.ndarray, heights: np.ndarray,
                       results: dict[int, NodeEvaluation], evaluator: "Evaluator", start: float,
                       record: dict[str, Any] | None = None) -> SearchResult:
    """The least-loss solution (ties: lowest height, then lexicographically first) as a SearchResult."""
    best_loss = losses.min()
    tied = np.flatnonzero(losses <= best_loss + 1e-12)
    winner = int(tied[np.lexsort(tuple(nodes[tied].T[::-1]) + (heights[tied],))[0]])
    result = results[winner]
    return SearchResult(
        node=result.node,
        classes=result.classes,
        loss=evaluator.exact_loss(result),
        nodes_total=len(nodes),
        nodes_checked=evaluator.checked,
        seconds=time.perf_counter() - start,
        algorithm="lattice",
        extra={"suppressed_records": result.suppressed_records, "nodes_refuted": evaluator.refuted,
               **({"lattice": record} if record else {})},
    )


# long because it is a public entry point with a full numpydoc docstring; the body dispatches to the strategies
def search(
    classes: ClassTable,
    models: Sequence[PrivacyModel],
    *,
    loss: LossFunction,
    metric_name: str = "",
    monotone_metric: bool = True,
    suppression_limit: float = 0.0,
    min_levels: Sequence[int] | None = None,
    max_levels: Sequence[int] | None = None,
    progress: Callable[[int, int], None] | None = None,
    terms: Terms | None = None,
    max_nodes: int | None = None,
) -> SearchResult:
    """Find the transformation with the least loss that satisfies every model.

    Parameters
    ----------
    classes : ClassTable
        The class table at level 0 (as built from the data).
    models : sequence of PrivacyModel
        Every model must hold on the result.
    loss : callable
        ``loss(classes) -> float``, the quantity to minimise (a utility metric's loss).
    metric_name : str
        The metric's registry name; additive metrics get precomputed bounds.
    monotone_metric : bool
        Whether the unsuppressed loss never decreases under generalization
        (needed to prune with the bound of non-additive metrics).
    suppression_limit : float in [0, 1]
        The largest share of records that may be suppressed.
    min_levels, max_levels : sequence of int, optional
        Bounds on each attribute's level.
    progress : callable, optional
        Called as ``progress(nodes_done, nodes_total)``.
    terms : callable, optional
        ``terms(classes, i, levels)``: an additive metric's per-attribute terms
        (:meth:`veil.utility.Metric.terms` with the weights bound); the bounds are read
        from them instead of measured.  The nodes judged and the node found are the same.
    max_nodes : int >= 1, optional
        The largest lattice searched (default
        :data:`veil.algorithms._lattice_size.DEFAULT_MAX_NODES`); a larger one is refused before
        any node is made, as is one whose estimated memory exceeds what the machine has available.

    Raises
    ------
    ParameterError
        The lattice is larger than ``max_nodes`` or than the memory allows.
    InfeasibleError
        No node satisfies the models within the limit (the error carries the
        most general node and how many records it would need to suppress).
    """
    start = time.perf_counter()
    lattice = prepare(classes, models, min_levels, max_levels, max_nodes)
    limit = limit_records(classes, suppression_limit)
    # one node (every level pinned): its table is built at once; refuting it from the attribute pairs would
    # count every pair's cells first, 2-3 ms on Adult, to save one roll-up
    evaluator = Evaluator(classes, models, limit, loss, refute=lattice.size > 1)
    nodes = lattice.nodes()
    n_nodes = len(nodes)
    # with no record to suppress a node passes only if every class does, so a model monotone
    # under generalization is monotone here (t-closeness, beta-likeness, ... at 0%)
    monotone_part = [m for m in models if m.monotone_with_suppression or (limit == 0 and m.monotone_generalization)]
    monotone_models = len(monotone_part) == len(models)
    additive = metric_name in METRICS and METRICS[metric_name].additive

    known: dict[int, NodeEvaluation] = {}
    if monotone_models and additive:
        bounds = evaluator.know_bounds(nodes, loss_bounds(classes, lattice, loss, terms))
        return _search_top_down(evaluator, lattice, nodes, bounds, limit, start, progress)
    if monotone_part and additive:
        return _search_mixed(
            evaluator, lattice, nodes, evaluator.know_bounds(nodes, loss_bounds(classes, lattice, loss, terms)), monotone_part,
            limit, start, progress
        )
    extra_checks = 0
    if monotone_models:
        status = classify(evaluator, nodes, known)
    else:
        status = np.zeros(n_nodes, dtype=np.int8)
    if progress is not None:
        progress(evaluator.checked, n_nodes)

    heights = NodeSets(nodes).heights()
    if additive:
        bounds = evaluator.know_bounds(nodes, loss_bounds(classes, lattice, loss, terms))
        order = lexsort((heights, bounds))
    else:
        bounds = None
        order = lexsort((heights,))

    best: NodeEvaluation | None = None
    best_key: tuple[float, int, tuple[int, ...]] | None = None
    prune_arr = np.zeros((0, nodes.shape[1]), dtype=np.int16)
    outcome = np.zeros(n_nodes, dtype=np.int8)  # the search record: 1 satisfying, -1 failing, 0 not judged
    for position, idx in enumerate(order):
        if status[idx] == -1:
            continue
        node_arr = nodes[idx]
        node = tuple(node_arr.tolist())
        if progress is not None and position % 64 == 0:
            progress(max(position, evaluator.checked), n_nodes)
        if additive and best is not None and bounds[idx] > best_key[0] + 1e-12:  # type: ignore[index]
            break
        if len(prune_arr) and np.any(np.all(prune_arr <= node_arr, axis=1)):
            continue
        result = known.get(int(idx))
        if result is None:
            if not additive and best is not None and monotone_metric:
                bound = float(loss(evaluator.table(node)))
                if bound > best_key[0] + 1e-12:  # type: ignore[index]
                    prune_arr = np.vstack([prune_arr, node_arr])
                    continue
            result = evaluator.evaluate(node)
            outcome[idx] = 1 if result.satisfied else -1
        if not result.satisfied:
            continue
        key = (float(result.loss), int(sum(node)), node)  # type: ignore[arg-type]
        if best_key is None or key < best_key:
            best, best_key = result, key
    if progress is not None:
        progress(n_nodes, n_nodes)
    if best is None:
        raise infeasible(evaluator, lattice, limit)
    for i, judged in known.items():  # the nodes _classify judged
        outcome[i] = 1 if judged.satisfied else -1
    return SearchResult(
        node=best.node,
        classes=best.classes,
        loss=evaluator.exact_loss(best),
        nodes_total=n_nodes,
        nodes_checked=evaluator.checked + extra_checks,
        seconds=time.perf_counter() - start,
        algorithm="lattice",
        extra={"suppressed_records": best.suppressed_records, "nodes_refuted": evaluator.refuted,
               "lattice": _record(heights, outcome)},
    )


# long because it is one strategy whose closures share the evaluator state
def _search_mixed(
    evaluator: Evaluator,
    lattice: Lattice,
    nodes: np.ndarray,
    bounds: np.ndarray,
    monotone_part: Sequence[PrivacyModel],
    limit: int,
    start: float,
    progress: Callable[[int, int], None] | None,
) -> SearchResult:
    """Some models are monotone with suppression and some are not, and the metric
    is additive.

    A greedy descent with every model gives a first solution and an upper
    bound on the optimal loss.  Then the nodes whose bound does not exceed it
    are settled for the monotone models, highest bound first, so that each
    failure tags its whole down-set (those nodes fail every model set that
    contains the monotone ones); a node that passes them is judged against the
    other models at once, on the same class table, and a solution lowers the
    upper bound.  Last, the nodes tagged as passing the monotone models
    without being built are judged, lowest bound first, until the bound
    reaches the best loss.
    """
    n = len(nodes)
    rest = [m for m in evaluator.models if m not in monotone_part]
    status = np.zeros(n, dtype=np.int8)  # the monotone models: 1 pass, -1 fail, 0 unknown
    sets = NodeSets(nodes)
    heights = sets.heights()
    done = np.zeros(n, dtype=np.bool_)  # judged against every model
    losses = np.full(n, np.inf)
    best: dict[str, Any] = {"loss": np.inf, "key": None, "result": None}
    outcome = np.zeros(n, dtype=np.int8)  # the search record: 1 satisfying, -1 failing, 0 not judged

    def record(i: int, result: NodeEvaluation) -> bool:
        done[i] = True
        outcome[i] = 1 if result.satisfied else -1
        if not result.satisfied:
            return False
        losses[i] = result.loss
        key = (float(result.loss), int(heights[i]), result.node)  # type: ignore[arg-type]
        if best["key"] is None or key < best["key"]:
            best.update(loss=float(result.loss), key=key, result=result)  # type: ignore[arg-type]
        if progress is not None and evaluator.checked % 32 == 0:
            progress(evaluator.checked, n)
        return True

    def node_of(i: int) -> tuple[int, ...]:
        return tuple(nodes[i].tolist())

    def judge(i: int) -> bool:
        return record(i, evaluator.evaluate(node_of(i)))

    current = n - 1  # the top node (nodes are in lexicographic order)
    if judge(current):
        descend(nodes, bounds, current, lambda i: losses[i] < np.inf if done[i] else judge(i))

    # largest down-set first, then highest bound; a node out of these now never comes back
    still_open = (status == 0) & ~done & (bounds <= best["loss"] + 1e-12)
    for i in sort_rows(still_open, (heights, bounds, sets.below_sizes()))[::-1]:
        i = int(i)
        if status[i] != 0 or done[i] or bounds[i] > best["loss"] + 1e-12:
            continue
        node = node_of(i)
        evaluator.checked += 1
        table = evaluator.table(node)
        mask = evaluator.violations(table, monotone_part)
        if not evaluator.within_limit(table, mask, monotone_part):
            outcome[i] = -1
            sets.tag_below(status, i, -1)
            continue
        sets.tag_above(status, i, 1)
        record(i, evaluator.evaluate(node, models=rest, table=table, prior=monotone_part, mask=mask))

    for i in sort_rows(bounds <= best["loss"] + 1e-12, (heights, bounds)):  # lowest bound first
        i = int(i)
        if bounds[i] > best["loss"] + 1e-12:
            break
        if status[i] == 1 and not done[i]:
            judge(i)

    if progress is not None:
        progress(n, n)
    result = best["result"]
    if result is None:
        raise infeasible(evaluator, lattice, limit)
    return SearchResult(
        node=result.node,
        classes=result.classes,
        loss=evaluator.exact_loss(result),
        nodes_total=n,
        nodes_checked=evaluator.checked,
        seconds=time.perf_counter() - start,
        algorithm="lattice",
        extra={"suppressed_records": result.suppressed_records, "nodes_refuted": evaluator.refuted,
               "lattice": _record(heights, outcome)},
    )


def exhaustive_search(*args: Any, **kwargs: Any) -> SearchResult:
    """Every node evaluated: the reference the pruned :func:`search` is tested against
    (see :func:`veil.algorithms._exhaustive.exhaustive_search`)."""
    from veil.algorithms._exhaustive import exhaustive_search as run

    return run(*args, **kwargs)
