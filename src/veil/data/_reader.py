"""The one reader: every command reads its tables (CSV or Parquet) through :func:`read_table`.

One validation for every input file, so that a malformed file is refused the
same way whichever command reads it, with a one-line
:class:`~veil.errors.DataFormatError` that names the line or the column:

- the path is missing, a folder, or unreadable;
- the file is empty, or has a header and no data row;
- a byte sequence is not valid in the file's encoding (the line is named);
- a NUL byte (binary data; the line is named);
- a header name is empty or given twice (the column position is named);
- a ragged row, with more or fewer fields than the header (the line is named;
  an unclosed quote shows up as one);
- a ``.parquet``/``.pq`` file that is not Parquet, or that has a nested column (a list, map,
  struct or union: veil reads flat tables, one value per cell; see :func:`nested_columns_error`).

CSV files are parsed by ``pyarrow.csv`` with every column read as text (so
``"07401"`` stays a ZIP code), a UTF-8 byte-order mark is dropped, CRLF line
ends are accepted and blank lines are skipped.  With ``typed=True`` columns
whose every value is a number or a boolean are read as such (for the DP query
command, whose aggregates need numbers).

The separator, when not given, is detected among ``, ; TAB |`` from the
first lines (see :func:`sniff_separator`).
"""

from __future__ import annotations

import csv
import io
import os
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from veil._text import printable
from veil.errors import DataFormatError

if TYPE_CHECKING:  # pragma: no cover
    import pyarrow as pa

__all__ = ["DEFAULT_NA_VALUES", "PARQUET_SUFFIXES", "SEPARATORS", "read_table", "sniff_separator", "check_column_names",
           "nested_columns_error", "parquet_error"]

#: Cell texts read as missing by default.
DEFAULT_NA_VALUES: tuple[str, ...] = ("", "NA", "N/A", "NaN", "nan", "NULL", "null", "None")
#: File name endings read as Parquet.
PARQUET_SUFFIXES: tuple[str, ...] = (".parquet", ".pq")
#: The separators :func:`sniff_separator` chooses from, in order of preference.
SEPARATORS: tuple[str, ...] = (",", ";", "\t", "|")

_SNIFF_BYTES = 64 * 1024
_SNIFF_LINES = 50
_BOM = b"\xef\xbb\xbf"


def _name(path: Path) -> str:
    return repr(str(path))


def _check_path(path: Path) -> None:
    if path.is_dir():
        raise DataFormatError(f"{_name(path)} is a folder, not a data file; give the path of a CSV or Parquet file.")
    if not path.exists():
        raise DataFormatError(f"No such file: {_name(path)}.")
    if not os.access(path, os.R_OK):
        raise DataFormatError(f"Cannot read {_name(path)}: permission denied.")


def check_column_names(names: Sequence[object], source: str, *, row_labels: bool = False) -> None:
    """Refuse empty or repeated column names, naming the column's 1-based position.

    With ``row_labels``, the first name may be empty (the corner cell of a
    matrix whose first column labels the rows).

    Raises
    ------
    DataFormatError
        A name is empty (or only blanks), or two columns share a name.
    """
    seen: dict[str, int] = {}
    for position, raw in enumerate(names, start=1):
        name = str(raw)
        if not name.strip() and not (row_labels and position == 1):
            raise DataFormatError(
                f"{source}: column {position} has an empty name; give every column a name in the header."
            )
        if name in seen:
            raise DataFormatError(
                f"{source} has duplicate column names: {name!r} (columns {seen[name]} and {position}); "
                "rename them so that each column has one name."
            )
        seen[name] = position


def _line_of(data: bytes, offset: int) -> int:
    """The 1-based line of byte ``offset`` (the header is line 1)."""
    return data.count(b"\n", 0, offset) + 1


def _is_utf8(encoding: str) -> bool:
    return encoding.lower().replace("_", "-") in ("utf-8", "utf8", "utf-8-sig")


