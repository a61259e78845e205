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

from veil.classes import SUPPRESSED, ClassTable, SensitiveHistogram, _group
from veil.dataset import MISSING, _sort_labels
from veil.engines._source import COUNT_COLUMN
from veil.errors import ColumnNotFoundError, ParameterError, SchemaError
from veil.hierarchy import Hierarchy
from veil.schema import Kind

__all__ = ["class_table_from_counts"]


def _value_order(
    values: np.ndarray, missing: np.ndarray, kind: Kind, domain: Sequence[str] | None, name: str
) -> np.ndarray:
    """The labels of a column in :meth:`Dataset.encode`'s order: by kind (or the
    declared domain first), then :data:`MISSING` last when a value is missing."""
    present = pd.unique(values[~missing]).astype(object)
    base_domain = None
    if domain is not None:
        base_domain = tuple(str(v) for v in domain if str(v) != MISSING)
    order = _sort_labels(np.asarray(present, dtype=object), kind, base_domain, name)
    if missing.any() or (domain is not None and MISSING in [str(v) for v in domain]):
        order = np.append(order, np.array([MISSING], dtype=object))
    return order


def class_table_from_counts(
    counts: pd.DataFrame,
    *,
    quasi_identifiers: Sequence[str],
    sensitive: Sequence[str] = (),
    hierarchies: Mapping[str, Hierarchy] | None = None,
    kinds: Mapping[str, Kind | str] | None = None,
    domains: Mapping[str, Sequence[str]] | None = None,
) -> ClassTable:
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
        counts, weight = counts.loc[keep_rows], weight[keep_rows]
    kinds = {name: Kind(kind) for name, kind in (kinds or {}).items()}
    domains = dict(domains or {})
    given = dict(hierarchies or {})
    m = len(counts)

    columns: dict[str, tuple[np.ndarray, np.ndarray]] = {}
    for name in qis + sens:
        raw = counts[name].to_numpy(dtype=object)
        missing = pd.isna(raw)
        values = np.where(missing, MISSING, raw).astype(object)
        values = np.array([str(v) for v in values], dtype=object) if m else values
        columns[name] = (values, np.asarray(missing, dtype=np.bool_))

    star = np.ones(m, dtype=np.bool_) if qis else np.zeros(m, dtype=np.bool_)
    for name in qis:
        values, missing = columns[name]
        star &= (values == SUPPRESSED) & ~missing
    keep = ~star
    input_suppressed = int(weight[star].sum())

    bound: list[Hierarchy] = []
    leaf_columns: list[np.ndarray] = []
    for name in qis:
        values, missing = columns[name]
        kind = kinds.get(name, Kind.CATEGORICAL)
        hierarchy = given.get(name)
        if hierarchy is None:
            hierarchy = Hierarchy.flat(_value_order(values, missing, kind, None, name).tolist(), name=name)
        elif hierarchy.name != name:
            hierarchy = hierarchy.renamed(name)
        if missing.any():
            hierarchy = hierarchy.with_value(MISSING)
        codes, uniques = pd.factorize(pd.Series(values[keep], dtype=object), sort=False)
        leaf = hierarchy.leaf_index(np.asarray(uniques, dtype=object), column=name)
        bound.append(hierarchy)
        leaf_columns.append(leaf[codes] if len(codes) else np.zeros(0, dtype=np.int32))
    if qis:
        matrix = np.column_stack(leaf_columns).astype(np.int32, copy=False)
    else:
        matrix = np.zeros((int(keep.sum()), 0), dtype=np.int32)
    radices = [h.n_values(0) for h in bound]
    codes, inverse = _group(matrix, radices)
    n_classes = len(codes)
    if n_classes > 1 and qis:
        # classes in leaf-code order, whatever order the engine returned the groups
        # in: the same input always gives the same table, to the last bit of every
        # float computed from it
        order = np.lexsort(codes.T[::-1])
        rank = np.empty(n_classes, dtype=np.int64)
        rank[order] = np.arange(n_classes, dtype=np.int64)
        codes, inverse = np.ascontiguousarray(codes[order]), rank[inverse]
    kept_weight = weight[keep]
    class_counts = np.bincount(inverse, weights=kept_weight, minlength=n_classes)
    class_counts = np.rint(class_counts).astype(np.int64)

    histograms: dict[str, SensitiveHistogram] = {}
    for name in sens:
        values, missing = columns[name]
        kind = kinds.get(name, Kind.CATEGORICAL)
        labels = _value_order(values, missing, kind, domains.get(name), name)
        position = pd.Index(labels).get_indexer(values)
        if (position < 0).any():  # cannot happen: every present value is in the order
            raise ParameterError(f"Internal error: a value of {name!r} has no code.")
        v = len(labels)
        flat = inverse * v + position[keep]
        hist = np.bincount(flat, weights=kept_weight, minlength=n_classes * v)
        hist = np.rint(hist).astype(np.int64).reshape(n_classes, v)
        overall = np.rint(np.bincount(position, weights=weight, minlength=v)).astype(np.int64)
        hierarchy = given.get(name)
        if hierarchy is not None:
            if missing.any():
                hierarchy = hierarchy.with_value(MISSING)
            hierarchy.leaf_index(labels[overall > 0], column=name)
        histograms[name] = SensitiveHistogram(name, labels, hist, overall, kind, hierarchy)

    return ClassTable(
        quasi_identifiers=qis,
        hierarchies=tuple(bound),
        levels=tuple(0 for _ in qis),
        codes=codes,
        counts=class_counts,
        n_records=n,
        suppressed=input_suppressed,
        input_suppressed=input_suppressed,
        base=None,
        base_map=np.arange(n_classes, dtype=np.int64),
        sensitive=histograms,
    )
