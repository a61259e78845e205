"""Row selection and label columns at Arrow speed (the release's fixed costs).

pandas 3 keeps text as Arrow-backed ``str`` columns: ``DataFrame.iloc`` with a
permutation takes every chunk of every column (about 0.3 s per column on
Adult x30), and assigning an object array converts it back to Arrow string
by string.  These helpers take rows once per column on the combined Arrow
array, and build label columns from integer codes through an Arrow
dictionary, so no Python object per row is made.
"""

from __future__ import annotations

import functools
from collections.abc import Collection, Mapping, Sequence
from typing import Any

import numpy as np
import pandas as pd

from veil.classes._grouping import SUPPRESSED, code_counts
from veil.dataset import MISSING

__all__ = ["take_rows", "taken_columns", "text_column", "category_column", "category_array", "blank_rows"]


def _arrow(series: pd.Series):
    """The column as one pyarrow array, or None when it is not Arrow-backed."""
    import pyarrow as pa

    array = series.array
    if not isinstance(array, pd.arrays.ArrowStringArray) and not isinstance(array, pd.arrays.ArrowExtensionArray):
        return None
    data = pa.array(array)
    return data.combine_chunks() if isinstance(data, pa.ChunkedArray) else data


def _series(data, dtype) -> pd.Series:
    return pd.Series(pd.array(data, dtype=dtype), copy=False)


def take_rows(frame: pd.DataFrame, rows: np.ndarray, *, categories: bool = False,
              encoded: Mapping[str, Any] | None = None, blank: np.ndarray | None = None,
              blanked: Collection[str] = ()) -> pd.DataFrame:
    """``frame.iloc[rows]`` with a fresh RangeIndex, one Arrow take per text column.

    Parameters
    ----------
    frame : pandas.DataFrame
    rows : numpy.ndarray of int
        Row positions, in the order wanted (a permutation, or a subset).
    categories : bool, default False
        Text columns come back as pandas categoricals: the column's Arrow
        dictionary and the rows' indices into it, no text copied (for a
        table that is only encoded, such as the verification's).  The
        categories are the whole column's values, used or not.
    encoded : mapping of str to EncodedColumn, optional
        Encodings of some text columns (:meth:`veil.dataset.Dataset.encode`: codes over the
        column's distinct values as they are, the missing code a missing cell): those columns
        are decoded from their rows' codes (an int32 gather, then the small dictionary's
        labels) instead of gathering or hashing their text.
    blank : numpy.ndarray of bool, optional
        Over the taken rows: those whose columns ``blanked`` read :data:`~veil.classes.SUPPRESSED`
        (as :func:`blank_rows` after the take; an encoded column gets it by code).
    """
    out = taken_columns(frame, rows, categories=categories, encoded=encoded, blank=blank, blanked=blanked)
    result = pd.DataFrame(dict(enumerate(out)), index=pd.RangeIndex(len(rows)), copy=False)
    result.columns = frame.columns
    return result


def taken_columns(frame: "pd.DataFrame | Mapping[str, pd.Series]", rows: np.ndarray, *, categories: bool = False,
                  encoded: Mapping[str, Any] | None = None, blank: np.ndarray | None = None,
                  blanked: Collection[str] = ()) -> list[pd.Series]:
    """:func:`take_rows`' columns, in ``frame``'s order, without assembling a frame of them
    (``frame``: a frame, or its columns by name)."""
    import pyarrow as pa

    rows = np.asarray(rows, dtype=np.int64)
    indices = pa.array(rows)
    out: dict[int, pd.Series] = {}
    for position, (name, column) in enumerate(frame.items()):
        data = _arrow(column)
        if data is None:
            out[position] = column.iloc[rows].reset_index(drop=True)
        elif not categories and encoded and name in encoded and _is_text(data):
            mask = blank if name in blanked else None
            out[position] = _decoded(encoded[name], rows, blank=mask)
            continue
        elif categories and (pa.types.is_string(data.type) or pa.types.is_large_string(data.type)):
            out[position] = pd.Series(data.dictionary_encode().take(indices).to_pandas(), copy=False)
        else:
            out[position] = _series(_take(data, indices), column.dtype)
        if blank is not None and name in blanked:
            out[position] = blank_rows(out[position], blank, SUPPRESSED)
    return list(out.values())


def _is_text(data) -> bool:
    import pyarrow as pa

    return pa.types.is_string(data.type) or pa.types.is_large_string(data.type)


def _decoded(encoding: Any, rows: np.ndarray, *, blank: np.ndarray | None = None) -> pd.Series:
    """The cells of ``rows`` from the column's encoding, as a categorical of its labels: the rows'
    codes gathered (an int32 take, no text per row), the missing code a missing cell; the rows of
    ``blank`` read :data:`~veil.classes.SUPPRESSED` (a code of its own, after the labels).  Only
    the labels some released row reads are categories (:func:`category_array`)."""
    labels = np.append(np.asarray(encoding.labels, dtype=object), np.array([SUPPRESSED], dtype=object))
    codes = encoding.codes.take(rows)
    if blank is not None:
        codes = np.where(blank, np.int32(len(labels) - 1), codes).astype(np.int32, copy=False)
    missing = MISSING if encoding.missing_code >= 0 else None
    return pd.Series(category_array(codes, labels, missing=missing), copy=False)


#: From this many rows on, repeated text is taken through its dictionary (measured crossover).
DICTIONARY_TAKE_ROWS = 500_000


