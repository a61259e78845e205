"""Sweep anonymization parameters and place each result on the privacy–utility plane.

Every point of the sweep is one :func:`veil.anonymize` run on the **same**
:class:`~veil.Dataset` object, whose column encodings are cached: the rows are
encoded once for the whole sweep.  (``anonymize`` still rebuilds the level-0
class table and re-verifies its output at every point; ``docs/explore.md``
gives the measured cost.)  With a target attribute, the workload's split and
:math:`U_{max}`, :math:`U_{base}` are computed once
(:class:`veil.utility.Workload`) and only :math:`U_{san}` per point, on the
release rows in input order (the sweep asks ``anonymize`` not to shuffle: its
releases are measured, never written).
"""

from __future__ import annotations

import itertools
import math
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from veil.dataset import Dataset
from veil.errors import InfeasibleError, ParameterError
from veil.explore._frontier import pareto_frontier

__all__ = ["SweepSpec", "Exploration", "explore", "parse_values", "MAX_SWEEP_POINTS"]

#: The most points a sweep runs (each is one anonymization): a range such as ``--k 1:100000000``
#: is refused before it is expanded, instead of filling the memory.
MAX_SWEEP_POINTS = 10_000


def parse_values(text: str, *, kind: type = int, option: str = "value") -> tuple[Any, ...]:
    """Parse ``"2:50"`` (inclusive range), ``"2:50:4"`` (with a step) or ``"2,5,10"``.

    Raises
    ------
    ParameterError
        Not numbers of ``kind``, an empty range, or a step that is not positive.
    """
    text = str(text).strip()
    try:
        parts = [kind(p) for p in (text.split(":") if ":" in text else text.split(",")) if p.strip()]
    except ValueError:
        raise ParameterError(f"{option} expects numbers as START:STOP[:STEP] or A,B,C. Got {text!r} instead.") from None
    values: tuple[Any, ...] = tuple(parts)
    if ":" in text:
        if len(parts) not in (2, 3):
            raise ParameterError(f"{option} expects START:STOP[:STEP]. Got {text!r} instead.")
        start, stop = parts[0], parts[1]
        step = parts[2] if len(parts) == 3 else kind(1)
        if step <= 0 or stop < start:
            raise ParameterError(f"{option} expects START:STOP[:STEP] with START <= STOP and STEP > 0. Got {text!r} instead.")
        count = int(math.floor((stop - start) / step + 1e-9)) + 1
        if count > MAX_SWEEP_POINTS:
            raise ParameterError(f"{option} {text!r} has {count:,} values, more than a sweep runs "
                                 f"({MAX_SWEEP_POINTS:,}): give a step (START:STOP:STEP) or fewer values.")
        values = tuple(kind(start + i * step) for i in range(count))
        if kind is float:
            values = tuple(round(v, 12) for v in values)
    if not values:
        raise ParameterError(f"{option} expects at least one value. Got {text!r} instead.")
    return values