def _record_line(data: bytes, encoding: str, sep: str, row: int) -> int:
    """The file line where pyarrow's 1-based record ``row`` starts (the header is record 1).

    Records may span lines (a quoted value holding a newline) and blank lines
    are skipped, so the line is found by reading the records again with
    Python's csv module; this runs only to word an error.
    """
    text = data.decode(encoding, errors="replace")
    reader = csv.reader(io.StringIO(text, newline=""), delimiter=sep)
    seen, start = 0, 1
    try:
        for record in reader:
            if record:
                seen += 1
                if seen == row:
                    return start
            start = reader.line_num + 1
    except csv.Error:  # a quote left open up to the end of the file: the record starts here
        pass
    return start


def _decode_check(data: bytes, path: Path, encoding: str) -> None:
    """Raise naming the line of the first byte that ``encoding`` cannot decode.

    UTF-8 is validated by Arrow (milliseconds on 100 MB); Python's decoder runs
    only to locate a fault, or for other encodings.
    """
    if _is_utf8(encoding):
        if data.isascii():
            return
        import numpy as np
        import pyarrow as pa

        offsets = pa.py_buffer(np.array([0, len(data)], dtype=np.int64).tobytes())
        blob = pa.LargeBinaryArray.from_buffers(pa.large_binary(), 1, [None, offsets, pa.py_buffer(data)])
        try:
            blob.cast(pa.large_string())
            return
        except pa.ArrowInvalid:
            pass
    try:
        data.decode(encoding)
    except UnicodeDecodeError as exc:
        raise DataFormatError(
            f"{_name(path)}, line {_line_of(data, exc.start)}: not valid {encoding} ({exc.reason} at byte "
            f"{exc.start}); pass the file's encoding (--encoding, e.g. latin-1)."
        ) from None
    except LookupError:
        raise DataFormatError(f"Unknown text encoding {encoding!r}; use a Python codec name such as utf-8.") from None


def sniff_separator(path: str | Path, encoding: str = "utf-8") -> str:
    """The field separator of a CSV file, among ``, ; TAB |``.

    The header decides: the candidates that split it into two or more fields
    are ranked by how many of the first lines (up to 50, the last one dropped
    when the 64 KiB sample cuts it) have the header's field count, then by that
    count, then by the order above.  A header that no candidate splits is a
    one-column file: the first candidate that splits none of the sampled lines
    is chosen (so a value holding a comma does not split the column), else the
    comma (a line that then splits is reported as ragged).

    Raises
    ------
    DataFormatError
        The file is empty or cannot be decoded.
    """
    path = Path(path)
    with open(path, "rb") as handle:
        head = handle.read(_SNIFF_BYTES)
    return _sniff(head, len(head) < _SNIFF_BYTES, path, encoding)


def _sniff(head: bytes, full: bool, path: Path, encoding: str) -> str:
    head = head[len(_BOM):] if head.startswith(_BOM) else head
    text = head.decode(encoding, errors="replace")
    lines = [line for line in text.splitlines() if line.strip()]
    if lines and not full and len(lines) > 1:
        lines = lines[:-1]  # possibly cut by the sample
    lines = lines[:_SNIFF_LINES]
    if not lines:
        raise DataFormatError(f"{_name(path)} is empty: a CSV needs a header line and at least one data row.")

    def fields(line: str, sep: str) -> int:
        return len(next(csv.reader([line], delimiter=sep)))

    ranked = []
    for order, sep in enumerate(SEPARATORS):
        width = fields(lines[0], sep)
        if width > 1:
            agree = sum(fields(line, sep) == width for line in lines)
            ranked.append((-agree, -width, order, sep))
    if ranked:
        return min(ranked)[3]
    for sep in SEPARATORS:
        if all(fields(line, sep) == 1 for line in lines):
            return sep
    return ","


def _header(data: bytes, encoding: str, sep: str) -> list[str]:
    end = data.find(b"\n")
    size = _SNIFF_BYTES if end < 0 else max(_SNIFF_BYTES, end + 1)  # a header wider than the sample
    text = data[:size].decode(encoding, errors="replace").lstrip("\ufeff")
    return next(csv.reader(io.StringIO(text, newline=""), delimiter=sep), [])


