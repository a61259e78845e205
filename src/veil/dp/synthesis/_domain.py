"""The public domain of each column, given by the user, and the encoding of a table onto it.

veil never reads a category list, a bin edge or a bound from the data: each
column's domain is a list of categories or ``{"min", "max", "bins"}`` from the
user (``--domain domain.json``, ``--bins age=0:100:10``).  A value outside its
column's domain is not a new category: the row is left out of every count
(a per-row map, so the sensitivity of each marginal stays 1).  Numbers are
clamped into ``[min, max]`` and binned into ``bins`` equal-width bins.

Stored types read alike on every path (local, DuckDB, Spark): a value is
matched by its label, :func:`veil.data.format_labels` (as the engines label
a Parquet column: ``40`` for the float 40.0 or an integer of a column with
missing values, a timestamp to the microsecond); a boolean column is a
category column of two values, ``True`` and ``False``, never a number, and a
date or timestamp is text; a column of bytes (Parquet ``binary``) is
refused, since the paths would read its bytes as different texts (see
:func:`resolve_domains`).
"""

from __future__ import annotations

import json
import math
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Mapping

import numpy as np
import pandas as pd

from veil.data import format_labels
from veil.dp.synthesis._learn import OTHER
from veil.errors import ColumnNotFoundError, ParameterError, SchemaError

__all__ = ["ColumnDomain", "ColumnFacts", "local_facts", "local_kinds", "check_kinds", "refuse_bounds", "numbers",
           "parse_domain", "parse_bins", "resolve_domains", "encode", "decode"]

#: The default largest number of categories (or bins) of one column.
MAX_CATEGORIES = 1000


@dataclass(frozen=True, slots=True)
class ColumnDomain:
    """One column's public domain: ``categories`` (text), or ``low``/``high``/``bins`` (numbers)."""

    name: str
    categories: tuple[str, ...] | None = None
    low: float | None = None
    high: float | None = None
    bins: int | None = None
    #: learned under DP: values outside the categories are written as ``(other)``, not dropped
    learned: bool = False

    @property
    def numeric(self) -> bool:
        return self.categories is None

    @property
    def size(self) -> int:
        if self.categories is not None:
            return len(self.categories) + int(self.learned)
        return int(self.bins or 0)

    @property
    def labels(self) -> list[str]:
        """The value written for each code: the category, or the bin as ``[lo, hi)``."""
        if self.categories is not None:
            return [*self.categories, *([OTHER] if self.learned else [])]
        edges = np.linspace(self.low, self.high, self.bins + 1)
        last = self.bins - 1
        return [f"[{edges[i]:g}, {edges[i + 1]:g}{']' if i == last else ')'}" for i in range(self.bins)]


def _numeric(name: str, spec: Mapping[str, Any], where: str) -> ColumnDomain:
    keys = set(spec)
    if keys != {"min", "max", "bins"}:
        raise ParameterError(f"The domain of column {name!r} in {where} must be a list of categories or "
                             f'{{"min", "max", "bins"}}; got the keys {sorted(keys)}.')
    low, high, bins = spec["min"], spec["max"], spec["bins"]
    ok = all(isinstance(v, (int, float)) and not isinstance(v, bool) and math.isfinite(v) for v in (low, high))
    if not ok or not low < high:
        raise ParameterError(f"The domain of column {name!r} in {where} needs finite numbers min < max.")
    if isinstance(bins, bool) or not isinstance(bins, int) or bins < 1:
        raise ParameterError(f"The domain of column {name!r} in {where} needs an integer bins >= 1.")
    return ColumnDomain(name, low=float(low), high=float(high), bins=bins)


