"""The way back from a class table to rows: a transformation applied to a dataset's records
(:func:`apply_to_rows`, behind :meth:`ClassTable.apply`) and the released rows built straight
from the codes, in release order (:func:`release_rows`).  :mod:`veil.classes._build` is the way in.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from functools import partial
from typing import TYPE_CHECKING

import numpy as np
import pandas as pd

from veil.classes._grouping import SUPPRESSED
from veil.data import side_by_side
from veil.dataset import MISSING, Dataset
from veil.errors import ParameterError

if TYPE_CHECKING:  # the table calls this module; this module only reads the tables it is given
    from veil.classes._table import ClassTable

__all__ = ["apply_to_rows", "release_rows", "row_slots"]


def _check_rows(table: ClassTable, dataset: Dataset) -> None:
    if dataset.n_records != table.n_records:
        raise ParameterError(
            f"The dataset has {dataset.n_records} records but the class table was built "
            f"from {table.n_records}."
        )


def apply_to_rows(table: ClassTable, dataset: Dataset, *, drop_suppressed: bool = False) -> pd.DataFrame:
    """``table``'s transformation on ``dataset``'s rows (see :meth:`ClassTable.apply`)."""
    base = table.base
    _check_rows(table, dataset)
    row_base = base.row_classes()  # a base table maps each record to its own class
    row_class = table.row_classes()
    suppressed = row_class < 0
    from veil.pipeline._rows import text_column

    out = dataset.frame.copy(deep=False)
    for i, (name, h, level) in enumerate(zip(table.quasi_identifiers, table.hierarchies, table.levels)):
        if base.n_classes == 0:  # every record arrived suppressed
            out[name] = text_column(np.zeros(len(out), dtype=np.int32), [SUPPRESSED])
            continue
        # by code: each row's generalized code, '*' appended as the last label
        labels = h.labels[level]
        codes = h.maps[level][base.codes[np.maximum(row_base, 0), i]]
        codes = np.where(suppressed, len(labels), codes)
        out[name] = text_column(codes, list(labels) + [SUPPRESSED])
    if drop_suppressed:
        out = out.loc[~suppressed].reset_index(drop=True)
    return out


def release_rows(table: ClassTable, dataset: Dataset, rows: np.ndarray, columns: Sequence[str], *,
                 blank: np.ndarray | None = None, blanked: Sequence[str] = (),
                 slots: np.ndarray | None = None) -> pd.DataFrame:
    """The released rows ``rows`` of ``dataset`` under ``table``'s transformation, in that order.

    Each quasi-identifier of ``columns`` is built straight from the codes: a
    record reads the label of its class at ``table``'s level, :data:`SUPPRESSED`
    when its class is suppressed, and an empty cell (missing) where that label
    is :data:`~veil.dataset.MISSING` (a missing value is released as it came).
    The codes are gathered in release order into a categorical of the labels (no text per
    row), each released column made once, already shuffled; the other columns are the input's,
    taken once.  :meth:`ClassTable.apply` then a take of ``rows`` gives the same cells (with
    the missing label blanked), at twice the memory.

    Parameters
    ----------
    table : ClassTable
        A class table of ``dataset`` (built from its rows), at the chosen levels.
    dataset : Dataset
    rows : numpy.ndarray of int
        Input row positions, in release order (a permutation, or a subset).
    columns : sequence of str
        The released columns, in order.
    blank : numpy.ndarray of bool, optional
        Over ``rows``: the rows whose columns ``blanked`` (not QIs) read :data:`SUPPRESSED`.
    slots : numpy.ndarray, optional
        :func:`row_slots` of ``table`` when made already.

    Returns
    -------
    pandas.DataFrame
        ``len(rows)`` rows, a fresh RangeIndex; QIs as categoricals of their labels, an encoded text column (a
        sensitive one) as a categorical of the values its rows show, the rest as the input has them.

    Raises
    ------
    ParameterError
        ``table`` was not built from ``dataset``'s rows.
    """
    from veil.pipeline._rows import taken_columns

    _check_rows(table, dataset)
    rows = np.asarray(rows, dtype=np.int64)
    index, read = _release_index(table, rows, row_slots(table) if slots is None else slots)
    positions = {name: i for i, name in enumerate(table.quasi_identifiers)}
    others = [name for name in columns if name not in positions]

    def taken() -> dict[str, pd.Series]:  # the other columns (an encoded text one from its codes)
        encoded = {name: dataset.encoded(name) for name in others if dataset.encoded(name) is not None}
        return dict(zip(others, taken_columns(dataset.columns_of(others), rows, encoded=encoded, blank=blank,
                                              blanked=set(blanked))))

    jobs: dict[object, Callable[[], object]] = {name: partial(_released_column, table, positions[name], index, read)
                                                for name in columns if name in positions}
    if others:
        jobs[None] = taken
    made = side_by_side(jobs, len(rows))  # numpy's and Arrow's gathers release the GIL
    # the columns' arrays, not Series: the frame is assembled without aligning an index per column
    out = {name: made[None][name].array if name not in positions else made[name] for name in columns}  # type: ignore[index]
    return pd.DataFrame(out, index=pd.RangeIndex(len(rows)), copy=False)


def row_slots(table: ClassTable) -> np.ndarray:
    """Each input row's class in ``table``, ``n_classes`` (one past the last) when it is suppressed (its
    base class mapped to none, or it arrived so: base class -1, the last slot); in input order."""
    slot = np.append(np.where(table.base_map >= 0, table.base_map, table.n_classes), table.n_classes)
    return slot.take(table.base.row_classes())  # a row in no base class (-1) reads the appended slot


def _release_index(table: ClassTable, rows: np.ndarray, slots: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Each of ``rows``' slot, and which slots some row reads (per class when ``rows`` are every row)."""
    n_classes, index = table.n_classes, slots.take(rows)
    if len(rows) == table.n_records:  # every row, each once
        read = np.append(table.counts > 0, int(table.counts.sum()) < table.n_records)  # a row in no class
    else:
        read = np.bincount(index, minlength=n_classes + 1).astype(np.bool_)
    return index, read


def _released_column(table: ClassTable, i: int, index: np.ndarray, read: np.ndarray) -> pd.Categorical:
    """QI ``i``'s released column: its labels at ``table``'s level (its classes' codes) gathered by each
    row's class (``index``; one past the last: suppressed, ``'*'``), ``read`` the classes some row reads."""
    from veil.pipeline._rows import category_array

    labels = list(table.hierarchies[i].labels[table.levels[i]]) + [SUPPRESSED]
    per_class = np.append(table.codes[:, i], len(labels) - 1)
    return category_array(per_class, labels, missing=MISSING, index=index, read=read)
