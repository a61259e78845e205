"""The Spark engine: the two operations as PySpark DataFrame operations.

For data that lives with a Spark cluster: the group-count is a distributed
``groupBy().count()`` whose result (one row per distinct combination) is
collected to the driver; the apply broadcasts the small mapping tables and
the suppressed classes, joins them with the rows, sorts by a seeded hash for
the shuffle and writes one file.  Tested in Spark local mode.
"""

from __future__ import annotations

import contextlib
import functools
import os
import warnings
from collections.abc import Iterator, Mapping, Sequence
from pathlib import Path
from typing import Any

import pandas as pd

from veil.classes import SUPPRESSED
from veil.dataset import MISSING
from veil.dp._predicate import Predicate
from veil.engines._filter import check_literal_types, predicate_column
from veil.engines._output import remove_quietly, write_into
from veil.engines._protocol import MARK_SEPARATOR, UNCOVERED_MARK, AggregatingEngine, EngineError, parse_uncovered
from veil.engines._source import COUNT_COLUMN, Source, as_source
from veil.errors import DataFormatError, VeilError

__all__ = ["SparkEngine"]


@contextlib.contextmanager
def _quiet() -> Iterator[None]:
    """Silence PySpark's warning that it does not fully support pandas >= 3: veil
    moves data between Spark and pandas itself (rows of Python values), never
    through PySpark's pandas conversions."""
    with warnings.catch_warnings():
        warnings.filterwarnings("ignore", message="PySpark does not yet fully support pandas", category=FutureWarning)
        yield


def _import_pyspark():
    try:
        with _quiet():
            import pyspark.sql  # noqa: F401
            from pyspark.sql import SparkSession
            from pyspark.sql import functions as F
            from pyspark.sql import types as T
    except ImportError:
        raise EngineError(
            "The spark engine needs PySpark: install it with `pip install 'veil[spark]'` (and Java 17 or later)."
        ) from None
    return SparkSession, F, T


def _col(F: Any, name: str) -> Any:
    return F.col("`" + name.replace("`", "``") + "`")


def _first_line(exc: BaseException) -> str:
    text = str(exc).strip()
    return text.splitlines()[0] if text else type(exc).__name__


