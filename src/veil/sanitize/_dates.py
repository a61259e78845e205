"""Date actions: parse, truncate, shift by a keyed or random offset, birth years with the age-over-89 rule."""

from __future__ import annotations

from typing import Any

import numpy as np
import pandas as pd

from veil._validation import check_choice, check_int
from veil.errors import ParameterError, SchemaError
from veil.sanitize._pseudonyms import PseudonymKey
from veil.sanitize._values import as_text, check_series, column_label, describe_rows, generator, missing_mask

__all__ = ["parse_dates", "truncate_dates", "shift_dates", "birth_year"]

def parse_dates(series: pd.Series, owner: str = "parse_dates") -> pd.Series:
    """Parse a column of dates; unparseable values raise :class:`SchemaError` naming the rows.

    ISO 8601 first (``1980-03-14``, with or without a time), then, for the
    values that are not ISO, pandas' mixed-format parser (which reads
    ``03/04/1980`` month first).  Missing and empty values become ``NaT``.
    """
    if pd.api.types.is_datetime64_any_dtype(series.dtype):
        return series
    miss = missing_mask(series)
    text = as_text(series).where(~miss)
    parsed = pd.to_datetime(text, errors="coerce", format="ISO8601")
    bad = parsed.isna().to_numpy() & ~miss
    if bad.any():
        try:
            retry = pd.to_datetime(text[bad], errors="coerce", format="mixed")
        except (ValueError, TypeError):
            retry = pd.Series(pd.NaT, index=text.index[bad])
        if getattr(retry.dt, "tz", None) is not None or getattr(parsed.dt, "tz", None) is not None:
            raise SchemaError(f"{owner}: column {column_label(series)} mixes time zones; normalise it first.")
        parsed = parsed.astype("datetime64[ns]")
        parsed[bad] = retry.astype("datetime64[ns]")
        bad = parsed.isna().to_numpy() & ~miss
    if bad.any():
        raise SchemaError(
            f"{owner}: column {column_label(series)} has {int(bad.sum())} value(s) that are not dates at rows "
            f"{describe_rows(series.index[bad])}. Fix or blank them, or choose another action."
        )
    return parsed.rename(series.name)


def truncate_dates(series: pd.Series, *, to: str = "year") -> pd.Series:
    """Keep only the year (``"1980"``) or the year and month (``"1980-03"``) of each date.

    Safe Harbor keeps the year alone of every date related to an individual
    (45 CFR 164.514(b)(2)(i)(C)).

    Raises
    ------
    SchemaError
        Unparseable values, naming the rows.
    """
    series = check_series(series, "truncate_dates")
    to = check_choice("to", to, "truncate_dates", ("year", "month"))
    dates = parse_dates(series, "truncate_dates")
    fmt = "%Y" if to == "year" else "%Y-%m"
    out = dates.dt.strftime(fmt).astype("str")
    return out.set_axis(series.index).rename(series.name)


def _person_offsets(uniques: Any, *, key: Any, rng: Any, max_days: int, context: str) -> np.ndarray:
    """One nonzero offset in [-max_days, max_days] per person: HMAC(key, person) with ``key``, else drawn from ``rng``."""
    span = 2 * max_days
    if key is not None:
        secret = PseudonymKey(key, "shift_dates")
        ctx = b"veil.shift_dates\x00" + str(context).encode("utf-8") + b"\x00"
        draws = np.array([int.from_bytes(secret.digest(ctx + str(u).encode("utf-8"))[:8], "big") % span
                          for u in uniques], dtype=np.int64)
    else:
        draws = generator(rng, "shift_dates").integers(0, span, size=len(uniques))
    return np.where(draws < max_days, draws - max_days, draws - max_days + 1)  # skip 0


