"""A synthesis over a file through DuckDB: the encoding in SQL, the class table by one GROUP BY.

The rows never leave the engine.  What a synthesis reads of them is, as on the
local path (:class:`veil.dp.synthesis._source.FrameSource`):

* the domain checks (:meth:`DuckDBSynthesisSource.column_facts`): for each
  column without a domain, one scan for whether every present value reads
  as a number and how many distinct values it has, exactly what
  :func:`veil.dp.synthesis._domain.resolve_domains` reads locally;
* the counts of a text column's values, to learn its categories under DP
  (:meth:`~DuckDBSynthesisSource.value_counts`, one group count);
* the class table (:meth:`~DuckDBSynthesisSource.class_table`): every column
  encoded in SQL as :func:`veil.dp.synthesis._domain.encode` encodes it
  (categories by an ``ENUM`` cast, numbers clamped and binned, a missing or
  unknown value its code or the record left out), then one ``GROUP BY`` over
  the codes, into a table of the engine (spilled to disk past the memory
  limit), whose size is counted before anything is fetched.  When it holds
  more than :data:`MAX_CLASS_BYTES`, it is not fetched: every marginal the
  synthesis needs (all 1-, 2- and 3-way) is summed from it in the engine by
  one query of ``GROUPING SETS`` (:class:`MarginalQueries`).  Either way the
  file is scanned once.

The values are read as the engines read them (CSV as text with veil's
missing-value texts, Parquet values formatted as labels), and a value reads
as a number when DuckDB casts it to a double, except a text holding ``_``
(which pandas refuses) and NaN (missing, as pandas has it).
"""

from __future__ import annotations

import contextlib
import os
from pathlib import Path
from typing import Any, Iterator, Sequence

import numpy as np

from veil.dp.synthesis._domain import ColumnDomain, ColumnFacts
from veil.dp.synthesis._marginals import (MAX_CLASS_BYTES, MarginalQueries, MarginalTally, arrow_class_table,
                                          class_table_bytes, decode_grouping_sets, grouping_sets_sql)
from veil.engines._duckdb import DuckDBEngine
from veil.engines._source import as_source as engine_source_of
from veil.errors import ParameterError

__all__ = ["DuckDBSynthesisSource", "MarginalQueries", "MarginalTally", "MAX_CLASS_BYTES", "encoded_sql", "arrow",
           "grouping_sets", "grouping_sets_sql", "decode_grouping_sets", "class_table_bytes", "arrow_class_table",
           "q_ident", "q_text", "q_real", "ENGINES", "check_engine", "synthesis_source"]

_NUMERIC_TYPES = ("TINYINT", "SMALLINT", "INTEGER", "BIGINT", "HUGEINT", "UTINYINT", "USMALLINT", "UINTEGER",
                  "UBIGINT", "FLOAT", "DOUBLE", "REAL")
#: Stored types read differently from text (see :func:`veil.dp.synthesis._domain.check_kinds`).
_KINDS = {"BOOLEAN": "boolean", "BLOB": "binary", "DATE": "date", "TIMESTAMP": "timestamp",
          "TIMESTAMP_NS": "timestamp", "TIMESTAMP_MS": "timestamp", "TIMESTAMP_S": "timestamp",
          "TIMESTAMP WITH TIME ZONE": "timestamp"}


def q_ident(name: str) -> str:
    return '"' + str(name).replace('"', '""') + '"'


def q_text(text: str) -> str:
    return "'" + str(text).replace("'", "''") + "'"


def q_real(x: float) -> str:
    return f"CAST({float(x)!r} AS DOUBLE)"


def _number(label: str) -> str:
    """SQL: the label as a double, NULL when it does not read as a number (as ``pd.to_numeric``)."""
    return (f"(CASE WHEN strpos({label}, '_') > 0 THEN NULL ELSE "
            f"nullif(TRY_CAST({label} AS DOUBLE), CAST('nan' AS DOUBLE)) END)")


def _bin(value: str, dom: ColumnDomain) -> str:
    """SQL: the bin of a double as :func:`veil.dp.synthesis._domain.encode` computes it (-1: missing)."""
    low, high = q_real(dom.low), q_real(dom.high)
    scaled = f"(least(greatest({value}, {low}), {high}) - {low}) / {q_real(dom.high - dom.low)} * {q_real(dom.bins)}"
    return (f"CASE WHEN {value} IS NULL OR isnan({value}) THEN -1 "
            f"ELSE CAST(least(greatest(floor({scaled}), 0), {dom.bins - 1}) AS INTEGER) END")


def encoded_sql(dom: ColumnDomain, label: str, raw: str, raw_type: str, enum: str | None) -> str:
    """SQL for one column's code: ``label`` its text label, ``raw`` the stored column of type
    ``raw_type``, ``enum`` the ENUM type of its categories (None when it has none)."""
    if dom.categories is not None:
        other = len(dom.categories) if dom.learned else -1
        if enum is None:
            return str(other)
        return f"coalesce(CAST(enum_code(TRY_CAST({label} AS {enum})) AS INTEGER), {other})"
    if raw_type.upper() in _NUMERIC_TYPES:
        return _bin(f"CAST({raw} AS DOUBLE)", dom)
    return _bin(_number(label), dom)


