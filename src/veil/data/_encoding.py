"""Encoding a column to ``int32`` codes over a sorted dictionary of text labels.

A column is dictionary-encoded by Arrow (``dictionary_encode``): the rows
become integer indices without any per-row Python object, and only the
dictionary, whose size is the number of distinct values, is turned into text
labels (:func:`format_labels`) and ordered as the attribute's kind requires
(:func:`sort_labels`).  The row indices are then remapped to that order with
one numpy take.  A pandas column that Arrow cannot hold (mixed Python objects)
falls back to ``pandas.factorize`` on its labels, with the same result.

Values are kept as text labels, exactly as read: ``"07401"`` stays a ZIP code
and is never turned into the number 7401.  Numeric and date attributes are
ordered by value (``"9" < "10"``).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, NamedTuple

import numpy as np
import pandas as pd

from veil.data._lookup import text_dictionary
from veil.data._schema import Kind
from veil.errors import SchemaError

if TYPE_CHECKING:  # pragma: no cover
    import pyarrow as pa

__all__ = ["MISSING", "EncodedColumn", "format_labels", "sort_labels", "infer_kind", "encode_values", "distinct_codes",
           "categorical_of", "complete_text_categorical", "TextCodes", "text_codes", "timestamp_labels"]

#: The label of a missing value when missing values are kept as a value of their own.
MISSING = "<missing>"
#: Up to this many labels, a declared domain's positions are found with a dict, not a pandas Index.
_DICT_LOOKUP_MAX = 1_000


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
    counts : numpy.ndarray of int64, shape (n_values,), or None
        Records per label, when the encoding counted them on its way (a pandas
        categorical's); None otherwise.
    every_label_occurs : bool
        Whether each label is some record's value (no declared domain value that no record
        has); False when not known.
    """

    name: str
    codes: np.ndarray
    labels: np.ndarray
    missing_code: int = -1
    counts: np.ndarray | None = None
    every_label_occurs: bool = False

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
        arr = values.to_numpy(dtype=float, na_value=np.nan)
        out = np.full(arr.shape, np.nan, dtype=object)
        ok = ~np.isnan(arr)
        integral = ok & (np.mod(arr, 1) == 0) & (np.abs(arr) < 2**53)
        out[integral] = arr[integral].astype(np.int64).astype(str)
        rest = ok & ~integral
        out[rest] = arr[rest].astype(str)
        return pd.Series(out, index=values.index, dtype=object)
    if pd.api.types.is_datetime64_any_dtype(values):
        return timestamp_labels(values)
    present = values.notna()
    inferred = pd.api.types.infer_dtype(values, skipna=True)
    if inferred in ("string", "empty"):
        return values.astype(object).where(present, np.nan)
    if inferred in ("date", "datetime"):  # datetime.date objects (e.g. Parquet date columns)
        stamps = pd.to_datetime(values.where(present), errors="coerce", utc=inferred == "datetime" and any(
            getattr(v, "tzinfo", None) is not None for v in values[present].head(1)))
        if stamps.notna().sum() == present.sum():
            return timestamp_labels(stamps).where(present, np.nan)
    # other Python objects (decimals, mixed types): their text
    return values.astype(str).astype(object).where(present, np.nan)


def timestamp_labels(values: pd.Series) -> pd.Series:
    """The text labels of timestamps, to the microsecond: ``2021-03-04`` for a midnight,
    ``2021-03-04 12:30:00`` for a whole second, else ``2021-03-04 12:30:00.250000``; a
    time-zone-aware timestamp in UTC; NaT stays NaN.  Distinct instants keep distinct labels, so
    a table's classes, risk and checks see the values it holds (the out-of-core engines label
    them alike).

    >>> stamps = pd.to_datetime(["2021-03-04 00:00", "2021-03-04 12:30", "2021-03-04 12:30:00.25", None], format="ISO8601")
    >>> timestamp_labels(pd.Series(stamps)).tolist()
    ['2021-03-04', '2021-03-04 12:30:00', '2021-03-04 12:30:00.250000', nan]
    """
    if getattr(values.dt, "tz", None) is not None:
        values = values.dt.tz_convert("UTC").dt.tz_localize(None)
    values = values.dt.floor("us")
    labels = values.dt.strftime("%Y-%m-%d %H:%M:%S.%f").astype(object)
    labels = labels.where(values.dt.microsecond != 0, labels.str.slice(0, 19))  # a whole second
    labels = labels.where(values != values.dt.normalize(), labels.str.slice(0, 10))  # a midnight
    return labels.where(values.notna(), np.nan).astype(object)


