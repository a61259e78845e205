"""The HIPAA Safe Harbor profile (45 CFR 164.514(b)(2)) as one call.

From a scan, each detected column gets the Safe Harbor treatment of its kind:

=======================================  ==========================================
finding                                  action
=======================================  ==========================================
names, street addresses, cities and      drop (or random ids for the columns in
other geographic subdivisions, phone,    ``link``: a re-identification code that is
fax, e-mail, SSN, medical record, health not derived from the individual's data,
plan, account, card, licence, vehicle,   164.514(c); the mapping is returned apart)
device, URL, IP, biometric, photo,
other unique identifiers
ZIP code                                 first three digits, restricted ZIP3 -> 000;
                                         four-digit values padded or refused (see
                                         :func:`veil.sanitize.zip3`)
date of birth                            year; years implying age > 89 aggregated
other dates                              year
age                                      ages over 89 and ``90+`` -> 90 ("90 or
                                         older"); see :func:`veil.sanitize.age_90_plus`
quasi-identifiers outside the 18         kept; listed (handle with ``veil anonymize``)
=======================================  ==========================================

What it cannot decide is listed in ``report.undecided``: columns whose kind is
uncertain (a candidate below the confidence threshold, a unique column of
decimal numbers that may be a measurement), free text, ZIP codes when no list
of small ZIP3 areas is given, and, always, the "no actual knowledge" condition
of 164.514(b)(2)(ii), which no program can check.
"""

from __future__ import annotations

from typing import Any, Iterable

import pandas as pd

from veil._validation import check_real
from veil.errors import ParameterError
from veil.sanitize import _actions as act
from veil.sanitize._detect import ColumnFinding, ScanReport, scan as run_scan
from veil.sanitize._patterns import KIND_BY_NAME
from veil.sanitize._plan import (ActionSpec, Age90Plus, BirthYear, DeidentifyResult, Drop, Plan,
                                 PseudonymizeRandom, TruncateDates, Undecided, Zip3, deidentify)

__all__ = ["safe_harbor", "safe_harbor_plan", "ACTUAL_KNOWLEDGE"]

ACTUAL_KNOWLEDGE = (
    "Safe Harbor also requires that the covered entity has no actual knowledge that the remaining "
    "information could identify an individual (45 CFR 164.514(b)(2)(ii)); veil cannot decide this."
)
_UNCERTAIN_UNIQUE = 0.8


def _release_date(as_of: str | None) -> pd.Timestamp:
    """The release date of the age-over-89 rule: ``as_of``, or today."""
    if as_of is None:
        return pd.Timestamp.today()
    try:
        stamp = pd.Timestamp(as_of)
    except (ValueError, TypeError):
        stamp = None
    if stamp is None or pd.isna(stamp):
        raise ParameterError(f"The 'as_of' parameter of safe_harbor must be a date such as '2025-01-31'. "
                             f"Got {as_of!r} instead.")
    return stamp


def _link_columns(report: ScanReport, link: Iterable[str]) -> set[str]:
    """The ``link`` columns, each checked to be in the table."""
    columns = set(link)
    missing = [c for c in columns if c not in report.columns]
    if missing:
        from veil.errors import ColumnNotFoundError
        raise ColumnNotFoundError(f"safe_harbor: link column(s) {', '.join(map(repr, missing))} not in the "
                                  f"table. Available columns: {', '.join(map(repr, report.columns))}.")
    return columns


def _treatment(kind: Any, restricted: tuple[str, ...] | None, as_of: str | None) -> tuple[ActionSpec | None, str]:
    """The Safe Harbor action for a column confidently found to be of ``kind``, and its note.

    Quasi-identifiers that are not among the 18 types get no action (they are kept, in ``report.kept``).
    """
    if kind.name == "zip":
        padded = ("four-digit values read as ZIPs that lost their leading zero (2134 -> 021) only when no "
                  "5-digit ZIP keeps one")
        return Zip3(restricted or ()), ("no restricted ZIP3 list given: every ZIP3 kept; " + padded
                                        if restricted is None else padded)
    if kind.name == "date_of_birth":
        return BirthYear(as_of), "year only; birth years implying an age over 89 aggregated"
    if kind.name == "date":
        return TruncateDates("year"), "year only (treated as a date related to an individual)"
    if kind.name == "age":
        return Age90Plus(), ("ages over 89 and top codes such as '90+' become 90, read as '90 or older' (the column "
                             "stays numeric; a column already top-coded lower, '85+', keeps that top code as a number)")
    if kind.safe_harbor is not None:
        return Drop(), f"Safe Harbor item {kind.safe_harbor}: {kind.description}"
    return None, ""


def _named_identifier(finding: ColumnFinding) -> bool:
    """Whether the column's name says it is an identifier (``subject_id``, ``uuid``, ``record_key``).

    Such a column is removed (or given random ids with ``link``) whether or not
    its values are unique per row: a subject seen on several rows is still identified.
    """
    return any(e.source == "name" and e.kind == "unique_identifier" for e in finding.evidence)


