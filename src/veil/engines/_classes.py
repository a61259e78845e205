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
) -> ClassTable:
    # long: long for its numpydoc docstring; the body checks the counts and calls the one builder
    """The class table of a table known only by its grouped counts.

    Parameters
    ----------
    counts : pandas.DataFrame
        One row per distinct combination of the QI and sensitive values (text
        labels; ``None``/NaN for a missing value) with its number of records
        in the column ``count``, as :meth:`~veil.engines.Engine.group_count`
        returns it.  A combination may appear on several rows (their counts
        add up).
    quasi_identifiers : sequence of str
    sensitive : sequence of str
    hierarchies : mapping of str to Hierarchy, optional
        One per QI; a QI without one gets a flat hierarchy (its values, then
        ``*``), as in :meth:`ClassTable.from_dataset`.  A hierarchy of a
        sensitive attribute is kept for hierarchical t-closeness.
    kinds : mapping, optional
        Each attribute's :class:`~veil.schema.Kind` (default categorical):
        the order of sensitive values (ordered distances) and of flat QI values.
    domains : mapping of str to sequence of str, optional
        A sensitive attribute's value domain, wider than the values present,
        in its order (as :class:`~veil.schema.Attribute` declares it).

    Returns
    -------
    ClassTable
        At level 0; records with ``*`` in every QI are counted as
        input-suppressed.  It has no row index (:meth:`ClassTable.apply` needs
        the rows: an engine applies the transformation instead).

    Raises
    ------
    ColumnNotFoundError
        A QI or sensitive column, or ``count``, is not in ``counts``.
    SchemaError
        A column is both QI and sensitive, a QI is listed twice, there are no
        records, a count is negative, or a value does not fit its kind.
    HierarchyError
        A value (outside input-suppressed records) is not covered by its
        hierarchy; the error names the column and the value.

    Examples
    --------
    >>> import pandas as pd
    >>> counts = pd.DataFrame({"zip": ["476**", "4790*", "4790*"],
    ...                        "disease": ["flu", "flu", "hiv"], "count": [3, 1, 1]})
    >>> classes = class_table_from_counts(counts, quasi_identifiers=["zip"], sensitive=["disease"])
    >>> classes.n_classes, classes.counts.tolist(), classes.n_records
    (2, [3, 2], 5)
    """
    qis = tuple(quasi_identifiers)
    sens = tuple(sensitive)
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
    keep_rows = weight > 0
    if not keep_rows.all():
        counts, weight = counts.loc[keep_rows].reset_index(drop=True), weight[keep_rows]
    frame = pd.DataFrame({name: counts[name].to_numpy(dtype=object) for name in qis + sens})
    for name in qis + sens:  # text labels, None where missing (as Dataset reads them)
        values = frame[name].to_numpy(dtype=object)
        missing = pd.isna(values)
        frame[name] = pd.Series(np.where(missing, None, values.astype(str)), dtype=object)
    dataset = Dataset.from_pandas(
        frame, quasi_identifiers=qis, sensitive=sens,
        kinds={name: kind for name, kind in (kinds or {}).items() if name in qis + sens},
        domains={name: list(d) for name, d in (domains or {}).items() if name in sens},
    )
    # the one builder, weighted by the groups' counts
    return ClassTable.from_dataset(dataset, hierarchies=dict(hierarchies or {}), weights=weight)
