"""Detection of direct identifiers and likely quasi-identifiers in a table.

How a column is judged
----------------------
1. **Column name.**  The name is normalised (``PatientDOB`` -> ``patient_dob``)
   and matched against each kind's name patterns, first as a whole (full
   confidence) and then word by word (80 % of it).
2. **Values.**  A deterministic sample of the column's non-missing values (up to
   ``sample_size``, drawn with a seeded generator; the whole column when it is
   smaller) is matched against every kind's value pattern; card numbers must
   also pass the Luhn check (vectorised over the matched candidates with numpy).
   Each distinct sampled value is stripped and matched once and counted as often
   as it occurs (a text column is hashed once, and its missing values, distinct
   count and sample are read from the codes), which gives the same shares as
   matching every sampled value.  The evidence gives the share of sampled values
   matched and the sample size.  A share measured on
   10,000 values has a standard error of at most 0.005, far below the 0.5 share
   that decides anything, so sampling does not change the answer.
3. **Uniqueness**, on the **full** column (``nunique``, never sampled): a column
   whose non-missing values are all distinct identifies its rows, whatever its
   name, once it has at least ``min_rows_for_uniqueness`` values.

The name and the values are then combined: a name backed by its values is
near certain; a specific value pattern (e-mail, SSN, IP address, ...) wins over
a generic name; a specific pattern the values contradict halves a name's
confidence.  A kind is reported when its confidence reaches ``threshold``;
otherwise the column is ``none`` and the best candidate stays in the evidence.

Reports never contain record values: only pattern descriptions, shares and counts.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from types import MappingProxyType
from typing import Any, Mapping

import pandas as pd

from veil._validation import check_int, check_real
from veil.errors import ParameterError
from veil.sanitize._column_values import (
    FREE_TEXT_CHARS, ColumnValues, column_values, counted, free_text_share, pattern_shares, rows_of, share,
)
from veil.sanitize._patterns import KIND_BY_NAME, KINDS, Category, Kind, name_tokens

__all__ = ["Evidence", "ColumnFinding", "ScanReport", "scan", "scan_columns", "DEFAULT_SAMPLE_SIZE"]

#: Default number of non-missing values per column examined for value patterns.
DEFAULT_SAMPLE_SIZE = 10_000

_DECIMAL = re.compile(r"[-+]?\d*\.\d+(?:[eE][-+]?\d+)?")
_INTEGER = re.compile(r"[-+]?\d{1,18}")
_WORD_FACTOR = 0.8          # a name matched on one word, not as a whole
_MIN_SHARE = 0.5            # a pattern defines a column only if most values match
_WEAK = 0.5                 # a pattern weaker than this is evidence only for most values, or with the name
#: The confidence that unique decimal numbers identify their rows: a continuous measurement
#: (a health score, a wage) is unique by its precision, not because it names anyone; below the
#: default threshold, so it is only a candidate
_MEASUREMENT = 0.3


@dataclass(frozen=True)
class Evidence:
    """One reason behind a finding.

    Attributes
    ----------
    source : {"name", "pattern", "uniqueness", "free-text"}
    kind : str or None
        The kind the evidence points to (None for uniqueness of an unknown kind).
    detail : str
        What was matched, in words (pattern description, never a value).
    share : float or None
        Share of the examined values that matched (pattern, free text) or the
        share of distinct values among non-missing ones (uniqueness).
    examined : int or None
        How many values the share is computed on.
    sampled : bool
        Whether ``examined`` is a sample of the column rather than all of it.
    """

    source: str
    kind: str | None
    detail: str
    share: float | None = None
    examined: int | None = None
    sampled: bool = False

    def to_dict(self) -> dict[str, Any]:
        return {
            "source": self.source,
            "kind": self.kind,
            "detail": self.detail,
            "share": None if self.share is None else round(float(self.share), 4),
            "examined": self.examined,
            "sampled": self.sampled,
        }


@dataclass(frozen=True)
class ColumnFinding:
    """What one column is, with the evidence and a confidence.

    Attributes
    ----------
    column : str
    kind : str
        ``email``, ``ssn``, ``name``, ... or ``none``.
    category : str
        ``direct-identifier``, ``quasi-identifier`` or ``none``.
    confidence : float
        In [0, 1]: the confidence that the column is of ``kind``.  For ``none``
        it is one minus the confidence of the best candidate kind.
    evidence : tuple of Evidence
    safe_harbor : int or None
        The Safe Harbor item (1-18) of ``kind``, or None.
    rows, missing, distinct : int
        Row count, missing or empty values, distinct non-missing values (full
        column).
    unique : bool
        Every non-missing value is distinct (and there are enough of them).
    candidate : str or None
        For ``none``: the best kind below the threshold, if any.
    """

    column: str
    kind: str
    category: str
    confidence: float
    evidence: tuple[Evidence, ...]
    safe_harbor: int | None
    rows: int
    missing: int
    distinct: int
    unique: bool
    candidate: str | None = None
    candidate_confidence: float = 0.0

    @property
    def is_direct_identifier(self) -> bool:
        return self.category == Category.DIRECT_IDENTIFIER.value

    @property
    def is_quasi_identifier(self) -> bool:
        return self.category == Category.QUASI_IDENTIFIER.value

    def to_dict(self) -> dict[str, Any]:
        return {
            "kind": self.kind,
            "category": self.category,
            "evidence": [e.to_dict() for e in self.evidence],
            "confidence": round(float(self.confidence), 3),
            "safe_harbor": self.safe_harbor,
            "rows": self.rows,
            "missing": self.missing,
            "distinct": self.distinct,
            "unique": self.unique,
            "candidate": self.candidate,
            "candidate_confidence": round(float(self.candidate_confidence), 3),
        }


@dataclass(frozen=True)
class ScanReport:
    """The findings for every column of a table.

    Attributes
    ----------
    columns : Mapping[str, ColumnFinding]
        In the table's column order.
    rows : int
    sample_size : int
        The most values per column examined for value patterns.
    seed : int
        Seed of the sampling generator (the scan is deterministic).
    threshold : float
        Confidence at which a kind is reported.
    """

    columns: Mapping[str, ColumnFinding]
    rows: int
    sample_size: int
    seed: int
    threshold: float
    min_rows_for_uniqueness: int = 10

    def __post_init__(self) -> None:
        object.__setattr__(self, "columns", MappingProxyType(dict(self.columns)))

    @property
    def direct_identifiers(self) -> tuple[str, ...]:
        return tuple(c for c, f in self.columns.items() if f.is_direct_identifier)

    @property
    def quasi_identifiers(self) -> tuple[str, ...]:
        return tuple(c for c, f in self.columns.items() if f.is_quasi_identifier)

    def to_dict(self) -> dict[str, Any]:
        return {
            "rows": self.rows,
            "sampling": {
                "sample_size": self.sample_size,
                "seed": self.seed,
                "note": "value patterns are measured on up to sample_size non-missing values per "
                        "column; uniqueness on the full column",
            },
            "threshold": self.threshold,
            "min_rows_for_uniqueness": self.min_rows_for_uniqueness,
            "columns": {name: f.to_dict() for name, f in self.columns.items()},
        }


# --------------------------------------------------------------------------- name


def _name_candidates(column: object) -> dict[str, tuple[float, str]]:
    """Kinds suggested by a column name: ``{kind: (confidence, how)}``."""
    whole, words = name_tokens(column)
    found: dict[str, tuple[float, str]] = {}
    if not whole:
        return found
    for kind in KINDS:
        regex = kind.name_regex
        if regex is None:
            continue
        if regex.fullmatch(whole):
            found[kind.name] = (kind.name_confidence, f"column name {whole!r} matches {kind.description}")
        elif len(words) > 1 and any(regex.fullmatch(w) for w in words):
            found[kind.name] = (kind.name_confidence * _WORD_FACTOR,
                                f"a word of column name {whole!r} matches {kind.description}")
    return found


# --------------------------------------------------------------------------- values


def _pattern_shares(sample: pd.Series) -> dict[str, tuple[float, float]]:
    """``{kind: (share matching the pattern, share also passing the check)}`` of the values of ``sample``."""
    return pattern_shares(counted(sample, len(sample), 0, False))


# --------------------------------------------------------------------------- combine

_MIN_CONTRADICTING = 20


def _contradicted(kind: str, how: str, whole: str, support: float, examined: int) -> bool:
    """Whether the values contradict a column name that suggested ``kind`` (not an exclusive kind).

    - a person name suggested by a word of the column name (``patient_type``
      holding ``inpatient``) or by a word that is not ``name`` itself (``contact``
      holding ``email``); a column called ``name`` stays a name even in lower case;
    - a date name none of whose (at least 20) values looks like a date
      (``visit_count`` holding ``1, 2, 3``).

    Other kinds keep their name whatever the values (``patient_ssn`` without
    dashes, a foreign postcode, an id of any shape): a missed identifier costs
    more than a column flagged in error.
    """
    if kind == "name":
        return how.startswith("a word") or "name" not in whole
    if kind == "date":
        return support == 0.0 and examined >= _MIN_CONTRADICTING
    return False


def _name_and_pattern_scores(column: object, values: ColumnValues) -> tuple[dict[str, float], list[Evidence]]:
    """The confidence of each kind that the column name or the sampled values suggest, with the evidence."""
    examined, sampled = values.examined, values.sampled
    shares = pattern_shares(values)
    names = _name_candidates(column)
    whole_name = name_tokens(column)[0]
    evidence: list[Evidence] = []
    scores: dict[str, float] = {}
    for kname, (conf, how) in names.items():
        kind = KIND_BY_NAME[kname]
        evidence.append(Evidence("name", kname, how))
        if kind.pattern is not None and examined:
            raw, support = shares[kname]
            if support >= _MIN_SHARE:
                conf = conf + (1 - conf) * 0.9 * support
            elif kind.exclusive or _contradicted(kname, how, whole_name, support, examined):
                conf = conf * (0.5 + support)   # the values contradict the name
        scores[kname] = conf
    for kname, (raw, valid) in shares.items():
        kind = KIND_BY_NAME[kname]
        if valid >= _MIN_SHARE:
            scores[kname] = max(scores.get(kname, 0.0), kind.pattern_strength * valid)
        if kname in names or valid >= _MIN_SHARE or (raw >= 0.05 and kind.pattern_strength >= _WEAK):
            detail = f"values match the {kind.description} pattern"
            if kind.check is not None:
                detail += f" ({raw:.1%} by shape, {valid:.1%} also pass the check)"
            evidence.append(Evidence("pattern", kname, detail, valid, examined, sampled))
    return scores, evidence


def _judge(column: object, series: Any, *, sample_size: int, seed: int, threshold: float,
           min_rows_for_uniqueness: int) -> ColumnFinding:
    rows = rows_of(series)
    values = column_values(series, sample_size, seed)
    n_present, distinct, examined = values.n_present, values.distinct, values.examined
    sampled = values.sampled
    unique = n_present >= min_rows_for_uniqueness and distinct == n_present
    scores, evidence = _name_and_pattern_scores(column, values)

    free_text = free_text_share(values) if examined else 0.0

    best_kind, best = None, 0.0
    for kind in KINDS:   # KINDS order breaks ties
        if scores.get(kind.name, 0.0) > best:
            best_kind, best = kind.name, scores[kind.name]

    category: str | None = None
    if unique:
        best_kind, best, category = _unique(values, evidence, best_kind, best, threshold, column)
    elif n_present:
        evidence.append(Evidence("uniqueness", None,
                                 f"{distinct} distinct among {n_present} non-missing values (full column)",
                                 distinct / n_present, n_present, False))

    if free_text >= _MIN_SHARE:
        evidence.append(Evidence("free-text", None, f"values are free text (>= {FREE_TEXT_CHARS} characters "
                                 "with spaces) and may contain identifiers", free_text, examined, sampled))

    if best_kind is not None and best >= threshold:
        kind = KIND_BY_NAME[best_kind]
        return ColumnFinding(str(column), kind.name, category or kind.category.value, min(best, 1.0),
                             tuple(evidence), kind.safe_harbor, rows, rows - n_present, distinct, unique)
    if free_text >= _MIN_SHARE and best < threshold:
        return ColumnFinding(str(column), "free_text", Category.NONE.value, free_text, tuple(evidence), None,
                             rows, rows - n_present, distinct, unique, best_kind, best)
    return ColumnFinding(str(column), "none", Category.NONE.value, 1.0 - best, tuple(evidence), None,
                         rows, rows - n_present, distinct, unique, best_kind, best)


def _unique(values: ColumnValues, evidence: list[Evidence], best_kind: str | None, best: float,
            threshold: float, column: object) -> tuple[str | None, float, str | None]:
    """The judgement of a column whose values are all distinct: ``(kind, confidence, category)``,
    the uniqueness evidence appended to ``evidence``.

    A kind already found is a direct identifier, more surely; decimal numbers are a continuous
    measurement (:data:`_MEASUREMENT`); other values identify their rows.  Consecutive integers
    are a row or record number: a weak value pattern they happen to match (five-digit numbers
    look like ZIP codes) is no evidence, and is dropped.
    """
    n_present, examined = values.n_present, values.examined
    decimals = share(values.text.str.fullmatch(_DECIMAL).to_numpy(dtype=bool, na_value=False), values) \
        if examined else 0.0
    detail = f"all {n_present} non-missing values are distinct (full column, not sampled): unique per row"
    measurement = decimals >= _MIN_SHARE
    if measurement:
        detail += "; the values are decimal numbers, a continuous measurement rather than an identifier"
    if examined and _consecutive(values):
        detail += "; consecutive integers, a row or record number"
        named = set(_name_candidates(column))
        evidence[:] = [e for e in evidence if not (e.source == "pattern" and e.kind not in named
                                                   and KIND_BY_NAME[e.kind].pattern_strength < _WEAK)]
    found = best >= threshold
    evidence.append(Evidence("uniqueness", best_kind if found else None if measurement else "unique_identifier",
                             detail, 1.0, n_present, False))
    if found:
        return best_kind, 1 - (1 - best) * 0.5, Category.DIRECT_IDENTIFIER.value
    return "unique_identifier", (_MEASUREMENT if measurement else 0.9), None


def _consecutive(values: ColumnValues) -> bool:
    """Whether the sampled (distinct) values are integers within a range no wider than the column's
    count of values: with every value distinct, a numbering such as 1..n."""
    text = values.text
    if not text.str.fullmatch(_INTEGER).to_numpy(dtype=bool, na_value=False).all():
        return False
    numbers = pd.to_numeric(text, errors="coerce").to_numpy(dtype=float)
    return bool(numbers.max() - numbers.min() + 1 <= values.n_present)


def scan(frame: pd.DataFrame, *, sample_size: int = DEFAULT_SAMPLE_SIZE, seed: int = 0,
         threshold: float = 0.5, min_rows_for_uniqueness: int = 10,
         columns: list[str] | None = None) -> ScanReport:
    """Find the direct identifiers and likely quasi-identifiers of a table.

    Parameters
    ----------
    frame : pandas.DataFrame
        The table; read CSV files with ``dtype=str, keep_default_na=False`` so
        that values (leading zeros of ZIP codes, ...) are not mangled.  Empty
        strings count as missing.
    sample_size : int in [100, inf), default 10,000
        Most non-missing values per column matched against value patterns.
    seed : int in [0, inf), default 0
        Seed of the sampling generator.
    threshold : float in (0, 1], default 0.5
        Confidence at which a kind is reported.
    min_rows_for_uniqueness : int in [2, inf), default 10
        A column is an identifier by uniqueness only with at least this many
        non-missing values (in a tiny table every column is unique).
    columns : list of str, optional
        Only these columns (default: all).

    Returns
    -------
    ScanReport

    Raises
    ------
    ParameterError
        A parameter is out of range.
    ColumnNotFoundError
        A name in ``columns`` is not in the table.

    Examples
    --------
    >>> import pandas as pd
    >>> t = pd.DataFrame({"contact": ["ann@example.org", "bob@example.com"], "n": ["1", "2"]})
    >>> scan(t).columns["contact"].kind
    'email'
    """
    from veil.sanitize._actions import require_columns

    if not isinstance(frame, pd.DataFrame):
        raise ParameterError(f"The 'frame' parameter of scan must be a pandas DataFrame. "
                             f"Got {type(frame).__name__} instead.")
    names = list(frame.columns) if columns is None else list(columns)
    require_columns(frame, names, "scan")
    return scan_columns({c: frame[c] for c in names}, len(frame), sample_size=sample_size, seed=seed,
                        threshold=threshold, min_rows_for_uniqueness=min_rows_for_uniqueness)


def scan_columns(columns: Mapping[Any, Any], n_rows: int, *, sample_size: int = DEFAULT_SAMPLE_SIZE,
                 seed: int = 0, threshold: float = 0.5, min_rows_for_uniqueness: int = 10) -> ScanReport:
    """:func:`scan` of columns given by name, each a Series of the table's ``n_rows`` values or a
    text column's :class:`~veil.data.TextCodes` (:meth:`veil.data.Dataset.columns_of`): the same
    findings without a frame to hold them (assembling one costs more than the scan of a column of
    few values).  The parameters are those of :func:`scan`.

    Raises
    ------
    ParameterError
        A parameter is out of range.
    """
    sample_size = check_int("sample_size", sample_size, "scan", low=100)
    seed = check_int("seed", seed, "scan", low=0)
    threshold = check_real("threshold", threshold, "scan", low=0.0, high=1.0, closed="right")
    min_rows = check_int("min_rows_for_uniqueness", min_rows_for_uniqueness, "scan", low=2)
    findings = {
        str(c): _judge(c, series, sample_size=sample_size, seed=seed, threshold=threshold,
                       min_rows_for_uniqueness=min_rows)
        for c, series in columns.items()
    }
    return ScanReport(findings, n_rows, sample_size, seed, threshold, min_rows)

