"""How ``veil query`` reads a column in memory: as numbers, or as the text labels the engines read.

The engines (:mod:`veil.engines._filter`, ``--engine duckdb``) read every column as
the text labels of :class:`~veil.dataset.Dataset` (:func:`veil.data._encoding.format_labels`:
a bool is ``'True'``/``'False'``, an integral float loses ``.0``, a date is
``YYYY-MM-DD``), a column of numbers read as numbers.  The in-memory path compares
the same way, so that a query gets the same answer from both:

* a *number column* (ints, floats, decimals; not bools) is compared with number
  literals and its values are summed (:func:`is_number_column`, :func:`number_values`);
* any other column (text, bools, dates) is compared with text literals and with a
  histogram's keys through its labels (:func:`text_labels`): a bool column's ``True``
  matches the literal ``True`` and the key ``'True'``.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

__all__ = ["is_number_column", "number_values", "text_labels"]

#: What ``pandas.api.types.infer_dtype`` calls an object column holding numbers only
#: (a Parquet decimal column is read as ``decimal.Decimal`` objects).
_NUMBER_OBJECTS = frozenset({"decimal", "integer", "floating", "mixed-integer-float"})


def is_number_column(series: pd.Series) -> bool:
    """Whether ``series`` holds numbers: a numeric dtype other than bool, or objects that are all
    numbers (e.g. decimals); its type is public, like its name.  A column without any value (an
    empty table) has no type: it is no number column, yet it can be summed (its rows count as
    ``missing_as``) and compared with either kind of literal (nothing matches)."""
    if not series.notna().any():
        return False
    if pd.api.types.is_bool_dtype(series):
        return False
    if pd.api.types.is_numeric_dtype(series):
        return True
    if series.dtype == object:
        return pd.api.types.infer_dtype(series, skipna=True) in _NUMBER_OBJECTS
    return False


def number_values(series: pd.Series) -> np.ndarray:
    """The values of a number column as floats (NaN when missing)."""
    return series.to_numpy(dtype=float, na_value=np.nan)


def text_labels(series: pd.Series) -> pd.Series:
    """The values as the text labels the engines compare (``object``, NaN when missing)."""
    from veil.data._encoding import format_labels

    return format_labels(series)
