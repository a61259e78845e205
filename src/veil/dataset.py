"""A table with its schema, and its encoding to integer codes.

veil touches the rows of a table twice: here, to encode each quasi-identifier
and sensitive column into ``int32`` codes over a small dictionary of labels,
and at the end, to apply the chosen transformation.  Everything in between
works on the class table (:mod:`veil.classes`).

Values are kept as text labels, exactly as read: ``"07401"`` stays a ZIP code
and is never turned into the number 7401.  Numeric and date attributes are
ordered by value when encoded (``"9" < "10"``), so that ordered distances and
interval hierarchies see the right order.
"""

from __future__ import annotations

import csv
import io
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from functools import cached_property
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal

import numpy as np
import pandas as pd

from veil.errors import ColumnNotFoundError, DataFormatError, SchemaError
from veil.schema import Kind, Role, Schema

if TYPE_CHECKING:  # pragma: no cover
    import pyarrow as pa

    from veil.hierarchy import Hierarchy

__all__ = ["Dataset", "EncodedColumn", "MISSING", "DEFAULT_NA_VALUES", "read_csv", "format_labels"]

#: The label of a missing value when missing values are kept as a value of their own.
MISSING = "<missing>"
#: Cell texts read as missing by default.
DEFAULT_NA_VALUES: tuple[str, ...] = ("", "NA", "N/A", "NaN", "nan", "NULL", "null", "None")

MissingPolicy = Literal["value", "error"]


@dataclass(frozen=True, eq=False)
class EncodedColumn:
    """One column as integer codes over a dictionary of labels.

    Attributes
    ----------
    name : str
        The column.
    codes : numpy.ndarray of int32, shape (n_records,)
        ``labels[codes[i]]`` is record ``i``'s value.
    labels : numpy.ndarray of str (object), shape (n_values,)
        The distinct values, in the attribute's order (by value for numeric
        and date kinds, the declared order for ordinal, else lexicographic),
        including declared domain values that do not occur.
    missing_code : int
        The code of :data:`MISSING`, or -1 when the column has no missing value.
    """

    name: str
    codes: np.ndarray
    labels: np.ndarray
    missing_code: int = -1

    @property
    def n_values(self) -> int:
        return len(self.labels)


def format_labels(values: pd.Series) -> pd.Series:
    """Turn values into their text labels: integral floats lose ``.0``, NaN stays NaN."""
    if pd.api.types.is_bool_dtype(values):
        return values.map({True: "True", False: "False"}).astype(object)
    if pd.api.types.is_integer_dtype(values):
        return values.astype("Int64").astype(str).where(values.notna(), np.nan).astype(object)
    if pd.api.types.is_float_dtype(values):
        arr = values.to_numpy(dtype=float)
        out = np.full(arr.shape, np.nan, dtype=object)
        ok = ~np.isnan(arr)
        integral = ok & (np.mod(arr, 1) == 0) & (np.abs(arr) < 2**53)
        out[integral] = arr[integral].astype(np.int64).astype(str)
        rest = ok & ~integral
        out[rest] = arr[rest].astype(str)
        return pd.Series(out, index=values.index, dtype=object)
    if pd.api.types.is_datetime64_any_dtype(values):
        return values.dt.strftime("%Y-%m-%d").astype(object)
    present = values.notna()
    inferred = pd.api.types.infer_dtype(values, skipna=True)
    if inferred in ("string", "empty"):
        return values.astype(object).where(present, np.nan)
    if inferred in ("date", "datetime"):  # datetime.date objects (e.g. Parquet date columns)
        stamps = pd.to_datetime(values.where(present), errors="coerce")
        if stamps.notna().sum() == present.sum():
            return stamps.dt.strftime("%Y-%m-%d").astype(object).where(present, np.nan)
    # other Python objects (decimals, mixed types): their text
    return values.astype(str).astype(object).where(present, np.nan)


def _sort_labels(labels: np.ndarray, kind: Kind, domain: tuple[str, ...] | None, column: str) -> np.ndarray:
    """Order distinct labels as the attribute's kind requires."""
    if domain is not None:
        extra = sorted(set(labels.tolist()) - set(domain))
        if kind is Kind.ORDINAL and extra:
            raise SchemaError(
                f"Column {column!r} has value {extra[0]!r}, which is not in its declared "
                f"ordinal domain; add it to the domain in its place in the order."
            )
        return np.array(list(domain) + extra, dtype=object)
    if kind is Kind.NUMERIC:
        numbers = pd.to_numeric(pd.Series(labels), errors="coerce").to_numpy(dtype=float)
        if np.isnan(numbers).any():
            bad = labels[np.isnan(numbers)][0]
            raise SchemaError(
                f"Column {column!r} is declared numeric but has the non-numeric value {bad!r}."
            )
        return labels[np.lexsort((labels.astype(str), numbers))]
    if kind is Kind.DATE:
        dates = pd.to_datetime(pd.Series(labels), errors="coerce", format="mixed")
        if dates.isna().any():
            bad = labels[dates.isna().to_numpy()][0]
            raise SchemaError(f"Column {column!r} is declared a date but has the value {bad!r}.")
        return labels[np.lexsort((labels.astype(str), dates.to_numpy().astype("int64")))]
    return np.sort(labels.astype(str)).astype(object)