def shift_dates(series: pd.Series, *, by: pd.Series, key: "bytes | str | PseudonymKey | None" = None,
                rng: Any = None, max_days: int = 365, context: str = "") -> pd.Series:
    """Shift every date of one individual by the same random number of days.

    Each individual (a value of ``by``) gets one offset, uniform over
    :math:`\\{-d, \\dots, -1, 1, \\dots, d\\}` with :math:`d` = ``max_days``,
    applied to all their dates, so intervals between one person's events
    (length of stay, age at admission) are preserved while calendar dates are
    hidden.  With ``key`` the offset is derived from HMAC(key, person) and is
    the same in every release that uses the key; with ``rng`` it is random.

    Parameters
    ----------
    series : pandas.Series
        Dates (datetime64 or text).
    by : pandas.Series
        Person ids aligned with ``series`` (same length); must not be missing.
    key : bytes, str or PseudonymKey, optional
    rng : None, int or numpy.random.Generator, optional
        Exactly one of ``key`` and ``rng`` must be given.
    max_days : int in [1, 36500], default 365

    Returns
    -------
    pandas.Series of datetime64

    Raises
    ------
    ParameterError
        Neither or both of ``key`` and ``rng``; ``by`` not aligned.
    SchemaError
        Unparseable dates or missing person ids (naming the rows).
    """
    series = check_series(series, "shift_dates")
    max_days = check_int("max_days", max_days, "shift_dates", low=1, high=36500)
    if (key is None) == (rng is None):
        raise ParameterError("shift_dates needs exactly one of 'key' (stable offsets across releases) and "
                             "'rng' (random offsets). Got " + ("neither." if key is None else "both."))
    if not isinstance(by, pd.Series) or len(by) != len(series):
        raise ParameterError("The 'by' parameter of shift_dates must be a pandas Series of person ids with "
                             f"the same length as the dates ({len(series)}).")
    dates = parse_dates(series, "shift_dates")
    by_miss = missing_mask(by)
    need = by_miss & dates.notna().to_numpy()
    if need.any():
        raise SchemaError(f"shift_dates: the person id is missing at rows {describe_rows(series.index[need])}; "
                          "every dated row needs one.")
    codes, uniques = pd.factorize(as_text(by).where(~by_miss))
    offsets = _person_offsets(uniques, key=key, rng=rng, max_days=max_days, context=context)
    per_row = np.zeros(len(series), dtype=np.int64)
    per_row[codes >= 0] = offsets[codes[codes >= 0]]
    shifted = dates + pd.to_timedelta(per_row, unit="D")
    return shifted.set_axis(series.index).rename(series.name)


def birth_year(series: pd.Series, *, as_of: "pd.Timestamp | str | None" = None) -> pd.Series:
    """Safe Harbor dates of birth: the year only, with years implying an age over 89 aggregated.

    45 CFR 164.514(b)(2)(i)(C) removes every element of a date except the year,
    and every element *including the year* that indicates an age over 89;
    those may be aggregated into one category.  A person born in year
    :math:`y` is over 89 on ``as_of`` at some point of the year if
    :math:`\\text{as\\_of.year} - y \\ge 90`, so every such year becomes
    ``"<=Y"`` with :math:`Y = \\text{as\\_of.year} - 90` (conservative: it also
    covers some people who are still 89).

    Parameters
    ----------
    series : pandas.Series
        Dates of birth.
    as_of : date-like, optional
        The release date (default: today).

    Raises
    ------
    SchemaError
        Unparseable dates (naming the rows).
    """
    series = check_series(series, "birth_year")
    try:
        ref = pd.Timestamp.today() if as_of is None else pd.Timestamp(as_of)
    except (ValueError, TypeError):
        raise ParameterError(f"The 'as_of' parameter of birth_year must be a date. Got {as_of!r} instead.") from None
    cutoff = ref.year - 90
    dates = parse_dates(series, "birth_year")
    years = dates.dt.year
    out = years.astype("Int64").astype("str")
    out = out.where(~(years <= cutoff).to_numpy(dtype=bool, na_value=False), f"<={cutoff}")
    return out.set_axis(series.index).rename(series.name)
