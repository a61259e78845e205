"""How the DuckDB engine reads a source: the scan's SQL, the column types, its errors in veil's words.

A CSV is read as text with the header's names; one whose line ends are mixed (refused by DuckDB's
strict mode) is read leniently, after a check that no row has more or fewer fields than the header
(:func:`check_fields`).  DuckDB's errors become one-line :class:`~veil.errors.DataFormatError` or
:class:`~veil.errors.SchemaError` messages that say what and where, never the offending value
(:func:`translate`); any other failure to read the file (a corrupt Parquet page, say) is a one-line
refusal of the file without DuckDB's text, which can quote its bytes.
"""

from __future__ import annotations

import re

from veil.engines._protocol import parse_uncovered
from veil.engines._source import Source, ragged_error
from veil.errors import DataFormatError, SchemaError

__all__ = ["scan_sql", "column_types", "check_fields", "translate"]


def _ident(name: str) -> str:
    return '"' + str(name).replace('"', '""') + '"'


def _literal(text: str) -> str:
    return "'" + str(text).replace("'", "''") + "'"


def scan_sql(source: Source, extra: str = "") -> str:
    """The scan of ``source``.  A CSV with mixed line ends (refused by DuckDB's strict mode) is read
    with each CR or LF a line end (blank lines skipped) and ``strict_mode=false``, which would cut a
    row of too many fields: :func:`column_types` first looks for ragged rows with an ``extra`` last column."""
    if source.format == "parquet":
        return f"read_parquet({_literal(str(source.path))})"
    columns = ", ".join(f"{_literal(c)}: 'VARCHAR'" for c in source.columns + ((extra,) if extra else ()))
    options = (", new_line='\\r', strict_mode=false" if source.mixed_newlines else "") + (
        ", null_padding=true, nullstr=chr(31), parallel=false" if extra else "")  # padded: NULL, empty: ''
    return (
        f"read_csv({_literal(str(source.path))}, delim={_literal(source.sep)}, header=true, "
        f"quote='\"', escape='\"', columns={{{columns}}}, auto_detect=false, encoding='utf-8'{options})"
    )


def column_types(con, source: Source) -> dict[str, str]:
    """The column types; for a CSV read leniently (mixed line ends), first a refusal of a ragged row."""
    if source.format == "csv":
        if source.mixed_newlines:
            check_fields(con, source)
        return {c: "VARCHAR" for c in source.columns}
    import duckdb

    try:
        rows = con.execute(f"DESCRIBE SELECT * FROM {scan_sql(source)}").fetchall()
    except duckdb.Error as exc:
        raise translate(exc, source) from None
    return {str(r[0]): str(r[1]).upper() for r in rows}


def check_fields(con, source: Source) -> None:
    """Refuse a row of more or fewer fields than the header, naming its line as the one reader does."""
    import duckdb

    extra = "__veil_extra" + "_" * sum(c.startswith("__veil_extra") for c in source.columns)
    try:
        bad = con.execute(f"SELECT count(*) FROM {scan_sql(source, extra)} WHERE "
                          f"{_ident(extra)} IS NOT NULL OR {_ident(source.columns[-1])} IS NULL").fetchall()[0][0]
    except duckdb.Error as exc:
        raise translate(exc, source) from None
    error = ragged_error(source.path, source.sep, len(source.columns)) if bad else None
    if error is not None:
        raise error


def translate(exc: Exception, source: Source) -> Exception:
    """DuckDB's error ``exc`` on ``source`` in veil's words: what and where, never a value of the file."""
    text = str(exc)
    error = parse_uncovered(text)
    if error is not None:
        return error
    line = re.search(r"CSV Error on Line: (\d+)", text)
    if line:
        detail = re.search(r"Expected Number of Columns: (\d+) Found: (\d+)", text)
        what = (f": expected {detail.group(1)} fields (separated by {source.sep!r}) but found {detail.group(2)}"
                if detail else ": a malformed line (a quote left open, or a quote inside an unquoted field)")
        return DataFormatError(
            f"{str(source.path)!r}, line {line.group(1)}{what}. Fix the file or pass the right separator."
        )
    # DuckDB's messages quote the offending value or line; errors are public, so say what
    # and where without it
    column = re.search(r"source column (\S+)", text)
    if "Conversion Error" in text and column:
        return SchemaError(f"The column {column.group(1)!r} is not numeric; a sum needs a numeric column.")
    if "Invalid unicode" in text:
        return DataFormatError(f"Cannot read {str(source.path)!r}: it is not UTF-8 text.")
    if "Conversion Error" in text or "CSV Error" in text:
        kind = "a value cannot be converted" if "Conversion Error" in text else "a malformed line"
        return DataFormatError(f"Cannot read {str(source.path)!r}: {kind}.")
    if _read_failure(exc, source):  # any other refusal of the file: one line, no traceback, none of its text
        if source.format == "csv":
            return DataFormatError(f"Cannot read {str(source.path)!r} as CSV: DuckDB refuses it as malformed "
                                   "(the local engine, --engine local, names the line).")
        return DataFormatError(f"Cannot read {str(source.path)!r} as Parquet: it is corrupt or malformed "
                               "(DuckDB cannot decode it; the local engine, --engine local, says what pyarrow finds).")
    return exc


#: DuckDB's errors that are a refusal of the file read, whatever their text: the bare ``duckdb.Error``
#: (its Parquet reader's decoding faults: "don't know what type", "Corrupted file?", "invalid TType"...),
#: a refused input, and a conversion on read.
_READ_FAILURES = ("Error", "InvalidInputException", "ConversionException")
#: DuckDB's errors that are a refusal of the file read when they name it ("Could not read enough bytes
#: from file ..."); without its name they are about something else (a spill or output file, say).
_NAMED_READ_FAILURES = ("IOException", "NotImplementedException", "SerializationException")


def _read_failure(exc: Exception, source: Source) -> bool:
    """Whether DuckDB's error ``exc`` is its failure to read ``source`` (not memory, an interrupt, or veil's SQL)."""
    kind = type(exc).__name__
    return kind in _READ_FAILURES or (kind in _NAMED_READ_FAILURES and str(source.path) in str(exc))
