"""A table with its schema and (optionally) its generalization hierarchies.

veil touches the rows of a table twice: here, to encode each quasi-identifier
and sensitive column into ``int32`` codes over a small dictionary of labels
(:mod:`veil.data._encoding`), and at the end, to apply the chosen
transformation.  Everything in between works on the class table
(:mod:`veil.classes`).

A dataset read from a file keeps the Arrow table the reader produced and
encodes from it directly; the pandas frame is built only when asked for.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from functools import partial
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal

import pandas as pd

from veil.data._encoding import (
    EncodedColumn, TextCodes, categorical_of, encode_values, format_labels, infer_kind, text_codes,
)
from veil.data._pool import side_by_side
from veil.data._reader import DEFAULT_NA_VALUES, PARQUET_SUFFIXES, read_table
from veil.data._schema import Kind, Schema
from veil.errors import ColumnNotFoundError, SchemaError

if TYPE_CHECKING:  # pragma: no cover
    import pyarrow as pa

    from veil.hierarchy import Hierarchy

__all__ = ["Dataset", "MissingPolicy", "read_csv", "labelled"]

MissingPolicy = Literal["value", "error"]



def labelled(frame: pd.DataFrame) -> pd.DataFrame:
    """``frame`` with its Interval and Period columns as text labels (a shallow copy; ``frame``
    itself unchanged), missing values kept; the frame itself when it has none."""
    kinds = (pd.IntervalDtype, pd.PeriodDtype)
    columns = [c for c, dtype in frame.dtypes.items() if isinstance(dtype, kinds)]
    if not columns:
        return frame
    out = frame.copy(deep=False)
    for column in columns:
        values = frame[column]
        text = values.astype(str).astype(object)
        text[values.isna().to_numpy()] = None
        out[column] = text
    return out

class Dataset:
    """A table with its schema and (optionally) its generalization hierarchies.

    Build one with :meth:`from_csv`, :meth:`from_parquet`, :meth:`from_pandas`
    or :meth:`from_arrow`.  The table is never modified in place.

    Parameters
    ----------
    frame : pandas.DataFrame or pyarrow.Table
        The records.  Index labels are ignored: results never depend on them,
        nor on row order.  An Arrow table is encoded directly and turned into
        a pandas frame only when :attr:`frame` is read.
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
        frame: "pd.DataFrame | pa.Table",
        schema: Schema,
        *,
        hierarchies: Mapping[str, "Hierarchy"] | None = None,
        missing: MissingPolicy = "value",
    ) -> None:
        if missing not in ("value", "error"):
            raise SchemaError(f"The 'missing' parameter must be 'value' or 'error'. Got {missing!r} instead.")
        table = None
        if not isinstance(frame, pd.DataFrame):
            table, frame = frame, None
            columns = [str(c) for c in table.column_names]
        else:
            columns = [str(c) for c in frame.columns]
        duplicated = sorted({c for c in columns if columns.count(c) > 1})
        if duplicated:
            raise SchemaError(
                f"The table has duplicate column names: {', '.join(map(repr, duplicated))}; "
                "rename them so that each column has one name."
            )
        if frame is not None:
            frame = frame.copy(deep=False)
            # text column names and a 0..n-1 index, set only where the frame has others (a frame
            # that has them keeps its own column index, whose lookup table pandas then builds once)
            if list(frame.columns) != columns:
                frame.columns = columns
            index = frame.index
            default = isinstance(index, pd.RangeIndex) and index.start == 0 and index.step == 1
            if not default or index.name is not None:
                frame = frame.reset_index(drop=True)
        self._columns = columns
        for attribute in schema.attributes:
            if attribute.name not in columns:
                raise ColumnNotFoundError(
                    f"The {attribute.role.value} column {attribute.name!r} is not in the table; "
                    f"its columns are: {', '.join(columns)}."
                )
        self._frame: pd.DataFrame | None = frame
        self._table = table
        self.schema = schema
        self.missing: MissingPolicy = missing
        self.hierarchies: dict[str, Hierarchy] = {}
        for name, hierarchy in (hierarchies or {}).items():
            if name not in columns:
                raise ColumnNotFoundError(f"A hierarchy is given for column {name!r}, which is not in the table.")
            self.hierarchies[name] = hierarchy
        self._encoded: dict[str, EncodedColumn] = {}
        self._series: dict[str, pd.Series] = {}  # the frame's columns as asked for (see _column)

    # ------------------------------------------------------------------ builders
    @classmethod
    def from_pandas(
        cls,
        frame: "pd.DataFrame",
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
        """Wrap a pandas DataFrame (not copied deeply, never modified).

        Interval and Period columns (``pd.cut``'s bins, ``pd.period_range``), which Arrow cannot
        encode, are read as their text labels (``(0, 10]``, ``2020-01``), missing values kept.
        """
        if not isinstance(frame, pd.DataFrame):
            raise SchemaError(f"Expected a pandas DataFrame. Got {type(frame).__name__} instead.")
        frame = labelled(frame)
        return cls._wrap(frame, [str(c) for c in frame.columns], quasi_identifiers=quasi_identifiers,
                         sensitive=sensitive, identifiers=identifiers, insensitive=insensitive, kinds=kinds,
                         domains=domains, hierarchies=hierarchies, missing=missing)

    @classmethod
    def _wrap(
        cls,
        frame: "pd.DataFrame | pa.Table",
        columns: list[str],
        *,
        hierarchies: Mapping[str, "Hierarchy"] | None = None,
        missing: MissingPolicy = "value",
        **roles: Any,
    ) -> "Dataset":
        """The dataset of ``frame``; ``roles`` are the keyword arguments of :meth:`Schema.build`
        (``quasi_identifiers``, ``sensitive``, ``identifiers``, ``insensitive``, ``kinds``, ``domains``)."""
        if len(set(columns)) != len(columns):
            cls(frame, Schema(), missing=missing)  # raises the duplicate-column error
        schema = Schema.build(columns, **roles)
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

        The file goes through the one reader, :func:`veil.data.read_table`
        (``sep=None`` detects the separator among ``, ; TAB |``; malformed
        files are a :class:`~veil.errors.DataFormatError` naming the line or
        column).  Keyword arguments other than the reading options are those
        of :meth:`from_pandas`.
        """
        return cls.from_arrow(read_table(path, sep=sep, encoding=encoding, na_values=na_values), **roles)

    @classmethod
    def from_parquet(cls, path: str | Path, **roles: Any) -> "Dataset":
        """Read a Parquet file and wrap it."""
        return cls.from_arrow(read_table(Path(path)), **roles)

    @classmethod
    def from_arrow(cls, table: "pa.Table", **roles: Any) -> "Dataset":
        """Wrap a pyarrow Table (encoded directly; converted to pandas only when :attr:`frame` is read)."""
        import pyarrow as pa

        if not isinstance(table, pa.Table):
            raise SchemaError(f"Expected a pyarrow Table. Got {type(table).__name__} instead.")
        return cls._wrap(table, [str(c) for c in table.column_names], **roles)

    @classmethod
    def read(cls, path: str | Path, **options: Any) -> "Dataset":
        """Read a CSV or Parquet file, by its extension."""
        if str(path).lower().endswith(PARQUET_SUFFIXES):
            options.pop("sep", None)
            options.pop("encoding", None)
            options.pop("na_values", None)
            return cls.from_parquet(path, **options)
        return cls.from_csv(path, **options)

    # ------------------------------------------------------------------ accessors
    @property
    def frame(self) -> pd.DataFrame:
        """The records (read-only by convention: edit a copy, or the cached encodings go stale)."""
        if self._frame is None:
            assert self._table is not None
            frame = self._table.to_pandas()
            frame.columns = self._columns
            self._frame = frame
        return self._frame

    def frame_of(self, columns: Sequence[str], *, encoded: bool = False) -> pd.DataFrame:
        """The records of ``columns`` only, in that order, as :attr:`frame` has them.

        A view of :attr:`frame` once that is made; else only these columns are
        converted from the Arrow table the dataset was read into (a 10M-row file's
        whole frame is about 0.7 GiB; the release and its checks need a column or two).
        With ``encoded``, a text column that :meth:`encode` has made already comes as a
        pandas categorical of its labels (see :meth:`columns_of`).

        Raises
        ------
        ColumnNotFoundError
            A column is not in the table.
        """
        names = list(columns)
        if len(set(names)) < len(names):  # a name twice: the columns as they are, each place
            self._require(names)
            return self._frame.loc[:, names] if self._frame is not None else self._converted(names)
        parts = {name: categorical_of(part) if isinstance(part, TextCodes) else part
                 for name, part in self.columns_of(names, encoded=encoded).items()}
        index = self._frame.index if self._frame is not None else pd.RangeIndex(self.n_records)
        return pd.DataFrame(parts, index=index, copy=False)

    def columns_of(self, columns: Sequence[str], *, encoded: bool = False) -> dict[str, "pd.Series | TextCodes"]:
        """Each of ``columns`` (distinct names) by name, as :attr:`frame` has it: :meth:`frame_of`
        without assembling a frame (whose index of names costs more than the columns' Series).

        The frame's own Series once :attr:`frame` is made (no copy); else only these columns are
        converted from the Arrow table.  With ``encoded``, a text column that :meth:`encode` has
        made already comes as its :class:`~veil.data.TextCodes` (the same cells as codes over its
        distinct text: a reader of its codes hashes no text again).

        Raises
        ------
        ColumnNotFoundError
            A column is not in the table.
        """
        names = list(dict.fromkeys(columns))
        self._require(names)
        if self._frame is not None:
            out = {name: self._column(name) for name in names}
        else:
            frame = self._converted(names)
            out = {name: frame.iloc[:, i] for i, name in enumerate(names)}
        if encoded:
            for name, series in out.items():
                done = self._encoded.get(name)
                if done is not None and isinstance(series.dtype, pd.StringDtype):
                    out[name] = text_codes(done)
        return out

    def _column(self, name: str) -> pd.Series:
        """:attr:`frame`'s column ``name``, the Series kept: pandas makes a new one at every
        lookup (the frame is read-only by convention, as the cached encodings need too)."""
        column = self._series.get(name)
        if column is None:
            column = self._series[name] = self._frame[name]  # type: ignore[index]
        return column

    def _converted(self, names: list[str]) -> pd.DataFrame:
        """These columns of the Arrow table the dataset was read into, converted to pandas (a name
        may repeat: each place gets its column)."""
        assert self._table is not None
        frame = self._table.select([self._columns.index(name) for name in names]).to_pandas()
        frame.columns = names
        return frame

    def _require(self, names: Sequence[str]) -> None:
        for name in names:
            if name not in self._columns:
                raise ColumnNotFoundError(f"Column {name!r} is not in the table.")

    @property
    def columns(self) -> list[str]:
        return list(self._columns)

    @property
    def n_records(self) -> int:
        return self._table.num_rows if self._frame is None else len(self._frame)  # type: ignore[union-attr]

    def __len__(self) -> int:
        return self.n_records

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
        dataset = Dataset._wrap(self._source, self._columns, missing=missing, **roles)
        kept = {k: v for k, v in self.hierarchies.items() if k in dataset.quasi_identifiers}
        kept.update(hierarchies or {})
        dataset.hierarchies = kept
        return dataset

    def with_hierarchies(self, hierarchies: Mapping[str, "Hierarchy"]) -> "Dataset":
        """The same table and schema with these hierarchies added or replaced."""
        merged = dict(self.hierarchies)
        merged.update(hierarchies)
        dataset = Dataset(self._source, self.schema, hierarchies=merged, missing=self.missing)
        dataset._encoded, dataset._series = self._encoded, self._series
        return dataset

    @property
    def _source(self) -> "pd.DataFrame | pa.Table":
        return self._frame if self._frame is not None else self._table  # type: ignore[return-value]

    # ------------------------------------------------------------------ encoding
    def labels_of(self, column: str) -> pd.Series:
        """The column as text labels (missing values as NaN)."""
        if column not in self._columns:
            raise ColumnNotFoundError(f"Column {column!r} is not in the table.")
        return format_labels(self.frame[column])

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
        if column not in self._columns:
            raise ColumnNotFoundError(f"Column {column!r} is not in the table.")
        attribute = self.schema[column] if column in self.schema else None
        values = self._column(column) if self._frame is not None else self._table.column(column)  # type: ignore[union-attr]
        encoded = encode_values(
            values, column=column, kind=attribute.kind if attribute else Kind.CATEGORICAL,
            domain=attribute.domain if attribute else None, missing=self.missing,
        )
        self._encoded[column] = encoded
        return encoded

    def encoded(self, column: str) -> EncodedColumn | None:
        """The encoding of ``column`` when :meth:`encode` has made it already, else None (nothing is encoded)."""
        return self._encoded.get(column)

    def encode_all(self, columns: Sequence[str]) -> list[EncodedColumn]:
        """:meth:`encode` of each of ``columns``, in order; the ones not yet cached are
        encoded side by side on a few threads (Arrow's kernels release the GIL).

        The same codes as one :meth:`encode` after another; an error is the first
        column's in ``columns`` order.
        """
        todo = [c for c in dict.fromkeys(columns) if c not in self._encoded]
        hashed = sum(1 for c in todo if c in self._columns and not self._categorical(c))
        side_by_side({c: partial(self.encode, c) for c in todo}, self.n_records, hashing=hashed > 1)
        return [self.encode(c) for c in columns]

    def _categorical(self, column: str) -> bool:
        """Whether ``column`` holds codes already (a pandas categorical, an Arrow dictionary):
        encoding it reads them, no value is hashed."""
        if self._frame is not None:
            return isinstance(self._column(column).dtype, pd.CategoricalDtype)
        import pyarrow as pa

        return pa.types.is_dictionary(self._table.column(column).type)  # type: ignore[union-attr]

    def describe(self) -> pd.DataFrame:
        """One row per column: inferred kind, distinct values, missing values."""
        rows = []
        for column in self.columns:
            series = self.frame[column]
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




def read_csv(
    path: str | Path,
    *,
    sep: str | None = None,
    encoding: str = "utf-8",
    na_values: Sequence[str] = DEFAULT_NA_VALUES,
    row_labels: bool = False,
) -> pd.DataFrame:
    """Read a CSV file with every column as text, through the one reader (:func:`~veil.data.read_table`).

    Raises
    ------
    DataFormatError
        The file is missing, empty or header-only, cannot be decoded, holds a
        NUL byte, has an empty or repeated column name, or a row has too few or
        too many fields (the message names the line, 1-based, counting the header).
    """
    return read_table(path, sep=sep, encoding=encoding, na_values=na_values, row_labels=row_labels).to_pandas()
