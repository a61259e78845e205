"""Column actions: drop, pseudonymize, mask, ZIP3, top/bottom coding, dates, ages.

Every action takes a :class:`pandas.Series` and returns a new one (the input is
never modified) with the same index and name.  Missing values (NA, or the empty
string of a CSV read with ``keep_default_na=False``) stay missing.  Actions work
on whole columns with vectorised pandas/numpy; the two that need a keyed hash
(HMAC pseudonyms, keyed date shifts) hash each *distinct* value once
(``pandas.factorize``) and broadcast the result back, so the Python-level work
is per distinct value, not per row.
"""

from __future__ import annotations

import hashlib
import hmac
import secrets
from typing import Any, Iterable

import numpy as np
import pandas as pd

from veil._validation import check_choice, check_int, check_real
from veil.errors import ColumnNotFoundError, ParameterError, SchemaError

__all__ = [
    "MIN_KEY_BYTES",
    "PseudonymKey",
    "drop",
    "pseudonymize_hmac",
    "pseudonymize_random",
    "mask",
    "zip3",
    "top_code",
    "bottom_code",
    "shift_dates",
    "truncate_dates",
    "age_90_plus",
    "birth_year",
    "parse_dates",
    "require_columns",
]

#: Shortest accepted pseudonymization key, in bytes (128 bits).
MIN_KEY_BYTES = 16
_ROWS_SHOWN = 10


class PseudonymKey:
    """A secret key for HMAC-SHA256 pseudonyms and keyed date shifts.

    The key is held privately and never shown: ``repr``, ``str`` and every
    error message say only its length at most.  Keep the same key across
    releases to keep pseudonyms stable (the same value gets the same
    pseudonym, so releases can be linked by whoever holds them); use a new key
    to make a release unlinkable to earlier ones.

    Parameters
    ----------
    key : bytes or str
        At least :data:`MIN_KEY_BYTES` (16) bytes; a str is encoded as UTF-8.
        Generate one with ``secrets.token_hex(32)``.

    Raises
    ------
    ParameterError
        The key is missing, of the wrong type or shorter than 16 bytes.
    """

    __slots__ = ("_secret",)

    def __init__(self, key: "bytes | str | PseudonymKey", owner: str = "PseudonymKey") -> None:
        if isinstance(key, PseudonymKey):
            secret = key._secret
        elif key is None:
            raise ParameterError(
                f"The 'key' parameter of {owner} is missing: pass a secret key of at least "
                f"{MIN_KEY_BYTES} bytes (bytes or str), e.g. read from an environment variable or a "
                "key file; generate one with `python -c \"import secrets; print(secrets.token_hex(32))\"`."
            )
        elif isinstance(key, str):
            secret = key.encode("utf-8")
        elif isinstance(key, (bytes, bytearray, memoryview)):
            secret = bytes(key)
        else:
            raise ParameterError(
                f"The 'key' parameter of {owner} must be bytes or str. Got {type(key).__name__} instead."
            )
        if len(secret) < MIN_KEY_BYTES:
            raise ParameterError(
                f"The 'key' parameter of {owner} must be at least {MIN_KEY_BYTES} bytes long. "
                f"Got a key of {len(secret)} bytes instead; use a longer random secret."
            )
        self._secret = secret

    def __repr__(self) -> str:
        return "PseudonymKey(<redacted>)"

    __str__ = __repr__

    def __reduce__(self) -> Any:  # never pickle the secret by accident
        raise TypeError("PseudonymKey cannot be pickled")

    def _hmac(self, message: bytes) -> bytes:
        return hmac.new(self._secret, message, hashlib.sha256).digest()


# --------------------------------------------------------------------------- helpers


def require_columns(frame: pd.DataFrame, columns: Iterable[Any], owner: str) -> None:
    """Raise :class:`ColumnNotFoundError` naming every column not in ``frame``."""
    missing = [c for c in columns if c not in frame.columns]
    if missing:
        names = ", ".join(repr(str(c)) for c in missing)
        available = ", ".join(repr(str(c)) for c in frame.columns)
        raise ColumnNotFoundError(
            f"{owner}: column(s) {names} not in the table. Available columns: {available}."
        )


