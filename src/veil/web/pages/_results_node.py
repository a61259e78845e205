"""ARX's explore view on the Results page: the generalization lattice of the run, and any node's figures.

* :func:`frontier`: every node of the run's lattice judged by :func:`veil.explore.lattice_view`
  (the library's lattice view: ``satisfying`` nodes are the least generalized solutions, the
  candidates of an optimal search); the page draws the satisfying nodes by height, clickable.
* :func:`node_figures`: one node judged as the run's search judges it: the run's plan
  (:class:`veil.pipeline.Plan`, so the same models, suppression mode and loss) on the run's
  level-0 class table, and the search's own node evaluation
  (:class:`veil.algorithms._nodes.Evaluator`): whether it satisfies the models within the
  suppression limit, the records it suppresses, its classes, smallest class and loss.
  Nothing new is computed: no row is read again.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np

from veil.errors import ParameterError
from veil.web.pages.models import violations

__all__ = ["frontier", "node_figures", "parse_levels", "pin_levels"]


def _base(record: Mapping[str, Any]):
    classes = record.get("classes")
    if classes is None or classes.base is classes or not record["report"].get("transformation"):
        algorithm = record["config"].algorithm
        raise ParameterError(f"the {algorithm} algorithm is a local recoding: there is no lattice of levels to explore.")
    return classes.base


def parse_levels(text: str, record: Mapping[str, Any]) -> tuple[int, ...]:
    """``"0,1,2"`` as one level per quasi-identifier of the run, each within its hierarchy."""
    base = _base(record)
    qis = base.quasi_identifiers
    parts = [p.strip() for p in str(text).split(",")]
    if len(parts) != len(qis) or not all(p.isdigit() for p in parts):
        raise ParameterError(f"levels must be {len(qis)} whole numbers separated by commas, one per "
                             f"quasi-identifier ({', '.join(qis)}).")
    levels = tuple(int(p) for p in parts)
    for name, level, hierarchy in zip(qis, levels, base.hierarchies):
        if level > hierarchy.height:
            raise ParameterError(f"levels: {name!r} has levels 0 to {hierarchy.height}. Got {level} instead.")
    return levels


def pin_levels(attributes: Mapping[str, Any], record: Mapping[str, Any], levels: tuple[int, ...]) -> dict[str, Any]:
    """``attributes`` (the configuration's) with each quasi-identifier of the run held at its level of
    ``levels`` (``min_level`` = ``max_level``, the configuration's own keys): the next run releases that node."""
    import copy

    out = copy.deepcopy(dict(attributes))
    for name, level in zip(_base(record).quasi_identifiers, levels):
        spec = out.get(name)
        out[name] = {**(spec if isinstance(spec, Mapping) else {"role": "quasi-identifier"}),
                     "min_level": int(level), "max_level": int(level)}
    return out


def _plan(record: Mapping[str, Any], base: Any):
    from veil.pipeline import Plan
    from veil.release import build_models
    from veil.pipeline._policy import suppressed_mode

    config = record["config"]
    models = build_models(config)  # a population file read
    qis = base.quasi_identifiers
    weights = {n: a.weight for n, a in config.attributes.items() if a.weight is not None} or None
    return Plan.make(
        models, quasi_identifiers=qis, sensitive=config.names("sensitive"),
        hierarchies=dict(zip(qis, base.hierarchies)), algorithm=config.algorithm,
        mode=suppressed_mode(config.suppressed, drop_suppressed=config.output.drop_suppressed),
        label=config.label, suppression_limit=config.suppression_limit, metric=config.metric, weights=weights,
        missing_sensitive=config.missing_sensitive,
    )


def node_figures(record: Mapping[str, Any], levels: tuple[int, ...]) -> dict[str, Any]:
    """The figures of one node of the run's lattice, as the run's search judges it."""
    from veil.algorithms._nodes import Evaluator, limit_records

    base = _base(record)
    plan = _plan(record, base)
    problem = plan.problem(base)
    limit = limit_records(base, plan.suppression_limit)
    judged = Evaluator(base, problem.models, limit, problem.loss).evaluate(levels, refute=False)
    table = judged.classes
    sizes = np.asarray(table.counts) if table is not None else np.zeros(0, dtype=np.int64)
    chosen = tuple(int(v) for v in (record["report"].get("transformation") or {}).values())
    return {
        "levels": dict(zip(base.quasi_identifiers, (int(v) for v in levels))),
        "height": int(sum(levels)),
        "chosen": tuple(levels) == chosen,
        "satisfied": bool(judged.satisfied),
        "suppressed": int(judged.suppressed_records),
        "suppression_limit": int(limit),
        "classes": int(len(sizes)),
        "k": int(sizes.min()) if len(sizes) else 0,
        "metric": plan.metric,
        "loss": None if judged.loss is None else float(judged.loss),
        "violations": violations(sizes),
    }


def frontier(record: Mapping[str, Any]) -> dict[str, Any]:
    """The run's lattice, judged node by node by :func:`veil.explore.lattice_view`: the least
    generalized satisfying nodes by height, and the counts of each status."""
    from veil.explore import lattice_view
    from veil.release import build_models, dataset_from_config

    base = _base(record)
    config = record["config"]
    chosen = tuple(int(v) for v in record["report"]["transformation"].values())
    models = build_models(config)
    view = lattice_view(dataset_from_config(config), models, suppression_limit=config.suppression_limit,
                        optimum=chosen)
    satisfying = view.nodes[view.status == "satisfying"]
    heights = satisfying.sum(axis=1)
    layers = []
    for height in np.unique(heights):
        nodes = satisfying[heights == height]
        layers.append({"height": int(height), "nodes": [",".join(str(int(v)) for v in n) for n in nodes]})
    return {"quasi_identifiers": list(base.quasi_identifiers), "counts": view.counts(),
            "nodes_total": int(len(view.nodes)), "chosen": ",".join(str(v) for v in chosen),
            "maxima": [int(h.height) for h in base.hierarchies], "layers": layers}
