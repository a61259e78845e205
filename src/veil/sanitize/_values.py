"""What every column action shares: reading a column's values, its missing cells, its numbers.

Missing values are NA, a blank string, or one of veil's missing-value words
(:data:`veil.data.DEFAULT_NA_VALUES`: ``NA``, ``N/A``, ``NULL``, ``None``, ``NaN``,
in any case), as every other veil command reads them from a CSV file read with
every cell as written.
Errors name rows by their index labels (the CLI numbers data rows from 1).
"""

from __future__ import annotations

import secrets
from typing import Any, Iterable

import numpy as np
import pandas as pd

from veil._validation import check_real
from veil.data import DEFAULT_NA_VALUES
from veil.errors import ColumnNotFoundError, ParameterError, SchemaError

__all__ = ["ROWS_SHOWN", "require_columns", "describe_rows", "missing_mask", "as_text", "column_label",
           "check_series", "numbers", "format_numbers", "generator"]

#: How many row labels an error message lists at most.
ROWS_SHOWN = 10

def require_columns(frame: pd.DataFrame, columns: Iterable[Any], owner: str) -> None:
    """Raise :class:`ColumnNotFoundError` naming every column not in ``frame``."""
    missing = [c for c in columns if c not in frame.columns]
    if missing:
        names = ", ".join(repr(str(c)) for c in missing)
        available = ", ".join(repr(str(c)) for c in frame.columns)
        raise ColumnNotFoundError(
            f"{owner}: column(s) {names} not in the table. Available columns: {available}."
        )


def describe_rows(index: pd.Index) -> str:
    shown = ", ".join(str(i) for i in index[:ROWS_SHOWN])
    more = len(index) - ROWS_SHOWN
    return shown + (f" and {more} more" if more > 0 else "")


#: The missing-value words, lower-cased: a cell is missing when its stripped text is one of them, in any case.
_MISSING_WORDS = frozenset(v.lower() for v in DEFAULT_NA_VALUES)


def missing_mask(series: pd.Series) -> np.ndarray:
    """NA, an empty/blank string, or a missing-value word (``NA``, ``n/a``, ``NULL``, ...; any case)."""
    miss = series.isna().to_numpy(dtype=bool).copy()
    if series.dtype == object or isinstance(series.dtype, pd.StringDtype):
        text = series.astype("str").str.strip().str.lower()
        miss |= text.isin(_MISSING_WORDS).to_numpy(dtype=bool, na_value=True)
    return miss


def as_text(series: pd.Series) -> pd.Series:
    """Values as stripped strings (str dtype), integral floats without ``.0``."""
    if pd.api.types.is_float_dtype(series.dtype):
        vals = series.to_numpy(dtype=float, na_value=np.nan)
        finite = vals[~np.isnan(vals)]
        if np.all(np.mod(finite, 1) == 0):
            series = series.astype("Int64")
    return series.astype("str").str.strip()


def column_label(series: pd.Series) -> str:
    return repr(str(series.name)) if series.name is not None else "(unnamed)"


def check_series(series: Any, owner: str) -> pd.Series:
    if not isinstance(series, pd.Series):
        raise ParameterError(f"The 'series' parameter of {owner} must be a pandas Series. "
                             f"Got {type(series).__name__} instead.")
    return series


def numbers(series: pd.Series, owner: str) -> tuple[np.ndarray, np.ndarray]:
    """Numeric values and the missing mask; non-numeric values raise, naming rows."""
    miss = missing_mask(series)
    if pd.api.types.is_numeric_dtype(series.dtype) and not pd.api.types.is_bool_dtype(series.dtype):
        values = series.to_numpy(dtype=float, na_value=np.nan)
    else:
        values = pd.to_numeric(as_text(series).where(~miss), errors="coerce").to_numpy(dtype=float, na_value=np.nan)
    bad = np.isnan(values) & ~miss
    if bad.any():
        raise SchemaError(
            f"{owner}: column {column_label(series)} has {int(bad.sum())} non-numeric value(s) at rows "
            f"{describe_rows(series.index[bad])}. Fix or blank them, or choose another action."
        )
    return values, miss


def format_numbers(values: np.ndarray) -> pd.Series:
    """Numbers as strings: integral values without ``.0``; NaN becomes missing."""
    nan = np.isnan(values)
    integral = ~nan & (np.mod(np.where(nan, 0, values), 1) == 0)
    as_int = pd.Series(np.where(integral, values, 0)).astype("int64").astype("str")
    as_float = pd.Series(values).astype("str")
    out = as_float.where(~integral, as_int)
    return out.where(~nan)

def generator(rng: Any, owner: str) -> np.random.Generator:
    if rng is None:
        return np.random.default_rng(secrets.randbits(128))
    if isinstance(rng, np.random.Generator):
        return rng
    if isinstance(rng, (int, np.integer)) and not isinstance(rng, bool) and rng >= 0:
        return np.random.default_rng(int(rng))
    raise ParameterError(f"The 'rng' parameter of {owner} must be None, a non-negative int seed or a "
                         f"numpy Generator. Got {type(rng).__name__} instead.")