def _describe_rows(index: pd.Index) -> str:
    shown = ", ".join(str(i) for i in index[:_ROWS_SHOWN])
    more = len(index) - _ROWS_SHOWN
    return shown + (f" and {more} more" if more > 0 else "")


def _missing(series: pd.Series) -> np.ndarray:
    """NA, or an empty/blank string."""
    miss = series.isna().to_numpy(dtype=bool).copy()
    if series.dtype == object or isinstance(series.dtype, pd.StringDtype):
        text = series.astype("str")
        miss |= (text.str.strip() == "").to_numpy(dtype=bool, na_value=True)
    return miss


def _text(series: pd.Series) -> pd.Series:
    """Values as stripped strings (str dtype), integral floats without ``.0``."""
    if pd.api.types.is_float_dtype(series.dtype):
        vals = series.to_numpy(dtype=float, na_value=np.nan)
        finite = vals[~np.isnan(vals)]
        if np.all(np.mod(finite, 1) == 0):
            series = series.astype("Int64")
    return series.astype("str").str.strip()


def _name(series: pd.Series) -> str:
    return repr(str(series.name)) if series.name is not None else "(unnamed)"


def _check_series(series: Any, owner: str) -> pd.Series:
    if not isinstance(series, pd.Series):
        raise ParameterError(f"The 'series' parameter of {owner} must be a pandas Series. "
                             f"Got {type(series).__name__} instead.")
    return series


def _numbers(series: pd.Series, owner: str) -> tuple[np.ndarray, np.ndarray]:
    """Numeric values and the missing mask; non-numeric values raise, naming rows."""
    miss = _missing(series)
    if pd.api.types.is_numeric_dtype(series.dtype) and not pd.api.types.is_bool_dtype(series.dtype):
        values = series.to_numpy(dtype=float, na_value=np.nan)
    else:
        values = pd.to_numeric(_text(series).where(~miss), errors="coerce").to_numpy(dtype=float, na_value=np.nan)
    bad = np.isnan(values) & ~miss
    if bad.any():
        raise SchemaError(
            f"{owner}: column {_name(series)} has {int(bad.sum())} non-numeric value(s) at rows "
            f"{_describe_rows(series.index[bad])}. Fix or blank them, or choose another action."
        )
    return values, miss


def _format_numbers(values: np.ndarray) -> pd.Series:
    """Numbers as strings: integral values without ``.0``; NaN becomes missing."""
    nan = np.isnan(values)
    integral = ~nan & (np.mod(np.where(nan, 0, values), 1) == 0)
    as_int = pd.Series(np.where(integral, values, 0)).astype("int64").astype("str")
    as_float = pd.Series(values).astype("str")
    out = as_float.where(~integral, as_int)
    return out.where(~nan)


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


# --------------------------------------------------------------------------- pseudonyms


