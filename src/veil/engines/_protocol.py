"""The engine protocol: the only two data-sized operations of veil.

Everything veil decides (the search, the models, the metrics, the risk
measures) runs on the class table, on one machine, whatever the size of the
data.  Only two operations touch the rows, and an *engine* implements exactly
these two:

``group_count(source, quasi_identifiers, sensitive)``
    "group by these columns, count": one row per distinct combination of the
    quasi-identifier and sensitive values, with its number of records.  Its
    size is the number of distinct combinations, not of records; the class
    table is built from it (:func:`~veil.engines.class_table_from_counts`).

``apply(source, transformation, suppressed, output, *, shuffle_seed, drop_suppressed, blank, columns)``
    "replace values through small mapping tables, blank out suppressed
    classes, write the result": each QI value is replaced through its mapping
    (original label -> released label), every record of a suppressed class
    gets ``*`` in every QI (or is dropped), the rows are shuffled, and the
    file is written atomically, with only the ``columns`` the release publishes.
"""

from __future__ import annotations

import os
import secrets
from collections.abc import Collection, Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Protocol, runtime_checkable

import numpy as np
import pandas as pd

from veil.dp._predicate import Predicate
from veil.dp._sensitivity import clamping_bounds, missing_fill
from veil.engines._filter import literal_kinds
from veil.engines._output import check_output
from veil.engines._source import Source, as_source
from veil.errors import HierarchyError, ParameterError, SchemaError, VeilError

__all__ = [
    "Engine", "AggregatingEngine", "EngineError", "ApplyResult", "Transformation", "Suppressed", "normalize_apply_arguments", "resolve_seed", "uncovered",
    "selected_columns",
    "parse_uncovered", "UNCOVERED_MARK", "MARK_SEPARATOR",
]

from veil.errors import EngineError  # noqa: E402  (re-exported: part of the engine API)


#: Per quasi-identifier, a mapping from each original label to its released label.
Transformation = Mapping[str, Mapping[str, str]]
#: The suppressed classes: released QI tuples (in the transformation's QI order),
#: or a DataFrame with one column per QI.
Suppressed = Collection[Sequence[str]] | pd.DataFrame


@dataclass(frozen=True)
class ApplyResult:
    """What :meth:`Engine.apply` wrote.

    Attributes
    ----------
    path : pathlib.Path
        The released file.
    records_out : int
        Rows written.
    """

    path: Path
    records_out: int


@runtime_checkable
class Engine(Protocol):
    """What an engine implements: the two data-sized operations.

    ``name`` is the engine's registry name (``local``, ``duckdb``, ``spark``).
    Sources are local CSV (UTF-8, with a header line) or Parquet files, given
    as a path or a :class:`~veil.engines.Source`.

    veil's engines subclass this protocol: they inherit the one :meth:`apply`
    (argument and output checks) and implement only its row work,
    ``_write_released``.
    """

    name: str

    def group_count(
        self,
        source: Source | str | os.PathLike[str],
        quasi_identifiers: Sequence[str],
        sensitive: Sequence[str] = (),
    ) -> pd.DataFrame:
        """The distinct combinations of the columns, with their ``count``.

        Returns
        -------
        pandas.DataFrame
            One column per QI then per sensitive attribute (object dtype: text
            labels, ``None`` for a missing value), and ``count`` (int64).  One
            row per distinct combination, in no particular order.
            Values are text labels as :class:`~veil.dataset.Dataset` reads
            them: CSV cells verbatim (the ``na_values`` texts are missing),
            Parquet values formatted like :func:`veil.dataset.format_labels`.
        """
        ...

    def apply(
        self,
        source: Source | str | os.PathLike[str],
        transformation: Transformation,
        suppressed: Suppressed,
        output: str | os.PathLike[str],
        *,
        shuffle_seed: int | None = None,
        drop_suppressed: bool = False,
        blank: Sequence[str] = (),
        columns: Sequence[str] | None = None,
    ) -> ApplyResult:
        """Write the released table to ``output`` (CSV, or Parquet by extension).

        Each QI of ``transformation`` is replaced through its mapping (a
        missing value through the key :data:`veil.dataset.MISSING`); records
        whose released QI tuple is in ``suppressed``, and records that arrived
        with ``*`` in every QI, get ``*`` in every QI or, with
        ``drop_suppressed``, are left out.  The columns of ``blank`` (the
        sensitive attributes under ``suppressed: blank``) read ``*`` on the
        suppressed records.  Other columns are copied unchanged.  Only the
        columns of ``columns`` are written (default: every column of the
        source), in the source's order: a column left out (an identifier, a
        column the release policy withholds) is never written, and the row
        order is drawn from the written columns only.  Rows are shuffled by a seeded pseudo-random order
        (``shuffle_seed=None`` draws a fresh secret seed).  The file is
        written to a temporary file in the same folder and renamed into
        place; it is never the input.

        This one definition checks the arguments and the output for every
        engine that subclasses :class:`Engine`, then hands the checked
        arguments to the engine's ``_write_released(source, qis, mappings,
        suppressed_rows, out_path, seed, drop_suppressed, blank)``, which writes the
        rows and returns how many it wrote; a selection of columns is passed as
        its keyword ``columns`` (a tuple), and only when it leaves a column out.
        An engine that only follows the protocol structurally implements ``apply`` itself.

        Raises
        ------
        ColumnNotFoundError
            A QI of ``transformation``, a column of ``blank`` or of ``columns`` is not in the source.
        HierarchyError
            A value has no entry in its QI's mapping (names the column and
            the value); nothing is written.
        OutputError
            ``output`` is the input, or its folder is not writable.
        ParameterError
            ``blank`` with ``drop_suppressed``, a QI in ``blank``, or
            ``columns`` without a QI of ``transformation`` or a column of ``blank``.
        """
        source = as_source(source)
        qis, mappings, suppressed_rows = normalize_apply_arguments(source, transformation, suppressed)
        blank = _blanked_columns(source, blank, qis, drop_suppressed)
        selected = selected_columns(source, columns, (*qis, *blank))
        out_path = check_output(output, source.path)
        seed = resolve_seed(shuffle_seed)
        selection = {} if selected == source.columns else {"columns": selected}  # every column: the plain call
        written = self._write_released(  # type: ignore[attr-defined]
            source, qis, mappings, suppressed_rows, out_path, seed, drop_suppressed, blank, **selection)
        return ApplyResult(out_path, int(written))