#: The first head of a CSV that :func:`read_table` reads for ``max_rows`` (then four times more each time).
_HEAD_BYTES = 1 << 20


def read_table(
    path: str | Path,
    *,
    sep: str | None = None,
    encoding: str = "utf-8",
    na_values: Sequence[str] = DEFAULT_NA_VALUES,
    typed: bool = False,
    row_labels: bool = False,
    allow_no_rows: bool = False,
    max_rows: int | None = None,
) -> "pa.Table":
    """Read a CSV or Parquet file (by its extension) into a pyarrow Table, validated.

    Parameters
    ----------
    path : str or Path
    sep : str, optional
        The CSV field separator (one character); detected when not given.
    encoding : str, default "utf-8"
        The CSV text encoding (a UTF-8 byte-order mark is dropped).
    na_values : sequence of str
        Cell texts read as missing (CSV only); ``()`` keeps every text.
    typed : bool, default False
        Columns whose every value is an integer, a number or a boolean are
        read as such (dates stay text), as ``pandas.read_csv`` does.
    row_labels : bool, default False
        The first column labels the rows (a matrix): its header may be empty.
    allow_no_rows : bool, default False
        A file with a header and no data row gives a table of no rows (the check of a
        release whose every record was dropped) instead of an error; an empty file is
        refused either way.
    max_rows : int, optional
        Only the first ``max_rows`` rows (a sample, such as an engine release's identifier
        scan reads): the file's head is read, validated as the whole file would be, and
        more of it when its last rows could be cut (a quoted value may hold line breaks).

    Returns
    -------
    pyarrow.Table
        CSV columns are strings unless ``typed``.

    Raises
    ------
    DataFormatError
        See the module docstring; the message names the line or the column.
    """
    path = Path(path).expanduser()
    _check_path(path)
    if path.suffix.lower() in PARQUET_SUFFIXES:
        return _read_parquet(path, allow_no_rows=allow_no_rows, max_rows=max_rows)
    if sep is not None and (not isinstance(sep, str) or len(sep) != 1 or sep in "\"\r\n"):
        raise DataFormatError(f"The separator must be one character other than a quote or a line end. Got {sep!r} instead.")
    return _read_csv(path, max_rows, {"sep": sep, "encoding": encoding, "na_values": na_values, "typed": typed,
                                      "row_labels": row_labels, "allow_no_rows": allow_no_rows})


def _read_csv(path: Path, max_rows: int | None, options: dict[str, Any]) -> "pa.Table":
    """The CSV ``path`` parsed (:func:`_parse_csv` with ``options``), or its first ``max_rows`` rows:
    a head of the file, larger until it holds them whole, else the file."""
    block = _HEAD_BYTES
    while True:
        try:
            with open(path, "rb") as handle:
                data = handle.read() if max_rows is None else handle.read(block + 1)
        except OSError as exc:
            raise DataFormatError(f"Cannot read {_name(path)}: {exc.strerror}.") from None
        if max_rows is None or len(data) <= block:  # the whole file
            table = _parse_csv(data, path, **options)
            return table if max_rows is None else table.slice(0, max_rows)
        try:  # up to its last line break; its last row may be cut (a quoted value across lines)
            table = _parse_csv(data[:data.rfind(b"\n") + 1], path, **options)
        except DataFormatError:  # perhaps the cut: read more (an error of the file's own is raised whole)
            table = None
        if table is not None and table.num_rows > max_rows:
            return table.slice(0, max_rows)
        block *= 4


def _nested(arrow_type: "pa.DataType") -> bool:
    """Whether ``arrow_type`` holds more than one value per cell: a list (of any kind), map, struct or
    union, also as the values of a dictionary or the storage of an extension type."""
    import pyarrow as pa

    if isinstance(arrow_type, pa.BaseExtensionType):
        return _nested(arrow_type.storage_type)
    if pa.types.is_dictionary(arrow_type):
        return _nested(arrow_type.value_type)
    return pa.types.is_nested(arrow_type)