@dataclass(frozen=True)
class SweepSpec:
    """The parameter grid: every combination of the listed values is one point.

    Parameters
    ----------
    k : tuple of int
        k-anonymity levels (empty: no k-anonymity model).
    l : tuple of int
        Distinct l-diversity levels of ``sensitive``.
    t : tuple of float
        Equal-distance t-closeness levels of ``sensitive``.
    suppression : tuple of float, default (0.0,)
        Suppression limits in [0, 1].
    algorithms : tuple of str, default ("lattice",)
    sensitive : str, optional
        The sensitive attribute of the l and t models.
    metric : str, default "loss"
        The utility metric each search minimises and the sweep reports.
    max_nodes : int, optional
        The largest lattice each lattice search enumerates (``max_nodes`` of :func:`veil.anonymize`).
    """

    k: tuple[int, ...] = ()
    l: tuple[int, ...] = ()
    t: tuple[float, ...] = ()
    suppression: tuple[float, ...] = (0.0,)
    algorithms: tuple[str, ...] = ("lattice",)
    sensitive: str | None = None
    metric: str = "loss"
    max_nodes: int | None = None

    def __post_init__(self) -> None:
        if not (self.k or self.l or self.t):
            raise ParameterError("The sweep needs at least one privacy model: give k, l or t values.")
        if (self.l or self.t) and not self.sensitive:
            raise ParameterError("l and t values need the sensitive attribute they protect (sensitive=...).")
        if not self.suppression or not self.algorithms:
            raise ParameterError("The sweep needs at least one suppression limit and one algorithm.")
        points = math.prod(len(v) for v in (self.algorithms, self.suppression, self.k, self.l, self.t) if v)
        if points > MAX_SWEEP_POINTS:
            raise ParameterError(f"The sweep has {points:,} points (every combination of the values), more than "
                                 f"{MAX_SWEEP_POINTS:,}: give fewer values.")

    def grid(self) -> list[dict[str, Any]]:
        """Every point's parameters, in a fixed order."""
        axes = [("algorithm", self.algorithms), ("suppression", self.suppression)]
        axes += [(name, values) for name, values in (("k", self.k), ("l", self.l), ("t", self.t)) if values]
        names = [name for name, _ in axes]
        return [dict(zip(names, combo)) for combo in itertools.product(*(values for _, values in axes))]

    def models(self, parameters: dict[str, Any]) -> list[Any]:
        from veil.models import DistinctLDiversity, EqualDistanceTCloseness, KAnonymity

        models: list[Any] = []
        if "k" in parameters:
            models.append(KAnonymity(k=int(parameters["k"])))
        if "l" in parameters:
            models.append(DistinctLDiversity(sensitive=self.sensitive, l=int(parameters["l"])))
        if "t" in parameters:
            models.append(EqualDistanceTCloseness(sensitive=self.sensitive, t=float(parameters["t"])))
        return models


@dataclass
class Exploration:
    """The points of a sweep; :meth:`to_dict` is the ``veil explore --json`` contract.

    Attributes
    ----------
    points : list of dict
        ``{"parameters", "privacy", "utility", "frontier", "feasible", "transformation", "seconds"}`` each.
    objectives : tuple of (str, str, bool)
        The frontier's axes: (section, key, maximize), privacy first.
    seconds : float
        Wall time of the whole sweep.
    """

    points: list[dict[str, Any]]
    objectives: tuple[tuple[str, str, bool], ...]
    seconds: float
    workload: dict[str, Any] | None = None
    notes: list[str] = field(default_factory=list)

    def coordinates(self) -> np.ndarray:
        """The objectives of every point, shape (n_points, n_objectives); NaN where infeasible."""
        rows = []
        for point in self.points:
            row = []
            for section, key, _ in self.objectives:
                value = (point.get(section) or {}).get(key)
                row.append(float(value) if isinstance(value, (int, float)) and value is not None else math.nan)
            rows.append(row)
        return np.asarray(rows, dtype=np.float64).reshape(len(self.points), len(self.objectives))

    def to_dict(self) -> dict[str, Any]:
        return {
            "points": self.points,
            "frontier_axes": [{"section": s, "key": k, "better": "higher" if m else "lower"} for s, k, m in self.objectives],
            "workload": self.workload,
            "seconds": round(self.seconds, 6),
            "notes": list(self.notes),
        }


def _privacy(report: dict[str, Any], sensitive: str | None) -> dict[str, Any]:
    achieved = report.get("achieved") or {}
    prosecutor = (report.get("risk_after") or {}).get("prosecutor") or {}
    out = {
        "k": achieved.get("k"),
        "highest_risk": prosecutor.get("highest"),
        "records_at_risk": prosecutor.get("records_at_risk"),
        "suppressed": report.get("suppressed"),
    }
    if sensitive:
        facts = (achieved.get("sensitive") or {}).get(sensitive) or {}
        out["l"] = facts.get("distinct_l")
        out["t"] = facts.get("t_equal")
    return out