class SparkEngine(AggregatingEngine):
    """Group-count and apply as PySpark DataFrame operations.

    Parameters
    ----------
    spark : pyspark.sql.SparkSession, optional
        The session to use.  Default: the active session, else a new one
        (``master``; the configuration ``spark-submit`` or
        ``spark-defaults.conf`` gives, else ``local[*]``), stopped by
        :meth:`close` (or at the end of a ``with`` block).
    master : str, optional
        The master URL of a new session (e.g. ``"local[2]"``).
    config : mapping of str to str, optional
        Settings of a new session (e.g. ``{"spark.driver.memory": "4g"}``).

    Notes
    -----
    Sources and the output are paths the driver sees (local files or a shared
    filesystem).  CSV files are read as text (every column a string, quoted
    fields RFC 4180 style, a ragged row an error); columns that are neither QI
    nor sensitive are copied verbatim.  The output is one file, written by one
    task after the distributed shuffle (``coalesce(1)``) into a temporary
    folder beside it, then renamed into place.  The shuffle orders rows by
    ``xxhash64(row, seed)``, so it does not depend on the partitioning: the
    same input and seed give the same file.

    Raises
    ------
    EngineError
        PySpark is not installed or the session cannot start (no Java).
    """

    name = "spark"

    def __init__(
        self, spark: Any = None, *, master: str | None = None, config: Mapping[str, str] | None = None
    ) -> None:
        self._spark = spark
        self._owned = False
        self.master = master
        self.config = dict(config or {})

    def __repr__(self) -> str:
        return f"SparkEngine(master={self.master!r})"

    @property
    def spark(self) -> Any:
        """The SparkSession (created on first use)."""
        with _quiet():
            return self._session()

    def _session(self) -> Any:
        if self._spark is None:
            SparkSession, _, _ = _import_pyspark()
            active = SparkSession.getActiveSession()
            if active is not None and self.master is None and not self.config:
                self._spark = active
            else:
                self._spark, self._owned = self._start(SparkSession), True
        return self._spark

    def _start(self, SparkSession: Any) -> Any:
        from pyspark import SparkConf

        builder = SparkSession.builder.appName("veil")
        if self.master is not None:
            builder = builder.master(self.master)
        elif not SparkConf().contains("spark.master"):
            builder = builder.master("local[*]")
        log = Path(__file__).with_name("spark-log4j2.properties").as_uri()
        settings = {
            "spark.ui.enabled": "false",
            "spark.ui.showConsoleProgress": "false",
            "spark.sql.session.timeZone": "UTC",
            **self.config,
        }
        # errors only, never the host name and address Spark's default profile warns about
        java = settings.get("spark.driver.extraJavaOptions", "")
        if "log4j2.configurationFile" not in java:
            settings["spark.driver.extraJavaOptions"] = f"{java} -Dlog4j2.configurationFile={log}".strip()
        for key, value in settings.items():
            builder = builder.config(key, value)
        try:
            session = builder.getOrCreate()
            session.sparkContext.setLogLevel("ERROR")
            return session
        except Exception as exc:  # py4j raises RuntimeError/Exception when Java is missing
            raise EngineError(
                f"Cannot start a Spark session: {_first_line(exc)}. The spark engine needs Java 17 or later "
                "(JAVA_HOME) and PySpark."
            ) from None

    def close(self) -> None:
        """Stop the session if this engine started it."""
        if self._owned and self._spark is not None:
            self._spark.stop()
        self._spark, self._owned = None, False

    def __enter__(self) -> "SparkEngine":
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # -------------------------------------------------------------- reading
    def _read(self, source: Source) -> Any:
        reader = self.spark.read
        if source.format == "parquet":
            return reader.parquet(str(source.path))
        return (
            reader.option("header", True).option("sep", source.sep).option("quote", '"')
            .option("escape", '"').option("mode", "FAILFAST").option("inferSchema", False)
            .option("encoding", "UTF-8").option("enforceSchema", False)
            .option("multiLine", source.quoted)  # a quoted value may hold a line break, as the one reader reads it
            .csv(str(source.path))
        )

    def _label(self, frame: Any, name: str, source: Source) -> Any:
        """Column ``name`` as a text label (null when missing), as
        :class:`~veil.dataset.Dataset` reads it."""
        _, F, T = _import_pyspark()
        c = _col(F, name)
        if source.format == "csv":
            if not source.na_values:
                return c
            return F.when(c.isin(list(source.na_values)), F.lit(None).cast("string")).otherwise(c)
        dtype = frame.schema[name].dataType
        if isinstance(dtype, T.BooleanType):
            return F.when(c, F.lit("True")).when(~c, F.lit("False"))
        if isinstance(dtype, (T.FloatType, T.DoubleType)):
            integral = (c == F.floor(c)) & (F.abs(c) < F.lit(9007199254740992.0))
            return (
                F.when(c.isNull() | F.isnan(c), F.lit(None).cast("string"))
                .when(integral, c.cast("long").cast("string"))
                .otherwise(c.cast("string"))
            )
        if isinstance(dtype, T.DateType):
            return F.date_format(c, "yyyy-MM-dd")
        if isinstance(dtype, T.TimestampType) or type(dtype).__name__ == "TimestampNTZType":
            # to the microsecond, in UTC (the session's time zone), as veil.data.timestamp_labels
            return (F.when(F.date_trunc("day", c) == c, F.date_format(c, "yyyy-MM-dd"))
                    .when(F.unix_micros(c.cast("timestamp")) % 1000000 == 0, F.date_format(c, "yyyy-MM-dd HH:mm:ss"))
                    .otherwise(F.date_format(c, "yyyy-MM-dd HH:mm:ss.SSSSSS")))
        if isinstance(dtype, T.StringType):
            return c
        return c.cast("string")

    def _translate(self, exc: BaseException, source: Source) -> BaseException:
        text = str(exc)
        error = parse_uncovered(text)
        if error is not None:
            return error
        if "Malformed" in text or "MALFORMED" in text:
            return DataFormatError(
                f"Cannot read {str(source.path)!r}: a row is malformed (a ragged row, or the wrong separator "
                f"{source.sep!r}). Fix the file or pass the right separator."
            )
        return exc

    # ----------------------------------------------------------- operations
    def group_count(
        self,
        source: Source | str | os.PathLike[str],
        quasi_identifiers: Sequence[str],
        sensitive: Sequence[str] = (),
    ) -> pd.DataFrame:
        """The distinct (QI..., sensitive...) combinations and their ``count``:
        a distributed ``groupBy().count()`` collected to the driver (see
        :meth:`veil.engines.Engine.group_count`)."""
        with _quiet():
            return self._group_count(as_source(source), list(quasi_identifiers) + list(sensitive))

    def _group_count(self, source: Source, columns: list[str]) -> pd.DataFrame:
        _, F, _ = _import_pyspark()
        source.require(columns)
        try:
            frame = self._read(source)
            if not columns:
                return pd.DataFrame({COUNT_COLUMN: pd.Series([frame.count()], dtype="int64")})
            labelled = frame.select(*[self._label(frame, c, source).alias(c) for c in columns])
            rows = labelled.groupBy(*[_col(F, c) for c in columns]).agg(
                F.count(F.lit(1)).alias("__veil_count")
            ).collect()
        except VeilError:
            raise
        except Exception as exc:
            raise self._translate(exc, source) from None
        out = pd.DataFrame({c: pd.Series([r[i] for r in rows], dtype=object) for i, c in enumerate(columns)})
        out[COUNT_COLUMN] = pd.Series([r[len(columns)] for r in rows], dtype="int64")
        return out

    def _aggregate_rows(
        self, source: Source, by: list[str], sums: dict[str, tuple[float, float, float]],
        where: Predicate | None, kinds: dict[str, set[str]],
    ) -> pd.DataFrame:
        """The row work of :meth:`AggregatingEngine.aggregate`: a distributed ``groupBy().agg()``
        collected to the driver, ``bround`` rounding half to even as ``numpy.rint``."""
        import numpy as np

        from veil.dp._sensitivity import fixed_point_exponent  # the grid of the local path's exact sum

        _, F, _ = _import_pyspark()
        exps = {name: fixed_point_exponent(float(lo), float(hi)) for name, (lo, hi, _) in sums.items()}
        with _quiet():
            try:
                frame = self._filtered(self._read(source), source, where, kinds, list(sums))
                aggs = [F.count(F.lit(1)).alias(COUNT_COLUMN)]
                for i, (name, (lo, hi, fill)) in enumerate(sums.items()):
                    text = self._label(frame, name, source) if source.format == "csv" else _col(F, name)
                    number = F.nanvl(text.try_cast("double"), F.lit(None).cast("double"))  # NaN: missing
                    clipped = F.least(F.greatest(F.coalesce(number, F.lit(float(fill))), F.lit(float(lo))),
                                      F.lit(float(hi)))
                    aggs.append(F.sum(F.bround(clipped * F.lit(2.0 ** exps[name]), 0).cast("long")).alias(f"__s{i}"))
                keys = [self._label(frame, c, source).alias(c) for c in by]
                rows = (frame.groupBy(*keys).agg(*aggs) if by else frame.agg(*aggs)).collect()
            except VeilError:
                raise
            except Exception as exc:
                raise self._translate(exc, source) from None
        out = pd.DataFrame({c: pd.Series([r[c] for r in rows], dtype=object) for c in by})
        out[COUNT_COLUMN] = pd.Series([r[COUNT_COLUMN] for r in rows], dtype="int64")
        for i, name in enumerate(sums):
            steps = np.array([r[f"__s{i}"] or 0 for r in rows], dtype=np.float64)
            out[name] = np.ldexp(steps, -exps[name])
        return out

    def _filtered(self, frame: Any, source: Source, where: Predicate | None, kinds: dict[str, set[str]],
                  summed: list[str]) -> Any:
        """The rows of ``frame`` that match ``where``, after a first pass over the whole table checks the
        literal types and the summed columns (never on the rows the predicate selects)."""
        _, F, _ = _import_pyspark()
        checked = list(dict.fromkeys([*kinds, *summed]))
        labels = {c: self._label(frame, c, source) for c in checked}
        if checked:
            counts = [agg for i, lab in enumerate(labels.values())
                      for agg in (F.count(lab).alias(f"__p{i}"),
                                  (F.count(lab) - F.count(lab.try_cast("double"))).alias(f"__n{i}"))]
            row = frame.agg(*counts).collect()[0]
            check_literal_types(kinds, {c: int(row[f"__n{i}"]) for i, c in enumerate(labels)},
                                {c: int(row[f"__p{i}"]) for i, c in enumerate(labels)}, summed)
        if where is None:
            return frame
        return frame.where(predicate_column(where, lambda c: labels[c], F))

    def _write_released(
        self, source: Source, qis: tuple[str, ...], mappings: dict[str, dict[str, str]],
        suppressed_rows: list[tuple[str, ...]], out_path: Path, seed: int, drop_suppressed: bool,
        blank: tuple[str, ...] = (), columns: tuple[str, ...] | None = None,
    ) -> int:
        """The row work of :meth:`veil.engines.Engine.apply`: broadcast joins with the
        mapping tables and the suppressed classes, ``orderBy(xxhash64(row, seed))``,
        one file; the rows written (only the ``columns``, default every column)."""
        with _quiet():
            return self._write(source, qis, mappings, suppressed_rows, out_path, seed % (1 << 62), drop_suppressed,
                               blank, columns)

    # long because it is the Spark plan and its write, closures over one session
    def _write(
        self,
        source: Source,
        qis: tuple[str, ...],
        mappings: dict[str, dict[str, str]],
        suppressed_rows: list[tuple[str, ...]],
        out_path: Path,
        seed: int,
        drop_suppressed: bool,
        blank: tuple[str, ...] = (),
        selected: tuple[str, ...] | None = None,
    ) -> int:
        _, F, _ = _import_pyspark()
        from pyspark.sql import Observation

        spark = self.spark
        written = [0]

        def build() -> tuple[Any, Any]:
            frame = self._read(source)
            # only the written columns are selected, and hashed for the row order
            columns = list(frame.columns) if selected is None else list(selected)
            labels = {q: self._label(frame, q, source) for q in qis}
            star = functools.reduce(
                lambda a, b: a & b, [F.coalesce(labels[q] == F.lit(SUPPRESSED), F.lit(False)) for q in qis]
            )
            rows = frame.select(
                *[_col(F, c) for c in columns],
                *[labels[q].alias(f"__veil_l{i}") for i, q in enumerate(qis)],
                star.alias("__veil_star"),
                F.xxhash64(*[_col(F, c) for c in columns], F.lit(seed)).alias("__veil_key"),
            )
            for i, q in enumerate(qis):
                table = spark.createDataFrame(
                    list(mappings[q].items()), schema=f"__veil_leaf{i} string, __veil_r{i} string"
                )
                key = F.coalesce(F.col(f"__veil_l{i}"), F.lit(MISSING))
                rows = rows.join(F.broadcast(table), key == F.col(f"__veil_leaf{i}"), "left")
            schema = ", ".join([f"__veil_s{i} string" for i in range(len(qis))] + ["__veil_flag boolean"])
            classes = spark.createDataFrame([(*row, True) for row in suppressed_rows], schema=schema)
            on = functools.reduce(
                lambda a, b: a & b, [F.col(f"__veil_s{i}") == F.col(f"__veil_r{i}") for i in range(len(qis))]
            )
            rows = rows.join(F.broadcast(classes), on, "left")
            sup = F.col("__veil_star") | F.col("__veil_flag").isNotNull()
            out_columns = []
            for c in columns:
                if c in qis:
                    i = qis.index(c)
                    message = F.concat(
                        F.lit(UNCOVERED_MARK + c + MARK_SEPARATOR),
                        F.coalesce(F.col(f"__veil_l{i}"), F.lit(MISSING)),
                        F.lit(MARK_SEPARATOR),
                    )
                    out_columns.append(
                        F.when(sup, F.lit(SUPPRESSED))
                        .when(F.col(f"__veil_r{i}").isNull(), F.raise_error(message))
                        .when(F.col(f"__veil_r{i}") == F.lit(MISSING), F.lit(None).cast("string"))  # released empty
                        .otherwise(F.col(f"__veil_r{i}"))
                        .alias(c)
                    )
                elif c in blank:  # suppressed: blank
                    out_columns.append(F.when(sup, F.lit(SUPPRESSED)).otherwise(_col(F, c).cast("string")).alias(c))
                else:
                    out_columns.append(_col(F, c))
            if drop_suppressed:
                rows = rows.where(~sup)
            released = rows.orderBy("__veil_key").select(*out_columns)
            observation = Observation("veil")
            return released.observe(observation, F.count(F.lit(1)).alias("rows")), observation

        def write(tmp: Path) -> None:
            folder = tmp.with_name(tmp.name + ".parts")
            try:
                released, observation = build()
                writer = released.coalesce(1).write.mode("error")
                if tmp.suffix.lower() in (".parquet", ".pq"):
                    writer.parquet(str(folder))
                    parts = sorted(folder.glob("part-*.parquet")) or sorted(folder.glob("part-*"))
                else:
                    (
                        writer.option("header", True).option("sep", ",").option("quote", '"')
                        .option("escape", '"').option("ignoreLeadingWhiteSpace", False)
                        .option("ignoreTrailingWhiteSpace", False).csv(str(folder))
                    )
                    parts = sorted(folder.glob("part-*.csv")) or sorted(folder.glob("part-*"))
                written[0] = int(observation.get["rows"])
                if len(parts) != 1:
                    raise EngineError(
                        f"Spark wrote {len(parts)} part files for {str(out_path)!r}; expected one."
                    )
                if tmp.suffix.lower() not in (".parquet", ".pq") and parts[0].stat().st_size == 0:
                    # an empty result: Spark writes no header; write it
                    parts[0].write_text(",".join(_csv_field(c) for c in released.columns) + "\n", encoding="utf-8")
                os.replace(parts[0], tmp)
            except VeilError:
                raise
            except Exception as exc:
                raise self._translate(exc, source) from None
            finally:
                remove_quietly(folder)

        write_into(out_path, write)
        return written[0]


def _csv_field(text: str) -> str:
    if any(ch in text for ch in ',"\n\r'):
        return '"' + text.replace('"', '""') + '"'
    return text