def _type_text(arrow_type: "pa.DataType") -> str:
    """A short text of an Arrow type: ``list<string>``, ``struct<city: string, zip: string>``."""
    import pyarrow as pa

    t = arrow_type
    if isinstance(t, pa.BaseExtensionType):
        return _type_text(t.storage_type)
    if pa.types.is_dictionary(t):
        return f"dictionary<{_type_text(t.value_type)}>"
    if pa.types.is_fixed_size_list(t):
        return f"fixed_size_list<{_type_text(t.value_type)}, {t.list_size}>"
    if pa.types.is_map(t):
        return f"map<{_type_text(t.key_type)}, {_type_text(t.item_type)}>"
    if pa.types.is_struct(t):
        return "struct<" + ", ".join(f"{t.field(i).name}: {_type_text(t.field(i).type)}"
                                     for i in range(t.num_fields)) + ">"
    if isinstance(t, (pa.ListType, pa.LargeListType)) or type(t).__name__ in ("ListViewType", "LargeListViewType"):
        return f"{str(t).split('<', 1)[0]}<{_type_text(t.value_type)}>"
    return str(t)


def nested_columns_error(schema: "pa.Schema", source: str) -> DataFormatError | None:
    """The refusal of a Parquet file (``source``, its quoted name) with nested columns (a list, map,
    struct or union in a cell), naming each and its Arrow type; None if every column is flat.  The
    one reader and every engine's :meth:`~veil.engines.Source.from_path` refuse such a file this way."""
    nested = [(name, printable(_type_text(schema.field(i).type)))
              for i, name in enumerate(schema.names) if _nested(schema.field(i).type)]
    if not nested:
        return None
    if len(nested) == 1:
        (name, text), = nested
        what, them = f"the column {name!r} holds {text} values", "it"
    else:
        listed = [f"{name!r} ({text})" for name, text in nested]
        what = f"the columns {', '.join(listed[:-1])} and {listed[-1]} hold nested values"
        them = "them"
    return DataFormatError(f"{source}: {what}; veil reads flat tables (one value per cell): "
                           f"flatten {them} first, or leave {them} out of the file.")


def _read_parquet(path: Path, *, allow_no_rows: bool = False, max_rows: int | None = None) -> "pa.Table":
    import pyarrow as pa
    import pyarrow.parquet as pq

    with open(path, "rb") as handle:
        magic = handle.read(4)
    if magic != b"PAR1":
        raise DataFormatError(f"Cannot read {_name(path)} as Parquet: it does not start with PAR1 (not a Parquet file).")
    try:
        schema = pq.read_schema(path)
    except Exception as exc:  # pyarrow raises several types for corrupt files
        raise parquet_error(path, exc) from None
    error = nested_columns_error(schema, _name(path))
    if error is not None:  # refused before a row is read
        raise error
    try:
        if max_rows is None:
            table = pq.read_table(path)
        else:  # the first rows only: no more than the batches they are in
            handle = pq.ParquetFile(path)
            first = next(handle.iter_batches(batch_size=max(max_rows, 1)), None)
            table = pa.Table.from_batches([] if first is None else [first], schema=handle.schema_arrow)
    except Exception as exc:  # pyarrow raises several types for corrupt files
        raise parquet_error(path, exc) from None
    check_column_names(table.column_names, _name(path))
    if table.num_rows == 0 and not allow_no_rows:
        raise DataFormatError(f"{_name(path)} has no rows.")
    return table if max_rows is None else table.slice(0, max_rows)


def parquet_error(path: Path, exc: Exception) -> DataFormatError:
    """pyarrow's refusal ``exc`` of the Parquet ``path``: its first line, control characters escaped."""
    detail = printable(next((line for line in str(exc).splitlines() if line.strip()), type(exc).__name__))
    return DataFormatError(f"Cannot read {_name(path)} as Parquet: {detail}")


