"""A synthesis over a file through Spark: the encoding as column expressions, the class table by one groupBy.

The same three questions as :mod:`veil.dp.synthesis._engine` (DuckDB), as
PySpark DataFrame operations: the domain checks in one aggregation, a text
column's value counts, and the class table (categories by a map lookup,
numbers clamped and binned, a missing or unknown value its code or the
record left out) by one distributed ``groupBy().count()``.  A value reads as
a number when Spark's ``try_cast`` to double reads it, except a text holding
``_`` and NaN (missing), as on the local path.

As with DuckDB, the class table is counted on Spark before anything reaches
the driver: the grouped frame is persisted (memory, then the executors'
disks) and counted, which scans the file once.  Up to
:attr:`SparkSynthesisSource.max_class_bytes` it is collected; past it, every
1-, 2- and 3-way marginal is summed from the persisted frame by one query of
``GROUPING SETS`` (the same SQL and decoding as DuckDB's,
:func:`~veil.dp.synthesis._marginals.grouping_sets_sql`), and only those
marginals are collected, as :class:`~veil.dp.synthesis._marginals.MarginalQueries`.
One ``GROUPING SETS`` query rather than one group-by per combination: Spark
plans it as one scan of the persisted frame, one ``Expand`` and one
aggregation with one shuffle, where a union of per-combination group-bys
(575 of them for 15 columns) would scan the frame and shuffle once per
combination, in a plan that grows with their number.
"""

from __future__ import annotations

import os
import uuid
import warnings
from typing import Any, Sequence

from veil.dp.synthesis._domain import ColumnDomain, ColumnFacts
from veil.dp.synthesis._marginals import (MAX_CLASS_BYTES, MarginalQueries, arrow_class_table, class_table_bytes,
                                          decode_grouping_sets, grouping_sets_sql)
from veil.dp.synthesis._source import ClassTable
from veil.engines._source import as_source as engine_source_of
from veil.engines._spark import SparkEngine
from veil.errors import VeilError

__all__ = ["SparkSynthesisSource", "arrow_of"]

#: Stored types read differently from text (see :func:`veil.dp.synthesis._domain.check_kinds`).
_KINDS = {"BooleanType": "boolean", "BinaryType": "binary", "DateType": "date", "TimestampType": "timestamp",
          "TimestampNTZType": "timestamp"}
_NUMERIC = ("ByteType", "ShortType", "IntegerType", "LongType", "FloatType", "DoubleType", "DecimalType")