def _one(name: str, spec: Any, where: str) -> ColumnDomain:
    if isinstance(spec, dict):
        return _numeric(name, spec, where)
    if isinstance(spec, list) and spec and all(isinstance(v, (str, int, float)) and not isinstance(v, bool)
                                               for v in spec):
        cats = tuple(str(v) for v in spec)
        if len(set(cats)) != len(cats):
            raise ParameterError(f"The domain of column {name!r} in {where} lists a category twice.")
        return ColumnDomain(name, categories=cats)
    raise ParameterError(f"The domain of column {name!r} in {where} must be a non-empty list of categories "
                         'or {"min", "max", "bins"}.')


def parse_domain(source: str | Path | Mapping[str, Any]) -> dict[str, ColumnDomain]:
    """Column domains from a mapping or a JSON file of ``column -> [categories] | {min, max, bins}``."""
    where = "the domain"
    if not isinstance(source, Mapping):
        where = f"the domain file {str(source)!r}"
        try:
            source = json.loads(Path(source).read_text(encoding="utf-8"))
        except OSError as exc:
            raise ParameterError(f"Cannot read {where}: {exc.strerror}.") from None
        except (json.JSONDecodeError, UnicodeDecodeError):
            raise ParameterError(f"{where[0].upper()}{where[1:]} is not valid JSON.") from None
        if not isinstance(source, dict):
            raise ParameterError(f"{where[0].upper()}{where[1:]} must be a JSON object of column -> domain.")
    return {str(k): _one(str(k), v, where) for k, v in source.items()}


def parse_bins(items: Mapping[str, str]) -> dict[str, ColumnDomain]:
    """``{"age": "0:100:10"}`` (from ``--bins age=0:100:10``): min:max:bins per column."""
    out = {}
    for name, text in items.items():
        parts = text.split(":")
        try:
            low, high, bins = float(parts[0]), float(parts[1]), int(parts[2])
            if len(parts) != 3:
                raise ValueError
        except (ValueError, IndexError):
            raise ParameterError(f"--bins {name}={text}: expected MIN:MAX:BINS, e.g. age=0:100:10.") from None
        out[name] = _numeric(name, {"min": low, "max": high, "bins": bins}, "--bins")
    return out


#: The kinds of :func:`local_kinds` read from pandas' inferred type of the present values.
_LOCAL_KINDS = {"boolean": "boolean", "date": "date", "datetime": "timestamp", "datetime64": "timestamp"}

#: What a column of each kind holds, in a refusal of bounds for it.
_HOLDS = {"date": "dates", "timestamp": "timestamps", "text": "text (no present value reads as a number)"}


def _stored_number(column: pd.Series) -> bool:
    return pd.api.types.is_numeric_dtype(column) and not pd.api.types.is_bool_dtype(column)


@dataclass(frozen=True, slots=True)
class ColumnFacts:
    """What the domain checks read of a column: whether it is numeric (every present value reads
    as a number, and there is one), whether it has more distinct present values than
    ``--max-categories``, and whether some present value reads as a number (a column without
    one takes no bounds: :func:`refuse_bounds`)."""

    numeric: bool
    over: bool
    some_number: bool = False


def local_facts(column: pd.Series, max_categories: int) -> ColumnFacts:
    """The :class:`ColumnFacts` of a pandas column: numbers (not bools) are numeric; any other
    value is read by its label, as on the engines (a boolean, a date or a timestamp is text)."""
    if _stored_number(column):
        return ColumnFacts(True, False, bool(column.notna().any()))
    read = pd.to_numeric(format_labels(column).dropna(), errors="coerce").notna()
    numeric = bool(len(read)) and bool(read.all())
    return ColumnFacts(numeric, not numeric and column.nunique(dropna=True) > max_categories, bool(read.any()))


def _local_kind(column: pd.Series) -> str | None:
    """``"boolean"``, ``"binary"``, ``"date"`` or ``"timestamp"`` for a column whose present
    values are bools, bytes, dates or timestamps (there is one), else None."""
    if pd.api.types.is_datetime64_any_dtype(column):
        return "timestamp" if column.notna().any() else None
    inferred = pd.api.types.infer_dtype(column, skipna=True)
    if inferred in _LOCAL_KINDS and column.notna().any():
        return _LOCAL_KINDS[inferred]
    if inferred == "bytes":
        return "binary"
    if inferred == "mixed" and column.dropna().map(type).isin([bytes, bytearray]).any():
        return "binary"
    return None