class DuckDBSynthesisSource(DuckDBEngine):
    """A CSV or Parquet file as the data of a synthesis, counted by DuckDB (see the module).

    Parameters
    ----------
    path : str or path-like
    sep : str, optional
        The CSV separator (default: detected).
    memory_limit, threads, temp_directory
        As :class:`veil.engines.DuckDBEngine` (default memory limit 2GB: bounded memory).
    max_class_bytes : int
        Past this size of the class table (counted in the engine first), its marginals are summed there.
    """

    def __init__(self, path: str | os.PathLike[str], *, sep: str | None = None, memory_limit: str | None = None,
                 threads: int | None = None, temp_directory: str | os.PathLike[str] | None = None,
                 max_class_bytes: int = MAX_CLASS_BYTES) -> None:
        super().__init__(memory_limit=memory_limit, threads=threads, temp_directory=temp_directory)
        self.source = engine_source_of(path, sep=sep)
        self.max_class_bytes = int(max_class_bytes)
        self._types_cache: dict[str, str] | None = None
        self._facts: dict[tuple, dict[str, ColumnFacts]] = {}
        self._kinds: dict[tuple, dict[str, str]] = {}

    @property
    def columns(self) -> list[str]:
        return list(self.source.columns)

    def close(self) -> None:
        """Nothing to release: each query opens and closes its own connection."""

    # ------------------------------------------------------------ plumbing
    @contextlib.contextmanager
    def connection(self) -> Iterator[Any]:
        """A DuckDB connection with the engine's settings (bounded memory, spill folder), its
        errors in veil's words."""
        import duckdb

        with self._spill_dir() as spill:
            con = self._connect(Path(spill))
            try:
                con.execute("SET enable_progress_bar = false")
                yield con
            except duckdb.Error as exc:
                raise self._translate(exc, self.source) from None
            finally:
                con.close()

    def query(self, sql: str, setup: Sequence[str] = ()) -> Any:
        """Run ``setup`` then ``sql``; the result as an Arrow table."""
        with self.connection() as con:
            for statement in setup:
                con.execute(statement)
            return arrow(con, sql)

    def types(self) -> dict[str, str]:
        if self._types_cache is None:
            with self.connection() as con:
                self._types_cache = self._types(con, self.source)
        return self._types_cache

    def label(self, name: str) -> str:
        return self._label(name, self.types()[name], self.source)

    def scan(self) -> str:
        return self._scan(self.source)

    # ------------------------------------------------------------ the questions of a synthesis
    def column_facts(self, names: Sequence[str], max_categories: int) -> dict[str, ColumnFacts]:
        """For each column: numeric (every present value reads as a number, and there is one), more
        than ``max_categories`` distinct present values, and some present value a number; one scan
        for all but the columns stored as numbers (remembered: the command checks the domains
        before the ledger opens, the synthesis again)."""
        memo = (tuple(names), int(max_categories))
        if memo not in self._facts:
            self._facts[memo] = self._column_facts(names, max_categories)
        return self._facts[memo]

    def _column_facts(self, names: Sequence[str], max_categories: int) -> dict[str, ColumnFacts]:
        out = {n: ColumnFacts(True, False, True) for n in names if self.types()[n].upper() in _NUMERIC_TYPES}
        names = [n for n in names if n not in out]  # a stored number is numeric: not scanned
        parts = []
        for i, name in enumerate(names):
            label = self.label(name)
            parts += [f"count({label}) AS n{i}",
                      f"count(*) FILTER (WHERE {label} IS NOT NULL AND {_number(label)} IS NULL) AS bad{i}",
                      f"count(DISTINCT {label}) AS k{i}"]
        row = self.query(f"SELECT {', '.join(parts)} FROM {self.scan()}").to_pylist()[0] if names else {}
        for i, name in enumerate(names):
            numeric = row[f"n{i}"] > 0 and row[f"bad{i}"] == 0
            if self.types()[name].upper() == "BOOLEAN":
                numeric = False
            out[name] = ColumnFacts(numeric, not numeric and row[f"k{i}"] > max_categories,
                                    row[f"n{i}"] > row[f"bad{i}"])
        return out

    def stored_kinds(self, names: Sequence[str]) -> dict[str, str]:
        """The columns among ``names`` stored as ``BOOLEAN``, ``BLOB``, ``DATE`` or a ``TIMESTAMP``
        with a present value: ``"boolean"``, ``"binary"``, ``"date"`` or ``"timestamp"``, as
        :func:`veil.dp.synthesis._domain.local_kinds` reads a frame (one count, only when there are
        such columns; remembered)."""
        memo = tuple(names)
        if memo not in self._kinds:
            typed = {n: _KINDS[self.types()[n].upper()] for n in names if self.types()[n].upper() in _KINDS}
            counts = ", ".join(f"count({q_ident(n)}) AS n{i}" for i, n in enumerate(typed))
            row = self.query(f"SELECT {counts} FROM {self.scan()}").to_pylist()[0] if typed else {}
            self._kinds[memo] = {n: kind for i, (n, kind) in enumerate(typed.items()) if row[f"n{i}"] > 0}
        return self._kinds[memo]

    def value_counts(self, name: str) -> dict[str, int]:
        """The count of each present value of column ``name`` (as text): one group count."""
        label = self.label(name)
        table = self.query(f"SELECT {label} AS v, count(*) AS n FROM {self.scan()} WHERE {label} IS NOT NULL "
                           "GROUP BY 1")
        return dict(zip(table.column("v").to_pylist(), table.column("n").to_pylist()))

    def encoded(self, domains: list[ColumnDomain]) -> tuple[list[str], str]:
        """The setup statements (ENUM types) and the SELECT of the codes ``c0, c1, ...`` of the
        records kept (no code -1)."""
        setup, exprs = [], []
        for j, dom in enumerate(domains):
            enum = None
            if dom.categories:
                enum = f"__veil_enum_{j}"
                setup.append(f"CREATE TYPE {enum} AS ENUM ({', '.join(q_text(c) for c in dom.categories)})")
            exprs.append(encoded_sql(dom, self.label(dom.name), q_ident(dom.name), self.types()[dom.name], enum))
        select = ", ".join(f"{e} AS c{j}" for j, e in enumerate(exprs))
        keep = " AND ".join(f"c{j} >= 0" for j in range(len(domains)))
        return setup, f"SELECT * FROM (SELECT {select} FROM {self.scan()}) WHERE {keep}"

    def class_table(self, domains: list[ColumnDomain], cliques: Sequence[Sequence[int]] = ()) -> Any:
        """The class table: one GROUP BY over the encoded columns into a table of the engine, whose
        size is counted before it is fetched; past :attr:`max_class_bytes`, :class:`MarginalQueries`
        (every 1-, 2- and 3-way marginal summed from that table by ``GROUPING SETS``) instead."""
        sizes = tuple(d.size for d in domains)
        setup, select = self.encoded(domains)
        codes = ", ".join(f"c{j}" for j in range(len(domains)))
        with self.connection() as con:
            for statement in setup:
                con.execute(statement)
            con.execute(f"CREATE TEMP TABLE __veil_classes AS SELECT {codes}, count(*) AS n FROM ({select}) "
                        "GROUP BY ALL")
            classes = arrow(con, "SELECT count(*) AS m FROM __veil_classes").column("m")[0].as_py()
            if class_table_bytes(classes, len(domains)) > self.max_class_bytes:
                return MarginalQueries(sizes, grouping_sets(con, "__veil_classes", sizes, cliques=cliques))
            return arrow_class_table(arrow(con, f"SELECT {codes}, n FROM __veil_classes"), sizes)