def pseudonymize_hmac(series: pd.Series, *, key: "bytes | str | PseudonymKey", length: int = 16,
                      context: str = "", prefix: str = "") -> pd.Series:
    """Replace each value by a keyed hash of it: HMAC-SHA256, hex, truncated.

    The same value gets the same pseudonym within a run and across runs with
    the same key and ``context``; without the key the pseudonyms cannot be
    recomputed from guessed values (unlike a plain hash, which a dictionary
    attack reverses for SSNs, phone numbers and the like).

    Parameters
    ----------
    series : pandas.Series
    key : bytes, str or PseudonymKey
        Secret of at least 16 bytes.  Never written anywhere by veil.
    length : int in [8, 64], default 16
        Hex characters kept (16 = 64 bits; two distinct values among a million
        collide with probability about :math:`n^2/2^{65} \\approx 3 \\cdot 10^{-8}`).
    context : str, default ""
        Domain separation: the same value in two columns gets different
        pseudonyms if the contexts differ (pass the column name), the same
        pseudonym if they are equal (to keep a join key joinable).
    prefix : str, default ""
        Prepended to each pseudonym.

    Returns
    -------
    pandas.Series of str
        Missing values stay missing.

    Notes
    -----
    The message hashed is ``context + "\\x00" + str(value).strip()``, so ``5``,
    ``5.0`` (an integral float) and ``"5"`` get the same pseudonym.

    Under HIPAA Safe Harbor a re-identification code must not be derived from
    information about the individual (45 CFR 164.514(c)); a keyed hash of an
    identifier is derived from it, so :func:`safe_harbor` uses random ids instead.
    """
    series = _check_series(series, "pseudonymize_hmac")
    secret = PseudonymKey(key, "pseudonymize_hmac")
    length = check_int("length", length, "pseudonymize_hmac", low=8, high=64)
    miss = _missing(series)
    text = _text(series)
    codes, uniques = pd.factorize(text.where(~miss))
    ctx = str(context).encode("utf-8") + b"\x00"
    digests = np.array([prefix + secret._hmac(ctx + str(u).encode("utf-8")).hex()[:length] for u in uniques],
                       dtype=object)
    out = np.full(len(series), None, dtype=object)
    ok = codes >= 0
    out[ok] = digests[codes[ok]]
    return pd.Series(out, index=series.index, name=series.name, dtype="str")


def _generator(rng: Any, owner: str) -> np.random.Generator:
    if rng is None:
        return np.random.default_rng(secrets.randbits(128))
    if isinstance(rng, np.random.Generator):
        return rng
    if isinstance(rng, (int, np.integer)) and not isinstance(rng, bool) and rng >= 0:
        return np.random.default_rng(int(rng))
    raise ParameterError(f"The 'rng' parameter of {owner} must be None, a non-negative int seed or a "
                         f"numpy Generator. Got {type(rng).__name__} instead.")


def pseudonymize_random(series: pd.Series, *, rng: Any = None, prefix: str = "ID") -> tuple[pd.Series, pd.DataFrame]:
    """Replace each distinct value by a randomly assigned id.

    The ids are a random permutation of ``1..n`` (n distinct values), zero
    padded, with ``prefix``.  They carry no information about the value; the
    only link is the mapping table, which is returned separately and which the
    caller must keep apart from the release (the CLI writes it only to
    ``--mapping-out``).

    Parameters
    ----------
    series : pandas.Series
    rng : None, int or numpy.random.Generator
        None draws a fresh seed from the operating system (:mod:`secrets`).
    prefix : str, default "ID"

    Returns
    -------
    (pandas.Series of str, pandas.DataFrame)
        The pseudonymized column, and the mapping with columns ``original``
        and ``pseudonym`` (one row per distinct value).
    """
    series = _check_series(series, "pseudonymize_random")
    gen = _generator(rng, "pseudonymize_random")
    miss = _missing(series)
    text = _text(series)
    codes, uniques = pd.factorize(text.where(~miss))
    n = len(uniques)
    width = len(str(max(n, 1)))
    numbers = gen.permutation(n) + 1
    ids = pd.Series(numbers, dtype="int64").astype("str").str.zfill(width)
    ids = (prefix + ids).to_numpy(dtype=object)
    out = np.full(len(series), None, dtype=object)
    ok = codes >= 0
    out[ok] = ids[codes[ok]]
    mapping = pd.DataFrame({"original": pd.Series(np.asarray(uniques, dtype=object), dtype="str"),
                            "pseudonym": pd.Series(ids, dtype="str")})
    return pd.Series(out, index=series.index, name=series.name, dtype="str"), mapping


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
    series = _check_series(series, "mask")
    keep = check_int("keep", keep, "mask", low=0)
    if not isinstance(fill, str) or len(fill) > 1:
        raise ParameterError(f"The 'fill' parameter of mask must be a str of at most one character. "
                             f"Got {fill!r} instead.")
    miss = _missing(series)
    text = _text(series)
    head = text.str.slice(0, keep)
    if fill:
        cut = (text.str.len() - keep).clip(lower=0).fillna(0).astype("int64").to_numpy()
        tails = np.array([fill * k for k in range(int(cut.max(initial=0)) + 1)], dtype=object)
        head = head + pd.Series(tails[cut], index=series.index, dtype="str")
    return head.where(~miss).rename(series.name)