def _take(data, indices):
    """``data.take(indices)``; text through its dictionary when values repeat.

    A random gather over a string buffer misses the cache on every row once the
    column outgrows the caches; taking the dictionary's int32 indices and
    decoding from the small dictionary is then faster (1M rows of Adult's
    native-country: 33 ms plain, 20 ms through the dictionary; 2M rows: 2-3x).
    Below about 500,000 rows the plain gather wins (30,162 rows: 0.18 ms
    against 0.58 ms).
    """
    import pyarrow as pa

    if not (pa.types.is_string(data.type) or pa.types.is_large_string(data.type)) or len(data) < DICTIONARY_TAKE_ROWS:
        return data.take(indices)
    encoded = data.dictionary_encode()
    if len(encoded.dictionary) > len(data) // 4:  # mostly distinct values: the plain gather is cheaper
        return data.take(indices)
    return encoded.take(indices).cast(data.type)


def text_column(codes: np.ndarray, labels: Sequence[str], dtype: object = "str", *,
                missing: str | None = None) -> pd.Series:
    """The labels of ``codes`` as a text column, decoded through an Arrow dictionary.

    ``labels`` may repeat a value (a dictionary decodes each code on its own).
    A code whose label is ``missing`` (when given) decodes to a missing cell.
    """
    import pyarrow as pa

    texts = np.asarray(labels, dtype=object).astype(str)
    if missing is not None and (texts == missing).any():
        texts = np.where(texts == missing, None, texts)
    # large_string: the storage of pandas' str columns, so the column is not cast again
    dictionary = pa.array(texts, type=pa.large_string())
    return _series(dictionary.take(pa.array(np.asarray(codes, dtype=np.int32))), dtype)


def category_column(codes: np.ndarray, labels: Sequence[str], *, missing: str | None = None,
                    index: np.ndarray | None = None, read: np.ndarray | None = None) -> pd.Series:
    """:func:`category_array` as a Series."""
    return pd.Series(category_array(codes, labels, missing=missing, index=index, read=read), copy=False)


def category_array(codes: np.ndarray, labels: Sequence[str], *, missing: str | None = None,
                   index: np.ndarray | None = None, read: np.ndarray | None = None) -> pd.Categorical:
    """The labels of ``codes`` as a pandas categorical: the rows' small-integer codes, no text per row.

    The categories are the labels some row reads, each once, in the order of
    ``labels`` (a label that no row reads is not listed: a release's metadata
    must not name a value its rows do not show).  ``labels`` may repeat a value
    (both codes then read one category); a code whose label is ``missing``
    (when given) is a missing cell.

    With ``index``, the rows are ``codes[index]`` (``codes`` per class, ``index`` each row's
    class), made in one gather of the classes' category codes; ``read`` marks the classes
    some row reads (default: those ``index`` names).
    """
    codes = np.asarray(codes)
    texts, distinct, first, inverse = _label_table(labels)
    if index is None:
        used = code_counts(codes, len(texts)) > 0  # a few codes counted by comparing, more by bincount
    else:
        if read is None:
            read = np.bincount(index, minlength=len(codes)).astype(np.bool_)
        used = np.zeros(len(texts), dtype=np.bool_)
        used[codes[read]] = True
    if missing is not None:
        used &= texts != missing
    kept = np.bincount(inverse, weights=used, minlength=len(distinct)) > 0  # any of its codes read
    named = np.flatnonzero(kept)[np.argsort(first[kept], kind="stable")]  # in the labels' own order
    category = np.full(len(distinct), -1, dtype=np.int64)
    category[named] = np.arange(len(named))
    small = np.int8 if len(named) < 128 else np.int16 if len(named) < 1 << 15 else np.int32
    remap = np.where(used, category[inverse], -1).astype(small)
    dtype = _categories(tuple(distinct[named].tolist()))
    column = remap.take(codes) if index is None else remap.take(codes).take(index)
    return pd.Categorical.from_codes(column, dtype=dtype, validate=False)


def _label_table(labels: Sequence[str]) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """``(texts, distinct, first, inverse)``: the labels as text, their distinct values (sorted),
    where each first occurs and each label's distinct value; made once per list of labels
    (a release reads the same hierarchy levels call after call)."""
    key = tuple(labels)
    if all(type(label) is str for label in key):  # (1 and 1.0 would share a key, not a text)
        return _label_table_of(key)
    return _label_table_of.__wrapped__(key)


@functools.lru_cache(maxsize=256)
def _label_table_of(labels: tuple[str, ...]) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    texts = np.asarray(labels, dtype=object).astype(str)
    distinct, first, inverse = np.unique(texts, return_index=True, return_inverse=True)
    for array in (texts, distinct, first, inverse):
        array.setflags(write=False)
    return texts, distinct, first, inverse


@functools.lru_cache(maxsize=256)
def _categories(names: tuple[str, ...]) -> pd.CategoricalDtype:
    """The categorical dtype of these text categories (made once: building and checking its index
    costs about 0.3 ms, paid per released column and call otherwise)."""
    return pd.CategoricalDtype(pd.Index(list(names), dtype="str"))


def blank_rows(column: pd.Series, mask: np.ndarray, value: str | None) -> pd.Series:
    """``column`` with ``value`` (``None``: missing) on the rows of ``mask`` (Arrow ``if_else`` on text columns)."""
    import pyarrow as pa
    import pyarrow.compute as pc

    data = _arrow(column)
    if data is None or not pa.types.is_string(data.type) and not pa.types.is_large_string(data.type):
        values = column.to_numpy(dtype=object, copy=True)
        values[mask] = value
        return pd.Series(pd.array(values, dtype=object), index=column.index, name=column.name)
    blanked = pc.if_else(pa.array(np.asarray(mask, dtype=np.bool_)), pa.scalar(value, type=data.type), data)
    result = _series(blanked, column.dtype)
    result.index = column.index
    result.name = column.name
    return result
