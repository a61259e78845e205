"""Tables out: a frame serialized to CSV or Parquet, the reader's twin.

:func:`write_frame` writes what :func:`veil.data.read_table` reads.  It only
serializes: the file it is given is the one writer's temporary
(:class:`veil.pipeline.Outputs`), which verifies and commits it.

CSV goes through pyarrow's writer (about twenty times faster than pandas'
on millions of rows) when the bytes are provably those pandas would write:
every column is text or integer, and no header or value holds the
separator, a quote or a line break (pandas then quotes nothing, and pyarrow
is told to quote nothing).  Any other frame is written by pandas, so the
file is the same byte for byte either way.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.csv as pa_csv

__all__ = ["write_frame"]

PARQUET_SUFFIXES = (".parquet", ".pq")


def write_frame(frame: pd.DataFrame, path: str | Path, *, sep: str = ",") -> None:
    """Write ``frame`` to ``path``: Parquet for ``.parquet``/``.pq``, else CSV separated by ``sep``.

    Examples
    --------
    >>> import tempfile, os
    >>> frame = pd.DataFrame({"age": ["30-39", "*"], "n": [1, 2]})
    >>> with tempfile.TemporaryDirectory() as folder:
    ...     write_frame(frame, os.path.join(folder, "out.csv"))
    ...     print(open(os.path.join(folder, "out.csv")).read(), end="")
    age,n
    30-39,1
    *,2
    """
    path = Path(path)
    if path.suffix.lower() in PARQUET_SUFFIXES:
        typed = frame.copy()
        for name in typed.columns:  # a blanked column mixes '*' with numbers: text
            if typed[name].dtype == object:
                typed[name] = typed[name].astype("string")
        typed.to_parquet(path, index=False)
        return
    table = _plain_table(frame, sep)
    if table is None:
        frame.to_csv(path, sep=sep, index=False)
    else:
        with open(path, "wb") as handle:  # pyarrow quotes a header always; pandas does not
            handle.write((sep.join(table.column_names) + "\n").encode("utf-8"))
            pa_csv.write_csv(table, handle, pa_csv.WriteOptions(include_header=False, delimiter=sep,
                                                                quoting_style="none"))


def _plain_table(frame: pd.DataFrame, sep: str) -> pa.Table | None:
    """``frame`` as an Arrow table when no field needs quoting, else ``None``.

    ``None`` also for a frame pandas writes in its own way: one column (an
    empty field is then written as ``""``), duplicate names, a column neither
    text nor integer (floats, dates, booleans and mixed objects keep pandas'
    formatting).
    """
    if frame.shape[1] < 2 or frame.columns.duplicated().any() or len(sep) != 1:
        return None
    specials = (sep, '"', "\n", "\r")
    names = [str(name) for name in frame.columns]
    if any(mark in name for name in names for mark in specials):
        return None
    arrays = []
    for name in frame.columns:
        array = _column(frame[name], specials)
        if array is None:
            return None
        arrays.append(array)
    return pa.Table.from_arrays(arrays, names=names)


def _column(column: pd.Series, specials: tuple[str, ...]) -> pa.Array | None:
    dtype = column.dtype
    if isinstance(dtype, pd.StringDtype):
        array = pa.array(column, type=pa.large_string(), from_pandas=True)
        if isinstance(array, pa.ChunkedArray):
            array = array.combine_chunks()
        return None if _holds_any(array, specials) else array
    if isinstance(dtype, pd.CategoricalDtype) and pd.api.types.is_string_dtype(dtype.categories.dtype):
        # a release's labels: the rows' codes and the categories, whose text alone is searched
        categories = pa.array(dtype.categories, type=pa.large_string())
        return None if _holds_any(categories, specials) else pa.array(column.array)
    if pd.api.types.is_integer_dtype(dtype) and not pd.api.types.is_bool_dtype(dtype):
        return pa.array(column, from_pandas=True)
    return None


def _holds_any(array: pa.Array, marks: tuple[str, ...]) -> bool:
    """Whether a value of the ``large_string`` ``array`` contains one of ``marks``.

    One byte search per mark (``bytes.__contains__``, at memory speed) over the
    bytes the values span, instead of a substring kernel per value: 2M rows of
    Adult's marital-status, 2 ms against 150 ms.  Exact for UTF-8 (a mark's
    bytes never occur inside another character's); a null slot's bytes, if any,
    can only make it answer yes, and the frame is then written by pandas.
    """
    if len(array) == 0:
        return False
    data = array.buffers()[2]
    if data is None:
        return False
    offsets = np.frombuffer(array.buffers()[1], dtype=np.int64)[array.offset:array.offset + len(array) + 1]
    text = data.slice(int(offsets[0]), int(offsets[-1] - offsets[0])).to_pybytes()
    return any(mark.encode("utf-8") in text for mark in marks)
