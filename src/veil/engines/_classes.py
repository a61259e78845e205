"""Build a class table from grouped counts, without the rows.

An engine's :meth:`~veil.engines.Engine.group_count` returns one row per
distinct combination of quasi-identifier and sensitive values with its number
of records.  That is all a :class:`~veil.classes.ClassTable` holds: the
distinct QI tuples (as leaf codes of their hierarchies), how many records
share each, and per-class histograms of each sensitive attribute.  The table
built here equals :meth:`ClassTable.from_dataset` on the full data (the same
classes, counts, histograms, value orders, hierarchies and suppressed
records; the classes come sorted by their leaf codes, whatever order the
engine returned the groups in), so the search, the models and
the metrics cannot tell where it came from.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import numpy as np
import pandas as pd

from veil.classes import ClassTable
from veil.dataset import Dataset
from veil.engines._source import COUNT_COLUMN
from veil.errors import ColumnNotFoundError, SchemaError
from veil.hierarchy import Hierarchy
from veil.schema import Kind

__all__ = ["class_table_from_counts"]


def class_table_from_counts(
    counts: pd.DataFrame,
    *,
    quasi_identifiers: Sequence[str],
    sensitive: Sequence[str] = (),
    hierarchies: Mapping[str, Hierarchy] | None = None,
    kinds: Mapping[str, Kind | str] | None = None,
    domains: Mapping[str, Sequence[str]] | None = None,
    suppressed_rows: np.ndarray | None = None,
) -> ClassTable:
    """The class table of a table known only by its grouped counts.

    Parameters
    ----------
    counts : pandas.DataFrame
        One row per distinct QI and sensitive combination (``None``/NaN when
        missing) with its records in ``count``, as
        :meth:`~veil.engines.Engine.group_count` returns it (repeats add up).
    quasi_identifiers : sequence of str
    sensitive : sequence of str
    hierarchies : mapping of str to Hierarchy, optional
        As for :meth:`ClassTable.from_dataset` (default: flat hierarchies).
    kinds : mapping, optional
        Each attribute's :class:`~veil.schema.Kind` (default categorical).
    domains : mapping of str to sequence of str, optional
        A sensitive attribute's value domain in order, wider than the values present.
    suppressed_rows : numpy.ndarray of bool, optional
        The rows of suppressed records (:meth:`ClassTable.from_dataset`); default: ``*`` in every QI.

    Returns
    -------
    ClassTable
        At level 0, ``*`` in every QI counted as input-suppressed; no row index.

    Raises
    ------
    ColumnNotFoundError, SchemaError, HierarchyError
        A QI or sensitive column, or ``count``, not in ``counts``; a column in both roles, a
        repeated QI, no records, a negative count, or a value that does not fit its kind; a
        value (outside the suppressed records) not covered by its hierarchy.

    Examples
    --------
    >>> import pandas as pd
    >>> counts = pd.DataFrame({"zip": ["476**", "4790*", "4790*"], "disease": ["flu", "flu", "hiv"], "count": [3, 1, 1]})
    >>> classes = class_table_from_counts(counts, quasi_identifiers=["zip"], sensitive=["disease"])
    >>> classes.n_classes, classes.counts.tolist(), classes.n_records
    (2, [3, 2], 5)
    """
    qis, sens = tuple(quasi_identifiers), tuple(sensitive)
    weight = _checked_weights(counts, qis, sens)
    if not (keep_rows := weight > 0).all():
        counts, weight = counts.loc[keep_rows].reset_index(drop=True), weight[keep_rows]
        suppressed_rows = None if suppressed_rows is None else np.asarray(suppressed_rows, dtype=np.bool_)[keep_rows]
    dataset = Dataset.from_pandas(
        _text_labels(counts, qis + sens), quasi_identifiers=qis, sensitive=sens,
        kinds={name: kind for name, kind in (kinds or {}).items() if name in qis + sens},
        domains={name: list(d) for name, d in (domains or {}).items() if name in sens})
    return ClassTable.from_dataset(dataset, hierarchies=dict(hierarchies or {}), weights=weight,  # the one builder
                                   suppressed_rows=suppressed_rows)


def _checked_weights(counts: pd.DataFrame, qis: tuple[str, ...], sens: tuple[str, ...]) -> np.ndarray:
    """The ``count`` column as int64, after checking the columns and the counts."""
    for name in qis + sens + (COUNT_COLUMN,):
        if name not in counts.columns:
            raise ColumnNotFoundError(
                f"Column {name!r} is not in the grouped counts; its columns are: {', '.join(map(str, counts.columns))}."
            )
    both = sorted(set(qis) & set(sens))
    if both:
        raise SchemaError(f"Column {both[0]!r} is both a quasi-identifier and sensitive; a column has one role.")
    if len(set(qis)) != len(qis):
        raise SchemaError("A quasi-identifier is listed twice.")
    weight = pd.to_numeric(counts[COUNT_COLUMN], errors="coerce").to_numpy(dtype=np.float64)
    if np.isnan(weight).any() or (weight < 0).any() or (np.mod(weight, 1) != 0).any():
        raise SchemaError("The 'count' column of the grouped counts must hold non-negative integers.")
    weight = weight.astype(np.int64)
    n = int(weight.sum())
    if n == 0:
        raise SchemaError("The table has no records; there is nothing to analyse.")
    return weight


def _text_labels(counts: pd.DataFrame, names: tuple[str, ...]) -> pd.DataFrame:
    """The columns ``names`` as text labels, None where missing (as Dataset reads them)."""
    frame = pd.DataFrame({name: counts[name].to_numpy(dtype=object) for name in names})
    for name in names:  # text labels, None where missing (as Dataset reads them)
        values = frame[name].to_numpy(dtype=object)
        missing = pd.isna(values)
        frame[name] = pd.Series(np.where(missing, None, values.astype(str)), dtype=object)
    return frame
