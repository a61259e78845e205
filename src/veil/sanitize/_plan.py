"""De-identification plans: one action per column, applied all at once.

A :class:`Plan` maps column names to action specifications, small frozen
dataclasses validated on construction.  :meth:`Plan.from_dict` reads the plain
dict form used by the release configuration::

    {"columns": {"email": {"action": "drop"},
                 "zip":   {"action": "mask", "keep": 3},
                 "mrn":   {"action": "pseudonymize", "method": "hmac"},
                 "admit": {"action": "shift_dates", "by": "mrn", "max_days": 180}}}

and names the key path in every error (``columns.zip.keep: ...``).  Secrets
(the HMAC key) and random generators are *not* part of a plan: they are passed
to :func:`deidentify`, so a plan can be stored, diffed and reported safely.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Any, ClassVar, Mapping

import numpy as np
import pandas as pd

from veil._validation import check_choice, check_int, check_real
from veil.errors import ConfigError, ParameterError
from veil.sanitize import _actions as act

__all__ = [
    "Drop", "Keep", "PseudonymizeHMAC", "PseudonymizeRandom", "Mask", "Zip3", "TopCode", "BottomCode",
    "ShiftDates", "TruncateDates", "Age90Plus", "BirthYear", "ActionSpec", "Plan", "ActionResult",
    "Undecided", "DeidentifyReport", "DeidentifyResult", "deidentify", "ACTIONS",
]


@dataclass(frozen=True)
class _Runtime:
    key: act.PseudonymKey | None
    rng: np.random.Generator


class ActionSpec:
    """Base of the action specifications (frozen dataclasses)."""

    action: ClassVar[str] = ""
    needs_key: ClassVar[bool] = False

    def params(self) -> dict[str, Any]:
        out = {}
        for f in dataclasses.fields(self):  # type: ignore[arg-type]
            value = getattr(self, f.name)
            out[f.name] = list(value) if isinstance(value, (tuple, frozenset)) else value
        return out

    def to_dict(self) -> dict[str, Any]:
        return {"action": self.action, **self.params()}

    def columns_read(self, column: str) -> tuple[str, ...]:
        return (column,)

    def apply(self, column: str, frame: pd.DataFrame, rt: _Runtime) -> tuple[pd.Series | None, pd.DataFrame | None]:
        raise NotImplementedError


@dataclass(frozen=True)
class Drop(ActionSpec):
    """Remove the column."""

    action: ClassVar[str] = "drop"

    def apply(self, column, frame, rt):
        return None, None


@dataclass(frozen=True)
class Keep(ActionSpec):
    """Leave the column as it is (recorded in the report)."""

    action: ClassVar[str] = "keep"

    def apply(self, column, frame, rt):
        return frame[column], None


@dataclass(frozen=True)
class PseudonymizeHMAC(ActionSpec):
    """Keyed HMAC-SHA256 pseudonyms; see :func:`veil.sanitize.pseudonymize_hmac`."""

    action: ClassVar[str] = "pseudonymize"
    needs_key: ClassVar[bool] = True
    length: int = 16
    context: str = ""
    prefix: str = ""

    def __post_init__(self) -> None:
        check_int("length", self.length, "PseudonymizeHMAC", low=8, high=64)
        _check_str("context", self.context, "PseudonymizeHMAC")
        _check_str("prefix", self.prefix, "PseudonymizeHMAC")

    def params(self):
        return {"method": "hmac", **super().params()}

    def apply(self, column, frame, rt):
        return act.pseudonymize_hmac(frame[column], key=rt.key, length=self.length, context=self.context,
                                     prefix=self.prefix), None


@dataclass(frozen=True)
class PseudonymizeRandom(ActionSpec):
    """Randomly assigned ids; the mapping goes to :attr:`DeidentifyResult.mappings` only."""

    action: ClassVar[str] = "pseudonymize"
    prefix: str = "ID"

    def __post_init__(self) -> None:
        _check_str("prefix", self.prefix, "PseudonymizeRandom")

    def params(self):
        return {"method": "random", **super().params()}

    def apply(self, column, frame, rt):
        return act.pseudonymize_random(frame[column], rng=rt.rng, prefix=self.prefix)


@dataclass(frozen=True)
class Mask(ActionSpec):
    """Keep the first ``keep`` characters; see :func:`veil.sanitize.mask`."""

    action: ClassVar[str] = "mask"
    keep: int = 3
    fill: str = "*"

    def __post_init__(self) -> None:
        check_int("keep", self.keep, "Mask", low=0)
        if not isinstance(self.fill, str) or len(self.fill) > 1:
            raise ParameterError(f"The 'fill' parameter of Mask must be a str of at most one character. "
                                 f"Got {self.fill!r} instead.")

    def apply(self, column, frame, rt):
        return act.mask(frame[column], keep=self.keep, fill=self.fill), None


@dataclass(frozen=True)
class Zip3(ActionSpec):
    """Safe Harbor ZIP3 with restricted areas set to 000; see :func:`veil.sanitize.zip3`."""

    action: ClassVar[str] = "zip3"
    restricted_zip3: tuple[str, ...] = ()
    pad_four_digit: bool | None = None  # four-digit values: ZIPs that lost a leading zero? (None: from the column)

    def __post_init__(self) -> None:
        object.__setattr__(self, "restricted_zip3", tuple(sorted(act.zip3_list(self.restricted_zip3))))
        if self.pad_four_digit is not None and not isinstance(self.pad_four_digit, bool):
            raise ParameterError(f"The 'pad_four_digit' parameter of Zip3 must be true, false or null. "
                                 f"Got {self.pad_four_digit!r} instead.")

    def apply(self, column, frame, rt):
        return act.zip3(frame[column], restricted_zip3=self.restricted_zip3,
                        pad_four_digit=self.pad_four_digit), None


@dataclass(frozen=True)
class TopCode(ActionSpec):
    """Values above ``threshold`` become ``threshold`` (or ``label``)."""

    action: ClassVar[str] = "top_code"
    threshold: float = 0.0
    label: str | None = None

    def __post_init__(self) -> None:
        check_real("threshold", self.threshold, type(self).__name__)
        if self.label is not None:
            _check_str("label", self.label, type(self).__name__)

    def apply(self, column, frame, rt):
        return act.top_code(frame[column], threshold=self.threshold, label=self.label), None


@dataclass(frozen=True)
class BottomCode(TopCode):
    """Values below ``threshold`` become ``threshold`` (or ``label``)."""

    action: ClassVar[str] = "bottom_code"

    def apply(self, column, frame, rt):
        return act.bottom_code(frame[column], threshold=self.threshold, label=self.label), None


@dataclass(frozen=True)
class ShiftDates(ActionSpec):
    """Per-individual date shift; keyed (stable) when a key is given, else random."""

    action: ClassVar[str] = "shift_dates"
    by: str = ""
    max_days: int = 365

    def __post_init__(self) -> None:
        if not isinstance(self.by, str) or not self.by:
            raise ParameterError(f"The 'by' parameter of ShiftDates must name the person-id column. "
                                 f"Got {self.by!r} instead.")
        check_int("max_days", self.max_days, "ShiftDates", low=1, high=36500)

    def columns_read(self, column):
        return (column, self.by)

    def apply(self, column, frame, rt):
        if rt.key is not None:
            out = act.shift_dates(frame[column], by=frame[self.by], key=rt.key, max_days=self.max_days)
        else:
            out = act.shift_dates(frame[column], by=frame[self.by], rng=rt.rng, max_days=self.max_days)
        return out, None


@dataclass(frozen=True)
class TruncateDates(ActionSpec):
    """Keep the year (or year and month) of each date."""

    action: ClassVar[str] = "truncate_dates"
    to: str = "year"

    def __post_init__(self) -> None:
        check_choice("to", self.to, "TruncateDates", ("year", "month"))

    def apply(self, column, frame, rt):
        return act.truncate_dates(frame[column], to=self.to), None


@dataclass(frozen=True)
class Age90Plus(ActionSpec):
    """Ages over 89 become the number 90 ("90 or older"; the column stays numeric), or ``label`` when given."""

    action: ClassVar[str] = "age_90_plus"
    label: str | None = None

    def __post_init__(self) -> None:
        if self.label is not None:
            _check_str("label", self.label, "Age90Plus")

    def apply(self, column, frame, rt):
        return act.age_90_plus(frame[column], label=self.label), None


@dataclass(frozen=True)
class BirthYear(ActionSpec):
    """Dates of birth to years, years implying an age over 89 aggregated."""

    action: ClassVar[str] = "birth_year"
    as_of: str | None = None

    def __post_init__(self) -> None:
        if self.as_of is not None:
            try:
                ts = pd.Timestamp(self.as_of)
            except (ValueError, TypeError):
                ts = None
            if ts is None or pd.isna(ts):
                raise ParameterError(f"The 'as_of' parameter of BirthYear must be a date such as '2025-01-31'. "
                                     f"Got {self.as_of!r} instead.")
            object.__setattr__(self, "as_of", ts.strftime("%Y-%m-%d"))

    def apply(self, column, frame, rt):
        return act.birth_year(frame[column], as_of=self.as_of), None


def _check_str(name: str, value: Any, owner: str) -> None:
    if not isinstance(value, str):
        raise ParameterError(f"The {name!r} parameter of {owner} must be a str. Got {value!r} instead.")


#: Action names of the dict form and the classes they build.
ACTIONS: dict[str, type[ActionSpec]] = {
    "drop": Drop, "keep": Keep, "pseudonymize": PseudonymizeHMAC, "mask": Mask, "zip3": Zip3,
    "top_code": TopCode, "bottom_code": BottomCode, "shift_dates": ShiftDates,
    "truncate_dates": TruncateDates, "age_90_plus": Age90Plus, "birth_year": BirthYear,
}
_METHODS: dict[str, type[ActionSpec]] = {"hmac": PseudonymizeHMAC, "random": PseudonymizeRandom}


def _spec_from_dict(path: str, raw: Any) -> ActionSpec:
    if isinstance(raw, str):
        raw = {"action": raw}
    if not isinstance(raw, Mapping):
        raise ConfigError(f"{path}: must be a mapping such as {{action: drop}}. Got {type(raw).__name__} instead.")
    raw = dict(raw)
    name = raw.pop("action", None)
    if name not in ACTIONS:
        options = ", ".join(repr(a) for a in ACTIONS)
        raise ConfigError(f"{path}.action: must be one of {{{options}}}. Got {name!r} instead.")
    cls = ACTIONS[name]
    if name == "pseudonymize":
        method = raw.pop("method", "hmac")
        if method not in _METHODS:
            raise ConfigError(f"{path}.method: must be one of {{'hmac', 'random'}}. Got {method!r} instead.")
        cls = _METHODS[method]
    allowed = [f.name for f in dataclasses.fields(cls)]  # type: ignore[arg-type]
    unknown = [k for k in raw if k not in allowed]
    if unknown:
        raise ConfigError(f"{path}: unknown key(s) {', '.join(map(repr, map(str, unknown)))} for action {name!r}; "
                          f"allowed: {', '.join(allowed) or '(none)'}.")
    if cls is Zip3 and "restricted_zip3" in raw:
        if isinstance(raw["restricted_zip3"], str) or not isinstance(raw["restricted_zip3"], (list, tuple)):
            raise ConfigError(f"{path}.restricted_zip3: must be a list of three-digit strings.")
        raw["restricted_zip3"] = tuple(raw["restricted_zip3"])
    try:
        return cls(**raw)
    except ParameterError as exc:
        bad = next((k for k in raw if f"'{k}'" in str(exc)), None)
        where = f"{path}.{bad}" if bad else path
        raise ConfigError(f"{where}: {exc}") from None


@dataclass(frozen=True)
class Plan:
    """Which action each column gets.

    Parameters
    ----------
    columns : Mapping[str, ActionSpec]
        Columns not named are kept unchanged (and listed as kept in the report).
    """

    columns: Mapping[str, ActionSpec] = field(default_factory=dict)

    def __post_init__(self) -> None:
        if not isinstance(self.columns, Mapping):
            raise ParameterError("The 'columns' parameter of Plan must be a mapping of column name to action.")
        for name, spec in self.columns.items():
            if not isinstance(spec, ActionSpec):
                raise ParameterError(f"Plan: the action for column {name!r} must be an action specification "
                                     f"(Drop(), Mask(keep=3), ...). Got {type(spec).__name__} instead.")
        object.__setattr__(self, "columns", MappingProxyType(dict(self.columns)))

    @property
    def needs_key(self) -> bool:
        return any(s.needs_key for s in self.columns.values())

    @classmethod
    def from_dict(cls, data: Any, *, path: str = "") -> "Plan":
        """Build a plan from its dict form; errors name the key path (``columns.zip.keep``)."""
        prefix = f"{path}." if path else ""
        if not isinstance(data, Mapping):
            raise ConfigError(f"{path or 'plan'}: must be a mapping with a 'columns' key. "
                              f"Got {type(data).__name__} instead.")
        unknown = [k for k in data if k != "columns"]
        if unknown:
            raise ConfigError(f"{path or 'plan'}: unknown key(s) {', '.join(map(repr, map(str, unknown)))}; "
                              "allowed: columns.")
        columns = data.get("columns", {})
        if not isinstance(columns, Mapping):
            raise ConfigError(f"{prefix}columns: must be a mapping of column name to action. "
                              f"Got {type(columns).__name__} instead.")
        return cls({str(k): _spec_from_dict(f"{prefix}columns.{k}", v) for k, v in columns.items()})

    def to_dict(self) -> dict[str, Any]:
        return {"columns": {c: s.to_dict() for c, s in self.columns.items()}}


@dataclass(frozen=True)
class ActionResult:
    """What one action did to one column (no values, only counts)."""

    column: str
    action: str
    params: Mapping[str, Any]
    changed: int
    note: str = ""

    def to_dict(self) -> dict[str, Any]:
        return {"column": self.column, "action": self.action, "params": dict(self.params),
                "changed": self.changed, "note": self.note}


@dataclass(frozen=True)
class Undecided:
    """Something that could not be decided automatically (``column`` None: the whole table)."""

    column: str | None
    reason: str
    kind: str | None = None
    confidence: float | None = None

    def to_dict(self) -> dict[str, Any]:
        return {"column": self.column, "reason": self.reason, "kind": self.kind,
                "confidence": None if self.confidence is None else round(self.confidence, 3)}


@dataclass(frozen=True)
class DeidentifyReport:
    """The record of a de-identification: actions done, columns kept, questions left open."""

    rows: int
    done: tuple[ActionResult, ...]
    kept: tuple[str, ...]
    undecided: tuple[Undecided, ...] = ()
    profile: str | None = None
    notes: Mapping[str, Any] = field(default_factory=dict)

    def to_dict(self) -> dict[str, Any]:
        return {"profile": self.profile, "rows": self.rows, "done": [a.to_dict() for a in self.done],
                "kept": list(self.kept), "undecided": [u.to_dict() for u in self.undecided],
                "notes": dict(self.notes)}


@dataclass(frozen=True)
class DeidentifyResult:
    """The de-identified table, its report, and the random-id mapping tables (kept apart)."""

    frame: pd.DataFrame
    report: DeidentifyReport
    mappings: Mapping[str, pd.DataFrame] = field(default_factory=dict)

    def mapping_frame(self) -> pd.DataFrame:
        """All mappings in one table: ``column``, ``original``, ``pseudonym``."""
        parts = [m.assign(column=c)[["column", "original", "pseudonym"]] for c, m in self.mappings.items()]
        if not parts:
            return pd.DataFrame({"column": [], "original": [], "pseudonym": []}, dtype="str")
        return pd.concat(parts, ignore_index=True)


def _changed(before: pd.Series, after: pd.Series) -> int:
    """Values whose text differs, missing (NA or blank) on both sides counting as unchanged.

    Texts are compared after the same normalisation (stripped, integral floats
    without ``.0``), so an action that keeps a value in another spelling
    (``"051"`` read as 51) is not counted as a change.
    """
    old = act.as_text(before).where(~act.missing_mask(before))
    if pd.api.types.is_datetime64_any_dtype(after.dtype):
        new = after.dt.strftime("%Y-%m-%d %H:%M:%S")
        old = act.parse_dates(before).dt.strftime("%Y-%m-%d %H:%M:%S") if len(before) else old
    else:
        new = act.as_text(after).where(~act.missing_mask(after))
    old_values = old.astype(object).to_numpy(dtype=object, na_value=None)
    new_values = new.astype(object).to_numpy(dtype=object, na_value=None)
    numeric_old = pd.to_numeric(pd.Series(old_values, dtype=object), errors="coerce").to_numpy(dtype=float)
    numeric_new = pd.to_numeric(pd.Series(new_values, dtype=object), errors="coerce").to_numpy(dtype=float)
    same_number = ~np.isnan(numeric_old) & (numeric_old == numeric_new)
    return int(np.sum((old_values != new_values) & ~same_number))


def deidentify(frame: pd.DataFrame, plan: Plan, *, key: "bytes | str | act.PseudonymKey | None" = None,
               rng: Any = None, _profile: str | None = None,
               _undecided: tuple[Undecided, ...] = (), _notes: Mapping[str, Any] | None = None,
               _notes_by_column: Mapping[str, str] | None = None) -> DeidentifyResult:
    """Apply a plan to a table: all actions or none.

    Every action reads the *input* columns (a date shift keyed by a person id
    uses the original id even if that column is pseudonymized or dropped by the
    same plan).  Dropped columns go last.  On any error nothing is returned.

    Parameters
    ----------
    frame : pandas.DataFrame
    plan : Plan
    key : bytes, str or PseudonymKey, optional
        Needed by HMAC pseudonyms (and used by date shifts for stable offsets).
    rng : None, int or numpy.random.Generator
        For random ids and, without a key, random date shifts.

    Raises
    ------
    ColumnNotFoundError
        The plan names a column (or a ``by`` column) that is not in the table.
    ParameterError
        A needed key is missing or too short.
    SchemaError
        Values an action cannot read (unparseable dates, ...), naming the rows.
    """
    if not isinstance(frame, pd.DataFrame):
        raise ParameterError(f"The 'frame' parameter of deidentify must be a pandas DataFrame. "
                             f"Got {type(frame).__name__} instead.")
    if not isinstance(plan, Plan):
        raise ParameterError(f"The 'plan' parameter of deidentify must be a Plan. Got {type(plan).__name__} instead.")
    needed = [c for col, spec in plan.columns.items() for c in spec.columns_read(col)]
    act.require_columns(frame, dict.fromkeys(needed), "deidentify")
    secret = act.PseudonymKey(key, "deidentify") if (key is not None or plan.needs_key) else None
    runtime = _Runtime(secret, act.generator(rng, "deidentify"))
    notes_by_column = dict(_notes_by_column or {})
    out = frame.copy()
    done: list[ActionResult] = []
    mappings: dict[str, pd.DataFrame] = {}
    drops: list[str] = []
    for column, spec in plan.columns.items():
        new, mapping = spec.apply(column, frame, runtime)
        if new is None:
            drops.append(column)
            changed = int(np.sum(~act.missing_mask(frame[column])))  # missing cells had nothing to remove
        else:
            out[column] = new
            changed = 0 if isinstance(spec, Keep) else _changed(frame[column], new)
        if mapping is not None:
            mappings[column] = mapping
        done.append(ActionResult(str(column), spec.action, MappingProxyType(spec.params()), changed,
                                 notes_by_column.get(column, "")))
    out = out.drop(columns=drops)
    kept = tuple(str(c) for c in frame.columns if c not in plan.columns)
    report = DeidentifyReport(len(frame), tuple(done), kept, tuple(_undecided), _profile,
                              MappingProxyType(dict(_notes or {})))
    return DeidentifyResult(out, report, MappingProxyType(mappings))
