"""Tables in: the one reader, the schema, :class:`Dataset` and the encoding to integer codes.

- :func:`read_table` reads a CSV or Parquet file through pyarrow with one
  validation for every command (ragged rows, duplicate or empty column names,
  empty files, undecodable bytes, NUL bytes, ... each a one-line
  :class:`~veil.errors.DataFormatError` naming the line or the column);
- :class:`Schema` assigns roles (:class:`Role`) and kinds (:class:`Kind`) to columns;
- :class:`Dataset` holds a table with its schema and hierarchies and encodes
  each column once to ``int32`` codes (Arrow dictionary encoding,
  :func:`encode_values`);
- :func:`side_by_side` runs per-column jobs on :func:`column_pool`, the thread pool
  that encodes and gathers long columns side by side (from :data:`PARALLEL_ROWS` rows on,
  :data:`HASHED_PARALLEL_ROWS` for text columns hashed to codes; the names here are the
  values in use, for reading: assigning them changes nothing);
- :func:`write_frame` serializes a table to CSV or Parquet (what the one
  writer, :class:`veil.pipeline.Outputs`, then verifies and commits).

``veil.dataset`` and ``veil.schema`` re-export these names.
"""

from veil.data._dataset import Dataset, MissingPolicy, read_csv
from veil.data._encoding import (
    MISSING, EncodedColumn, TextCodes, categorical_of, complete_text_categorical, encode_values, format_labels,
    infer_kind, sort_labels, text_codes, timestamp_labels,
)
from veil.data._missing import missing_as_null, parse_na_values
from veil.data._pool import HASHED_PARALLEL_ROWS, PARALLEL_ROWS, column_pool, side_by_side
from veil.data._reader import (
    DEFAULT_NA_VALUES,
    PARQUET_SUFFIXES,
    SEPARATORS,
    check_column_names,
    nested_columns_error,
    parquet_error,
    read_table,
    sniff_separator,
)
from veil.data._schema import Attribute, Kind, Role, Schema
from veil.data._table_out import write_frame

__all__ = [
    "Attribute",
    "PARALLEL_ROWS",
    "HASHED_PARALLEL_ROWS",
    "categorical_of",
    "text_codes",
    "TextCodes",
    "complete_text_categorical",
    "column_pool",
    "side_by_side",
    "DEFAULT_NA_VALUES",
    "Dataset",
    "EncodedColumn",
    "Kind",
    "MISSING",
    "MissingPolicy",
    "PARQUET_SUFFIXES",
    "Role",
    "SEPARATORS",
    "Schema",
    "check_column_names",
    "missing_as_null",
    "parse_na_values",
    "encode_values",
    "format_labels",
    "timestamp_labels",
    "infer_kind",
    "read_csv",
    "read_table",
    "sniff_separator",
    "nested_columns_error",
    "parquet_error",
    "sort_labels",
    "write_frame",
]