def local_kinds(frame: pd.DataFrame, names: list[str]) -> dict[str, str]:
    """The columns among ``names`` that hold booleans, bytes, dates or timestamps (a present
    value): ``"boolean"``, ``"binary"``, ``"date"`` or ``"timestamp"``, as an engine's
    ``stored_kinds`` answers from the file's types."""
    kinds = {name: _local_kind(frame[name]) for name in names}
    return {name: kind for name, kind in kinds.items() if kind is not None}


def _kinds(data: Any, names: list[str]) -> dict[str, str]:
    if isinstance(data, pd.DataFrame):
        return local_kinds(data, names)
    stored = getattr(data, "stored_kinds", None)
    return stored(names) if stored is not None else {}


def check_kinds(kinds: Mapping[str, str], domains: Mapping[str, ColumnDomain]) -> None:
    """Refuse a column of bytes (DuckDB and Spark would write a byte that is not UTF-8 as
    different texts, the local path as none), and bounds or bins for a boolean, date or
    timestamp column (a boolean is a category, ``True`` or ``False``; a date or timestamp is
    text, :func:`refuse_bounds`)."""
    for name, kind in kinds.items():
        if kind == "binary":
            raise SchemaError(f"The column {name!r} holds bytes (a binary column), which veil synthesize does "
                              "not read as categories: store it as text (a UTF-8 string column), or give it in "
                              "--identifiers to leave it out.")
        dom = domains.get(name)
        if kind == "boolean" and dom is not None and dom.numeric:
            raise ParameterError(f"The column {name!r} holds booleans, which are categories, not numbers: give "
                                 f'its categories ["False", "True"] in --domain, not bounds or --bins.')
        if kind in _HOLDS and dom is not None and dom.numeric:
            refuse_bounds(name, kind)


def refuse_bounds(name: str, kind: str) -> None:
    """Refuse bounds (``--bins`` or ``{"min", "max", "bins"}``) for a column of ``kind`` ``"date"``,
    ``"timestamp"`` or ``"text"`` (no present value reads as a number): a value that does not read as
    a number has no bin, so every record would be left out of every count.  (A column of numbers
    with some text, e.g. ``n/a``, takes bounds: those records are left out.)"""
    example = '["2021-03-04", "2021-03-05"]' if kind in ("date", "timestamp") else '["F", "M"]'
    raise ParameterError(f"The column {name!r} holds {_HOLDS[kind]}, which veil synthesize reads as categories, "
                         f"not numbers (bounds would leave every record out of every count): give its categories "
                         f"in --domain (e.g. {example}), or cast the column to numbers first; not bounds or --bins.")


def _facts(data: Any, names: list[str], max_categories: int) -> dict[str, ColumnFacts]:
    if isinstance(data, pd.DataFrame):
        return {name: local_facts(data[name], max_categories) for name in names}
    return data.column_facts(names, max_categories)  # an engine: one query for all of them