def arrow(con: Any, sql: str) -> Any:
    """The result of ``sql`` as an Arrow table."""
    relation = con.sql(sql)
    fetch = getattr(relation, "to_arrow_table", None) or relation.fetch_arrow_table
    return fetch()


def grouping_sets(con: Any, classes: str, sizes: Sequence[int], max_way: int = 3,
                  cliques: Sequence[Sequence[int]] = ()) -> dict[tuple[int, ...], tuple[np.ndarray, np.ndarray]]:
    """Every 1- to ``max_way``-way marginal of the class table ``classes`` (codes ``c0 …``, counts
    ``n``), and every wider subset of ``cliques``, by one query of ``GROUPING SETS``: per
    combination, its non-empty cells' keys (sorted) and counts."""
    sql, combos = grouping_sets_sql(classes, sizes, max_way, cliques)
    return decode_grouping_sets(arrow(con, sql), sizes, combos)


ENGINES = ("local", "duckdb", "spark")


def check_engine(engine: str, ledger: bool, dataset_name: str | None) -> str:
    """The engine's name (lower case); refused: an unknown engine, and an engine with a ledger file
    but no ``--dataset-name`` (the ledger key would need every record read into memory)."""
    name = str(engine).strip().lower()
    if name not in ENGINES:
        raise ParameterError(f"--engine must be one of {', '.join(ENGINES)}; got {engine!r}.")
    if name != "local" and ledger and not dataset_name:
        raise ParameterError(f"With --engine {name} and --budget-file, give --dataset-name: the ledger key of a "
                             "file counted in an engine is the name the curator declares.")
    return name


def synthesis_source(engine: str, path: str | os.PathLike[str], *, sep: str | None = None) -> Any:
    """The file at ``path`` as the data of a synthesis counted by ``engine`` (duckdb or spark)."""
    if engine == "spark":
        from veil.dp.synthesis._engine_spark import SparkSynthesisSource

        return SparkSynthesisSource(path, sep=sep)
    return DuckDBSynthesisSource(path, sep=sep)
