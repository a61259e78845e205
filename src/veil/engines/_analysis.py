"""Library entry points of ``veil risk``, ``veil check`` and ``veil query`` on an engine.

The engine does only the row work: :func:`class_table` asks it for the grouped
counts and builds the class table through the one builder
(:func:`~veil.engines.class_table_from_counts`, i.e.
:meth:`ClassTable.from_dataset` weighted by the counts); the models, the risk
measures and the noise then run on that table, or on the aggregates of
:func:`grouped_aggregates`, on one machine.
"""

from __future__ import annotations

import os
from collections.abc import Mapping, Sequence

from veil.classes import ClassTable
from veil.dataset import DEFAULT_NA_VALUES
from veil.engines._classes import class_table_from_counts
from veil.engines._protocol import Engine
from veil.engines._registry import get_engine
from veil.engines._source import Source
from veil.hierarchy import Hierarchy
from veil.schema import Kind

__all__ = ["class_table"]


def class_table(
    path: str | os.PathLike[str],
    quasi_identifiers: Sequence[str],
    sensitive: Sequence[str] = (),
    *,
    engine: "str | Engine" = "local",
    hierarchies: Mapping[str, Hierarchy] | None = None,
    kinds: Mapping[str, Kind | str] | None = None,
    domains: Mapping[str, Sequence[str]] | None = None,
    sep: str | None = None,
    na_values: Sequence[str] = DEFAULT_NA_VALUES,
) -> ClassTable:
    """The class table of the file at ``path``, its rows grouped by an engine.

    Parameters
    ----------
    path : str or path-like
        A UTF-8 CSV (with a header line) or a Parquet file.
    quasi_identifiers, sensitive : sequence of str
    engine : {"local", "duckdb", "spark"} or Engine
        Who groups and counts the rows; an engine made here from its name is
        closed here.
    hierarchies, kinds, domains
        As :func:`~veil.engines.class_table_from_counts` takes them.
    sep : str, optional
        The CSV separator (default: detected).
    na_values : sequence of str
        CSV cell texts read as missing.

    Returns
    -------
    ClassTable
        Equal to ``ClassTable.from_dataset`` on the whole file read in memory.

    Raises
    ------
    DataFormatError, ColumnNotFoundError, SchemaError, HierarchyError, ParameterError
        As the engine and the builder raise them (one line, naming the column).

    Examples
    --------
    >>> from veil.datasets import adult_path
    >>> classes = class_table(adult_path(), ["sex", "race"], engine="duckdb")
    >>> int(classes.n_records)
    30162
    """
    resolved = get_engine(engine)
    try:
        source = Source.from_path(path, sep=sep, na_values=na_values)
        counts = resolved.group_count(source, list(quasi_identifiers), list(sensitive))
    finally:
        if isinstance(engine, str) and hasattr(resolved, "close"):
            resolved.close()  # an engine made here (a Spark session) is stopped here
    return class_table_from_counts(
        counts, quasi_identifiers=quasi_identifiers, sensitive=sensitive,
        hierarchies=hierarchies, kinds=kinds, domains=domains,
    )