def _checked_bytes(data: bytes, path: Path, encoding: str) -> bytes:
    """Strip a UTF-8 byte-order mark and reject empty, binary or undecodable input."""
    if _is_utf8(encoding) and data.startswith(_BOM):
        data = data[len(_BOM):]
    if not data or data.isspace():
        raise DataFormatError(f"{_name(path)} is empty: a CSV needs a header line and at least one data row.")
    nul = data.find(b"\x00")
    if nul >= 0 and not encoding.lower().replace("_", "-").startswith(("utf-16", "utf-32")):
        utf16 = data.startswith((b"\xff\xfe", b"\xfe\xff"))
        raise DataFormatError(
            f"{_name(path)}, line {_line_of(data, nul)}: a NUL byte; "
            + ("this is UTF-16 text: pass --encoding utf-16." if utf16 else "this looks like a binary file, not a CSV.")
        )
    _decode_check(data, path, encoding)
    return data


def _parse_csv(data: bytes, path: Path, *, sep: str | None, encoding: str, na_values: Sequence[str],
               typed: bool, row_labels: bool = False, allow_no_rows: bool = False) -> "pa.Table":
    import pyarrow as pa
    import pyarrow.csv as pacsv

    data = _checked_bytes(data, path, encoding)
    if sep is None:
        sep = _sniff(data[:_SNIFF_BYTES], len(data) <= _SNIFF_BYTES, path, encoding)
    header = _header(data, encoding, sep)
    check_column_names(header, _name(path), row_labels=row_labels)
    bad_rows: list[tuple[int | None, int, int]] = []

    def invalid(row: object) -> str:
        bad_rows.append((row.number, row.expected_columns, row.actual_columns))  # type: ignore[attr-defined]
        return "skip"

    convert = pacsv.ConvertOptions(
        column_types={name: pa.string() for name in header},
        null_values=list(na_values),
        strings_can_be_null=True,
        quoted_strings_can_be_null=True,
    )
    block = 1 << 24
    while True:
        try:
            table = pacsv.read_csv(
                pa.BufferReader(data),
                read_options=pacsv.ReadOptions(use_threads=False, encoding="utf8" if _is_utf8(encoding) else encoding,
                                                block_size=block),
                parse_options=pacsv.ParseOptions(delimiter=sep, newlines_in_values=True,
                                                 invalid_row_handler=invalid),
                convert_options=convert,
            )
            break
        except pa.ArrowInvalid as exc:
            if "straddling" in str(exc) and block < len(data) + 1 and block < (1 << 30):
                block = min(max(block * 4, len(data) + 1), 1 << 30)
                bad_rows.clear()
                continue
            detail = str(exc).splitlines()[0]
            raise DataFormatError(f"Cannot read {_name(path)} as CSV: {detail}") from None
    if bad_rows:
        row, expected, actual = bad_rows[0]
        where = f"line {_record_line(data, encoding, sep, row)}" if row is not None else "a row"
        raise DataFormatError(
            f"{_name(path)}, {where}: expected {expected} fields (separated by {sep!r}) but found {actual}; "
            f"{len(bad_rows)} row(s) are ragged (or a quote is left open). Fix the file or pass the right separator."
        )
    if table.num_rows == 0 and not allow_no_rows:
        raise DataFormatError(f"{_name(path)} has a header but no data rows.")
    return _with_numbers(table) if typed else table


def _with_numbers(table: "pa.Table") -> "pa.Table":
    """Text columns whose every value is an integer, a number or a boolean, as that type.

    As ``pandas.read_csv`` infers them; dates stay text.
    """
    import pyarrow as pa
    import pyarrow.compute as pc

    columns = []
    for column in table.columns:
        for target in (pa.int64(), pa.float64()):
            try:
                column = pc.cast(column, target)
                break
            except (pa.ArrowInvalid, pa.ArrowNotImplementedError):
                continue
        else:
            lowered = pc.utf8_lower(column)
            if pc.all(pc.is_in(lowered, value_set=pa.array(["true", "false"])), skip_nulls=True).as_py() and \
                    pc.count(column).as_py() > 0:
                column = pc.equal(lowered, "true")
        columns.append(column)
    return pa.table(columns, names=table.column_names)
