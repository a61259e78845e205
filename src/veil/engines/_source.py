"""The input of an engine: a CSV or Parquet file, its format, separator and columns."""

from __future__ import annotations

import csv
import functools
import os
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

from veil.data import nested_columns_error, parquet_error, sniff_separator
from veil.dataset import DEFAULT_NA_VALUES
from veil.errors import ColumnNotFoundError, DataFormatError, SchemaError

__all__ = ["Source", "COUNT_COLUMN", "PARQUET_SUFFIXES", "file_format", "ragged_error"]

#: The name of the count column of :meth:`Engine.group_count`'s result.
COUNT_COLUMN = "count"
#: Extensions read and written as Parquet; every other extension is CSV.
PARQUET_SUFFIXES = (".parquet", ".pq")
#: The bytes of a CSV scanned at a time for NUL bytes and line ends.
_CHUNK = 1 << 24


@functools.lru_cache(maxsize=32)
def _scan_bytes(file: Path, size: int, mtime_ns: int) -> tuple[bool, bool]:
    """``(mixed, quoted)``: whether the CSV ``file`` has line ends other than all LF or all CRLF (a mix,
    or a lone CR), and whether it has a double quote (so a value may hold a line break), after
    refusing a NUL byte (naming its line, as :func:`veil.data.read_table` does).  One pass in chunks;
    cached while the file is unchanged."""
    lines = cr = crlf = offset = quotes = 0
    last = b""
    with open(file, "rb") as handle:
        while chunk := handle.read(_CHUNK):
            nul = chunk.find(b"\x00")
            if nul >= 0:
                line = lines + chunk.count(b"\n", 0, nul) + 1
                utf16 = offset == 0 and chunk.startswith((b"\xff\xfe", b"\xfe\xff"))
                raise DataFormatError(
                    f"{str(file)!r}, line {line}: a NUL byte; "
                    + ("this is UTF-16 text; the duckdb and spark engines read UTF-8 only (convert the file first)."
                       if utf16 else "this looks like a binary file, not a CSV.")
                )
            lines += chunk.count(b"\n")
            cr += chunk.count(b"\r")
            quotes += chunk.count(b'"')
            crlf += chunk.count(b"\r\n") + (last == b"\r" and chunk.startswith(b"\n"))
            last, offset = chunk[-1:], offset + len(chunk)
    return cr > 0 and not cr == crlf == lines, quotes > 0


def _parquet_names(file: Path) -> tuple[str, ...]:
    """The column names of the Parquet ``file``, from its schema (no row is read); a corrupt file or a
    nested column is refused as the one reader refuses it."""
    import pyarrow.parquet as pq

    try:
        schema = pq.read_schema(file)
    except Exception as exc:  # pyarrow raises several types for corrupt files
        raise parquet_error(file, exc) from None  # one line, worded as the one reader words it
    nested = nested_columns_error(schema, repr(str(file)))
    if nested is not None:
        raise nested
    return tuple(schema.names)


def ragged_error(path: Path, sep: str, width: int) -> DataFormatError | None:
    """The error naming the line of the first record of the CSV ``path`` without ``width`` fields (blank
    lines skipped), as the one reader words it; None if every record has them.  A pass of Python's csv
    module that stops there: for wording an error only."""
    with open(path, encoding="utf-8", errors="replace", newline="") as handle:
        reader = csv.reader(handle, delimiter=sep)
        start, found = 1, None
        try:
            for record in reader:
                if record and len(record) != width:
                    found = f"expected {width} fields (separated by {sep!r}) but found {len(record)}"
                    break
                start = reader.line_num + 1
        except csv.Error:  # a quote left open up to the end of the file
            found = "a quote is left open"
    if found is None:
        return None
    return DataFormatError(f"{str(path)!r}, line {start}: {found}. Fix the file or pass the right separator.")


def file_format(path: str | os.PathLike[str]) -> Literal["csv", "parquet"]:
    """``"parquet"`` for ``.parquet``/``.pq``, else ``"csv"`` (the rule of :func:`veil.release.write_table`)."""
    return "parquet" if str(path).lower().endswith(PARQUET_SUFFIXES) else "csv"


