"""Column actions: drop, mask, ZIP3, top/bottom coding, ages; with pseudonyms and dates re-exported.

Every action takes a :class:`pandas.Series` and returns a new one (the input is
never modified) with the same index and name.  Missing values (NA, or the empty
string of a CSV read with ``keep_default_na=False``) stay missing.  Actions work
on whole columns with vectorised pandas/numpy; the two that need a keyed hash
(HMAC pseudonyms, keyed date shifts) hash each *distinct* value once
(``pandas.factorize``) and broadcast the result back, so the Python-level work
is per distinct value, not per row.

Pseudonyms live in :mod:`veil.sanitize._pseudonyms`, date actions in
:mod:`veil.sanitize._dates` and what they share in :mod:`veil.sanitize._values`;
this module re-exports them all, the one place :mod:`veil.sanitize._plan` reads.
"""

from __future__ import annotations

from typing import Any, Iterable

import numpy as np
import pandas as pd

from veil._validation import check_int, check_real
from veil.errors import ColumnNotFoundError, ParameterError, SchemaError
from veil.sanitize._dates import birth_year, parse_dates, shift_dates, truncate_dates
from veil.sanitize._pseudonyms import MIN_KEY_BYTES, PseudonymKey, pseudonymize_hmac, pseudonymize_random
from veil.sanitize._values import (
    as_text,
    check_series,
    column_label,
    describe_rows,
    format_numbers,
    generator,
    missing_mask,
    numbers,
    require_columns,
)

__all__ = [
    "MIN_KEY_BYTES",
    "PseudonymKey",
    "drop",
    "pseudonymize_hmac",
    "pseudonymize_random",
    "mask",
    "zip3",
    "zip3_list",
    "top_code",
    "bottom_code",
    "shift_dates",
    "truncate_dates",
    "age_90_plus",
    "AGE_TOP",
    "birth_year",
    "parse_dates",
    "require_columns",
    "missing_mask",
    "as_text",
    "generator",
]


# --------------------------------------------------------------------------- drop


def drop(frame: pd.DataFrame, columns: Iterable[Any]) -> pd.DataFrame:
    """Return ``frame`` without ``columns`` (a new frame).

    Raises
    ------
    ColumnNotFoundError
        A column is not in the table.
    """
    columns = list(columns)
    require_columns(frame, columns, "drop")
    return frame.drop(columns=columns)



# --------------------------------------------------------------------------- masking


def mask(series: pd.Series, *, keep: int = 3, fill: str = "*") -> pd.Series:
    """Keep the first ``keep`` characters of each value and replace the rest by ``fill``.

    ``"02139"`` with ``keep=3`` becomes ``"021**"``; values keep their length.

    Parameters
    ----------
    series : pandas.Series
    keep : int in [0, inf), default 3
    fill : str, default "*"
        One character (or the empty string, to cut instead of masking).
    """
    series = check_series(series, "mask")
    keep = check_int("keep", keep, "mask", low=0)
    if not isinstance(fill, str) or len(fill) > 1:
        raise ParameterError(f"The 'fill' parameter of mask must be a str of at most one character. "
                             f"Got {fill!r} instead.")
    miss = missing_mask(series)
    text = as_text(series)
    head = text.str.slice(0, keep)
    if fill:
        cut = (text.str.len() - keep).clip(lower=0).fillna(0).astype("int64").to_numpy()
        tails = np.array([fill * k for k in range(int(cut.max(initial=0)) + 1)], dtype=object)
        head = head + pd.Series(tails[cut], index=series.index, dtype="str")
    return head.where(~miss).rename(series.name)


