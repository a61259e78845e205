"""A column's values as the identifier scan sees them: present, sampled, each distinct text counted.

:func:`column_values` reads one column once: its present values (neither missing
nor empty), their distinct count (the whole column) and a deterministic sample of
them (:func:`sample_positions`), whose values are stripped to text; each distinct
sampled text is kept once with the number of sampled values it stands for
(:class:`ColumnValues`).  Every figure the scan derives from the values (the share
matching a kind's pattern, :func:`pattern_shares`; the share of free text,
:func:`free_text_share`) is a function of the value, so it is computed once per
distinct text and counted as often as the text occurs: the same shares as
matching every sampled value, at the cost of the distinct ones.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property, lru_cache

import numpy as np
import pandas as pd

from veil.data._encoding import TextCodes, distinct_codes
from veil.sanitize._patterns import KINDS, MAX_PATTERN_CHARS

__all__ = ["ColumnValues", "column_values", "is_text", "rows_of", "counted", "sample_positions", "pattern_shares", "free_text_share",
           "share", "ARROW_REGEX_FROM", "FREE_TEXT_CHARS"]

#: Sample size from which Arrow's regex engine is the faster (below it, Python's ``re``).
ARROW_REGEX_FROM = 2000
#: Free text: values of at least this many characters with a space.
FREE_TEXT_CHARS = 40


def _as_text(values: pd.Series) -> pd.Series:
    """Values as stripped strings (integral floats without the ``.0``)."""
    if pd.api.types.is_float_dtype(values.dtype):
        finite = values.to_numpy(dtype=float)
        if np.all(np.mod(finite, 1) == 0):
            values = values.astype("int64")
    elif pd.api.types.is_datetime64_any_dtype(values.dtype):
        return values.dt.strftime("%Y-%m-%d").astype("str")
    return values.astype("str").str.strip()


def _present(series: pd.Series) -> pd.Series:
    present = series.notna()
    if isinstance(series.dtype, pd.StringDtype):
        present &= series != ""
    elif series.dtype == object:
        present &= series.astype("str") != ""
    return series[present]


@dataclass(frozen=True)
class ColumnValues:
    """What the value evidence of one column is computed from.

    ``text`` holds the stripped text of the sampled values, each distinct
    sampled value once (two values may strip to the same text), and
    ``occurs[i]`` how many sampled values ``text[i]`` stands for; ``examined``
    is their sum (the sample size).  ``strings`` holds them as they were made:
    a pandas Series, or an Arrow array (``text`` wraps it in a Series when asked).
    """

    n_present: int
    distinct: int
    strings: "pd.Series | pa.Array"
    occurs: np.ndarray
    examined: int
    sampled: bool

    @cached_property
    def text(self) -> pd.Series:
        """The distinct sampled texts as a pandas Series of ``str``."""
        strings = self.strings
        return strings if isinstance(strings, pd.Series) else pd.Series(strings.to_pylist(), dtype="str")

    @cached_property
    def texts(self) -> list[str] | None:
        """``text`` as Python strings when the sample is small enough for Python's engines
        (:data:`ARROW_REGEX_FROM`), else ``None``."""
        if self.examined >= ARROW_REGEX_FROM:
            return None
        strings = self.strings
        return strings.tolist() if isinstance(strings, pd.Series) else strings.to_pylist()


def is_text(series: "pd.Series | TextCodes") -> bool:
    """Whether equal values of ``series`` are exactly the values of equal text (str values only):
    a text column, a categorical of text (its distinct categories are read by code), or a text
    column's :class:`~veil.data.TextCodes`."""
    if isinstance(series, TextCodes):
        return True
    if isinstance(series.dtype, pd.StringDtype):
        return True
    if isinstance(series.dtype, pd.CategoricalDtype):
        return pd.api.types.infer_dtype(series.dtype.categories, skipna=True) == "string"
    return series.dtype == object and pd.api.types.infer_dtype(series, skipna=True) == "string"


def sample_positions(n: int, size: int, seed: int) -> np.ndarray | None:
    """The sorted positions of the sampled values among ``n``, or ``None`` for all of them
    (read-only: the same draw is kept for the next column of ``n`` values, see :func:`_drawn`)."""
    if n <= size:
        return None
    return _drawn(n, size, seed)


@lru_cache(maxsize=16)
def _drawn(n: int, size: int, seed: int) -> np.ndarray:
    """:func:`sample_positions`' draw, made once per ``(n, size, seed)`` while among the 16 last
    used: a function of those alone, and the scan of every column of a table asks for it."""
    drawn = np.sort(np.random.default_rng(seed).choice(n, size=size, replace=False))
    drawn.flags.writeable = False
    return drawn


def rows_of(series: "pd.Series | TextCodes") -> int:
    """The rows of a column as :func:`column_values` takes it."""
    return len(series.codes) if isinstance(series, TextCodes) else len(series)