class SparkSynthesisSource(SparkEngine):
    """A CSV or Parquet file as the data of a synthesis, counted by Spark (``spark``: a session to
    use; else one is started, local unless configured).  Past ``max_class_bytes`` of class table
    (counted on Spark first), its marginals are summed on Spark (see the module)."""

    def __init__(self, path: str | os.PathLike[str], *, sep: str | None = None, spark: Any = None,
                 master: str | None = None, config: dict[str, str] | None = None,
                 max_class_bytes: int = MAX_CLASS_BYTES) -> None:
        super().__init__(spark, master=master, config=config)
        self.source = engine_source_of(path, sep=sep)
        self.max_class_bytes = int(max_class_bytes)
        self._frame = None
        self._facts: dict[tuple, dict[str, ColumnFacts]] = {}
        self._kinds: dict[tuple, dict[str, str]] = {}

    @property
    def columns(self) -> list[str]:
        return list(self.source.columns)

    def frame(self) -> Any:
        if self._frame is None:
            self._frame = self._read(self.source)
        return self._frame

    def run(self, build: Any) -> Any:
        """``build()`` (Spark work), its errors in veil's words."""
        try:
            return build()
        except VeilError:
            raise
        except Exception as exc:
            raise self._translate(exc, self.source) from None

    def _numeric_type(self, name: str) -> bool:
        return type(self.frame().schema[name].dataType).__name__ in _NUMERIC

    def label(self, name: str) -> Any:
        return self._label(self.frame(), name, self.source)

    @staticmethod
    def number(label: Any) -> Any:
        """The label as a double, null when it does not read as a number (as ``pd.to_numeric``)."""
        from pyspark.sql import functions as F

        value = label.try_cast("double")
        return F.when(label.contains("_") | F.isnan(value), F.lit(None).cast("double")).otherwise(value)

    def column_facts(self, names: Sequence[str], max_categories: int) -> dict[str, ColumnFacts]:
        """As :meth:`veil.dp.synthesis._engine.DuckDBSynthesisSource.column_facts` (remembered)."""
        memo = (tuple(names), int(max_categories))
        if memo not in self._facts:
            self._facts[memo] = self._column_facts(names, max_categories)
        return self._facts[memo]

    def _column_facts(self, names: Sequence[str], max_categories: int) -> dict[str, ColumnFacts]:
        from pyspark.sql import functions as F

        out = {n: ColumnFacts(True, False, True) for n in names if self._numeric_type(n)}
        names = [n for n in names if n not in out]  # a stored number is numeric: not scanned

        def build() -> Any:
            aggs = []
            for i, name in enumerate(names):
                label = self.label(name)
                aggs += [F.count(label).alias(f"n{i}"),
                         F.count(F.when(label.isNotNull() & self.number(label).isNull(), 1)).alias(f"bad{i}"),
                         F.countDistinct(label).alias(f"k{i}")]
            return self.frame().agg(*aggs).collect()[0]

        row = self.run(build) if names else {}
        for i, name in enumerate(names):
            boolean = type(self.frame().schema[name].dataType).__name__ == "BooleanType"
            numeric = not boolean and row[f"n{i}"] > 0 and row[f"bad{i}"] == 0
            some = not boolean and row[f"n{i}"] > row[f"bad{i}"]
            out[name] = ColumnFacts(numeric, not numeric and row[f"k{i}"] > max_categories, some)
        return out

    def stored_kinds(self, names: Sequence[str]) -> dict[str, str]:
        """As :meth:`veil.dp.synthesis._engine.DuckDBSynthesisSource.stored_kinds`: the columns
        stored as ``BooleanType``, ``BinaryType``, ``DateType`` or a ``Timestamp*Type`` with a present
        value (remembered)."""
        from pyspark.sql import functions as F

        memo = tuple(names)
        if memo not in self._kinds:
            types = {n: type(self.frame().schema[n].dataType).__name__ for n in names}
            typed = {n: _KINDS[t] for n, t in types.items() if t in _KINDS}
            aggs = [F.count(F.col(f"`{n.replace('`', '``')}`")).alias(f"n{i}") for i, n in enumerate(typed)]
            row = self.run(lambda: self.frame().agg(*aggs).collect()[0]) if typed else {}
            self._kinds[memo] = {n: kind for i, (n, kind) in enumerate(typed.items()) if row[f"n{i}"] > 0}
        return self._kinds[memo]

    def value_counts(self, name: str) -> dict[str, int]:
        label = self.label(name)
        rows = self.run(lambda: self.frame().select(label.alias("v")).where("v IS NOT NULL").groupBy("v").count()
                        .collect())
        return {str(r[0]): int(r[1]) for r in rows}

    def encoded(self, dom: ColumnDomain) -> Any:
        """One column's code as a Spark expression (-1: the record is left out)."""
        from pyspark.sql import functions as F

        if dom.categories is not None:
            other = F.lit(len(dom.categories) if dom.learned else -1)
            if not dom.categories:
                return other
            lookup = F.create_map(*[F.lit(x) for i, c in enumerate(dom.categories) for x in (c, i)])
            return F.coalesce(lookup[self.label(dom.name)], other)
        raw = F.col(f"`{dom.name.replace('`', '``')}`")
        value = raw.cast("double") if self._numeric_type(dom.name) else self.number(self.label(dom.name))
        clamped = F.least(F.greatest(value, F.lit(float(dom.low))), F.lit(float(dom.high)))
        scaled = (clamped - F.lit(float(dom.low))) / F.lit(float(dom.high - dom.low)) * F.lit(float(dom.bins))
        code = F.least(F.greatest(F.floor(scaled), F.lit(0)), F.lit(dom.bins - 1)).cast("int")
        return F.when(value.isNull() | F.isnan(value), F.lit(-1)).otherwise(code)

    def class_table(self, domains: list[ColumnDomain],
                    cliques: Sequence[Sequence[int]] = ()) -> ClassTable | MarginalQueries:
        """The class table, counted on Spark before it is collected; past :attr:`max_class_bytes`,
        :class:`~veil.dp.synthesis._marginals.MarginalQueries` summed on Spark instead (see the module)."""
        from pyspark import StorageLevel
        from pyspark.sql import functions as F

        names = [f"c{j}" for j in range(len(domains))]
        sizes = tuple(dom.size for dom in domains)

        def build() -> Any:
            coded = self.frame().select(*[self.encoded(d).alias(n) for d, n in zip(domains, names)])
            kept = coded.where(" AND ".join(f"{n} >= 0" for n in names))
            grouped = kept.groupBy(*names).agg(F.count(F.lit(1)).alias("n")).persist(StorageLevel.MEMORY_AND_DISK)
            view = f"__veil_classes_{uuid.uuid4().hex}"  # a view of the persisted frame: the query reads the cache
            try:
                if class_table_bytes(grouped.count(), len(domains)) <= self.max_class_bytes:
                    return arrow_class_table(arrow_of(grouped), sizes)
                grouped.createOrReplaceTempView(view)
                sql, combos = grouping_sets_sql(view, sizes, cliques=cliques)
                return MarginalQueries(sizes, decode_grouping_sets(arrow_of(self.spark.sql(sql)), sizes, combos))
            finally:
                self.spark.catalog.dropTempView(view)
                grouped.unpersist()

        return self.run(build)


def arrow_of(frame: Any) -> Any:
    """A Spark DataFrame collected to the driver as an Arrow table (``toArrow`` from Spark 4, else
    through pandas)."""
    import pyarrow as pa

    with warnings.catch_warnings():  # PySpark's notes on the pandas version
        warnings.simplefilter("ignore")
        if hasattr(frame, "toArrow"):
            return frame.toArrow()
        return pa.Table.from_pandas(frame.toPandas(), preserve_index=False)