# long because of its docstring (HIPAA's rule, the four-digit cases, examples); the body is ~40 lines
def zip3(series: pd.Series, *, restricted_zip3: Iterable[str] | None = None,
         pad_four_digit: bool | None = None) -> pd.Series:
    """Safe Harbor ZIP code: the first three digits, or ``"000"`` for restricted areas.

    45 CFR 164.514(b)(2)(i)(B) allows the initial three digits of a ZIP code
    only if the area formed by all ZIP codes with those three digits holds more
    than 20,000 people; otherwise they must become 000.  Which ZIP3 areas are
    that small depends on current Census data, which veil does not bundle:
    pass the list.

    A US ZIP code has five digits.  A four-digit value is one that lost its
    leading zero when stored as a number (``2134`` for ``02134``: the ZIPs of
    New England, New Jersey and Puerto Rico start with 0), or a postcode of
    another country (Australia, Denmark, Switzerland, ...), to which the rule
    does not apply.  So four-digit values are:

    - left-padded to five digits (``2134`` -> ``02134`` -> ``021``) when the
      column is read as numbers (an integer or float dtype), when
      ``pad_four_digit=True``, or, with the default ``None``, when the column
      holds five-digit ZIPs too and none of them starts with 0 (so the column
      lost its leading zeros);
    - refused otherwise (a column of four-digit values only, or one whose
      five-digit ZIPs keep their leading zero), with a message saying what to
      pass; ``pad_four_digit=False`` always refuses them.

    Parameters
    ----------
    series : pandas.Series
        Five-digit ZIP codes, optionally ZIP+4 (``02139``, ``02139-4307``), or
        already three digits.
    restricted_zip3 : iterable of str, optional
        Three-digit strings (``"036"``) of areas with 20,000 people or fewer.
    pad_four_digit : bool, optional
        Whether four-digit values are US ZIP codes that lost their leading
        zero (default: decided from the column, as above).

    Raises
    ------
    SchemaError
        Values that are not ZIP codes, or four-digit values that are not
        padded (naming the rows).
    ParameterError
        An entry of ``restricted_zip3`` is not a three-digit string.

    Examples
    --------
    >>> zip3(pd.Series(["2134", "10001", "", "NA"], name="zip")).tolist()
    ['021', '100', nan, nan]
    """
    series = check_series(series, "zip3")
    restricted = zip3_list(restricted_zip3)
    if pad_four_digit is not None and not isinstance(pad_four_digit, bool):
        raise ParameterError(f"The 'pad_four_digit' parameter of zip3 must be a bool or None. "
                             f"Got {pad_four_digit!r} instead.")
    miss = missing_mask(series)
    text = as_text(series)
    if pd.api.types.is_integer_dtype(series.dtype) or pd.api.types.is_float_dtype(series.dtype):
        text = text.str.zfill(5)   # a ZIP read as a number lost its leading zeros
    text = text.where(~miss, "")
    valid = text.str.fullmatch(r"\d{5}(?:-?\d{4})?|\d{3,4}").to_numpy(dtype=bool, na_value=False)
    bad = ~valid & ~miss
    if bad.any():
        raise SchemaError(
            f"zip3: column {column_label(series)} has {int(bad.sum())} value(s) that are not 5-digit ZIP codes at "
            f"rows {describe_rows(series.index[bad])}. Fix or blank them, or use 'mask' instead."
        )
    out = _pad_four_digit(series, text, pad_four_digit).str.slice(0, 3)
    if restricted:
        out = out.where(~out.isin(restricted), "000")
    return out.where(~miss).rename(series.name)


def _pad_four_digit(series: pd.Series, text: pd.Series, pad: bool | None) -> pd.Series:
    """``text`` with its four-digit values left-padded to five digits, or :class:`SchemaError` (see :func:`zip3`)."""
    four = text.str.fullmatch(r"\d{4}").to_numpy(dtype=bool, na_value=False)
    if not four.any():
        return text
    five = text.str.fullmatch(r"\d{5}(?:-?\d{4})?").to_numpy(dtype=bool, na_value=False)
    kept_zero = five & text.str.startswith("0").to_numpy(dtype=bool, na_value=False)
    if pad or (pad is None and five.any() and not kept_zero.any()):
        return text.where(~four, text.str.zfill(5))
    why = ("pad_four_digit is false" if pad is False else
           "other ZIPs keep their leading zero" if kept_zero.any() else "no value has five digits")
    raise SchemaError(
        f"zip3: column {column_label(series)} has {int(four.sum())} four-digit value(s) at rows "
        f"{describe_rows(series.index[four])} and {why}, so they cannot be read as US ZIP codes; if they are ZIPs "
        f"that lost their leading zero pass pad_four_digit: true for this column (columns: {{{series.name}: "
        "{action: zip3, pad_four_digit: true}}), if they are postcodes of another country use 'mask' or 'drop'."
    )


def zip3_list(restricted: Iterable[str] | None) -> frozenset[str]:
    if restricted is None:
        return frozenset()
    if isinstance(restricted, str):
        raise ParameterError("The 'restricted_zip3' parameter of zip3 must be an iterable of three-digit "
                             "strings, not one string.")
    items = frozenset(restricted)
    wrong = [z for z in items if not (isinstance(z, str) and len(z) == 3 and z.isdigit())]
    if wrong:
        raise ParameterError(f"The 'restricted_zip3' parameter of zip3 must hold three-digit strings such as "
                             f"'036'. Got {sorted(map(repr, wrong))[:5]} instead.")
    return items



# --------------------------------------------------------------------------- coding


def _code(series: pd.Series, threshold: float, label: str | None, owner: str, above: bool) -> pd.Series:
    series = check_series(series, owner)
    threshold = check_real("threshold", threshold, owner)
    if label is not None and not isinstance(label, str):
        raise ParameterError(f"The 'label' parameter of {owner} must be a str or None. Got {label!r} instead.")
    values, miss = numbers(series, owner)
    hit = (values > threshold) if above else (values < threshold)
    if label is None:
        coded = np.where(hit, threshold, values)
        if pd.api.types.is_numeric_dtype(series.dtype):
            out = pd.Series(coded, index=series.index, name=series.name)
            if pd.api.types.is_integer_dtype(series.dtype) and float(threshold).is_integer():
                out = out.astype(series.dtype)
            return out
        return format_numbers(coded).set_axis(series.index).where(~miss).rename(series.name)
    out = format_numbers(values).set_axis(series.index)
    out = out.where(~hit, label)
    return out.where(~miss).rename(series.name)