class Dataset:
    """A table with its schema and (optionally) its generalization hierarchies.

    Build one with :meth:`from_csv`, :meth:`from_parquet`, :meth:`from_pandas`
    or :meth:`from_arrow`.  The table is never modified in place.

    Parameters
    ----------
    frame : pandas.DataFrame
        The records.  Its index labels are ignored: results never depend on
        them, nor on row order.
    schema : Schema
        Roles and kinds of the columns.
    hierarchies : mapping of str to Hierarchy, optional
        Generalization hierarchies of quasi-identifiers.
    missing : {"value", "error"}, default "value"
        What a missing value in a quasi-identifier or sensitive column is:
        a value of its own (labelled :data:`MISSING`) or an error naming the
        column and the first rows.  Missing values are never dropped.
    """

    def __init__(
        self,
        frame: pd.DataFrame,
        schema: Schema,
        *,
        hierarchies: Mapping[str, "Hierarchy"] | None = None,
        missing: MissingPolicy = "value",
    ) -> None:
        if missing not in ("value", "error"):
            raise SchemaError(f"The 'missing' parameter must be 'value' or 'error'. Got {missing!r} instead.")
        columns = [str(c) for c in frame.columns]
        duplicated = sorted({c for c in columns if columns.count(c) > 1})
        if duplicated:
            raise SchemaError(
                f"The table has duplicate column names: {', '.join(map(repr, duplicated))}; "
                "rename them so that each column has one name."
            )
        frame = frame.copy(deep=False)
        frame.columns = columns
        frame = frame.reset_index(drop=True)
        for attribute in schema.attributes:
            if attribute.name not in frame.columns:
                raise ColumnNotFoundError(
                    f"The {attribute.role.value} column {attribute.name!r} is not in the table; "
                    f"its columns are: {', '.join(columns)}."
                )
        self._frame = frame
        self.schema = schema
        self.missing: MissingPolicy = missing
        self.hierarchies: dict[str, Hierarchy] = {}
        for name, hierarchy in (hierarchies or {}).items():
            if name not in frame.columns:
                raise ColumnNotFoundError(f"A hierarchy is given for column {name!r}, which is not in the table.")
            self.hierarchies[name] = hierarchy
        self._encoded: dict[str, EncodedColumn] = {}

    # ------------------------------------------------------------------ builders
    @classmethod
    def from_pandas(
        cls,
        frame: pd.DataFrame,
        *,
        quasi_identifiers: Iterable[str] = (),
        sensitive: Iterable[str] = (),
        identifiers: Iterable[str] = (),
        insensitive: Iterable[str] = (),
        kinds: Mapping[str, Kind | str] | None = None,
        domains: Mapping[str, Sequence[str]] | None = None,
        hierarchies: Mapping[str, "Hierarchy"] | None = None,
        missing: MissingPolicy = "value",
    ) -> "Dataset":
        """Wrap a pandas DataFrame (not copied deeply, never modified)."""
        if not isinstance(frame, pd.DataFrame):
            raise SchemaError(f"Expected a pandas DataFrame. Got {type(frame).__name__} instead.")
        columns = [str(c) for c in frame.columns]
        if len(set(columns)) != len(columns):
            cls(frame, Schema(), missing=missing)  # raises the duplicate-column error
        schema = Schema.build(
            columns,
            quasi_identifiers=quasi_identifiers,
            sensitive=sensitive,
            identifiers=identifiers,
            insensitive=insensitive,
            kinds=kinds,
            domains=domains,
        )
        return cls(frame, schema, hierarchies=hierarchies, missing=missing)

    @classmethod
    def from_csv(
        cls,
        path: str | Path,
        *,
        sep: str | None = None,
        encoding: str = "utf-8",
        na_values: Sequence[str] = DEFAULT_NA_VALUES,
        **roles: Any,
    ) -> "Dataset":
        """Read a CSV file (any separator and encoding) as text and wrap it.

        ``sep=None`` detects the separator among ``, ; TAB |``.  Ragged rows
        are an error naming the line.  Keyword arguments other than the
        reading options are those of :meth:`from_pandas`.
        """
        return cls.from_pandas(read_csv(path, sep=sep, encoding=encoding, na_values=na_values), **roles)

    @classmethod
    def from_parquet(cls, path: str | Path, **roles: Any) -> "Dataset":
        """Read a Parquet file and wrap it."""
        path = Path(path)
        if not path.is_file():
            raise DataFormatError(f"No such file: {str(path)!r}.")
        try:
            frame = pd.read_parquet(path)
        except Exception as exc:  # pyarrow raises many types for corrupt files
            raise DataFormatError(f"Cannot read {str(path)!r} as Parquet: {exc}") from exc
        return cls.from_pandas(frame, **roles)

    @classmethod
    def from_arrow(cls, table: "pa.Table", **roles: Any) -> "Dataset":
        """Wrap a pyarrow Table."""
        return cls.from_pandas(table.to_pandas(), **roles)

    @classmethod
    def read(cls, path: str | Path, **options: Any) -> "Dataset":
        """Read a CSV or Parquet file, by its extension."""
        if str(path).lower().endswith((".parquet", ".pq")):
            options.pop("sep", None)
            options.pop("encoding", None)
            options.pop("na_values", None)
            return cls.from_parquet(path, **options)
        return cls.from_csv(path, **options)

    # ------------------------------------------------------------------ accessors
    @property
    def frame(self) -> pd.DataFrame:
        """The records (read-only by convention: edit a copy, or the cached encodings go stale)."""
        return self._frame

    @property
    def columns(self) -> list[str]:
        return list(self._frame.columns)

    @property
    def n_records(self) -> int:
        return len(self._frame)

    def __len__(self) -> int:
        return len(self._frame)

    @property
    def quasi_identifiers(self) -> tuple[str, ...]:
        return self.schema.quasi_identifiers

    @property
    def sensitive(self) -> tuple[str, ...]:
        return self.schema.sensitive

    def __repr__(self) -> str:
        return (
            f"Dataset({self.n_records} records, quasi_identifiers={list(self.quasi_identifiers)}, "
            f"sensitive={list(self.sensitive)})"
        )

    def with_roles(self, **roles: Any) -> "Dataset":
        """The same table under another schema (hierarchies kept where still QIs)."""
        hierarchies = roles.pop("hierarchies", None)
        missing = roles.pop("missing", self.missing)
        dataset = Dataset.from_pandas(self._frame, missing=missing, **roles)
        kept = {k: v for k, v in self.hierarchies.items() if k in dataset.quasi_identifiers}
        kept.update(hierarchies or {})
        dataset.hierarchies = kept
        return dataset

    def with_hierarchies(self, hierarchies: Mapping[str, "Hierarchy"]) -> "Dataset":
        """The same table and schema with these hierarchies added or replaced."""
        merged = dict(self.hierarchies)
        merged.update(hierarchies)
        dataset = Dataset(self._frame, self.schema, hierarchies=merged, missing=self.missing)
        dataset._encoded = self._encoded
        return dataset

    # ------------------------------------------------------------------ encoding
    def labels_of(self, column: str) -> pd.Series:
        """The column as text labels (missing values as NaN)."""
        if column not in self._frame.columns:
            raise ColumnNotFoundError(f"Column {column!r} is not in the table.")
        return format_labels(self._frame[column])

    def encode(self, column: str) -> EncodedColumn:
        """Encode ``column`` to ``int32`` codes (cached).

        Raises
        ------
        ColumnNotFoundError
            ``column`` is not in the table.
        SchemaError
            The column has missing values and ``missing="error"`` (the error
            names up to five rows, 0-based), or a value does not fit its kind.
        """
        cached = self._encoded.get(column)
        if cached is not None:
            return cached
        labels = self.labels_of(column)
        attribute = self.schema[column] if column in self.schema else None
        kind = attribute.kind if attribute else Kind.CATEGORICAL
        domain = attribute.domain if attribute else None
        raw_codes, uniques = pd.factorize(labels, use_na_sentinel=True)
        missing_rows = raw_codes < 0
        uniques = np.asarray(uniques, dtype=object)
        ordered = _sort_labels(uniques, kind, domain, column)
        missing_code = -1
        if missing_rows.any():
            if self.missing == "error":
                rows = np.flatnonzero(missing_rows)[:5].tolist()
                raise SchemaError(
                    f"Column {column!r} has {int(missing_rows.sum())} missing value(s) "
                    f"(first rows, 0-based: {rows}); fill them, or keep them as a value of "
                    "their own with missing='value'."
                )
            missing_code = len(ordered)
            ordered = np.append(ordered, np.array([MISSING], dtype=object))
        remap = np.append(pd.Index(ordered).get_indexer(uniques), missing_code).astype(np.int32)
        codes = remap[raw_codes]  # -1 indexes the appended missing code
        encoded = EncodedColumn(column, codes.astype(np.int32, copy=False), ordered, missing_code)
        self._encoded[column] = encoded
        return encoded

    def describe(self) -> pd.DataFrame:
        """One row per column: inferred kind, distinct values, missing values."""
        rows = []
        for column in self.columns:
            series = self._frame[column]
            missing = int(series.isna().sum())
            distinct = int(series.nunique(dropna=True))
            role = self.schema[column].role.value if column in self.schema else ""
            rows.append(
                {
                    "column": column,
                    "role": role,
                    "kind": infer_kind(series).value,
                    "distinct": distinct,
                    "missing": missing,
                }
            )
        return pd.DataFrame(rows)


