"""Hierarchies chosen from the data (``auto``) and resolved for a whole table.

:func:`choose` picks a builder from a column's values; :func:`resolve` turns
the ``--hierarchy COL=SPEC`` options (and ``--auto-hierarchies``) into
hierarchies for a :class:`~veil.dataset.Dataset`, with the text of what was
chosen for the summary and the report; :func:`level_counts` is the preview of
``veil hierarchy build``.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np
import pandas as pd

from veil.errors import ColumnNotFoundError
from veil.hierarchy._hierarchy import Hierarchy
from veil.hierarchy._numeric import PLAIN, is_numeric, parse_numbers
from veil.hierarchy._spec import BuilderSpec, build, parse_spec, present_values

if TYPE_CHECKING:
    from veil.dataset import Dataset

__all__ = ["choose", "resolve", "Resolution", "LevelSummary", "level_counts", "column_values"]

#: Most levels an automatic hierarchy gets below its top.
_MAX_LEVELS = 6
#: An automatic interval hierarchy starts with about this many intervals.
_FIRST_LEVEL_INTERVALS = 16


def _nice_width(span: float, integral: bool) -> float:
    """The 1, 2 or 5 times a power of ten nearest to ``span`` (on a log scale)."""
    if span <= 0:
        return 1.0
    power = 10.0 ** math.floor(math.log10(span))
    width = min((m * power for m in (1, 2, 5, 10)), key=lambda w: abs(math.log(w / span)))
    return max(width, 1.0) if integral else width


def _doubling_widths(numbers: np.ndarray, integral: bool) -> tuple[float, ...]:
    span = float(numbers.max() - numbers.min())
    width = _nice_width(span / _FIRST_LEVEL_INTERVALS, integral)
    widths = []
    while width < span and len(widths) < _MAX_LEVELS:
        widths.append(width)
        width *= 2
    return tuple(widths)


def _doubling_thresholds(counts: np.ndarray) -> tuple[float, ...]:
    """2, 4, 8, ...: the thresholds that each merge more categories, while some stay unmerged."""
    thresholds: list[float] = []
    t = 2
    while t <= counts.max() and len(thresholds) < _MAX_LEVELS:
        merged = int((counts < t).sum())
        previous = int((counts < thresholds[-1]).sum()) if thresholds else 0
        if merged > previous:
            thresholds.append(float(t))
        t *= 2
    return tuple(thresholds)


def _is_fixed_digits(values: Sequence[str]) -> bool:
    text = pd.Series(values, dtype=object).astype(str).str.strip()
    lengths = text.str.len()
    return bool(text.str.fullmatch(r"\d+").all() and lengths.nunique() == 1 and lengths.iloc[0] >= 3)


def _is_date(values: Sequence[str]) -> bool:
    text = pd.Series(values, dtype=object).astype(str)
    if not text.str.contains(r"[-/.]|\d[A-Za-z]{3}", regex=True).all():
        return False
    return bool(pd.to_datetime(text, errors="coerce", format="mixed").notna().all())


def choose(values: Sequence[Any], counts: Sequence[int] | np.ndarray | None = None, *, kind: str | None = None,
           name: str = "") -> BuilderSpec:
    """The builder ``auto`` picks for a column, from its kind and values.

    In order: a declared ``numeric`` or ``date`` kind is followed; digit
    strings of one length (3 or more, as ZIP codes) are masked one character
    per level (``mask:1``); numbers (with top codes such as ``90+`` and
    negative numbers) get intervals that double (``interval:5,10,20,40,80``,
    about 16 intervals at the first level); dates go to month, then year;
    other categories are grouped by frequency (``group:2,4,8``: values with
    fewer records than each threshold become ``(other)``), then ``*``.  A
    column with one value, or categories without record counts, is only
    suppressed.  Missing values are ignored.

    Examples
    --------
    >>> str(choose(["02139", "02142", "10001"]))
    'mask:1'
    >>> str(choose([str(a) for a in range(18, 91)] + ["90+"]))
    'interval:5,10,20,40'
    >>> str(choose(["a", "b", "c"], [1, 3, 9]))
    'group:2,4'
    """
    leaves, n = present_values(values, counts)
    if len(leaves) <= 1:
        return BuilderSpec("suppress")
    if kind == "date" or (kind != "numeric" and not _is_fixed_digits(leaves) and _is_date(leaves)
                          and not is_numeric(leaves)):
        return BuilderSpec("date", words=("month", "year"))
    if kind != "numeric" and _is_fixed_digits(leaves):
        return BuilderSpec("mask", numbers=(1.0,))
    if kind == "numeric" or is_numeric(leaves):
        numbers = parse_numbers(leaves, name=name)  # an error names the column
        widths = _doubling_widths(numbers.number, numbers.integral and bool((numbers.code == PLAIN).any()))
        return BuilderSpec("interval", numbers=widths) if widths else BuilderSpec("suppress")
    if n is None:
        return BuilderSpec("suppress")
    folded = pd.Series(np.asarray(n), dtype=np.int64).groupby(
        pd.Series(leaves).str.strip().str.casefold().to_numpy()).sum().to_numpy()
    thresholds = _doubling_thresholds(folded)
    return BuilderSpec("group", numbers=thresholds) if thresholds else BuilderSpec("suppress")


def column_values(dataset: "Dataset", column: str) -> tuple[list[str], np.ndarray]:
    """A column's distinct present values and their record counts."""
    encoded = dataset.encode(column)
    counts = np.bincount(encoded.codes, minlength=len(encoded.labels))
    keep = np.arange(len(encoded.labels)) != encoded.missing_code
    return [str(v) for v in encoded.labels[keep]], counts[keep]