def top_code(series: pd.Series, *, threshold: float, label: str | None = None) -> pd.Series:
    """Replace values above ``threshold`` by ``threshold`` (or by ``label``, e.g. ``"90+"``).

    Raises
    ------
    SchemaError
        Non-numeric values (naming the rows).
    """
    return _code(series, threshold, label, "top_code", above=True)


def bottom_code(series: pd.Series, *, threshold: float, label: str | None = None) -> pd.Series:
    """Replace values below ``threshold`` by ``threshold`` (or by ``label``, e.g. ``"<18"``)."""
    return _code(series, threshold, label, "bottom_code", above=False)


#: The top-coded age: an age of 90 in a Safe Harbor release stands for "90 or older".
AGE_TOP = 90

#: An age already written as a top code: ``90+``, ``90 +``, ``>=90``, ``≥90``, ``90 or older``, ``90 and over``.
_AGE_TOP_CODE = (r"^(?:(\d+(?:\.\d+)?)\s*(?:\+|or older|or more|and over|and older)"
                 r"|(?:>=|≥)\s*(\d+(?:\.\d+)?))$")


def _ages(series: pd.Series, owner: str) -> tuple[np.ndarray, np.ndarray, float]:
    """Ages as numbers, the missing mask, and the lowest top code already written in the column.

    A top code such as ``90+`` is read as its number (90); the third value is
    the smallest such number, or infinity when the column has none.  Other
    non-numeric values raise :class:`SchemaError`, naming the rows.
    """
    miss = missing_mask(series)
    if pd.api.types.is_numeric_dtype(series.dtype):
        values, miss = numbers(series, owner)
        return values, miss, np.inf
    found = as_text(series).where(~miss).str.lower().str.extract(_AGE_TOP_CODE)
    code = pd.to_numeric(found[0].fillna(found[1]), errors="coerce").to_numpy(dtype=float, na_value=np.nan)
    is_code = ~np.isnan(code)
    values, _ = numbers(series.where(~is_code), owner)  # the top codes read as missing here, set just below
    values = np.where(is_code, code, values)
    return values, miss, float(code[is_code].min()) if is_code.any() else np.inf


def age_90_plus(series: pd.Series, *, label: str | None = None) -> pd.Series:
    """Safe Harbor ages: every age over 89 is aggregated into one top category (45 CFR 164.514(b)(2)(i)(C)).

    By default the top category is the number :data:`AGE_TOP` (90, read "90 or
    older"), so the column stays numeric: interval hierarchies, numeric kinds
    and queries such as ``count where age > 40`` keep working.  With
    ``label`` (e.g. ``"90+"``) the top category is that text instead, and the
    column becomes text.  Ages of 89 or less are kept.

    Values a source already wrote as a top code (``90+``, ``>=90``, ``95 or
    older``; see ``_AGE_TOP_CODE``) are read as "that age or older": ``90+``
    becomes 90 like any age over 89.  A column already top-coded *below* 90
    (``85+``) keeps its own top category: every age of 85 or more becomes the
    number 85, read "85 or older" (writing 90 would claim that ages 85 to 89
    are over 89); with ``label`` such a column is refused.  Missing values
    (blank, ``NA``, ...) stay missing.

    Raises
    ------
    SchemaError
        Non-numeric values that are not top codes (naming the rows), or a
        ``label`` for a column already top-coded below 90.

    Examples
    --------
    >>> age_90_plus(pd.Series(["34", "90+", "", "NA", "97"], name="age")).tolist()
    ['34', '90', nan, nan, '90']
    >>> age_90_plus(pd.Series(["34", "85+", "87"], name="age")).tolist()
    ['34', '85', '85']
    """
    series = check_series(series, "age_90_plus")
    values, miss, written_top = _ages(series, "age_90_plus")
    top = min(float(AGE_TOP), written_top)
    hit = (values > AGE_TOP - 1) | (values >= top)
    if label is not None:
        if not isinstance(label, str):
            raise ParameterError(f"The 'label' parameter of age_90_plus must be a str or None. Got {label!r} instead.")
        if top < AGE_TOP:
            raise SchemaError(f"age_90_plus: column {column_label(series)} is already top-coded at {top:g} "
                              f"('{top:g}+'), below 90, so the label {label!r} would misstate its top category; "
                              "leave out the label (the number then reads 'or older').")
        out = format_numbers(values).set_axis(series.index).where(~hit, label)
        return out.where(~miss).rename(series.name)
    coded = np.where(hit, top, values)
    if pd.api.types.is_numeric_dtype(series.dtype):
        out = pd.Series(coded, index=series.index, name=series.name)
        return out.astype(series.dtype) if pd.api.types.is_integer_dtype(series.dtype) else out
    return format_numbers(coded).set_axis(series.index).where(~miss).rename(series.name)
