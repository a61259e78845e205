"""The in-memory row back-end of the pipeline: the rows are a pandas frame.

It encodes the dataset into the class table (:meth:`ClassTable.from_dataset`),
applies the algorithm's outcome to the rows (suppressed records dropped,
blanked or kept, only the published columns, rows shuffled) and verifies the
released frame from scratch (:func:`veil.pipeline._recheck.verify`).  Writing the
frame is the caller's, through :class:`veil.pipeline.Outputs`.
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Iterator, Sequence
from concurrent.futures import Future
from dataclasses import dataclass, field
from functools import partial
from typing import Any

import numpy as np
import pandas as pd

from veil.classes import SUPPRESSED, ClassTable
from veil.classes._release import release_rows, row_slots
from veil.data import PARALLEL_ROWS, column_pool
from veil.dataset import MISSING
from veil.errors import InfeasibleError, VerificationError
from veil.pipeline._released import Released
from veil.pipeline._rows import blank_rows, take_rows
from veil.pipeline._suppressed import SuppressedGroup, suppressed_rows

__all__ = ["MemoryRows", "publish", "check_suppression"]


@dataclass
class MemoryRows:
    """The rows of ``dataset`` in memory; ``published`` the columns the release keeps."""

    dataset: Any
    published: Sequence[str]
    #: The release's row order, drawn on the column pool while the class table is built and the
    #: search runs (every row is released: blank or keep); None otherwise, drawn at apply.
    order: Future | None = field(default=None, repr=False)

    def class_table(self, plan: Any, seconds: dict[str, float]) -> ClassTable:
        """The class table of the input (QIs and the plan's sensitive attributes)."""
        n = self.dataset.n_records
        if plan.shuffle and plan.mode != "drop" and n >= PARALLEL_ROWS:  # (drop: its rows known after the search)
            self.order = column_pool().submit(_permutation, n, plan.seed)
        return ClassTable.from_dataset(self.dataset, sensitive=list(plan.sensitive))

    @contextlib.contextmanager
    def writing(self) -> Iterator[None]:
        """Nothing to hold open: the caller writes the verified frame."""
        yield

    def apply(self, plan: Any, problem: Any, outcome: Any) -> Released:
        """The released frame of ``outcome`` (see :func:`publish`), after :func:`check_suppression`."""
        star = outcome.suppressed_rows
        if star is None:  # a local recoding: the records with '*' in every QI
            star = suppressed_rows(outcome.data, self.dataset.quasi_identifiers)
        check_suppression(outcome, star, problem, plan.mode)
        if outcome.data is None and outcome.search is None:
            raise VerificationError(f"The {outcome.algorithm} algorithm returned no rows and no class table. "
                                    "This is a bug in veil; nothing was written.")
        classes = outcome.search.classes if outcome.data is None else None
        data, source_rows = publish(outcome.data, star, self.dataset, plan.mode, self.published,
                                    shuffle=plan.shuffle, seed=plan.seed, classes=classes, order=self.order)
        return Released(records=self.dataset.n_records, records_out=len(data), suppressed=int(star.sum()),
                        data=data, star=star, source_rows=source_rows)

    def verify(self, plan: Any, problem: Any, outcome: Any, released: Released) -> ClassTable:
        """Every model re-checked on the released frame (:func:`veil.pipeline._recheck.verify`)."""
        from veil.pipeline._recheck import verify

        data, label = released.data, plan.label
        if label is not None and label not in data.columns and label in self.dataset.columns:
            # a label withheld from the release: the metrics read it from the input rows (never written)
            data = data.assign(**{label: self.dataset.frame[label].to_numpy()[released.source_rows]})
        models = plan.models
        if outcome.recoding is not None and "missing_rule" in outcome.recoding.details:  # a blank matches any value
            from veil.algorithms.local_suppression import blank_matching
            models = blank_matching(models, outcome.recoding.details)
        if outcome.transformation:  # a population judged in the release's labels
            from veil.models._population import in_release_labels

            models = in_release_labels(models, self.dataset.hierarchies, outcome.transformation)
        return verify(data, self.dataset, models, label=label, suppressed=plan.mode,
                      suppressed_rows=released.star[released.source_rows], missing_sensitive=plan.missing_sensitive)

    def finish(self, report: dict[str, Any], seconds: dict[str, float]) -> None:
        """Nothing to add to the report."""


def check_suppression(outcome: Any, star: np.ndarray, problem: Any, mode: str) -> None:
    """The suppression limit, and (``keep``) the suppressed group, for algorithms
    whose search does not account for them."""
    from veil.pipeline._recheck import verify

    base = problem.base
    newly = int(star.sum()) - int(base.input_suppressed)
    limit = np.floor(problem.suppression_limit * (base.n_records - base.input_suppressed) + 1e-9)
    if newly > limit:
        raise VerificationError(
            f"The {outcome.algorithm} algorithm suppressed {newly} records, more than the "
            f"suppression limit allows. This is a bug in veil; nothing was written."
        )
    group = [m for m in problem.models if isinstance(m, SuppressedGroup)]
    if group and outcome.search is None:
        try:
            verify(outcome.data, problem.dataset, group[0].models, label=None, suppressed="keep")
        except VerificationError:
            raise InfeasibleError(
                f"The records the {outcome.algorithm} algorithm suppressed do not meet "
                f"{group[0].name.removeprefix('suppressed group: ')} as one group, so they cannot be published "
                "with their sensitive values; use suppressed: blank or drop."
            ) from None


def _permutation(n: int, seed: int | None) -> np.ndarray:
    """The release's row order: ``np.random.default_rng(seed).permutation(n)`` (seed None: OS entropy)."""
    return np.random.default_rng(seed).permutation(n)


def _permutation_beside(n: int, seed: int | None, work: Callable[[], Any] | None,
                        drawn: Future | None = None) -> tuple[np.ndarray, Any]:
    """:func:`_permutation` of ``n`` and ``work()``'s result (None without ``work``).  From
    :data:`~veil.data.PARALLEL_ROWS` rows on, the permutation is drawn on the column pool while this
    thread does ``work`` (the shuffle releases the GIL), or was drawn there already (``drawn``); the
    same generator draws it, so a seed gives the same order either way."""
    if drawn is None and (work is None or n < PARALLEL_ROWS):
        return _permutation(n, seed), None if work is None else work()
    if drawn is None:
        drawn = column_pool().submit(_permutation, n, seed)
    if work is None:
        return drawn.result(), None
    try:
        done = work()
    finally:
        order = drawn.result()
    return order, done


def publish(data: pd.DataFrame | None, star: np.ndarray, dataset: Any, mode: str, published: Sequence[str], *,
            shuffle: bool, seed: int | None, classes: ClassTable | None = None,
            order: Future | None = None) -> tuple[pd.DataFrame, np.ndarray]:
    """The released rows: suppressed ones dropped, blanked or kept; the published
    columns only; shuffled.  Returns the table and each row's input row.

    ``data`` is the recoded input (row-aligned); when it is ``None`` the rows
    are built from ``classes``, the class table at the chosen node, straight
    in their released order (:func:`~veil.classes._release.release_rows`: the same
    cells, one copy of the table instead of two).  ``order``: the permutation of every row,
    being drawn already (when every row is released).
    """
    rows = np.flatnonzero(~star) if mode == "drop" else None  # None: every row
    slots = None  # each input row's class, made beside the shuffle
    if shuffle:
        order, slots = _permutation_beside(len(star) if rows is None else len(rows), seed,
                                           None if data is not None or classes is None else partial(row_slots, classes),
                                           order if rows is None else None)
        rows = order if rows is None else rows[order]  # every row's permutation is its own row order
    elif rows is None:
        rows = np.arange(len(star))
    blank = star[rows] if mode == "blank" and star.any() else None
    if data is None:
        assert classes is not None  # the sensitive cells of suppressed rows blanked as they are taken
        out = release_rows(classes, dataset, rows, list(published), blank=blank, blanked=dataset.sensitive,
                           slots=slots)
        blank = None
    else:
        out = take_rows(data.loc[:, list(published)], rows)  # one take per column, drop and shuffle together
        for name in dataset.quasi_identifiers:  # a missing value is released as an empty cell, as it came
            missing = (out[name] == MISSING).to_numpy(dtype=bool, na_value=False) if name in out.columns else None
            if missing is not None and missing.any():
                out[name] = blank_rows(out[name], missing, None)
    if blank is not None:
        for name in dataset.sensitive:
            if name in out.columns:
                out[name] = blank_rows(out[name], blank, SUPPRESSED)
    return out, rows
