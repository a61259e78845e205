"""What ``auto`` picks for a column, and why.

:func:`choose` reads what a column is before it picks a builder: numbers (also
written as text, ``3.0``; years), dates, fixed-length digit codes (ZIP codes),
ordered categories (prefixes, ranges, known scales: see
:mod:`veil.hierarchy._order`), or nominal categories.  Each choice carries its
``reason``, which the CLI prints and the report keeps.  No chosen level leaves
the groups as they are: a level that merges nothing (or merges everything,
which the top already does) is left out.  :func:`build` builds any spec,
``auto`` included.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import replace
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from veil.hierarchy._hierarchy import Hierarchy
from veil.hierarchy._numeric import PLAIN, is_numeric, parse_numbers
from veil.hierarchy._order import category_order
from veil.hierarchy._spec import BuilderSpec, build_spec, parse_spec, present_values

__all__ = ["choose", "build", "auto_source", "FEW_VALUES", "NOMINAL_MANY"]

#: Most levels an automatic hierarchy gets below its top.
_MAX_LEVELS = 6
#: An automatic interval hierarchy starts with about this many intervals.
_FIRST_LEVEL_INTERVALS = 16
#: A column with at most this many values goes straight to ``*``: a level between would rename one
#: value (two values) or join two of three whatever they mean.
FEW_VALUES = 3
#: Nominal categories are pooled by frequency only above this many values; fewer go straight to ``*``.
NOMINAL_MANY = 10
#: Four-digit integers in this range are read as years (numbers), not as codes to mask.
_YEARS = (1800, 2100)


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


def _digits(values: Sequence[str]) -> pd.Series:
    return pd.Series(values, dtype=object).astype(str).str.strip()


def _is_fixed_digits(values: Sequence[str]) -> bool:
    text = _digits(values)
    lengths = text.str.len()
    return bool(text.str.fullmatch(r"\d+").all() and lengths.nunique() == 1 and lengths.iloc[0] >= 3)


def _is_years(values: Sequence[str]) -> bool:
    text = _digits(values)
    if not text.str.fullmatch(r"\d{4}").all():
        return False
    years = text.astype(int)
    return bool(years.between(*_YEARS).all())


def _is_date(values: Sequence[str]) -> bool:
    text = pd.Series(values, dtype=object).astype(str)
    if not text.str.contains(r"[-/.]|\d[A-Za-z]{3}", regex=True).all():
        return False
    return bool(pd.to_datetime(text, errors="coerce", format="mixed").notna().all())


def _fmt(x: float) -> str:
    return str(int(x)) if float(x).is_integer() else f"{x:g}"


def _useful(spec: BuilderSpec, leaves: list[str], counts: np.ndarray | None, name: str) -> BuilderSpec:
    """``spec`` without the levels that leave the groups unchanged or make one group (as the top does).

    The levels of ``interval``, ``group``, ``ordered`` (one per number) and ``date`` (one per
    word) are the last ones below the top; a level is kept when it has fewer groups than the
    level kept below it and more than one.
    """
    steps = spec.words if spec.builder == "date" else spec.numbers
    hierarchy = build_spec(spec, leaves, counts=counts, name=name)
    groups = [hierarchy.n_values(level) for level in range(hierarchy.height)]
    first = len(groups) - len(steps)
    below, kept = groups[first - 1], []
    for step, n in zip(steps, groups[first:]):
        if 1 < n < below:
            kept.append(step)
            below = n
    if spec.builder == "date":
        return replace(spec, words=tuple(kept))
    return replace(spec, numbers=tuple(kept))


def _numeric(leaves: list[str], name: str, declared: bool) -> BuilderSpec:
    numbers = parse_numbers(leaves, name=name)  # an error names the column
    plain = numbers.number[numbers.code == PLAIN]
    integral = numbers.integral and len(plain) > 0
    widths = _doubling_widths(numbers.number, integral)
    low, high = _fmt(float(numbers.number.min())), _fmt(float(numbers.number.max()))
    if _is_years(leaves):
        what = f"years ({low} to {high})"
    elif any("." in v or "e" in v.lower() for v in leaves) and integral:
        what = f"numbers written as text ({len(leaves)} values such as {leaves[0]!r}, {low} to {high})"
    else:
        what = f"{'numbers (declared numeric)' if declared else 'numbers'} ({len(leaves)} values, {low} to {high})"
    return BuilderSpec("interval", numbers=widths, reason=f"{what}: intervals that double")


def _kind_of(leaves: list[str], counts: np.ndarray | None, kind: str | None, name: str) -> BuilderSpec:
    """The builder for what the column is (before levels that change nothing are dropped)."""
    if kind == "date" or (kind != "numeric" and not _is_fixed_digits(leaves) and not is_numeric(leaves)
                          and category_order(leaves) is None and _is_date(leaves)):
        return BuilderSpec("date", words=("month", "year"), reason="dates: to months, then years")
    if kind == "numeric" or _is_years(leaves) or (is_numeric(leaves) and not _is_fixed_digits(leaves)):
        return _numeric(leaves, name, kind == "numeric")
    if _is_fixed_digits(leaves):
        width = len(leaves[0].strip())
        return BuilderSpec("mask", numbers=(1.0,),
                           reason=f"codes of {width} digits (as ZIP codes): one more digit masked per level")
    order = category_order(leaves)
    if order is not None:
        sizes, size = [], 2
        while size < len(np.unique(order.rank)) and len(sizes) < _MAX_LEVELS:
            sizes.append(float(size))
            size *= 2
        return BuilderSpec("ordered", numbers=tuple(sizes), reason=(
            f"ordered categories ({order.description}, {len(leaves)} values): only neighbours merge"))
    if len(leaves) <= NOMINAL_MANY:
        return BuilderSpec("suppress", reason=(
            f"{len(leaves)} categories without an order: pooling them would join unlike values, so straight to *"))
    if counts is None:
        return BuilderSpec("suppress", reason="categories without record counts: only suppression")
    folded = pd.Series(np.asarray(counts), dtype=np.int64).groupby(
        pd.Series(leaves).str.strip().str.casefold().to_numpy()).sum().to_numpy()
    thresholds = _doubling_thresholds(folded)
    if not thresholds:
        return BuilderSpec("suppress", reason=f"{len(leaves)} categories of one record each: only suppression")
    return BuilderSpec("group", numbers=thresholds, reason=(
        f"{len(leaves)} categories without an order: the rarest pooled into (other)"))


def choose(values: Sequence[Any], counts: Sequence[int] | np.ndarray | None = None, *, kind: str | None = None,
           name: str = "") -> BuilderSpec:
    """The builder ``auto`` picks for a column, from what its values are; ``.reason`` says why.

    In order: a column with at most :data:`FEW_VALUES` values (two sexes, yes
    and no) goes straight to ``*``; a declared ``numeric`` or ``date`` kind is
    followed; dates go to month, then year; numbers, also written as text
    (``3.0``) or with top codes (``90+``), and four-digit years get intervals
    that double (about 16 at the first level); other digit strings of one
    length (3 or more, as ZIP codes) are masked one character per level;
    ordered categories (number or letter prefixes, ranges such as ``10-19``,
    education levels, Likert answers) merge only with their neighbours
    (``ordered:2,4``); nominal categories are pooled by frequency
    (``group:2,4,8``) only when there are more than :data:`NOMINAL_MANY` of
    them, else they go straight to ``*``.  A level that would leave the groups
    unchanged is never chosen.  Missing values are ignored.

    Examples
    --------
    >>> str(choose(["02139", "02142", "10001", "10002"]))
    'mask:1'
    >>> str(choose([str(a) for a in range(18, 91)] + ["90+"]))
    'interval:5,10,20,40'
    >>> choose(["Male", "Female"], [60, 40]).reason
    '2 values: any level between them and * would only rename one, so straight to *'
    >>> str(choose(["1. Low", "2. Mid", "3. High", "4. Top"]))
    'ordered:2'
    """
    leaves, n = present_values(values, counts)
    if kind == "numeric" and leaves:
        parse_numbers(leaves, name=name)  # a declared kind the values do not fit is an error, whatever their count
    if len(leaves) <= 1:
        return BuilderSpec("suppress", reason=f"{len(leaves)} value: only suppression")
    if len(leaves) <= FEW_VALUES:
        detail = "rename one" if len(leaves) == 2 else "join two of the three whatever they mean"
        return BuilderSpec("suppress", reason=f"{len(leaves)} values: any level between them and * would only "
                                              f"{detail}, so straight to *")
    chosen = _kind_of(leaves, n, kind, name)
    if chosen.builder in ("interval", "group", "ordered", "date"):
        chosen = _useful(chosen, leaves, n, name)
        if not (chosen.numbers or chosen.words):
            return BuilderSpec("suppress", reason=chosen.reason.split(":")[0]
                               + ": no level between the values and * would group them, so straight to *")
        if chosen.builder == "date":
            chosen = replace(chosen, reason="dates: to " + ", then ".join(f"{w}s" for w in chosen.words))
    return chosen


def auto_source(chosen: BuilderSpec) -> str:
    """What a column's hierarchy came from when ``auto`` chose it: ``auto (SPEC) because REASON``."""
    return f"auto ({chosen}) because {chosen.reason}" if chosen.reason else f"auto ({chosen})"


def build(
    spec: BuilderSpec | str,
    values: Sequence[Any],
    *,
    counts: Sequence[int] | np.ndarray | None = None,
    name: str = "",
    kind: str | None = None,
    base_dir: str | Path | None = None,
) -> Hierarchy:
    """Build the hierarchy a spec describes over a column's distinct values; ``auto`` is chosen first.

    Parameters
    ----------
    spec : BuilderSpec or str
    values : sequence
        The column's distinct values; missing ones are left out.
    counts : sequence of int, optional
        Records per value (quantiles are of records; ``group`` and ``auto``
        on categories need them).
    name : str
        The column (for messages).
    kind : str, optional
        The declared kind, which ``auto`` follows.
    base_dir : path, optional
        Relative file paths are read from here.

    Raises
    ------
    HierarchyError
        The spec does not fit the values (naming the first value it cannot read).
    """
    spec = parse_spec(spec) if isinstance(spec, str) else spec
    if spec.builder == "auto":
        leaves, n = present_values(values, counts)
        return build_spec(choose(leaves, n, kind=kind, name=name), leaves, counts=n, name=name, base_dir=base_dir)
    return build_spec(spec, values, counts=counts, name=name, kind=kind, base_dir=base_dir)