def _run_point(
    anonymize: Callable[..., Any], dataset: Dataset, spec: SweepSpec, parameters: dict[str, Any], *,
    label: str | None, prepared: Any, classifier: str,
) -> dict[str, Any]:
    """One point of the sweep: anonymize (unshuffled, never written), then read its privacy and utility."""
    began = time.perf_counter()
    point: dict[str, Any] = {"parameters": dict(parameters), "privacy": None, "utility": None,
                             "frontier": False, "feasible": True, "transformation": None}
    try:
        if int(parameters.get("k", 0)) > dataset.n_records:  # no class can be that large
            raise InfeasibleError(f"k={parameters['k']} exceeds the {dataset.n_records} records.")
        result = anonymize(
            dataset, spec.models(parameters), suppression_limit=float(parameters["suppression"]),
            metric=spec.metric, label=label, algorithm=str(parameters["algorithm"]), shuffle=False,
            max_nodes=spec.max_nodes,
        )
    except InfeasibleError:
        point["feasible"] = False
    else:
        point["privacy"] = _privacy(result.report, spec.sensitive)
        point["utility"] = {spec.metric: result.report["utility"].get(spec.metric)}
        point["transformation"] = dict(result.transformation) or None
        if prepared is not None:  # the release rows are in input order: no matching needed
            scored = prepared.score(result.data, aligned=True)
            point["utility"][f"workload:{classifier}"] = scored.classifiers[classifier].u_san
            point["utility"]["a_acc"] = scored.a_acc
    point["seconds"] = round(time.perf_counter() - began, 6)
    return point


def _utility_axis(spec: SweepSpec, prepared: Any, target: str | None, classifier: str) -> tuple[tuple, dict | None]:
    """The frontier's utility axis ``(group, key, maximize)`` and the workload summary (``None`` without one)."""
    from veil.utility import METRICS

    if prepared is None:
        return ("utility", spec.metric, not METRICS[spec.metric].lower_is_better), None
    summary = {"target": target, "classifier": classifier, "u_base": prepared.u_base[classifier],
               "u_max": prepared.u_max[classifier], "a_base": prepared.a_base}
    return ("utility", f"workload:{classifier}", True), summary


def explore(
    dataset: Dataset, spec: SweepSpec, *, target: str | None = None, classifier: str = "decision-tree",
    random_state: int = 0, progress: Callable[[int, int], None] | None = None,
) -> Exploration:
    """Run every point of ``spec`` on ``dataset`` and mark the Pareto frontier.

    The frontier's axes are the highest prosecutor risk (lower is better) and
    the utility: the workload accuracy :math:`U_{san}` of ``classifier`` when
    a ``target`` is given (higher is better), else ``spec.metric`` in its
    own direction.  Infeasible points are kept (``feasible: false``), never on
    the frontier.

    Parameters
    ----------
    dataset : Dataset
        With its quasi-identifiers' hierarchies.
    spec : SweepSpec
    target : str, optional
        Adds workload utility (Brickell & Shmatikov) per point.
    classifier : str, default "decision-tree"
    random_state : int, default 0
    progress : callable, optional
        ``progress(points_done, points_total)``.

    Returns
    -------
    Exploration

    Raises
    ------
    ParameterError
        A bad parameter (an unknown metric or algorithm, ...): the whole sweep stops.
    """
    from veil import anonymize
    from veil.utility import Workload, get_metric

    start = time.perf_counter()
    metric = get_metric(spec.metric)
    grid = spec.grid()
    prepared = None
    if target is not None:
        prepared = Workload(dataset, target=target, classifiers=[classifier], random_state=random_state)
    label = target if metric.needs_label else None
    if metric.needs_label and label is None:
        raise ParameterError(f"The {spec.metric!r} metric needs a class label: give a target.")
    points = []
    for done, parameters in enumerate(grid):
        points.append(_run_point(anonymize, dataset, spec, parameters, label=label, prepared=prepared, classifier=classifier))
        if progress is not None:
            progress(done + 1, len(grid))
    axis, summary = _utility_axis(spec, prepared, target, classifier)
    exploration = Exploration(points, (("privacy", "highest_risk", False), axis), 0.0, summary)
    mask = pareto_frontier(exploration.coordinates(), maximize=[m for _, _, m in exploration.objectives])
    for point, on in zip(points, mask):
        point["frontier"] = bool(on)
    exploration.seconds = time.perf_counter() - start
    return exploration