def sort_labels(labels: np.ndarray, kind: Kind, domain: tuple[str, ...] | None, column: str) -> np.ndarray:
    """Order distinct labels as the attribute's kind requires.

    Raises
    ------
    SchemaError
        A value outside a declared ordinal domain, a non-number in a numeric
        column, or a non-date in a date column.
    """
    return _ordered(labels, kind, domain, column)[0]


class _UnfitValue(SchemaError):
    """A value that does not fit its column's kind or domain (``value``: its label)."""

    def __init__(self, message: str, value: str) -> None:
        super().__init__(message)
        self.value = value


def _ordered(
    labels: np.ndarray, kind: Kind, domain: tuple[str, ...] | None, column: str
) -> tuple[np.ndarray, np.ndarray]:
    """``(ordered, position)``: the sorted labels and where each of ``labels`` went (``ordered[position] == labels``).

    ``labels`` are distinct; the work is over the dictionary, never the rows.
    """
    if domain is not None:
        extra = sorted(set(labels.tolist()) - set(domain))
        if kind is Kind.ORDINAL and extra:
            raise _UnfitValue(
                f"Column {column!r} has value {extra[0]!r}, which is not in its declared "
                f"ordinal domain; add it to the domain in its place in the order.", extra[0]
            )
        ordered = np.array(list(domain) + extra, dtype=object)
        if len(ordered) > _DICT_LOOKUP_MAX:
            return ordered, pd.Index(ordered).get_indexer(labels).astype(np.int32)
        # every label is in ``ordered``, whose values are distinct: a dict finds each (a pandas
        # Index costs about 0.1 ms to build, more than looking up a few hundred labels)
        where = {value: i for i, value in enumerate(ordered.tolist())}
        return ordered, np.fromiter((where[v] for v in labels.tolist()), dtype=np.int32, count=len(labels))
    if kind is Kind.NUMERIC:
        numbers = np.asarray(pd.to_numeric(labels.astype(object), errors="coerce"), dtype=float)
        if np.isnan(numbers).any():
            bad = labels[np.isnan(numbers)][0]
            raise _UnfitValue(f"Column {column!r} is declared numeric but has the non-numeric value {bad!r}.", bad)
        order = np.lexsort((labels.astype(str), numbers))
    elif kind is Kind.DATE:
        dates = pd.to_datetime(pd.Series(labels, dtype=object), errors="coerce", format="mixed")
        if dates.isna().any():
            bad = labels[dates.isna().to_numpy()][0]
            raise _UnfitValue(f"Column {column!r} is declared a date but has the value {bad!r}.", bad)
        order = np.lexsort((labels.astype(str), dates.to_numpy().astype("int64")))
    else:
        order = np.argsort(labels.astype(str), kind="stable")
    position = np.empty(len(labels), dtype=np.int32)
    position[order] = np.arange(len(labels), dtype=np.int32)
    return labels[order].astype(object), position


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


def _as_arrow(values: "pd.Series | pa.ChunkedArray | pa.Array", *,
              chunks: bool = False) -> "pa.Array | pa.ChunkedArray | None":
    """One Arrow array of the column (with ``chunks``, its chunks as they are when it has several),
    or None when Arrow cannot hold it (mixed objects)."""
    import pyarrow as pa

    if isinstance(values, pa.ChunkedArray):
        if values.num_chunks == 1:
            return values.chunk(0)
        return values if chunks else values.combine_chunks()
    if isinstance(values, pa.Array):
        return values
    if isinstance(values.array, pd.arrays.ArrowExtensionArray):  # Arrow-backed pandas: its own array, as it is
        return _as_arrow(pa.array(values.array), chunks=chunks)
    if values.dtype == object and pd.api.types.infer_dtype(values, skipna=True) not in ("string", "empty"):
        return None  # Python objects (decimals, mixed types) keep their text, as format_labels gives it
    try:
        array = pa.array(values, from_pandas=True)
    except (pa.ArrowException, TypeError, ValueError):
        return None
    return _as_arrow(array) if isinstance(array, pa.ChunkedArray) else array  # Arrow-backed pandas


