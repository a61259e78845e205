"""What a row back-end released, and the one report of a release.

Both row back-ends (in memory, :mod:`veil.pipeline._memory`; through an
engine, :mod:`veil.pipeline._engine_rows`) hand back a :class:`Released`; the
report is built from it by :func:`pipeline_report`, which calls
:func:`veil.pipeline._report.release_report` for both.  An engine's rows stay
in its file, so :func:`pipeline_report` is also the adapter that gives
``release_report`` the counts in place of the rows, and says so in the keys
only an engine path has (``achieved``/``risk_after`` ``None`` when every
record was suppressed and dropped).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from veil.classes import ClassTable
from veil.pipeline._report import release_report

__all__ = ["Released", "pipeline_report"]


@dataclass
class Released:
    """The released rows, or their counts when an engine holds them.

    Attributes
    ----------
    records : int
        Records in.
    records_out : int
        Records released.
    suppressed : int
        Suppressed records (``*`` in every QI), dropped or not.
    data : pandas.DataFrame or None
        The released frame (in memory), else ``None``.
    star : numpy.ndarray or None
        Row-aligned with the input: the suppressed records (in memory).
    source_rows : numpy.ndarray or None
        For each released row, its input row (in memory; never written).
    path : pathlib.Path or None
        The engine's written, not yet verified, file.
    """

    records: int
    records_out: int
    suppressed: int
    data: pd.DataFrame | None = None
    star: np.ndarray | None = field(default=None, repr=False)
    source_rows: np.ndarray | None = field(default=None, repr=False)
    path: Path | None = None


def pipeline_report(plan: Any, problem: Any, outcome: Any, released: Released, verified: ClassTable | None,
                    columns: list[Any], dataset: Any = None) -> dict[str, Any]:
    """The JSON report of a release, the same builder for both row back-ends.

    ``dataset`` is the input in memory; without it (an engine) the counts of
    :class:`Released` stand for the rows.
    """
    if released.data is not None:
        return release_report(dataset, plan.models, problem, outcome, verified, released.data, released.star,
                              plan.mode, columns, weights=plan.weights, shuffle=plan.shuffle, seed=plan.seed,
                              missing_sensitive=plan.missing_sensitive)
    # an engine's release: the rows are in its file.  release_report reads the input's
    # size, the rows' number and the suppressed rows' number: the input's class table,
    # a range and an empty mask stand for them, and the counts are set below.  The
    # search's classes stand in for an empty release's (every record suppressed and
    # dropped), whose figures are None
    judged = verified if verified is not None else outcome.search.classes
    report = release_report(problem.base, plan.models, problem, outcome, judged, range(released.records_out),
                            np.zeros(0, dtype=np.bool_), plan.mode, columns, weights=plan.weights,
                            shuffle=plan.shuffle, seed=plan.seed, missing_sensitive=plan.missing_sensitive)
    report.update({"records": released.records, "records_out": released.records_out,
                   "suppressed": released.suppressed, "suppressed_dropped": released.records - released.records_out})
    if verified is None:
        report.update({"achieved": None, "risk_after": None, "classes_released": 0})
    return report