def infer_kind(series: pd.Series) -> Kind:
    """Guess a column's kind from its values: numeric, date, else categorical."""
    values = series.dropna()
    if len(values) == 0:
        return Kind.CATEGORICAL
    if pd.api.types.is_numeric_dtype(values) and not pd.api.types.is_bool_dtype(values):
        return Kind.NUMERIC
    if pd.api.types.is_datetime64_any_dtype(values):
        return Kind.DATE
    sample = values.astype(str).head(1000)
    if pd.to_numeric(sample, errors="coerce").notna().all():
        return Kind.NUMERIC
    if sample.str.contains(r"[-/.]", regex=True).all():
        dates = pd.to_datetime(sample, errors="coerce", format="mixed")
        if dates.notna().all():
            return Kind.DATE
    return Kind.CATEGORICAL


def _sniff_separator(path: Path, encoding: str) -> str:
    with open(path, encoding=encoding, newline="") as handle:
        head = handle.read(64 * 1024)
    lines = head.splitlines()[:20]
    if not lines:
        raise DataFormatError(f"{str(path)!r} is empty: a CSV needs at least a header line.")
    best, best_score = ",", -1
    for candidate in (",", ";", "\t", "|"):
        counts = [len(next(csv.reader([line], delimiter=candidate))) for line in lines if line]
        if counts and counts[0] > 1 and len(set(counts)) == 1 and counts[0] > best_score:
            best, best_score = candidate, counts[0]
    if best_score < 0:
        counts = {c: lines[0].count(c) for c in (",", ";", "\t", "|")}
        best = max(counts, key=counts.get)  # type: ignore[arg-type]
    return best


