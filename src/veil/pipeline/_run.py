"""The one anonymization path: plan -> class table -> search -> apply -> verify -> report.

:func:`run` is what :func:`veil.anonymize` (rows in memory) and
:func:`veil.engines.anonymize_file` (rows in a file an engine reads) both
call; they differ only in the row back-end they hand it:

=====================  ==========================================  ============================================
step                   in memory (:class:`MemoryRows`)              through an engine (:class:`EngineRows`)
=====================  ==========================================  ============================================
class table            ``ClassTable.from_dataset``                  engine group-count, ``class_table_from_counts``
search                 the registry's algorithm, whole              the registry's class-table search
apply                  the frame: drop/blank/keep, shuffle          ``engine.apply`` into the writer's temporary
verify                 :func:`veil.pipeline._recheck.verify`        the written file re-read, group-counted, checked
write                  the caller's (:class:`veil.pipeline.Outputs`)  the writer's rename, after the verification
=====================  ==========================================  ============================================

The search, the models and the report run on the class table, the same code
for both.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from veil.classes import ClassTable
from veil.pipeline._plan import Plan, search
from veil.pipeline._released import Released, pipeline_report

__all__ = ["Run", "run"]


@dataclass
class Run:
    """What :func:`run` returns.

    Attributes
    ----------
    plan : Plan
    problem : Problem
        The algorithm's input (its ``base`` is the input's class table).
    outcome : Outcome
        The algorithm's result.
    released : Released
        The released rows (in memory) or their counts (an engine's file).
    verified : ClassTable or None
        The class table rebuilt from the released rows (``None``: nothing released).
    report : dict
        The JSON report (``seconds_total`` included).
    columns : list of ColumnTreatment
        Every input column's treatment, with its level.
    seconds : dict of str to float
        Each step's time.
    """

    plan: Plan
    problem: Any
    outcome: Any
    released: Released
    verified: ClassTable | None
    report: dict[str, Any] = field(default_factory=dict)
    columns: list[Any] = field(default_factory=list)
    seconds: dict[str, float] = field(default_factory=dict)


def run(plan: Plan, rows: Any, *, columns: list[Any] | None = None,
        progress: Callable[[str, int | None, int | None], None] | None = None) -> Run:
    """Run ``plan`` on the rows of ``rows`` (a row back-end), verified, with its report.

    Parameters
    ----------
    plan : Plan
    rows : MemoryRows or EngineRows
        The row back-end: it builds the class table, applies the chosen
        outcome and verifies the released rows (see the module docstring).
    columns : list of ColumnTreatment, optional
        Every input column's treatment, for the report (levels filled in here).
    progress : callable, optional
        ``progress(phase, done, total)`` (:mod:`veil.progress`).

    Raises
    ------
    InfeasibleError, ParameterError, VerificationError
        As for :func:`veil.anonymize`; nothing is released.
    """
    from dataclasses import replace

    from veil.progress import no_progress, search_progress

    start = time.perf_counter()
    phase = progress or no_progress
    seconds: dict[str, float] = {}
    phase("encode", None, None)
    base = rows.class_table(plan, seconds)
    problem = plan.problem(base, rows.dataset, search_progress(phase))
    phase("search", None, None)
    tick = time.perf_counter()
    outcome = search(plan, problem)
    seconds["search"] = time.perf_counter() - tick
    with rows.writing():  # an engine's file is renamed into place only when verified
        phase("apply", None, None)
        tick = time.perf_counter()
        released = rows.apply(plan, problem, outcome)
        seconds["apply"], tick = time.perf_counter() - tick, time.perf_counter()
        phase("verify", None, None)
        verified = rows.verify(plan, problem, outcome, released)
        seconds["verify"] = time.perf_counter() - tick
    columns = [replace(c, level=outcome.transformation.get(c.name)) for c in columns or []]
    report = pipeline_report(plan, problem, outcome, released, verified, columns, dataset=rows.dataset)
    rows.finish(report, seconds)
    report["seconds_total"] = round(time.perf_counter() - start, 6)
    return Run(plan, problem, outcome, released, verified, report, columns, seconds)
