"""Pseudonyms: the secret key, keyed HMAC-SHA256 pseudonyms and random ids.

The keyed hash hashes each *distinct* value once (``pandas.factorize``) and
broadcasts the result back, so the Python-level work is per distinct value.
"""

from __future__ import annotations

import hashlib
import hmac
import secrets
from typing import Any

import numpy as np
import pandas as pd

from veil._validation import check_int
from veil.errors import ParameterError
from veil.sanitize._values import as_text, check_series, generator, missing_mask

__all__ = ["MIN_KEY_BYTES", "PseudonymKey", "pseudonymize_hmac", "pseudonymize_random"]

MIN_KEY_BYTES = 16


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

    def digest(self, message: bytes) -> bytes:
        """HMAC-SHA256 of ``message`` under the key (the key itself is never exposed)."""
        return hmac.new(self._secret, message, hashlib.sha256).digest()


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
    series = check_series(series, "pseudonymize_hmac")
    secret = PseudonymKey(key, "pseudonymize_hmac")
    length = check_int("length", length, "pseudonymize_hmac", low=8, high=64)
    miss = missing_mask(series)
    text = as_text(series)
    codes, uniques = pd.factorize(text.where(~miss))
    ctx = str(context).encode("utf-8") + b"\x00"
    digests = np.array([prefix + secret.digest(ctx + str(u).encode("utf-8")).hex()[:length] for u in uniques],
                       dtype=object)
    out = np.full(len(series), None, dtype=object)
    ok = codes >= 0
    out[ok] = digests[codes[ok]]
    return pd.Series(out, index=series.index, name=series.name, dtype="str")



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
    series = check_series(series, "pseudonymize_random")
    gen = generator(rng, "pseudonymize_random")
    miss = missing_mask(series)
    text = as_text(series)
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