@dataclass(frozen=True)
class Source:
    """A table on disk that an engine reads: a CSV or Parquet file.

    Build one with :meth:`from_path`, which checks the file, detects the CSV
    separator and reads the header (the rows are only scanned, as bytes, for
    a NUL byte and the kind of line ends).

    Attributes
    ----------
    path : pathlib.Path
        The file (absolute).
    format : {"csv", "parquet"}
        By extension: ``.parquet``/``.pq`` is Parquet, anything else CSV.
    columns : tuple of str
        The column names, in file order.
    sep : str
        The CSV separator (``","`` for Parquet, unused).
    na_values : tuple of str
        CSV cell texts that mean *missing* in a quasi-identifier or sensitive
        column (as :func:`veil.dataset.read_csv` reads them); empty for
        Parquet, whose missing values are real nulls.  Other columns are
        passed through to the output exactly as read.
    mixed_newlines : bool
        The CSV's line ends are neither all LF nor all CRLF: a mix, or a
        lone CR (also one in a quoted value), which an engine may need to be told.
    quoted : bool
        The CSV has a double quote, so a quoted value may hold a line break (Spark then reads
        records over several lines, which it does not split between tasks).
    """

    path: Path
    format: Literal["csv", "parquet"]
    columns: tuple[str, ...]
    sep: str = ","
    na_values: tuple[str, ...] = DEFAULT_NA_VALUES
    mixed_newlines: bool = False
    quoted: bool = False

    @classmethod
    def from_path(
        cls,
        path: str | os.PathLike[str],
        *,
        sep: str | None = None,
        na_values: Sequence[str] = DEFAULT_NA_VALUES,
    ) -> "Source":
        """Describe the file at ``path`` (UTF-8 CSV with a header line, or Parquet).

        Parameters
        ----------
        path : str or path-like
            A local file.
        sep : str, optional
            The CSV separator; default: detected among ``, ; TAB |``.
        na_values : sequence of str
            CSV cell texts read as missing in QI and sensitive columns.

        Raises
        ------
        DataFormatError
            The file does not exist, is empty, is not UTF-8, holds a NUL byte
            (the line is named), or is not Parquet, or is Parquet with a nested column
            (a list, map, struct or union; named from the schema, no row is read).
        SchemaError
            The header names a column twice.
        """
        file = Path(path).expanduser()
        if not file.is_file():
            raise DataFormatError(f"No such file: {str(file)!r}.")
        file = file.resolve()
        if file_format(file) == "parquet":
            names = _parquet_names(file)
            cls._check_unique(names, file)
            return cls(file, "parquet", names, ",", ())
        stat = file.stat()
        mixed, quoted = _scan_bytes(file, stat.st_size, stat.st_mtime_ns)  # one check of every engine's CSV input
        try:
            if sep is None:
                sep = sniff_separator(file, "utf-8")
            with open(file, encoding="utf-8-sig", newline="") as handle:
                # the first record, as the one reader reads it: a quoted name may hold a line break
                names = tuple(next(csv.reader(handle, delimiter=sep), []))
        except UnicodeDecodeError as exc:
            raise DataFormatError(
                f"{str(file)!r} is not valid UTF-8: {exc.reason} at byte {exc.start}; "
                "the duckdb and spark engines read UTF-8 only (convert the file first)."
            ) from None
        except csv.Error as exc:
            raise DataFormatError(f"Cannot read the header of {str(file)!r}: {exc}.") from None
        if not "".join(names).strip():
            raise DataFormatError(f"{str(file)!r} is empty: a CSV needs at least a header line.")
        cls._check_unique(names, file)
        return cls(file, "csv", names, sep, tuple(na_values), mixed, quoted)

    @staticmethod
    def _check_unique(names: Sequence[str], file: Path) -> None:
        duplicated = sorted({c for c in names if names.count(c) > 1})
        if duplicated:
            raise SchemaError(
                f"{str(file)!r} has duplicate column names: {', '.join(map(repr, duplicated))}; "
                "rename them so that each column has one name."
            )

    def require(self, columns: Iterable[str]) -> None:
        """Check that every one of ``columns`` is in the file.

        Raises
        ------
        ColumnNotFoundError
            Names the first missing column, the file and its columns.
        SchemaError
            A column is named ``count`` (the name of the count column).
        """
        for name in columns:
            if name not in self.columns:
                raise ColumnNotFoundError(
                    f"Column {name!r} is not in {str(self.path)!r}; its columns are: {', '.join(self.columns)}."
                )
            if name == COUNT_COLUMN:
                raise SchemaError(
                    f"Column {name!r} of {str(self.path)!r} has the name of the count column of a "
                    "group-count; rename it to use it as a quasi-identifier or sensitive attribute."
                )


def as_source(source: "Source | str | os.PathLike[str]", *, sep: str | None = None) -> Source:
    """``source`` itself, or the :class:`Source` of a path."""
    return source if isinstance(source, Source) else Source.from_path(source, sep=sep)