def column_values(series: "pd.Series | TextCodes", size: int, seed: int) -> ColumnValues:
    """The value statistics of a column: the full column's counts, the sample's distinct texts.

    A text column is hashed once (``factorize``): missing and empty values, the
    distinct count and the sample are read from its codes, and only the
    distinct sampled values are stripped and matched.  Other columns (numbers,
    dates, mixed objects, whose equal values may print differently) are sampled
    and turned to text row by row, then counted by text.  Both give the sample
    that :func:`_sample_positions` draws among the present values, in row order.
    """
    if is_text(series):
        codes, labels = distinct_codes(series)  # distinct str values, missing ones excluded
        present = labels != ""
        if present.all() and not (codes < 0).any():  # every row present: no row list to make
            n_present, rows = len(codes), None
        else:
            row_present = np.append(present, False)[codes]  # code -1 (missing) reads the appended False
            n_present = int(np.count_nonzero(row_present))
            rows = np.flatnonzero(row_present)
        positions = sample_positions(n_present, size, seed)
        taken = rows if positions is None else positions if rows is None else rows[positions]  # None: all
        occurs = np.bincount(codes if taken is None else codes[taken], minlength=len(labels))
        used = occurs > 0
        # what _as_text does to str values (pandas' str strips them with this kernel), with no
        # Series made until one is asked for
        import pyarrow as pa
        import pyarrow.compute as pc

        text = pc.utf8_trim_whitespace(pa.array(labels[used], type=pa.large_string()))
        return ColumnValues(n_present, int(np.count_nonzero(present)), text, occurs[used], int(occurs.sum()),
                       positions is not None)
    present = _present(series)
    n_present = len(present)
    distinct = int(present.nunique()) if n_present else 0
    positions = sample_positions(n_present, size, seed)
    sample = present if positions is None else present.iloc[positions]
    text = _as_text(sample) if len(sample) else sample.astype("str")
    return counted(text, n_present, distinct, positions is not None)


def counted(text: pd.Series, n_present: int, distinct: int, sampled: bool) -> ColumnValues:
    """The :class:`ColumnValues` of the sampled texts ``text``, one row per value: each distinct text once, counted."""
    position, uniques = pd.factorize(text, sort=False)
    occurs = np.bincount(position, minlength=len(uniques))
    return ColumnValues(n_present, distinct, pd.Series(uniques, dtype=text.dtype), occurs, len(text), sampled)


def free_text_share(values: ColumnValues) -> float:
    """The share of sampled values of at least :data:`FREE_TEXT_CHARS` characters with a space."""
    texts = values.texts
    if texts is None:
        lengths = values.text.str.len().to_numpy(dtype=float)
        spaced = values.text.str.contains(" ", regex=False).to_numpy(dtype=bool, na_value=False)
        free = (lengths >= FREE_TEXT_CHARS) & spaced
    else:  # the same test in Python (code points, a plain substring), without pandas' per-call cost
        free = np.fromiter((len(t) >= FREE_TEXT_CHARS and " " in t for t in texts), dtype=bool, count=len(texts))
    return share(free, values)


def share(flags: np.ndarray, values: ColumnValues) -> float:
    """The share of the sampled values whose distinct text has ``flags``."""
    return float(values.occurs[flags].sum() / values.examined)


def pattern_shares(values: ColumnValues) -> dict[str, tuple[float, float]]:
    """``{kind: (share matching the pattern, share also passing the check)}`` of the sampled values.

    Each distinct value is matched once and counted as often as it occurs
    (a match and a check are functions of the value alone): the same shares as
    matching every value, at the cost of the distinct ones.
    """
    out: dict[str, tuple[float, float]] = {}
    n, occurs = values.examined, values.occurs
    if n == 0:
        return out
    # pandas parses the pattern again at every Arrow regex call (about 1 ms); Python's re on a
    # few values is faster, so a table of many short columns is not scanned for minutes (the
    # engine is chosen by the sample's size, as before values were matched once each)
    texts = values.texts
    # a value longer than MAX_PATTERN_CHARS matches no pattern (none is examined past it)
    short = None if texts is not None else (values.text.str.len() <= MAX_PATTERN_CHARS).to_numpy(
        dtype=bool, na_value=False)
    for kind in KINDS:
        regex = kind.value_regex
        if regex is None:
            continue
        if texts is None:
            matched = values.text.str.fullmatch(regex).to_numpy(dtype=bool, na_value=False) & short
        else:  # what Series.str.fullmatch does on objects, without its per-call overhead
            hits = (isinstance(t, str) and len(t) <= MAX_PATTERN_CHARS and regex.fullmatch(t) is not None
                    for t in texts)
            matched = np.fromiter(hits, dtype=bool, count=len(texts))
        raw = occurs[matched].sum() / n
        if kind.check is not None and matched.any():
            ok = np.asarray(kind.check(values.text[matched]), dtype=bool)
            valid = occurs[matched][ok].sum() / n
        else:
            valid = raw
        out[kind.name] = (float(raw), float(valid))
    return out