def zip3(series: pd.Series, *, restricted_zip3: Iterable[str] | None = None) -> pd.Series:
    """Safe Harbor ZIP code: the first three digits, or ``"000"`` for restricted areas.

    45 CFR 164.514(b)(2)(i)(B) allows the initial three digits of a ZIP code
    only if the area formed by all ZIP codes with those three digits holds more
    than 20,000 people; otherwise they must become 000.  Which ZIP3 areas are
    that small depends on current Census data, which veil does not bundle:
    pass the list.

    Parameters
    ----------
    series : pandas.Series
        Five-digit ZIP codes, optionally ZIP+4 (``02139``, ``02139-4307``), or
        already three digits.
    restricted_zip3 : iterable of str, optional
        Three-digit strings (``"036"``) of areas with 20,000 people or fewer.

    Raises
    ------
    SchemaError
        Values that are not ZIP codes (naming the rows).
    ParameterError
        An entry of ``restricted_zip3`` is not a three-digit string.
    """
    series = _check_series(series, "zip3")
    restricted = _zip3_list(restricted_zip3)
    miss = _missing(series)
    text = _text(series)
    if pd.api.types.is_integer_dtype(series.dtype) or pd.api.types.is_float_dtype(series.dtype):
        text = text.str.zfill(5)   # a ZIP read as a number lost its leading zeros
    valid = text.str.fullmatch(r"\d{5}(?:-?\d{4})?|\d{3}").to_numpy(dtype=bool, na_value=False)
    bad = ~valid & ~miss
    if bad.any():
        raise SchemaError(
            f"zip3: column {_name(series)} has {int(bad.sum())} value(s) that are not 5-digit ZIP codes at "
            f"rows {_describe_rows(series.index[bad])}. Fix or blank them, or use 'mask' instead."
        )
    out = text.str.slice(0, 3)
    if restricted:
        out = out.where(~out.isin(restricted), "000")
    return out.where(~miss).rename(series.name)


def _zip3_list(restricted: Iterable[str] | None) -> frozenset[str]:
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
    series = _check_series(series, owner)
    threshold = check_real("threshold", threshold, owner)
    if label is not None and not isinstance(label, str):
        raise ParameterError(f"The 'label' parameter of {owner} must be a str or None. Got {label!r} instead.")
    values, miss = _numbers(series, owner)
    hit = (values > threshold) if above else (values < threshold)
    if label is None:
        coded = np.where(hit, threshold, values)
        if pd.api.types.is_numeric_dtype(series.dtype):
            out = pd.Series(coded, index=series.index, name=series.name)
            if pd.api.types.is_integer_dtype(series.dtype) and float(threshold).is_integer():
                out = out.astype(series.dtype)
            return out
        return _format_numbers(coded).set_axis(series.index).where(~miss).rename(series.name)
    out = _format_numbers(values).set_axis(series.index)
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


def age_90_plus(series: pd.Series, *, label: str | None = None) -> pd.Series:
    """Safe Harbor ages: every age over 89 is aggregated into one top category (45 CFR 164.514(b)(2)(i)(C)).

    By default the top category is the number :data:`AGE_TOP` (90, read "90 or
    older"), so the column stays numeric: interval hierarchies, numeric kinds
    and queries such as ``count where age > 40`` keep working.  With
    ``label`` (e.g. ``"90+"``) the top category is that text instead, and the
    column becomes text.  Ages of 89 or less are kept.

    Raises
    ------
    SchemaError
        Non-numeric values (naming the rows).
    """
    if label is not None:
        return _code(series, 89, label, "age_90_plus", above=True)
    series = _check_series(series, "age_90_plus")
    values, miss = _numbers(series, "age_90_plus")
    coded = np.where(values > 89, float(AGE_TOP), values)
    if pd.api.types.is_numeric_dtype(series.dtype):
        out = pd.Series(coded, index=series.index, name=series.name)
        return out.astype(series.dtype) if pd.api.types.is_integer_dtype(series.dtype) else out
    return _format_numbers(coded).set_axis(series.index).where(~miss).rename(series.name)


