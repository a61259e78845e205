"""Engines: the only places that touch rows at scale.

veil's search, privacy models, metrics and risk measures run on the class
table, on one machine, whatever the size of the data.  Only two operations
are data-sized, and an :class:`Engine` implements exactly these two:

* :meth:`Engine.group_count` — "group by these columns, count": the distinct
  combinations of the quasi-identifier and sensitive values with their
  number of records, from which :func:`class_table_from_counts` builds the
  class table;
* :meth:`Engine.apply` — "replace values through small mapping tables, blank
  out suppressed classes, write the result": the released file, shuffled,
  written atomically.

Three engines:

============  ==========================================================
``local``     pandas and numpy, the table in memory (:class:`LocalEngine`)
``duckdb``    SQL over CSV/Parquet files larger than memory, streamed by
              DuckDB (:class:`DuckDBEngine`)
``spark``     PySpark DataFrame operations, for data that lives with a
              Spark cluster; tested in local mode (:class:`SparkEngine`)
============  ==========================================================

Each engine also offers ``aggregate(source, by, sums, *, where=None)``, the
exact grouped counts and clamped fixed-point sums (over the rows a ``where``
predicate selects) under ``veil query --engine``; the three engines inherit
``apply`` from :class:`Engine` and ``aggregate`` from :class:`AggregatingEngine`
and implement only the row work.

:func:`class_table` builds the class table of a file through an engine (what
``veil risk`` and ``veil check`` use with ``--engine``).

:func:`anonymize_file` runs the whole job on a file through an engine:
group-count, class table, lattice search, apply, and verification of the
written file from scratch.  See ``docs/engines.md``.
"""

from veil.engines._analysis import class_table
from veil.engines._anonymize import FullDomainRecoding, anonymize_file
from veil.engines._classes import class_table_from_counts
from veil.engines._duckdb import DuckDBEngine
from veil.engines._local import LocalEngine
from veil.engines._protocol import AggregatingEngine, ApplyResult, Engine, EngineError
from veil.engines._registry import ENGINES, get_engine
from veil.engines._source import COUNT_COLUMN, Source
from veil.engines._spark import SparkEngine

__all__ = [
    "Engine",
    "AggregatingEngine",
    "EngineError",
    "ApplyResult",
    "Source",
    "COUNT_COLUMN",
    "LocalEngine",
    "DuckDBEngine",
    "SparkEngine",
    "ENGINES",
    "get_engine",
    "class_table_from_counts",
    "class_table",
    "FullDomainRecoding",
    "anonymize_file",
]
