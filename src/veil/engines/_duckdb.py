"""The DuckDB engine: the two operations as SQL over files larger than memory.

DuckDB streams CSV and Parquet files: the group-count is a hash aggregate
whose memory is proportional to the number of distinct combinations, not of
rows; the apply joins each row with small mapping tables and sorts the rows
by a seeded hash for the shuffle, an external (out-of-core) sort that spills
to ``temp_directory`` when the data exceeds ``memory_limit``.
"""

from __future__ import annotations

import contextlib
import os
import shutil
import tempfile
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any

import pandas as pd

from veil.classes import SUPPRESSED
from veil.dataset import MISSING
from veil.dp._predicate import Predicate
from veil.engines._filter import check_literal_types, predicate_sql
from veil.engines._output import write_into
from veil.engines._protocol import MARK_SEPARATOR, UNCOVERED_MARK, AggregatingEngine
from veil.engines._duckdb_read import _ident, _literal, column_types, scan_sql, translate
from veil.engines._source import COUNT_COLUMN, Source, as_source
from veil.errors import ParameterError

__all__ = ["DuckDBEngine", "DEFAULT_MEMORY_LIMIT", "MEMORY_LIMIT_VARIABLE"]

#: DuckDB's memory limit when none is given: bounded whatever the data's size.
DEFAULT_MEMORY_LIMIT = "2GB"
#: The environment variable that sets the limit for every command (``VEIL_DUCKDB_MEMORY_LIMIT=8GB``).
MEMORY_LIMIT_VARIABLE = "VEIL_DUCKDB_MEMORY_LIMIT"

#: Joins a class's released labels into one key (labels never contain it in practice).
_KEY_SEPARATOR = "\x1f"



@contextlib.contextmanager
def _folder_beside(tmp: Path) -> Iterator[str]:
    from veil.pipeline import temporary_name

    folder = tmp.with_name(temporary_name(tmp.name, suffix=".spill"))
    folder.mkdir()
    try:
        yield str(folder)
    finally:
        shutil.rmtree(folder, ignore_errors=True)


def _released_check(i: int, q: str, label: str) -> str:
    """QI ``q``'s released cell (``label``: its input value as text in the released query ``g``):
    ``*`` when suppressed, an error naming a value its mapping misses (only rows that reach it),
    empty for a missing value (released as it came), else its mapped label."""
    message = (f"{_literal(UNCOVERED_MARK + q + MARK_SEPARATOR)} || "
               f"coalesce({label}, {_literal(MISSING)}) || {_literal(MARK_SEPARATOR)}")
    return (f"CASE WHEN g.__veil_sup THEN {_literal(SUPPRESSED)} "
            f"WHEN g.__veil_r{i} IS NULL THEN error({message}) "
            f"WHEN g.__veil_r{i} = {_literal(MISSING)} THEN NULL "
            f"ELSE g.__veil_r{i} END AS {_ident(q)}")


def _blanked(columns: Sequence[str]) -> list[str]:
    """``suppressed: blank``: each column reads ``*`` on the suppressed rows (as text, then)."""
    return [f"CASE WHEN g.__veil_sup THEN {_literal(SUPPRESSED)} ELSE CAST(g.{_ident(c)} AS VARCHAR) END AS {_ident(c)}"
            for c in columns]


