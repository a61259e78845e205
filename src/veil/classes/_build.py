"""The one class-table builder: from a table's rows, or from an engine's grouped counts.

:func:`build_fields` is the only pass over rows: it gives the fields of the base
:class:`~veil.classes.ClassTable`, which :func:`veil.classes.build` (behind
:meth:`ClassTable.from_dataset` and :func:`veil.engines.class_table_from_counts`) makes the
table of.  This module knows nothing of the table class, so the layers run one way:
``_grouping`` <- ``_build`` <- ``_table``.  The way back, from a class table to released rows,
is :mod:`veil.classes._release`.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np
import pandas as pd

from veil.classes._grouping import (
    COUNT_BY_COMPARING, all_star_rows, code_counts, dense_space, factorize_keys, group_codes, group_keys, key_space,
    pack_codes, unpack_codes,
)
from veil.classes._histogram import DENSE_VALUES, SensitiveHistogram
from veil.classes._sparse import ClassValueCounts
from veil.data import Kind, complete_text_categorical, sort_labels
from veil.dataset import MISSING, Dataset, EncodedColumn
from veil.errors import ColumnNotFoundError, ParameterError, SchemaError
from veil.hierarchy import Hierarchy

__all__ = ["COUNT_BY_COMPARING", "build_fields", "categorical_codes", "check_roles", "code_counts"]


def build_fields(
    dataset: Dataset,
    *,
    quasi_identifiers: Sequence[str] | None = None,
    sensitive: Sequence[str] | None = None,
    hierarchies: Mapping[str, Hierarchy] | None = None,
    weights: np.ndarray | None = None,
    suppressed_rows: np.ndarray | None = None,
    columns: Mapping[str, pd.Series] | None = None,
) -> dict[str, Any]:
    """The base class table's fields of ``dataset`` (the only pass over its rows), by the names of
    :class:`~veil.classes.ClassTable`'s arguments: from a table's rows, or (``weights``) from grouped counts.

    Parameters
    ----------
    dataset : Dataset
    quasi_identifiers, sensitive : sequence of str, optional
        Default: the dataset's schema.
    hierarchies : mapping, optional
        Hierarchies per QI; default: the dataset's.  A QI without one gets a
        flat hierarchy (its values, then ``*``).  A hierarchy is also used
        for a sensitive attribute (hierarchical t-closeness).
    weights : numpy.ndarray of int64, optional
        Records per row (grouped counts); default one per row.
    suppressed_rows : numpy.ndarray of bool, optional
        Rows left out of the classes, counted as suppressed, their sensitive values
        not read (a release's check passes the rows it knows suppressed).  Default:
        the rows with ``*`` in every QI, whose sensitive values count in the overall.
    columns : mapping of str to pandas.Series, optional
        QI columns of ``dataset`` (a released frame's): a flat one read from its own codes
        when it can be (:func:`categorical_codes`), not encoded; the table is the same.

    Raises
    ------
    ColumnNotFoundError, SchemaError, HierarchyError
        Unknown columns, a column both QI and sensitive, missing values
        with ``missing="error"``, or a value a hierarchy does not cover.
    """
    qis = tuple(dataset.quasi_identifiers if quasi_identifiers is None else quasi_identifiers)
    sens = tuple(dataset.sensitive if sensitive is None else sensitive)
    _check_columns(dataset, qis, sens)
    given = dict(dataset.hierarchies, **(hierarchies or {}))
    w = None if weights is None else np.asarray(weights, dtype=np.int64)
    n = dataset.n_records
    bound, leaves, value_codes, star_rows = _bind_quasi_identifiers(dataset, qis, sens, given, suppressed_rows,
                                                                    columns or {})
    keep = ~star_rows
    every = not star_rows.any()  # no row left out: no filter over the rows
    input_suppressed = int(star_rows.sum() if w is None else w[star_rows].sum())
    kept = None if w is None else w if every else w[keep]
    codes, inverse = _group(leaves, value_codes, keep, bound, kept)
    n_classes = len(codes)
    counts = _count(inverse, kept, n_classes)
    row_class = inverse if every else _scattered(inverse, keep)
    return dict(
        quasi_identifiers=qis, hierarchies=tuple(bound), levels=tuple(0 for _ in qis), codes=codes, counts=counts,
        n_records=n if w is None else int(w.sum()), suppressed=input_suppressed, input_suppressed=input_suppressed,
        base=None, base_map=np.arange(n_classes, dtype=np.int64), row_class=row_class if w is None else None,
        sensitive=_histograms(dataset, sens, given, inverse, keep, kept, w, n_classes, whole=suppressed_rows is None),
    )


def _scattered(inverse: np.ndarray, keep: np.ndarray) -> np.ndarray:
    """Each row's class: the kept rows' ``inverse``, -1 for the others."""
    row_class = np.full(len(keep), -1, dtype=np.int64)
    row_class[keep] = inverse
    return row_class


def _count(index: np.ndarray, weights: np.ndarray | None, length: int) -> np.ndarray:
    """``np.bincount`` as int64: integer counts as they are, weighted ones rounded."""
    if weights is None:
        return np.bincount(index, minlength=length).astype(np.int64, copy=False)
    return np.rint(np.bincount(index, weights=weights, minlength=length)).astype(np.int64)


def check_roles(columns: Sequence[str], qis: Sequence[str], sens: Sequence[str]) -> None:
    """Refuse a QI or sensitive attribute that is not one of ``columns``, a column in both roles, or a
    repeated QI."""
    for name in [*qis, *sens]:
        if name not in columns:
            raise ColumnNotFoundError(f"Column {name!r} is not in the table; its columns are: {', '.join(columns)}.")
    both = sorted(set(qis) & set(sens))
    if both:
        raise SchemaError(
            f"Column {both[0]!r} is both a quasi-identifier and sensitive; a column has one role."
        )
    if len(set(qis)) != len(qis):
        raise SchemaError("A quasi-identifier is listed twice.")


def _check_columns(dataset: Dataset, qis: tuple[str, ...], sens: tuple[str, ...]) -> None:
    """:func:`check_roles`, and refuse an empty table."""
    check_roles(dataset.columns, qis, sens)
    if dataset.n_records == 0:
        raise SchemaError("The table has no records; there is nothing to analyse.")


def _bind_quasi_identifiers(
    dataset: Dataset, qis: tuple[str, ...], sens: tuple[str, ...], given: Mapping[str, Hierarchy],
    suppressed: np.ndarray | None, columns: Mapping[str, pd.Series],
) -> tuple[list[Hierarchy | _Unbound], list[np.ndarray | None], list[np.ndarray], np.ndarray]:
    """Each QI's hierarchy, its leaf code per value code, its per-row value codes, and
    the suppressed rows (``suppressed``; default: ``*`` in every QI).  A flat QI of ``columns``
    read from its own codes (:func:`categorical_codes`) has those as value codes; given the
    suppressed rows, it is bound once its classes are known (:class:`_Unbound`, leaf None)."""
    schema = dataset.schema
    flat = [name for name in qis if name in columns and name not in given]
    unbound = {name: _Unbound(name, *found, schema.kind(name), schema[name].domain if name in schema else None)
               for name in (flat if suppressed is not None else ()) if (found := complete_text_categorical(columns[name]))}
    coded = {name: found for name in flat if name not in unbound and (found := categorical_codes(
        columns[name], name, schema.kind(name), schema[name].domain if name in schema else None))}
    dataset.encode_all([name for name in qis + sens if name not in coded and name not in unbound])  # side by side
    n = dataset.n_records
    bound: list[Hierarchy | _Unbound] = []
    leaves: list[np.ndarray | None] = []
    encodings = [coded[name][0] if name in coded else unbound[name].encoded if name in unbound else dataset.encode(name)
                 for name in qis]
    if suppressed is not None:
        star_rows = np.asarray(suppressed, dtype=np.bool_)
        if star_rows.shape != (n,):
            raise ParameterError(f"suppressed_rows has {star_rows.size} entries for a table of {n} rows.")
    else:
        star_rows = all_star_rows(encodings, n)
    star_at = np.flatnonzero(star_rows)  # few: the suppressed rows
    for name, encoded in zip(qis, encodings):
        if name in unbound:  # its categories that occur outside the suppressed rows: read from the classes
            bound.append(unbound[name])
            leaves.append(None)
            continue
        # only values that occur outside the suppressed rows must be covered
        needed = _occurring(encoded, star_at)
        if name in coded:  # the categories in the encoding's order: bound as that encoding would be
            _, ordered, rank = coded[name]
            in_order = np.zeros(len(ordered), dtype=np.bool_)
            in_order[rank[needed]] = True  # a needed category has rows, so a rank
            hierarchy, leaf = _leaves(name, ordered, -1, in_order, given.get(name), suppressed is None)
            leaf = np.where(rank >= 0, leaf.take(np.maximum(rank, 0)), -1).astype(np.int32)
        else:
            hierarchy, leaf = _leaves(name, encoded.labels, encoded.missing_code, needed, given.get(name),
                                      suppressed is None)
        bound.append(hierarchy)
        leaves.append(leaf)
    return bound, leaves, [e.codes for e in encodings], star_rows


def _leaves(name: str, labels: np.ndarray, missing_code: int, needed: np.ndarray, hierarchy: Hierarchy | None,
            whole: bool) -> tuple[Hierarchy, np.ndarray]:
    """A QI's hierarchy (else flat: the ``needed`` labels, all when ``whole``) and ``labels``' leaf codes."""
    flat = hierarchy is None
    if flat:  # given suppressed rows: the values that occur (not the '*' of those rows alone)
        every = whole or bool(needed.all())
        shown = labels if every else labels[needed]
        hierarchy = Hierarchy.flat(shown.tolist(), name=name)
        flat = hierarchy.n_values(0) == len(shown)  # distinct labels (else looked up below)
    elif hierarchy.name != name:
        hierarchy = hierarchy.renamed(name)
    if missing_code >= 0:
        hierarchy = hierarchy.with_value(MISSING)  # appended last: the other leaves keep their codes
    leaf = np.full(len(labels), -1, dtype=np.int32)
    if flat:
        # the flat hierarchy of the column's own (text, distinct) labels, the needed ones
        # or all: its leaves are those labels in their order
        leaf[needed] = np.flatnonzero(needed) if every else np.arange(int(needed.sum()), dtype=np.int32)
    else:
        leaf[needed] = hierarchy.leaf_index(labels[needed], column=name)
    return hierarchy, leaf


class _Unbound:
    """A released QI's categorical (no missing cell), flat, whose hierarchy is the categories that occur
    outside the suppressed rows: known from the classes once the rows are grouped by its codes, so its
    codes are not counted row by row.  Bound as :func:`categorical_codes` then :func:`_leaves` would."""

    def __init__(self, name: str, codes: np.ndarray, categories: np.ndarray, kind: Kind,
                 domain: tuple[str, ...] | None) -> None:
        self.name, self.categories, self.kind, self.domain = name, categories, kind, domain
        self.encoded = EncodedColumn(name, codes, categories, -1)
        self.size = max(len(categories), 1)

    def bind(self, read: np.ndarray) -> tuple[Hierarchy, np.ndarray]:
        """The flat hierarchy of the categories the codes ``read`` name (the kept rows', or their
        classes'), in their kind's order, and each category's leaf (-1: none)."""
        needed = np.zeros(len(self.categories), dtype=np.bool_)
        needed[read] = True
        ordered, rank = _sorted_places(self.categories, needed, self.kind, self.domain, self.name)
        hierarchy, leaf = _leaves(self.name, ordered, -1, np.ones(len(ordered), dtype=np.bool_), None, False)
        return hierarchy, np.where(rank >= 0, leaf.take(np.maximum(rank, 0)), -1).astype(np.int32)


def categorical_codes(column: pd.Series, name: str, kind: Kind, domain: tuple[str, ...] | None = None,
                      ) -> tuple[EncodedColumn, np.ndarray, np.ndarray] | None:
    """A categorical of text with no missing cell (a released QI) read from its own codes (not
    copied nor remapped): ``(encoded, ordered, rank)``, its encoding in its categories' order,
    the categories some row reads in :meth:`~veil.dataset.Dataset.encode`'s order for ``kind``
    (:func:`~veil.data.sort_labels`) and each one's place there (-1: unread); None for another column."""
    found = complete_text_categorical(column)
    if found is None:  # not a categorical of text, or a missing cell: the encoding's own path
        return None
    codes, categories = found
    counts = code_counts(codes, len(categories))
    used = counts > 0
    ordered, rank = _sorted_places(categories, used, kind, domain, name)
    return EncodedColumn(name, codes, categories, -1, counts, bool(used.all())), ordered, rank


def _sorted_places(categories: np.ndarray, chosen: np.ndarray, kind: Kind, domain: tuple[str, ...] | None,
                   name: str) -> tuple[np.ndarray, np.ndarray]:
    """The ``chosen`` categories sorted as the encoding sorts them for ``kind`` (:func:`~veil.data.sort_labels`),
    and each category's place among them (int32, -1 for one not chosen)."""
    ordered = sort_labels(categories[chosen], kind, domain, name)
    place = {label: i for i, label in enumerate(ordered.tolist())}
    rank = np.full(len(categories), -1, dtype=np.int32)
    rank[chosen] = [place[label] for label in categories[chosen].tolist()]
    return ordered, rank


def _occurring(encoded: EncodedColumn, star_at: np.ndarray) -> np.ndarray:
    """Which of ``encoded``'s values occur outside the rows ``star_at``, from what the encoding knows
    when it can tell (every label some row's, or its counts), else counted."""
    if not len(star_at) and encoded.every_label_occurs:
        return np.ones(encoded.n_values, dtype=np.bool_)
    occurs = encoded.counts.copy() if encoded.counts is not None else (
        np.bincount(encoded.codes, minlength=encoded.n_values))
    if len(star_at):
        occurs -= np.bincount(encoded.codes[star_at], minlength=encoded.n_values)
    return occurs > 0


def _group(
    leaves: list[np.ndarray | None], value_codes: list[np.ndarray], keep: np.ndarray, bound: list[Hierarchy | _Unbound],
    kept: np.ndarray | None,
) -> tuple[np.ndarray, np.ndarray]:
    """The distinct leaf-code combinations of the kept rows and each kept row's class (``kept``: their
    weights, when grouped counts); an unbound QI (:class:`_Unbound`) is bound on the way (``bound`` and
    ``leaves`` are filled in).

    The same as :func:`group_codes` on the kept rows' ``(n, q)`` matrix of leaf
    codes, without the matrix: the rows are grouped by their value codes
    (:func:`_group_values`; a kept row's leaf is a one-to-one function of its value), and
    only the classes' codes are turned into leaf codes.
    """
    unbound = [i for i, h in enumerate(bound) if isinstance(h, _Unbound)]
    grouped = _group_values(leaves, value_codes, keep, bound) if bound else None
    if grouped is None and unbound:  # a key space past 62 bits: bound from the rows' codes, for the matrix
        every = bool(keep.all())
        for i in unbound:
            unbound_qi = bound[i]
            assert isinstance(unbound_qi, _Unbound)
            bound[i], leaves[i] = unbound_qi.bind(value_codes[i] if every else value_codes[i][keep])
        grouped = _group_values(leaves, value_codes, keep, bound)
    radices = [h.n_values(0) for h in bound]  # (every QI bound by now)
    if grouped is not None:
        codes, inverse = grouped
    elif bound:  # a key space past 62 bits: the matrix
        every = bool(keep.all())
        matrix = np.column_stack([leaves[i].take(value_codes[i] if every else value_codes[i][keep])  # type: ignore[union-attr]
                                  for i in range(len(bound))]).astype(np.int32, copy=False)
        codes, inverse = group_codes(matrix, radices)
    else:
        codes, inverse = group_codes(np.zeros((int(keep.sum()), 0), dtype=np.int32), radices)
    n_classes = len(codes)
    if kept is not None and n_classes > 1 and bound:
        # grouped counts: classes in leaf-code order, whatever order the engine
        # returned the groups in (the same input gives the same table, to the bit)
        order = np.lexsort(codes.T[::-1])
        rank = np.empty(n_classes, dtype=np.int64)
        rank[order] = np.arange(n_classes, dtype=np.int64)
        codes, inverse = np.ascontiguousarray(codes[order]), rank[inverse]
    return codes, inverse


def _group_values(
    leaves: list[np.ndarray | None], value_codes: list[np.ndarray], keep: np.ndarray, bound: list[Hierarchy | _Unbound],
) -> tuple[np.ndarray, np.ndarray] | None:
    """:func:`group_keys` of the kept rows' packed leaf codes, from their value codes (None: a key
    space past 62 bits, counting an unbound QI's every category).

    The key is packed straight from the value codes (no gather of leaf codes per row; at 10M
    rows and 8 QIs, 80 MB of key instead of 320 MB of leaf columns).  Distinct leaf codes are
    distinct values, so the classes are the same; their order is made the leaf keys' own: by
    leaf key where :func:`group_keys` would use its dense array, else by first row (the hash
    table's order, which only the partition decides).  An unbound QI is bound from the
    categories its classes read (the kept rows'), then its codes mapped to its leaves.
    """
    sizes = [h.size if isinstance(h, _Unbound) else max(len(leaf), 1) for h, leaf in zip(bound, leaves)]  # type: ignore[arg-type]
    space = key_space([h.size if isinstance(h, _Unbound) else h.n_values(0) for h in bound])  # at most this
    if key_space(sizes) >= 1 << 62 or space >= 1 << 62:
        return None
    key = pack_codes(iter(value_codes), sizes)
    if not keep.all():
        key = key[keep]  # one filter, not one per QI (a left-out row's leaf may be -1)
    n_kept = len(key)
    dense = dense_space(space, n_kept)  # group_keys' choice for the leaf keys (an unbound QI's: decided below)
    if dense:
        keys, inverse = group_keys(key, key_space(sizes))
    else:
        inverse, keys = factorize_keys(key)
    key = None  # the row-length key is not needed past here
    unbound = [i for i, h in enumerate(bound) if isinstance(h, _Unbound)]
    maps = [np.arange(size, dtype=np.int32) if leaf is None else leaf for leaf, size in zip(leaves, sizes)]
    codes = unpack_codes(keys, sizes, maps=maps)  # each value's leaf, as it is unpacked (int32 divisions when they fit)
    for i in unbound:
        unbound_qi = bound[i]
        assert isinstance(unbound_qi, _Unbound)
        bound[i], leaves[i] = unbound_qi.bind(codes[:, i])  # the categories some class reads
        codes[:, i] = leaves[i].take(codes[:, i])  # type: ignore[union-attr]
    radices = [h.n_values(0) for h in bound]  # type: ignore[union-attr]
    if unbound:  # bound: the leaf key space decides, as it would have from the start
        dense = dense_space(key_space(radices), n_kept)
    if dense and len(codes) > 1:
        leaf_key = pack_codes((codes[:, i].astype(np.int64) for i in range(len(radices))), radices)
        if not bool((np.diff(leaf_key) > 0).all()):  # not in leaf-key order yet
            order = np.argsort(leaf_key, kind="stable")
            rank = np.empty(len(order), dtype=np.int64)
            rank[order] = np.arange(len(order), dtype=np.int64)
            codes, inverse = np.ascontiguousarray(codes[order]), rank[inverse]
    return codes, inverse


def _histograms(
    dataset: Dataset, sens: tuple[str, ...], given: Mapping[str, Hierarchy], inverse: np.ndarray,
    keep: np.ndarray, kept: np.ndarray | None, w: np.ndarray | None, n_classes: int, *, whole: bool,
) -> dict[str, SensitiveHistogram]:
    """Per-class histograms of each sensitive attribute, and its overall distribution:
    every row's (``whole``; ``w`` their weights), or the classes' alone.  A few values are
    counted into a dense matrix, more into the (class, value) pairs that occur."""
    histograms: dict[str, SensitiveHistogram] = {}
    for name in sens:
        encoded = dataset.encode(name)
        v = encoded.n_values
        flat = inverse * v  # then the value added in place: one row-length temporary, not two
        flat += encoded.codes if len(inverse) == len(encoded.codes) else encoded.codes[keep]
        if v <= DENSE_VALUES:
            hist: np.ndarray | ClassValueCounts = _count(flat, kept, n_classes * v).reshape(n_classes, v)
            totals = hist.sum(axis=0)
        else:
            hist = ClassValueCounts.from_keys(flat, kept, n_classes, v)
            totals = hist.value_totals()
        overall = totals if not whole else code_counts(encoded.codes, v) if w is None else (
            np.rint(np.bincount(encoded.codes, weights=w, minlength=v)).astype(np.int64))
        kind = dataset.schema.kind(name)
        hierarchy = given.get(name)
        if hierarchy is not None:
            if encoded.missing_code >= 0:
                hierarchy = hierarchy.with_value(MISSING)
            hierarchy.leaf_index(encoded.labels[overall > 0], column=name)
        histograms[name] = SensitiveHistogram(name, encoded.labels, hist, overall, kind, hierarchy)

    return histograms