def _dictionary(values: "pd.Series | pa.ChunkedArray | pa.Array") -> tuple[np.ndarray, np.ndarray, bool]:
    """``(raw, labels, any_missing)``: per-row indices into ``labels`` (text, distinct), -1 for a
    missing value, and whether there is one."""
    import pyarrow as pa
    import pyarrow.compute as pc

    if isinstance(values, pd.Series) and isinstance(values.dtype, pd.CategoricalDtype) and (
            pd.api.types.is_string_dtype(values.dtype.categories.dtype)):
        # a categorical of text (a release's labels): its codes as they are; the categories
        # are distinct text, so they are the labels (those some row uses)
        raw = np.asarray(values.cat.codes, dtype=np.int32)
        raw, labels, _, any_missing = _used_only(raw, values.dtype.categories.to_numpy(dtype=object))
        return raw, labels, any_missing
    # a long text column is looked up chunk by chunk (text_dictionary); Adult x30 as a pandas
    # concatenation has 30 chunks, whose copy into one array cost more than a column's lookup
    array = _as_arrow(values, chunks=True)
    if array is None:  # pandas-only objects: the labels are made row by row
        raw, uniques = pd.factorize(format_labels(values), use_na_sentinel=True)  # type: ignore[arg-type]
        raw = raw.astype(np.int32, copy=False)
        return raw, np.asarray(uniques, dtype=object), bool((raw < 0).any())
    if pa.types.is_null(array.type):  # every value missing
        return np.full(len(array), -1, dtype=np.int32), np.array([], dtype=object), len(array) > 0
    if pa.types.is_string(array.type) or pa.types.is_large_string(array.type):
        found = text_dictionary(array)
        if found is not None:
            return found
    if isinstance(array, pa.ChunkedArray):  # one dictionary for the whole column
        array = array.combine_chunks()
    given = pa.types.is_dictionary(array.type)
    encoded = array if given else pc.dictionary_encode(array)
    indices = encoded.indices
    any_null = indices.null_count > 0
    if any_null:
        indices = pc.fill_null(indices, -1)
    indices = indices.to_numpy(zero_copy_only=False)
    dictionary = encoded.dictionary
    text = pa.types.is_string(dictionary.type) or pa.types.is_large_string(dictionary.type)
    if text and not given:  # Arrow's own dictionary of text: distinct, all used, no null: the labels as they are
        labels = dictionary.to_numpy(zero_copy_only=False).astype(object)
        return indices.astype(np.int32, copy=False), labels, any_null
    if text:
        texts = dictionary.to_numpy(zero_copy_only=False).astype(object)
        present = ~dictionary.is_null().to_numpy(zero_copy_only=False)
    else:
        formatted = format_labels(dictionary.to_pandas())
        present = formatted.notna().to_numpy()
        texts = formatted.to_numpy(dtype=object)
    # labels that format alike (two timestamps within one microsecond, NaN) are merged; NaN is missing
    labels, inverse = np.unique(texts[present].astype(str).astype(object), return_inverse=True)
    remap = np.full(len(texts) + 1, -1, dtype=np.int32)
    remap[np.flatnonzero(present)] = inverse.reshape(-1)
    raw = remap[indices]  # index -1 reads the appended -1
    if given:  # a pandas categorical may carry categories that no row uses
        raw, labels, _, any_missing = _used_only(raw, labels)
        return raw, labels.astype(object), any_missing
    return raw, labels.astype(object), bool((raw < 0).any())


def complete_text_categorical(values: object) -> tuple[np.ndarray, np.ndarray] | None:
    """``(codes, categories)`` of a pandas categorical of text with no missing cell: its codes as
    they are (not copied) and its categories (object, some perhaps unused); None for any other
    column."""
    if not (isinstance(values, pd.Series) and isinstance(values.dtype, pd.CategoricalDtype)
            and pd.api.types.is_string_dtype(values.dtype.categories.dtype)):
        return None
    codes = np.asarray(values.array.codes)  # the Categorical's own codes (no Series made)
    if len(codes) == 0 or codes.min() < 0:
        return None
    return codes, values.dtype.categories.to_numpy(dtype=object)