@dataclass(frozen=True)
class Resolution:
    """Hierarchies for a table's columns, with what each came from.

    Attributes
    ----------
    hierarchies : dict of str to Hierarchy
    sources : dict of str to str
        Per column, the spec as given (``interval:5,10``), the file path, or
        ``auto (interval:5,10,20)`` with the choice made.  This is the JSON
        report's ``hierarchies`` section.
    """

    hierarchies: dict[str, Hierarchy] = field(default_factory=dict)
    sources: dict[str, str] = field(default_factory=dict)


def resolve(
    dataset: "Dataset",
    specs: Mapping[str, str | BuilderSpec] | None = None,
    *,
    quasi_identifiers: Iterable[str] | None = None,
    auto: bool = False,
    kinds: Mapping[str, str] | None = None,
    base_dir: str | Path | None = None,
) -> Resolution:
    """Build the hierarchies the ``--hierarchy`` options (and ``--auto-hierarchies``) ask for.

    Parameters
    ----------
    dataset : Dataset
    specs : mapping of str to str
        Column to spec (see :mod:`veil.hierarchy` for the grammar).
    quasi_identifiers : iterable of str, optional
        With ``auto``, the columns that get ``auto`` when they have no spec
        (default: the dataset's quasi-identifiers).
    auto : bool
        Give ``auto`` to every quasi-identifier without a spec.
    kinds : mapping of str to str, optional
        Kinds the user declared (``auto`` follows them).
    base_dir : path, optional
        Relative files are read from here.

    Raises
    ------
    ColumnNotFoundError
        A spec names a column that is not in the table.
    HierarchyError
        A spec is malformed or does not fit its column (naming both).
    """
    wanted: dict[str, BuilderSpec] = {
        col: parse_spec(s) if isinstance(s, str) else s for col, s in (specs or {}).items()
    }
    if auto:
        for col in quasi_identifiers if quasi_identifiers is not None else dataset.quasi_identifiers:
            wanted.setdefault(col, BuilderSpec("auto"))
    out = Resolution()
    for col, spec in wanted.items():
        if col not in dataset.columns:
            raise ColumnNotFoundError(
                f"--hierarchy names the column {col!r}, which is not in the table; its columns are: "
                f"{', '.join(dataset.columns)}."
            )
        kind = (kinds or {}).get(col)
        if spec.builder == "file":
            out.hierarchies[col] = build(spec, [], name=col, base_dir=base_dir)
            out.sources[col] = str(spec)
            continue
        values, counts = column_values(dataset, col)
        if spec.builder == "auto":
            chosen = choose(values, counts, kind=kind, name=col)
            out.sources[col] = f"auto ({chosen})"
            spec = chosen
        else:
            out.sources[col] = str(spec)
        out.hierarchies[col] = build(spec, values, counts=counts, name=col, kind=kind, base_dir=base_dir)
    return out


@dataclass(frozen=True)
class LevelSummary:
    """One level of a hierarchy over a column: how many groups and how big.

    Attributes
    ----------
    level : int
    groups : int
        Distinct values at this level among the records.
    smallest, largest : int
        Records in the smallest and the largest group.
    examples : tuple of (str, int)
        The first few labels in hierarchy order, with their records.
    """

    level: int
    groups: int
    smallest: int
    largest: int
    examples: tuple[tuple[str, int], ...]


def level_counts(hierarchy: Hierarchy, values: Sequence[str], counts: Sequence[int] | np.ndarray, *,
                 column: str = "", examples: int = 4) -> list[LevelSummary]:
    """Per level, the groups the column's records fall into (the text wizard's preview).

    Raises
    ------
    HierarchyError
        The hierarchy misses one of ``values`` (naming it).
    """
    leaf = hierarchy.leaf_index(np.asarray(values, dtype=object), column=column)
    weights = np.asarray(counts, dtype=np.int64)
    out = []
    for level in range(hierarchy.n_levels):
        sizes = np.bincount(hierarchy.maps[level][leaf], weights=weights, minlength=hierarchy.n_values(level))
        used = np.flatnonzero(sizes > 0)
        out.append(LevelSummary(
            level=level, groups=len(used), smallest=int(sizes[used].min()) if len(used) else 0,
            largest=int(sizes[used].max()) if len(used) else 0,
            examples=tuple((hierarchy.label(level, int(c)), int(sizes[c])) for c in used[:examples]),
        ))
    return out