# --------------------------------------------------------------------------- dates


def parse_dates(series: pd.Series, owner: str = "parse_dates") -> pd.Series:
    """Parse a column of dates; unparseable values raise :class:`SchemaError` naming the rows.

    ISO 8601 first (``1980-03-14``, with or without a time), then, for the
    values that are not ISO, pandas' mixed-format parser (which reads
    ``03/04/1980`` month first).  Missing and empty values become ``NaT``.
    """
    if pd.api.types.is_datetime64_any_dtype(series.dtype):
        return series
    miss = _missing(series)
    text = _text(series).where(~miss)
    parsed = pd.to_datetime(text, errors="coerce", format="ISO8601")
    bad = parsed.isna().to_numpy() & ~miss
    if bad.any():
        try:
            retry = pd.to_datetime(text[bad], errors="coerce", format="mixed")
        except (ValueError, TypeError):
            retry = pd.Series(pd.NaT, index=text.index[bad])
        if getattr(retry.dt, "tz", None) is not None or getattr(parsed.dt, "tz", None) is not None:
            raise SchemaError(f"{owner}: column {_name(series)} mixes time zones; normalise it first.")
        parsed = parsed.astype("datetime64[ns]")
        parsed[bad] = retry.astype("datetime64[ns]")
        bad = parsed.isna().to_numpy() & ~miss
    if bad.any():
        raise SchemaError(
            f"{owner}: column {_name(series)} has {int(bad.sum())} value(s) that are not dates at rows "
            f"{_describe_rows(series.index[bad])}. Fix or blank them, or choose another action."
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
    series = _check_series(series, "truncate_dates")
    to = check_choice("to", to, "truncate_dates", ("year", "month"))
    dates = parse_dates(series, "truncate_dates")
    fmt = "%Y" if to == "year" else "%Y-%m"
    out = dates.dt.strftime(fmt).astype("str")
    return out.set_axis(series.index).rename(series.name)


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
    series = _check_series(series, "shift_dates")
    max_days = check_int("max_days", max_days, "shift_dates", low=1, high=36500)
    if (key is None) == (rng is None):
        raise ParameterError("shift_dates needs exactly one of 'key' (stable offsets across releases) and "
                             "'rng' (random offsets). Got " + ("neither." if key is None else "both."))
    if not isinstance(by, pd.Series) or len(by) != len(series):
        raise ParameterError("The 'by' parameter of shift_dates must be a pandas Series of person ids with "
                             f"the same length as the dates ({len(series)}).")
    dates = parse_dates(series, "shift_dates")
    by_miss = _missing(by)
    need = by_miss & dates.notna().to_numpy()
    if need.any():
        raise SchemaError(f"shift_dates: the person id is missing at rows {_describe_rows(series.index[need])}; "
                          "every dated row needs one.")
    codes, uniques = pd.factorize(_text(by).where(~by_miss))
    span = 2 * max_days
    if key is not None:
        secret = PseudonymKey(key, "shift_dates")
        ctx = b"veil.shift_dates\x00" + str(context).encode("utf-8") + b"\x00"
        draws = np.array([int.from_bytes(secret._hmac(ctx + str(u).encode("utf-8"))[:8], "big") % span
                          for u in uniques], dtype=np.int64)
    else:
        draws = _generator(rng, "shift_dates").integers(0, span, size=len(uniques))
    offsets = np.where(draws < max_days, draws - max_days, draws - max_days + 1)  # skip 0
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
    series = _check_series(series, "birth_year")
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