def _complete_categorical(values: object) -> tuple[np.ndarray, np.ndarray, np.ndarray] | None:
    """``(raw, labels, counts)`` of a pandas categorical of text with no missing value: its codes as
    they are (indices into ``labels``, the categories some row uses) and each label's records;
    None for any other column (:func:`_dictionary` encodes it)."""
    found = complete_text_categorical(values)
    if found is None:
        return None
    raw, labels, counts, _ = _used_only(*found)
    return raw, labels, counts


class TextCodes(NamedTuple):
    """A text column as codes (:func:`text_codes`): each row's index into ``labels`` (int32, -1 where
    the value is missing), the column's distinct text as it is (object), and whether each label
    is some row's value (False: not known)."""

    codes: np.ndarray
    labels: np.ndarray
    every_label_occurs: bool = False


def text_codes(encoded: EncodedColumn) -> TextCodes:
    """The cells of the text column ``encoded`` encodes, as codes: its codes as they are, a missing
    value -1.  The labels are the column's distinct text, ordered for its kind, :data:`MISSING`
    (coded last) left out; declared domain values that no row shows stay labels."""
    labels, codes = encoded.labels, encoded.codes
    if encoded.missing_code >= 0:  # MISSING's code reads -1 (missing), the others close up
        keep = np.ones(len(labels), dtype=np.bool_)
        keep[encoded.missing_code] = False
        remap = (np.cumsum(keep) - 1).astype(np.int32)
        remap[encoded.missing_code] = -1
        labels, codes = labels[keep], remap.take(codes)
    return TextCodes(codes, labels, encoded.every_label_occurs)


def categorical_of(encoded: EncodedColumn | TextCodes) -> pd.Series:
    """``encoded``'s column as a pandas categorical of its labels (:func:`text_codes`): the same
    cells as the text column it encodes (a missing value a missing cell), its codes as they are."""
    codes, labels, _ = encoded if isinstance(encoded, TextCodes) else text_codes(encoded)
    dtype = pd.CategoricalDtype(pd.Index(labels, dtype="str"))
    return pd.Series(pd.Categorical.from_codes(codes, dtype=dtype, validate=False), copy=False)


def _used_only(raw: np.ndarray, labels: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray, bool]:
    """``raw`` (indices into ``labels``, -1 missing) and ``labels`` without the labels no row uses,
    each kept label's rows, and whether a value is missing (one count of the rows, missing ones
    in its first bin)."""
    counts = np.bincount(np.add(raw, 1, dtype=np.intp), minlength=len(labels) + 1)
    used, any_missing = counts[1:] > 0, bool(counts[0])
    if used.all():
        return raw, labels, counts[1:], any_missing
    shift = np.append(np.cumsum(used, dtype=np.int32) - 1, np.int32(-1))  # code -1 reads the appended -1
    return shift.take(raw), labels[used], counts[1:][used], any_missing


def distinct_codes(values: "pd.Series | pa.ChunkedArray | pa.Array | TextCodes") -> tuple[np.ndarray, np.ndarray]:
    """``(codes, labels)``: each row's index into the column's distinct text labels, -1 when missing.

    The labels are in no particular order (:func:`encode_values` sorts them for a kind);
    a text column's labels are its values as they are (of :class:`TextCodes`, those some row has).
    """
    if isinstance(values, TextCodes):
        if values.every_label_occurs:
            return values.codes, values.labels
        raw, labels, _, _ = _used_only(values.codes, values.labels)
        return raw, labels
    raw, labels, _ = _dictionary(values)
    return raw, labels