def read_csv(
    path: str | Path,
    *,
    sep: str | None = None,
    encoding: str = "utf-8",
    na_values: Sequence[str] = DEFAULT_NA_VALUES,
) -> pd.DataFrame:
    """Read a CSV file with every column as text.

    Raises
    ------
    DataFormatError
        The file is missing or empty, cannot be decoded with ``encoding``, has
        duplicate header names, or a row has too few or too many fields (the
        message names the line, 1-based, counting the header).
    """
    import pyarrow as pa
    import pyarrow.csv as pacsv

    path = Path(path)
    if not path.is_file():
        raise DataFormatError(f"No such file: {str(path)!r}.")
    try:
        if sep is None:
            sep = _sniff_separator(path, encoding)
        with open(path, encoding=encoding, newline="") as handle:
            header_line = handle.readline()
    except UnicodeDecodeError as exc:
        raise DataFormatError(
            f"{str(path)!r} is not valid {encoding}: {exc.reason} at byte {exc.start}; "
            "pass the file's encoding (e.g. encoding='latin-1')."
        ) from None
    if not header_line.strip():
        raise DataFormatError(f"{str(path)!r} is empty: a CSV needs at least a header line.")
    header = next(csv.reader(io.StringIO(header_line), delimiter=sep))
    duplicated = sorted({c for c in header if header.count(c) > 1})
    if duplicated:
        raise SchemaError(
            f"{str(path)!r} has duplicate column names: {', '.join(map(repr, duplicated))}; "
            "rename them so that each column has one name."
        )
    bad_rows: list[tuple[int | None, int, int]] = []

    def _invalid(row: Any) -> str:
        bad_rows.append((row.number, row.expected_columns, row.actual_columns))
        return "skip"

    try:
        table = pacsv.read_csv(
            path,
            read_options=pacsv.ReadOptions(use_threads=False, encoding=encoding, block_size=1 << 24),
            parse_options=pacsv.ParseOptions(delimiter=sep, invalid_row_handler=_invalid),
            convert_options=pacsv.ConvertOptions(
                column_types={name: pa.string() for name in header},
                null_values=list(na_values),
                strings_can_be_null=True,
                quoted_strings_can_be_null=True,
            ),
        )
    except (pa.ArrowInvalid, UnicodeDecodeError) as exc:
        raise DataFormatError(f"Cannot read {str(path)!r} as CSV: {exc}") from None
    if bad_rows:
        line, expected, actual = bad_rows[0]
        where = f"line {line}" if line is not None else "a row"
        raise DataFormatError(
            f"{str(path)!r}, {where}: expected {expected} fields (separated by {sep!r}) but found "
            f"{actual}; {len(bad_rows)} row(s) are ragged. Fix the file or pass the right separator."
        )
    frame = table.to_pandas()
    return frame