class DuckDBEngine(AggregatingEngine):
    """Group-count and apply as DuckDB SQL over CSV or Parquet files.

    Parameters
    ----------
    memory_limit : str, optional
        DuckDB's memory limit (e.g. ``"8GB"``); default the environment variable
        ``VEIL_DUCKDB_MEMORY_LIMIT`` if set (so every command, ``veil anonymize
        --engine duckdb`` included, can be given more), else :data:`DEFAULT_MEMORY_LIMIT`
        (``"2GB"``), so that a run stays in bounded memory whatever the size of
        the data (DuckDB's own default is 80% of the machine's RAM: a 100M-row
        shuffle then took 15 GB).  Past it, aggregates and the shuffle's sort
        spill to disk; raise it on a large machine for speed.
    threads : int, optional
        Worker threads; default DuckDB's (one per core).
    temp_directory : str or path-like, optional
        Where spilled data goes; default a fresh folder in the system's
        temporary folder, removed after each operation.  The shuffle of a
        table larger than ``memory_limit`` needs about its size free there.

    Notes
    -----
    CSV files are read as UTF-8 text with every column a string (a ZIP code
    ``07401`` stays ``07401``); a ragged row is an error naming its line.
    Columns that are neither QI nor sensitive are copied to the output
    verbatim.  The shuffle orders rows by ``hash(row, seed)``, so it does not
    depend on the number of threads: the same input and seed give the same
    file.

    Examples
    --------
    >>> DuckDBEngine(memory_limit="1GB").name
    'duckdb'
    """

    name = "duckdb"

    def __init__(
        self,
        *,
        memory_limit: str | None = None,
        threads: int | None = None,
        temp_directory: str | os.PathLike[str] | None = None,
    ) -> None:
        if memory_limit is None:  # every command's engine: the environment may raise the bounded default
            memory_limit = os.environ.get(MEMORY_LIMIT_VARIABLE) or DEFAULT_MEMORY_LIMIT
        from veil._lazy import require

        require("duckdb", feature="the duckdb engine")
        if threads is not None and (isinstance(threads, bool) or not isinstance(threads, int) or threads < 1):
            raise ParameterError(f"The 'threads' parameter of DuckDBEngine must be an int in [1, inf). Got {threads!r} instead.")
        if memory_limit is not None and not isinstance(memory_limit, str):
            raise ParameterError(
                f"The 'memory_limit' parameter of DuckDBEngine must be a str such as '2GB'. Got {memory_limit!r} instead."
            )
        self.memory_limit = memory_limit
        self.threads = threads
        self.temp_directory = None if temp_directory is None else Path(temp_directory)

    def __repr__(self) -> str:
        return f"DuckDBEngine(memory_limit={self.memory_limit!r}, threads={self.threads!r})"

    # -------------------------------------------------------------- plumbing
    def _connect(self, spill: Path):
        import duckdb

        con = duckdb.connect(":memory:")
        try:
            con.execute(f"SET temp_directory = {_literal(str(spill))}")
            con.execute(f"SET memory_limit = {_literal(self.memory_limit)}")
            if self.threads is not None:
                con.execute(f"SET threads = {int(self.threads)}")
            con.execute("SET preserve_insertion_order = true")
        except duckdb.Error as exc:
            con.close()
            raise ParameterError(f"DuckDB refused a setting of DuckDBEngine: {exc}") from None
        return con

    def _spill_dir(self, beside: Path | None = None) -> contextlib.AbstractContextManager[str]:
        """A folder for DuckDB's spilled data and the staging file, removed afterwards.

        Beside a temporary output of the one writer (``beside``) it is named
        like that writer's temporaries, so that if this process is killed the
        next release into the folder sweeps it; otherwise it is a fresh folder
        in ``temp_directory`` or the system's temporary folder.
        """
        base = self.temp_directory
        if base is not None:
            base.mkdir(parents=True, exist_ok=True)
        if base is None and beside is not None and beside.name.startswith("."):
            return _folder_beside(beside)
        return tempfile.TemporaryDirectory(prefix="veil-duckdb-", dir=None if base is None else str(base))

    _scan = staticmethod(scan_sql)
    _types = staticmethod(column_types)

    @staticmethod
    def _label(name: str, type_: str, source: Source, table: str = "") -> str:
        """SQL for column ``name`` (of ``table``) as a text label (NULL when
        missing), as :class:`~veil.dataset.Dataset` reads it (CSV text;
        Parquet values formatted like :func:`veil.dataset.format_labels`)."""
        c = (f"{table}." if table else "") + _ident(name)
        if source.format == "csv":
            if not source.na_values:
                return c
            na = ", ".join(_literal(v) for v in source.na_values)
            return f"CASE WHEN {c} IN ({na}) THEN NULL ELSE {c} END"
        t = type_.upper()
        if t == "BOOLEAN":
            return f"CASE WHEN {c} THEN 'True' WHEN NOT {c} THEN 'False' END"
        if t in ("FLOAT", "DOUBLE", "REAL"):
            return (
                f"CASE WHEN {c} IS NULL OR isnan({c}) THEN NULL "
                f"WHEN {c} = trunc({c}) AND abs({c}) < 9007199254740992 "
                f"THEN CAST(CAST({c} AS BIGINT) AS VARCHAR) ELSE CAST({c} AS VARCHAR) END"
            )
        if t == "DATE":
            return f"strftime({c}, '%Y-%m-%d')"
        if t.startswith("TIMESTAMP"):  # to the microsecond, in UTC, as veil.data.timestamp_labels
            u = f"timezone('UTC', {c})" if "TIME ZONE" in t else f"CAST({c} AS TIMESTAMP)"
            return (f"CASE WHEN {u} = date_trunc('day', {u}) THEN strftime({u}, '%Y-%m-%d') "
                    f"WHEN epoch_us({u}) % 1000000 = 0 THEN strftime({u}, '%Y-%m-%d %H:%M:%S') "
                    f"ELSE strftime({u}, '%Y-%m-%d %H:%M:%S.%f') END")
        if t == "VARCHAR":
            return c
        return f"CAST({c} AS VARCHAR)"

    _translate = staticmethod(translate)

    # ------------------------------------------------------------ operations
    def group_count(
        self,
        source: Source | str | os.PathLike[str],
        quasi_identifiers: Sequence[str],
        sensitive: Sequence[str] = (),
    ) -> pd.DataFrame:
        """The distinct (QI..., sensitive...) combinations and their ``count``,
        as one streaming ``GROUP BY`` (see :meth:`veil.engines.Engine.group_count`)."""
        import duckdb

        source = as_source(source)
        columns = list(quasi_identifiers) + list(sensitive)
        source.require(columns)
        with self._spill_dir() as spill:
            con = self._connect(Path(spill))
            try:
                types = self._types(con, source)
                select = ", ".join(f"{self._label(c, types[c], source)} AS {_ident(c)}" for c in columns)
                group = ", ".join(str(i + 1) for i in range(len(columns)))
                sql = (
                    f"SELECT {select}{', ' if columns else ''}count(*) AS {_ident(COUNT_COLUMN)} "
                    f"FROM {self._scan(source)}" + (f" GROUP BY {group}" if columns else "")
                )
                try:
                    relation = con.sql(sql)
                    fetch = getattr(relation, "to_arrow_table", None) or relation.fetch_arrow_table
                    table = fetch()
                except duckdb.Error as exc:
                    raise self._translate(exc, source) from None
            finally:
                con.close()
        out = pd.DataFrame({
            c: pd.Series(table.column(c).to_pylist(), dtype=object) for c in columns
        })
        out[COUNT_COLUMN] = pd.Series(table.column(COUNT_COLUMN).to_numpy(), dtype="int64")
        return out

    def _aggregate_rows(
        self, source: Source, by: list[str], sums: dict[str, tuple[float, float, float]],
        where: Predicate | None, kinds: dict[str, set[str]],
    ) -> pd.DataFrame:
        """The row work of :meth:`AggregatingEngine.aggregate`: one SQL ``GROUP BY`` (``WHERE`` with
        bound parameters) after a first pass over the whole table checks the types."""
        import duckdb

        import numpy as np

        from veil.dp._sensitivity import fixed_point_exponent  # the grid of the local path's exact sum

        with self._spill_dir() as spill:
            con = self._connect(Path(spill))
            try:
                types = self._types(con, source)
                parts = [self._grid_sum(name, bounds, types[name], source) for name, bounds in sums.items()]
                keys = [f"{self._label(c, types[c], source)} AS {_ident(c)}" for c in by]
                group = f" GROUP BY {', '.join(str(i + 1) for i in range(len(by)))}" if by else ""
                select = ", ".join(keys + [f"count(*) AS {_ident(COUNT_COLUMN)}"] + parts)
                try:
                    condition, params = self._where(con, source, types, where, kinds, list(sums))
                    out = con.execute(f"SELECT {select} FROM {self._scan(source)}{condition}{group}", params).df()
                except duckdb.Error as exc:
                    raise self._translate(exc, source) from None
            finally:
                con.close()
        for name, (lower, upper, _) in sums.items():  # grid steps back to values (no row: 0)
            k = fixed_point_exponent(float(lower), float(upper))
            out[name] = np.ldexp(out[name].fillna(0).to_numpy(dtype=np.float64), -k)
        for c in by:
            out[c] = pd.Series(out[c].to_numpy(dtype=object), dtype=object).where(out[c].notna(), None)
        out[COUNT_COLUMN] = out[COUNT_COLUMN].astype("int64")
        return out

    def _grid_sum(self, name: str, bounds: tuple[float, float, float], type_: str, source: Source) -> str:
        """SQL of the clamped grid sum of ``name``: a missing value, or NaN, counts as the bounds' fill."""
        from veil.dp._sensitivity import fixed_point_exponent

        lo, hi, fill = (float(b) for b in bounds)
        k = fixed_point_exponent(lo, hi)
        text = self._label(name, type_, source) if source.format == "csv" else _ident(name)
        number = f"TRY_CAST({text} AS DOUBLE)"
        value = f"coalesce(CASE WHEN isnan({number}) THEN NULL ELSE {number} END, {fill!r})"
        clipped = f"least(greatest({value}, {lo!r}), {hi!r})"
        return f"sum(CAST(round_even({clipped} * {2.0 ** k!r}, 0) AS BIGINT)) AS {_ident(name)}"

    def _where(self, con: Any, source: Source, types: dict[str, str], where: Predicate | None,
               kinds: dict[str, set[str]], summed: list[str]) -> tuple[str, list[Any]]:
        """`` WHERE ...`` and its parameters, after a first pass over the whole table checks the literal
        types and the summed columns (never on the rows the predicate selects)."""
        checked = list(dict.fromkeys([*kinds, *summed]))
        if checked:
            labels = {c: self._label(c, types[c], source) for c in checked}
            counts = [f"count({lab}), count({lab}) - count(TRY_CAST({lab} AS DOUBLE))" for lab in labels.values()]
            row = con.execute(f"SELECT {', '.join(counts)} FROM {self._scan(source)}").fetchone()
            check_literal_types(kinds, {c: int(row[2 * i + 1]) for i, c in enumerate(labels)},
                                {c: int(row[2 * i]) for i, c in enumerate(labels)}, summed)
        if where is None:
            return "", []
        condition, params = predicate_sql(where, lambda c: labels[c])
        return f" WHERE {condition}", params

    def _write_released(
        self, source: Source, qis: tuple[str, ...], mappings: dict[str, dict[str, str]],
        suppressed_rows: list[tuple[str, ...]], out_path: Path, seed: int, drop_suppressed: bool,
        blank: tuple[str, ...] = (), columns: tuple[str, ...] | None = None,
    ) -> int:
        """The row work of :meth:`veil.engines.Engine.apply`: the rows recoded through joins
        with the mapping tables and the suppressed classes into a staging Parquet file,
        then sorted by ``hash(row, seed)`` into the output; the rows written.  Only the
        ``columns`` (default every column) are read from the source: a column left out is
        in neither the staging file nor the output, nor in the row's hash."""
        import duckdb

        seed %= 1 << 62
        written = [0]

        def write(tmp: Path) -> None:
            with self._spill_dir(beside=tmp) as spill:
                con = self._connect(Path(spill))
                try:
                    self._load_tables(con, qis, mappings, suppressed_rows)
                    stage = Path(spill) / "released.parquet"
                    recode, shuffle = self._apply_sql(con, source, qis, seed, drop_suppressed, stage, tmp, blank,
                                                      columns)
                    try:
                        con.execute(recode)
                        written[0] = int(con.execute(shuffle).fetchone()[0])
                    except duckdb.Error as exc:
                        raise self._translate(exc, source) from None
                finally:
                    con.close()

        write_into(out_path, write)
        return written[0]

    @staticmethod
    def _load_tables(
        con: Any, qis: Sequence[str], mappings: dict[str, dict[str, str]], suppressed_rows: list[tuple[str, ...]]
    ) -> None:
        """The mapping tables ``__veil_map_i(leaf, released)`` and the suppressed
        classes ``__veil_suppressed(k)``, a class as its labels joined by U+001F."""
        import pyarrow as pa

        for i, name in enumerate(qis):
            table = pa.table({
                "leaf": pa.array(list(mappings[name]), type=pa.string()),
                "released": pa.array(list(mappings[name].values()), type=pa.string()),
            })
            con.register("__veil_arrow", table)
            con.execute(f"CREATE TEMP TABLE __veil_map_{i} AS SELECT * FROM __veil_arrow")
            con.unregister("__veil_arrow")
        keys = pa.array([_KEY_SEPARATOR.join(row) for row in suppressed_rows], type=pa.string())
        con.register("__veil_arrow", pa.table({"k": keys}))
        con.execute("CREATE TEMP TABLE __veil_suppressed AS SELECT * FROM __veil_arrow")
        con.unregister("__veil_arrow")

    def _apply_sql(
        self, con: Any, source: Source, qis: Sequence[str], seed: int, drop: bool, stage: Path, tmp: Path,
        blank: Sequence[str] = (), columns: Sequence[str] | None = None,
    ) -> tuple[str, str]:
        """Two statements: recode the rows into a staging Parquet file (streaming,
        with each row's shuffle key), then sort that file by the key into the output.

        Two passes rather than one ``ORDER BY`` over the joins: the sort of a
        plain file spills to disk within ``memory_limit``, while DuckDB was seen
        to run out of memory sorting the output of the joins directly.
        """
        types = self._types(con, source)
        labels = {q: self._label(q, types[q], source, "src") for q in qis}
        star = " AND ".join(f"coalesce({labels[q]} = {_literal(SUPPRESSED)}, false)" for q in qis)
        joins = [f"LEFT JOIN __veil_map_{i} AS m{i} ON m{i}.leaf = coalesce({labels[q]}, {_literal(MISSING)})"
                 for i, q in enumerate(qis)]
        released = [f"m{i}.released AS __veil_r{i}" for i in range(len(qis))]
        checks = [_released_check(i, q, self._label(q, types[q], source, "g")) for i, q in enumerate(qis)]
        checks += _blanked(blank)
        # NULL when a label is (an uncovered value): never a suppressed class, so the error fires
        class_key = " || chr(31) || ".join(f"g0.__veil_r{i}" for i in range(len(qis)))
        helpers = ", ".join([f"__veil_r{i}" for i in range(len(qis))] + ["__veil_sup"])
        written = source.columns if columns is None else columns
        hashed = ", ".join(f"g0.{_ident(c)}" for c in written)
        # only the written columns leave the scan: a withheld column is never staged
        kept = "src.*" if columns is None else ", ".join(f"src.{_ident(c)}" for c in columns)
        # nested subqueries, not CTEs: DuckDB may materialize a CTE in memory
        inner = (
            f"SELECT {kept}, ({star}) AS __veil_star, {', '.join(released)} "
            f"FROM {self._scan(source)} AS src {' '.join(joins)}"
        )
        middle = (
            f"SELECT g0.* EXCLUDE (__veil_star), "
            f"(g0.__veil_star OR coalesce({class_key} IN (SELECT k FROM __veil_suppressed), false)) AS __veil_sup, "
            f"hash({hashed}, {seed}::UBIGINT) AS __veil_key "
            f"FROM ({inner}) AS g0"
        )
        body = (
            f"SELECT g.* EXCLUDE ({helpers}) REPLACE ({', '.join(checks)}) FROM ({middle}) AS g"
            + (" WHERE NOT g.__veil_sup" if drop else "")
        )
        options = ("FORMAT PARQUET" if tmp.suffix.lower() in (".parquet", ".pq")
                   else "FORMAT CSV, HEADER true, DELIMITER ',', QUOTE '\"', ESCAPE '\"'")
        recode = f"COPY ({body}) TO {_literal(str(stage))} (FORMAT PARQUET)"
        shuffle = (
            f"COPY (SELECT * EXCLUDE (__veil_key) FROM read_parquet({_literal(str(stage))}) "
            f"ORDER BY __veil_key) TO {_literal(str(tmp))} ({options})"
        )
        return recode, shuffle