def _with_missing(ordered: np.ndarray, raw: np.ndarray, uniques: np.ndarray, column: str,
                  missing: str) -> tuple[np.ndarray, int]:
    """``ordered`` with :data:`MISSING` appended, and its code, for a column with missing values
    (``raw`` -1); a clear error with ``missing="error"``, or when a value reads like the label."""
    missing_rows = raw < 0
    if missing == "error":
        rows = np.flatnonzero(missing_rows)[:5].tolist()
        raise SchemaError(
            f"Column {column!r} has {int(missing_rows.sum())} missing value(s) "
            f"(first rows, 0-based: {rows}); fill them, or keep them as a value of "
            "their own with missing='value'."
        )
    literal = np.flatnonzero(uniques == MISSING)
    if len(literal):  # the label of a missing value would also name a value: refuse, never conflate
        raise SchemaError(
            f"Column {column!r} has missing values (first rows, 0-based: "
            f"{np.flatnonzero(missing_rows)[:5].tolist()}) and also the value {MISSING!r} (first rows: "
            f"{np.flatnonzero(raw == literal[0])[:5].tolist()}), the label veil gives a missing value, "
            "so the two could not be told apart; rename that value, or fill the missing ones."
        )
    return np.append(ordered, np.array([MISSING], dtype=object)), len(ordered)


def _ordered_at(raw: np.ndarray, uniques: np.ndarray, kind: Kind, domain: tuple[str, ...] | None,
                column: str) -> tuple[np.ndarray, np.ndarray]:
    """:func:`_ordered` of a column's labels; a value that does not fit is refused with the first
    rows (0-based) that hold it (``raw``: each row's index into ``uniques``)."""
    try:
        return _ordered(uniques, kind, domain, column)
    except _UnfitValue as error:
        code = np.flatnonzero(uniques == error.value)
        if not len(code):  # (every label comes from ``uniques``; never reached)
            raise SchemaError(str(error)) from None
        rows = np.flatnonzero(raw == int(code[0]))[:5].tolist()
        raise SchemaError(f"{str(error).rstrip('.')} (first rows, 0-based: {rows}).") from None


def encode_values(
    values: "pd.Series | pa.ChunkedArray | pa.Array",
    *,
    column: str,
    kind: Kind = Kind.CATEGORICAL,
    domain: tuple[str, ...] | None = None,
    missing: str = "value",
) -> EncodedColumn:
    """Encode one column's values to codes over its labels, sorted for ``kind``.

    Parameters
    ----------
    values : pandas.Series or pyarrow array
    column : str
        The column's name (for the result and the messages).
    kind, domain
        The attribute's kind and declared domain.
    missing : {"value", "error"}
        A missing value is the label :data:`MISSING` (coded last), or an error.

    Raises
    ------
    SchemaError
        Missing values with ``missing="error"`` (naming up to five rows,
        0-based), missing values beside a value that reads :data:`MISSING` (the two
        could not be told apart; the rows of both are named), or a value that does not
        fit its kind.

    Examples
    --------
    >>> import pandas as pd
    >>> e = encode_values(pd.Series(["10", "9", None, "10"]), column="age", kind=Kind.NUMERIC)
    >>> e.labels.tolist(), e.codes.tolist()
    (['9', '10', '<missing>'], [1, 0, 2, 1])
    """
    complete = _complete_categorical(values)
    if complete is not None:  # a categorical with no missing value (a release's QI): counted on the way
        raw, uniques, counts = complete
        ordered, position = _ordered_at(raw, uniques, kind, domain, column)
        sorted_counts = np.zeros(len(ordered), dtype=np.int64)
        sorted_counts[position] = counts
        return EncodedColumn(column, position.take(raw), ordered, -1, sorted_counts, bool(sorted_counts.all()))
    raw, uniques, any_missing = _dictionary(values)
    ordered, position = _ordered_at(raw, uniques, kind, domain, column)
    missing_code = -1
    if any_missing:
        ordered, missing_code = _with_missing(ordered, raw, uniques, column, missing)
    if not any_missing and bool((position == np.arange(len(position))).all()):
        codes = raw.astype(np.int32, copy=False)  # the labels came in their order already: the codes as they are
    else:
        remap = np.append(position, missing_code).astype(np.int32)
        codes = remap.take(raw)  # -1 reads the appended missing code; take: one gather, no index checks per row
    # every label of the dictionary is some row's value (each path keeps only those); a declared
    # domain may add others
    return EncodedColumn(column, codes, ordered, missing_code, None, len(ordered) == len(uniques) + int(any_missing))