def safe_harbor_plan(report: ScanReport, *, restricted_zip3: Iterable[str] | None = None,
                     as_of: str | None = None, link: Iterable[str] = (), min_confidence: float = 0.5,
                     possible_confidence: float = 0.3,
                     overrides: Plan | None = None) -> tuple[Plan, tuple[Undecided, ...], dict[str, str]]:
    """The Safe Harbor plan for a scanned table, the open questions, and a note per column."""
    min_confidence = check_real("min_confidence", min_confidence, "safe_harbor", low=0.0, high=1.0)
    _release_date(as_of)
    possible_confidence = check_real("possible_confidence", possible_confidence, "safe_harbor", low=0.0, high=1.0)
    link = _link_columns(report, link)
    restricted = None if restricted_zip3 is None else tuple(restricted_zip3)
    actions: dict[str, ActionSpec] = {}
    undecided: list[Undecided] = []
    notes: dict[str, str] = {}
    for column, f in report.columns.items():
        if overrides is not None and column in overrides.columns:
            actions[column] = overrides.columns[column]
            notes[column] = "set by the plan (overrides the profile)"
            continue
        if column in link:
            actions[column] = PseudonymizeRandom()
            notes[column] = "random ids (re-identification code, 164.514(c)); mapping kept apart"
            continue
        if f.kind == "free_text":
            undecided.append(Undecided(column, "free text may contain names, dates or numbers of any of the 18 "
                                       "types; review or drop it", f.kind, f.confidence))
            continue
        if f.kind == "none":
            cand = KIND_BY_NAME.get(f.candidate or "")
            if cand is not None and cand.safe_harbor is not None and f.candidate_confidence >= possible_confidence:
                undecided.append(Undecided(column, f"possibly {cand.description} (confidence "
                                           f"{f.candidate_confidence:.2f}, below {min_confidence:.2f}); kept",
                                           cand.name, f.candidate_confidence))
            continue
        kind = KIND_BY_NAME[f.kind]
        if f.confidence < min_confidence:
            undecided.append(Undecided(column, f"{kind.description} with confidence {f.confidence:.2f} below "
                                       f"{min_confidence:.2f}; kept", f.kind, f.confidence))
            continue
        if kind.name == "unique_identifier" and not _named_identifier(f) and f.confidence < _UNCERTAIN_UNIQUE:
            # only uniqueness speaks, and the values are decimal numbers: maybe a measurement
            undecided.append(Undecided(column, "unique per row but the values look like measurements, not a "
                                       "code; kept (drop it if it is an identifier)", f.kind, f.confidence))
            continue
        action, note = _treatment(kind, restricted, as_of)
        if action is not None:
            actions[column] = action
        if note:
            notes[column] = note
        if kind.name == "zip" and restricted is None:
            undecided.append(Undecided(column, "ZIP3 areas with 20,000 people or fewer must become 000, but "
                                       "no list of them was given (restricted_zip3 / --restricted-zip3); "
                                       "all ZIP3 values were kept", f.kind, f.confidence))
    if overrides is not None:
        for column, spec in overrides.columns.items():
            if column not in actions:
                actions[column] = spec
                notes[column] = "set by the plan (overrides the profile)"
    undecided.append(Undecided(None, ACTUAL_KNOWLEDGE))
    return Plan(actions), tuple(undecided), notes


def safe_harbor(frame: pd.DataFrame, *, scan: ScanReport | None = None,
                restricted_zip3: Iterable[str] | None = None, as_of: str | None = None,
                link: Iterable[str] = (), rng: Any = None, key: Any = None, min_confidence: float = 0.5,
                overrides: Plan | None = None) -> DeidentifyResult:
    """Apply the HIPAA Safe Harbor rules to the detected columns of a table.

    Parameters
    ----------
    frame : pandas.DataFrame
    scan : ScanReport, optional
        A scan of ``frame`` (default: scanned now with the default settings).
    restricted_zip3 : iterable of str, optional
        The three-digit ZIP areas with 20,000 people or fewer (current Census
        data); their ZIP3 becomes ``"000"``.  Without it, ZIP3s are kept and the
        report says so in ``undecided``.
    as_of : date-like, optional
        Release date for the age-over-89 rule on dates of birth (default today).
    link : iterable of str
        Direct-identifier columns to replace by random ids instead of dropping
        (the mapping is in ``result.mappings``, never in the table).
    rng : None, int or numpy.random.Generator
        For the random ids.
    key : bytes or str, optional
        Only needed when ``overrides`` contain HMAC pseudonyms.  Safe Harbor
        itself needs no key: a keyed hash of an identifier is derived from it,
        which 164.514(c) forbids for re-identification codes.
    min_confidence : float in [0, 1], default 0.5
        Findings below it are not acted on but listed as undecided.
    overrides : Plan, optional
        Column actions that replace the profile's choice for those columns.

    Returns
    -------
    DeidentifyResult
        ``result.report.done`` (what was done per column), ``.kept``, and
        ``.undecided`` (what needs a human decision).
    """
    if not isinstance(frame, pd.DataFrame):
        raise ParameterError(f"The 'frame' parameter of safe_harbor must be a pandas DataFrame. "
                             f"Got {type(frame).__name__} instead.")
    report = run_scan(frame) if scan is None else scan
    if not isinstance(report, ScanReport):
        raise ParameterError(f"The 'scan' parameter of safe_harbor must be a ScanReport. "
                             f"Got {type(report).__name__} instead.")
    act.require_columns(frame, report.columns, "safe_harbor")
    plan, undecided, notes = safe_harbor_plan(report, restricted_zip3=restricted_zip3, as_of=as_of, link=link,
                                              min_confidence=min_confidence, overrides=overrides)
    ref = _release_date(as_of)
    return deidentify(frame, plan, key=key, rng=rng, _profile="safe-harbor", _undecided=undecided,
                      _notes={"as_of": ref.strftime("%Y-%m-%d"),
                              "restricted_zip3_given": restricted_zip3 is not None,
                              "rule": "45 CFR 164.514(b)(2)"},
                      _notes_by_column=notes)
