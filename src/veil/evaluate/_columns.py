"""The three tables of an evaluation, encoded once over the columns they share.

Each attacked column is either *numeric* (the original and the release hold
plain numbers: distances are ``|a - b| / range``) or *categorical* (everything
else, generalized values included: a released value matches the original values
it covers, :mod:`veil.evaluate._coverage`).  The original and the control share
one dictionary of values per column, the release has its dictionary of labels;
every later step works on these codes.

A missing value is a value of its own: it matches a missing value and nothing
else.  A *suppressed* released record (``*`` in every quasi-identifier) matches
nothing: it is left out of the release before any attack.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import numpy as np
import pandas as pd

from veil.data import format_labels
from veil.evaluate._coverage import STAR, Coverage, coverage

__all__ = ["Column", "Tables", "encode_tables", "MISSING"]

#: The text of a missing value (a value of its own).
MISSING = "\x00missing"


@dataclass(frozen=True)
class Column:
    """One attacked column: its kind, and for a categorical one its values, labels and coverage."""

    name: str
    numeric: bool
    values: np.ndarray
    labels: np.ndarray
    cover: Coverage | None
    scale: float


@dataclass(frozen=True)
class Tables:
    """The encoded tables: per column, codes (categorical) or floats (numeric), for each table."""

    columns: dict[str, Column]
    original: dict[str, np.ndarray]
    control: dict[str, np.ndarray] | None
    release: dict[str, np.ndarray]
    release_rows: np.ndarray

    @property
    def n_release(self) -> int:
        return len(self.release_rows)

    def take(self, table: str, rows: np.ndarray, names: Sequence[str]) -> dict[str, np.ndarray]:
        """The codes or values of ``rows`` of ``table`` (original, control, release) for ``names``."""
        source = getattr(self, table)
        return {name: source[name][rows] for name in names}


def texts(series: pd.Series) -> np.ndarray:
    """A column as texts, the labels a release writes (:func:`veil.data.format_labels`): whole
    floats without ``.0`` (so ``3.0`` read as a float is the ``3`` of an integer column), a
    timestamp to the microsecond (``2021-03-04`` at midnight, ``2021-03-04 12:30:00.250000``), a
    date as ``2021-03-04``; missing values as :data:`MISSING`.  Worked out per distinct value."""
    codes, uniques = pd.factorize(series, use_na_sentinel=True)
    labels = np.empty(len(uniques) + 1, dtype=object)
    labels[-1] = MISSING
    if len(uniques):
        values = pd.Series(uniques)
        with np.errstate(invalid="ignore"):  # an infinity is written as inf
            labels[:-1] = format_labels(values).fillna(values.astype(str)).to_numpy(dtype=object)
    return labels[codes]


def _numbers(series: pd.Series) -> tuple[np.ndarray, bool]:
    """The column as floats (missing: NaN), and whether every present value is a number.
    Worked out per distinct value."""
    if pd.api.types.is_bool_dtype(series.dtype):
        return np.full(len(series), np.nan), False
    if pd.api.types.is_numeric_dtype(series.dtype):  # an infinity is a value, not a number to measure from
        values = series.to_numpy(dtype=np.float64, na_value=np.nan)
        return values, not bool(np.isinf(values).any())
    codes, uniques = pd.factorize(series, use_na_sentinel=True)
    parsed = pd.to_numeric(pd.Series(uniques, dtype=object), errors="coerce").to_numpy(dtype=np.float64, na_value=np.nan)
    numbers = np.append(parsed, np.nan)[codes]
    return numbers, bool(np.all(np.isfinite(parsed)))


def suppressed_rows(release: pd.DataFrame, quasi_identifiers: Sequence[str]) -> np.ndarray:
    """The released records with ``*`` in every quasi-identifier: they match nothing."""
    if not quasi_identifiers:
        return np.zeros(len(release), dtype=np.bool_)
    star = np.ones(len(release), dtype=np.bool_)
    for name in quasi_identifiers:
        star &= release[name].astype(str).to_numpy() == STAR
    return star


def encode_tables(
    original: pd.DataFrame, control: pd.DataFrame | None, release: pd.DataFrame, names: Sequence[str], *,
    quasi_identifiers: Sequence[str] = (), mapped: Mapping[str, Mapping[str, str]] | None = None,
) -> Tables:
    """Encode ``names`` of the three tables; ``mapped[name]`` maps original texts to their released
    labels (from the release's hierarchy at its level), where known."""
    keep = ~suppressed_rows(release, [q for q in quasi_identifiers if q in release.columns])
    rows = np.flatnonzero(keep)
    release = release.iloc[rows]
    columns: dict[str, Column] = {}
    enc: dict[str, dict[str, np.ndarray]] = {"original": {}, "control": {}, "release": {}}
    for name in names:
        frames = [original[name]] + ([control[name]] if control is not None else [])
        numbers = [_numbers(f) for f in frames]
        released, released_numeric = _numbers(release[name])
        if all(ok for _, ok in numbers) and released_numeric and not pd.api.types.is_bool_dtype(release[name].dtype):
            values = np.concatenate([n for n, _ in numbers] + [released])
            finite = values[np.isfinite(values)]
            scale = float(finite.max() - finite.min()) if len(finite) else 1.0
            columns[name] = Column(name, True, np.empty(0), np.empty(0), None, scale or 1.0)
            enc["original"][name] = numbers[0][0]
            if control is not None:
                enc["control"][name] = numbers[1][0]
            enc["release"][name] = released
            continue
        value_texts = [texts(f) for f in frames]
        codes, uniques = pd.factorize(np.concatenate(value_texts))
        label_codes, labels = pd.factorize(texts(release[name]))
        uniques, labels = np.asarray(uniques, dtype=object), np.asarray(labels, dtype=object)
        hierarchy = (mapped or {}).get(name)
        mapping = None if hierarchy is None else pd.Series(uniques).map(hierarchy).fillna(MISSING).to_numpy(dtype=object)
        columns[name] = Column(name, False, uniques.astype(object), labels.astype(object),
                               coverage(uniques.astype(object), labels.astype(object), mapping), 1.0)
        enc["original"][name] = codes[: len(original)].astype(np.int64)
        if control is not None:
            enc["control"][name] = codes[len(original):].astype(np.int64)
        enc["release"][name] = label_codes.astype(np.int64)
    return Tables(columns, enc["original"], enc["control"] if control is not None else None, enc["release"], rows)