def _blanked_columns(source: Source, blank: Sequence[str], qis: Sequence[str], drop_suppressed: bool) -> tuple[str, ...]:
    """:meth:`Engine.apply`'s ``blank``, checked: columns of ``source``, no QI, not with ``drop_suppressed``."""
    blank = tuple(str(name) for name in blank)
    if blank and drop_suppressed:
        raise ParameterError("blank and drop_suppressed exclude each other: dropped records have no values.")
    if set(blank) & set(qis):
        raise ParameterError(f"The column {sorted(set(blank) & set(qis))[0]!r} is a quasi-identifier; "
                             "its suppressed records read '*' already.")
    source.require(blank)
    return blank


def selected_columns(source: Source, columns: Sequence[str] | None, required: Sequence[str]) -> tuple[str, ...]:
    """The columns :meth:`Engine.apply` writes: those of ``columns`` (default every column of
    ``source``), in the source's order, checked to hold every column of ``required``.

    Raises
    ------
    ColumnNotFoundError
        A column of ``columns`` is not in the source.
    ParameterError
        ``columns`` names a column twice, or leaves out a column of ``required``.
    """
    if columns is None:
        return tuple(source.columns)
    if isinstance(columns, str):
        raise ParameterError(f"The 'columns' parameter must be a sequence of column names. Got {columns!r} instead.")
    names = [str(name) for name in columns]
    source.require(names)
    if len(set(names)) != len(names):
        twice = next(name for name in names if names.count(name) > 1)
        raise ParameterError(f"The 'columns' parameter names the column {twice!r} twice.")
    missing = [name for name in required if name not in names]
    if missing:
        raise ParameterError(f"The 'columns' parameter leaves out the column {missing[0]!r}, which the release "
                             "writes (a quasi-identifier or a blanked sensitive attribute).")
    return tuple(name for name in source.columns if name in set(names))


class AggregatingEngine(Engine):
    """An :class:`Engine` that also computes the exact aggregates of ``veil query``.

    It inherits the one :meth:`aggregate` (argument checks) and implements only its
    row work, ``_aggregate_rows(source, by, sums, where, kinds)``.
    """

    def aggregate(
        self,
        source: Source | str | os.PathLike[str],
        by: Sequence[str],
        sums: Mapping[str, tuple[float, ...]],
        *,
        where: Predicate | None = None,
    ) -> pd.DataFrame:
        """Per group of ``by``: its ``count`` and, per column of ``sums``, the exact sum of the
        column clamped to its ``(lower, upper[, missing_as])`` on the public fixed-point grid of
        :func:`veil.dp.clamped_fixed_point_sum` (a missing value, NaN included, counts as
        ``missing_as``, by default ``lower``), over the rows that match ``where`` (a
        :mod:`veil.dp` predicate, run in the engine; see :mod:`veil.engines._filter`).
        Every check (the literals' types, the summed columns' type) reads the whole table,
        never only the rows ``where`` selects.

        The grid sum is an int64 of grid steps, rounded half to even like ``numpy.rint``,
        so the result equals the local path's exact sum to the bit.

        Returns
        -------
        pandas.DataFrame
            One column per ``by`` (text labels, ``None`` for a missing value), ``count``
            (int64) and one float column per ``sums``; one row per group present (one row
            in all without ``by``).

        Raises
        ------
        ColumnNotFoundError
            A column is not in the source.
        SchemaError
            A column of ``sums`` is not numeric, or a literal of ``where`` has the wrong
            type for its column.
        ParameterError
            A column both groups (``by``) and is summed: the result would hold two columns
            of one name.
        """
        source = as_source(source)
        both = [name for name in by if name in sums]
        if both:
            raise ParameterError(f"The column {both[0]!r} cannot both group and be summed in one aggregate.")
        kinds = literal_kinds(where) if where is not None else {}
        source.require(list(by) + list(sums) + list(kinds))
        clamps = {name: _clamp(name, bounds) for name, bounds in sums.items()}
        return self._aggregate_rows(source, list(by), clamps, where, kinds)  # type: ignore[attr-defined]