def resolve_domains(frame: Any, domains: Mapping[str, ColumnDomain], *,
                    identifiers: tuple[str, ...] = (), max_categories: int = MAX_CATEGORIES) -> list[ColumnDomain]:
    """The domain of every synthesized column (the table's columns but the identifiers), in order.

    ``frame`` is a pandas frame or a synthesis source (its ``columns`` and
    ``column_facts``, e.g. an engine's, :mod:`veil.dp.synthesis._engine`).
    A text column without a domain is returned with ``learned=True`` and no
    categories: its categories are learned under DP once the budget is
    charged.  Refused: a domain or identifier naming no column; a numeric
    column without bounds and bins; a text column without a domain and with
    more than ``max_categories`` distinct values; a domain larger than
    ``max_categories``; a column of bytes, and bounds for a boolean, date, timestamp or
    text column (:func:`check_kinds`, :func:`refuse_bounds`).  (A text domain for a numeric
    column is allowed: its values are matched as text; a boolean's are ``True`` and ``False``.)
    """
    columns = [str(c) for c in frame.columns]
    for where, names in (("The domain", domains), ("--identifiers", identifiers)):
        for name in names:
            if name not in columns:
                raise ColumnNotFoundError(f"{where} names the column {name!r}, which the data does not have "
                                          f"(columns: {', '.join(columns)}).")
    kinds = _kinds(frame, [c for c in columns if c not in identifiers])
    check_kinds(kinds, domains)
    # the facts of the columns without a domain, and of those with bounds (text there is refused)
    asked = [c for c in columns if c not in identifiers and (c not in domains or domains[c].numeric)]
    facts = _facts(frame, asked, max_categories) if asked else {}
    for name in asked:
        if name in domains and not facts[name].numeric and not facts[name].some_number:
            refuse_bounds(name, "text")
    out = []
    for name in columns:
        if name in identifiers:
            continue
        dom = domains.get(name)
        if dom is None:
            if facts[name].numeric:
                raise SchemaError(f"The numeric column {name!r} has no bounds: give --bins {name}=MIN:MAX:BINS, or "
                                  f'{{"min", "max", "bins"}} or its categories in --domain; veil reads no bound '
                                  "from the data.")
            if facts[name].over:
                raise SchemaError(f"The column {name!r} has more than --max-categories {max_categories} "
                                  "categories: list its categories in --domain (or give it in --identifiers "
                                  "to leave it out).")
            out.append(ColumnDomain(name, categories=(), learned=True))  # learned under DP once charged
            continue
        if dom.size > max_categories:
            raise ParameterError(f"The domain of column {name!r} has {dom.size} categories, more than "
                                 f"--max-categories {max_categories}; coarsen it or raise --max-categories.")
        out.append(dom)
    if not out:
        raise ParameterError("No column is left to synthesize (every column is an identifier).")
    return out


def numbers(column: pd.Series) -> np.ndarray:
    """A column's values as floats for binning (NaN: missing or not a number): stored numbers as
    they are, anything else by its label, as the engines read them (a boolean or a timestamp is none)."""
    raw = column if _stored_number(column) else format_labels(column)
    return pd.to_numeric(raw, errors="coerce").to_numpy(dtype=float, na_value=np.nan)


def _codes(column: pd.Series, dom: ColumnDomain) -> np.ndarray:
    """Each value's code in ``dom`` (-1: outside the domain or missing)."""
    if dom.categories is not None:
        text = format_labels(column)  # the labels the engines match: True, 40 (not 40.0), 2021-03-04
        codes = pd.Index(list(dom.categories), dtype=object).get_indexer(text).astype(np.int64)
        codes[text.isna().to_numpy()] = -1
        return np.where(codes < 0, len(dom.categories), codes) if dom.learned else codes
    values = numbers(column)
    bins = np.floor((np.clip(values, dom.low, dom.high) - dom.low) / (dom.high - dom.low) * dom.bins)
    codes = np.clip(np.nan_to_num(bins, nan=-1.0), -1, dom.bins - 1).astype(np.int64)
    codes[np.isnan(values)] = -1
    return codes


def encode(frame: pd.DataFrame, domains: list[ColumnDomain]) -> np.ndarray:
    """The rows as an (n, d) int array of codes; rows with a value outside its domain are left out."""
    codes = np.column_stack([_codes(frame[d.name], d) for d in domains]) if len(frame) else \
        np.zeros((0, len(domains)), dtype=np.int64)
    return codes[(codes >= 0).all(axis=1)]


def decode(codes: np.ndarray, domains: list[ColumnDomain]) -> pd.DataFrame:
    """The synthetic table: each code replaced by its public label."""
    return pd.DataFrame({d.name: np.asarray(d.labels, dtype=object)[codes[:, j]]
                         for j, d in enumerate(domains)})