def _clamp(name: str, bounds: Sequence[float]) -> tuple[float, float, float]:
    """``(lower, upper, missing_as)`` of a summed column, checked (``missing_as`` by default ``lower``)."""
    if len(bounds) not in (2, 3):
        raise ParameterError(f"The sum of {name!r} needs (lower, upper) or (lower, upper, missing_as). "
                             f"Got {tuple(bounds)!r} instead.")
    lo, hi = clamping_bounds(bounds[0], bounds[1], "aggregate")
    return lo, hi, missing_fill(bounds[2] if len(bounds) == 3 else None, lo, hi, "aggregate")


def resolve_seed(seed: int | None) -> int:
    """The shuffle seed, checked; ``None`` draws a fresh secret one (62 bits).

    Raises
    ------
    ParameterError
        Not an int in [0, inf) nor None.
    """
    if seed is None:
        return secrets.randbits(62)
    if isinstance(seed, bool) or not isinstance(seed, (int, np.integer)) or seed < 0:
        raise ParameterError(f"The 'shuffle_seed' parameter must be an int in [0, inf) or None. Got {seed!r} instead.")
    return int(seed)


def normalize_apply_arguments(
    source: Source,
    transformation: Transformation,
    suppressed: Suppressed,
) -> tuple[tuple[str, ...], dict[str, dict[str, str]], list[tuple[str, ...]]]:
    """Check ``apply``'s arguments: (QI names, mappings as dicts of str, suppressed tuples).

    Raises
    ------
    ParameterError
        No QI in ``transformation``, or a suppressed tuple of the wrong length.
    ColumnNotFoundError
        A QI is not a column of the source.
    """
    qis = tuple(str(q) for q in transformation)
    if not qis:
        raise ParameterError("The transformation maps no quasi-identifier; give one mapping per QI.")
    source.require(qis)
    mappings = {q: {str(k): str(v) for k, v in transformation[q].items()} for q in qis}
    tuples: list[tuple[str, ...]]
    if isinstance(suppressed, pd.DataFrame):
        missing = [q for q in qis if q not in suppressed.columns]
        if missing:
            raise SchemaError(f"The suppressed classes lack the quasi-identifier column {missing[0]!r}.")
        tuples = list(suppressed[list(qis)].astype(str).itertuples(index=False, name=None))
    else:
        tuples = [tuple(str(v) for v in row) for row in _rows(suppressed)]
    for row in tuples:
        if len(row) != len(qis):
            raise ParameterError(
                f"Each suppressed class must give one released label per quasi-identifier ({len(qis)}). "
                f"Got {len(row)} instead."
            )
    return qis, mappings, sorted(set(tuples))


def _rows(suppressed: Iterable[Sequence[str]]) -> Iterable[Sequence[str]]:
    for row in suppressed:
        if isinstance(row, str):
            raise ParameterError(
                "Each suppressed class must be a tuple of released labels, one per quasi-identifier. "
                "Got a string instead."
            )
        yield row


def uncovered(column: str, value: object) -> HierarchyError:
    """The error for a value that a QI's mapping (its hierarchy) does not cover."""
    return HierarchyError(
        f"The hierarchy of column {column!r} does not cover the value {value!r}; "
        "add a row for it to the hierarchy. Nothing was written."
    )


#: The text an engine raises inside its query for a value a mapping misses:
#: ``MARK + column + SEP + value + SEP`` (parsed back by :func:`parse_uncovered`).
UNCOVERED_MARK = "veil-uncovered@@veil@@"
MARK_SEPARATOR = "@@veil@@"


def parse_uncovered(text: str) -> HierarchyError | None:
    """The :class:`HierarchyError` an engine's error text carries, if it carries one."""
    start = text.find(UNCOVERED_MARK)
    if start < 0:
        return None
    parts = text[start + len(UNCOVERED_MARK):].split(MARK_SEPARATOR)
    if len(parts) < 3:
        return None
    return uncovered(parts[0], parts[1])
