"""Numeric hierarchies on real values: intervals (widths or quantiles) and rounding.

Real tables carry more than plain numbers: top codes (``90+``, ``>=90``,
``>90``), bottom codes (``<18``, ``<=17``) and negative numbers.  A top-coded
value stands for every number from its threshold up, so at each level it
joins the interval that holds its threshold and every interval above it, and
that group is labelled ``>= a`` (``a`` the group's lower bound); bottom codes
mirror this with ``< b``.  Both rules nest from one level to the next, so the
hierarchy stays monotone.  Everything here works on the distinct values with
numpy, never on rows.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd

from veil.errors import HierarchyError
from veil.hierarchy._hierarchy import Hierarchy

__all__ = ["NumericValues", "parse_numbers", "interval_hierarchy", "quantile_cuts", "round_hierarchy", "is_numeric",
           "points", "merge_codes", "bin_labels", "check_steps", "MAX_STEPS"]

_NUMBER = r"[-+]?(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][-+]?\d+)?"
#: ``90+``, ``>=90``, ``> 90``, ``≥90``; ``<18``, ``<=17``, ``≤17``.
_CODED = rf"^\s*(?P<op>>=|>|≥|<=|<|≤)?\s*(?P<num>{_NUMBER})\s*(?P<plus>\+)?\s*$"

PLAIN, TOP, BOTTOM = 0, 1, -1
#: The most steps (of a width or a rounding step) a value may lie from zero: beyond it a float
#: no longer tells neighbouring steps apart (and a tiny step overflows to infinity).
MAX_STEPS = 1e15


@dataclass(frozen=True)
class NumericValues:
    """Distinct values read as numbers.

    Attributes
    ----------
    leaves : numpy.ndarray of object
        The values' text, as in the data.
    number : numpy.ndarray of float
        The number, or for a top/bottom code its threshold.
    code : numpy.ndarray of int8
        0 for a plain number, 1 for a top code (``90+``), -1 for a bottom code.
    strict : numpy.ndarray of bool
        The code excludes its threshold (``>90``, ``<18``).
    """

    leaves: np.ndarray
    number: np.ndarray
    code: np.ndarray
    strict: np.ndarray

    @property
    def plain(self) -> np.ndarray:
        return self.number[self.code == PLAIN]

    @property
    def integral(self) -> bool:
        return bool(np.all(np.mod(self.number, 1) == 0))


def _read(values: Sequence[Any]) -> tuple[pd.Series, pd.DataFrame]:
    leaves = pd.Series(list(dict.fromkeys(str(v) for v in values)), dtype=object)
    return leaves, leaves.str.extract(_CODED)


def is_numeric(values: Sequence[Any]) -> bool:
    """Whether every value is a finite number or a top/bottom code (and at least one is plain)."""
    leaves, parts = _read(values)
    if not (len(leaves) > 0 and bool(parts["num"].notna().all())):
        return False
    finite = bool(np.isfinite(parts["num"].astype(float).to_numpy()).all())  # 1e309 reads as infinity
    return finite and bool((parts["op"].isna() & parts["plus"].isna()).any())


def parse_numbers(values: Sequence[Any], *, name: str = "") -> NumericValues:
    """Read distinct values as numbers, top codes and bottom codes.

    Raises
    ------
    HierarchyError
        A value is none of these (naming it), or a code mixes ``+`` with ``<``.
    """
    leaves, parts = _read(values)
    what = name or "the attribute"
    bad = parts["num"].isna() | (parts["plus"].notna() & parts["op"].isin(["<", "<=", "≤"]))
    if bad.any():
        raise HierarchyError(
            f"The numeric hierarchy of {what!r} needs numbers (or top/bottom codes such as 90+ or <18); "
            f"got {leaves[bad].iloc[0]!r}."
        )
    infinite = ~np.isfinite(parts["num"].astype(float).to_numpy())
    if infinite.any():
        raise HierarchyError(
            f"The numeric hierarchy of {what!r} needs finite numbers; {leaves[infinite].iloc[0]!r} is beyond the "
            "largest a float holds (about 1.8e308)."
        )
    op = parts["op"].fillna("")
    top = op.isin([">", ">=", "≥"]) | parts["plus"].notna()
    bottom = op.isin(["<", "<=", "≤"])
    code = np.where(top, TOP, np.where(bottom, BOTTOM, PLAIN)).astype(np.int8)
    number = parts["num"].astype(float).to_numpy()
    order = np.lexsort((code, number))
    return NumericValues(
        leaves=leaves.to_numpy(dtype=object)[order],
        number=number[order],
        code=code[order],
        strict=op.isin([">", "<"]).to_numpy()[order],
    )


def _fmt(x: float) -> str:
    return str(int(x)) if float(x).is_integer() else f"{x:.10g}"


def check_steps(values: NumericValues, steps: Sequence[float], *, builder: str, name: str = "") -> None:
    """Refuse a width or rounding step so small against the values that the levels cannot be computed.

    Raises
    ------
    HierarchyError
        A step puts a value more than :data:`MAX_STEPS` steps from zero (naming the step, the
        column and the smallest step that works).
    """
    largest = float(np.abs(values.number).max()) if len(values.number) else 0.0
    for step in map(float, steps):
        with np.errstate(over="ignore", divide="ignore"):
            ratio = largest / step
        if not math.isfinite(ratio) or ratio > MAX_STEPS:
            raise HierarchyError(
                f"The {builder} step {step!r} is too small for the values of {name or 'the attribute'!r} "
                f"(up to {_fmt(largest)}): a value may lie at most {MAX_STEPS:g} steps from zero; "
                f"use a step of at least {largest / MAX_STEPS:.3g}."
            )


def bin_labels(lo: np.ndarray, hi: np.ndarray, *, label_format: str = "[{low}, {high})", integral: bool = False,
               fmt: Any = None) -> np.ndarray:
    """The label of each bin ``[lo, hi)``: ``label_format`` with fields ``low``, ``high`` and
    ``last`` (``high - 1`` for integer data); an infinite bound gives ``< b`` or ``>= a``.
    Each distinct bin is formatted once."""
    fmt = fmt or _fmt
    pairs, inverse = np.unique(np.column_stack([lo, hi]), axis=0, return_inverse=True)
    text = np.empty(len(pairs), dtype=object)
    for i, (a, b) in enumerate(pairs.tolist()):  # distinct bins, not values or rows
        if math.isinf(b):
            text[i] = f">= {fmt(a)}"
        elif math.isinf(a):
            text[i] = f"< {fmt(b)}"
        else:
            text[i] = label_format.format(low=fmt(a), high=fmt(b), last=fmt(b - 1 if integral else b))
    return text[np.asarray(inverse).reshape(-1)]


def _labels(lo: np.ndarray, hi: np.ndarray) -> np.ndarray:
    return bin_labels(lo, hi)


def _bins(x: np.ndarray, level: float | np.ndarray, origin: float) -> tuple[np.ndarray, np.ndarray]:
    """The bin ``[lo, hi)`` of each ``x``: a width, or an array of inner cut points."""
    if np.ndim(level) == 0:
        lo = origin + np.floor((x - origin) / level) * level
        return lo, lo + level
    edges = np.concatenate([[-np.inf], np.asarray(level, dtype=float), [np.inf]])
    j = np.searchsorted(np.asarray(level, dtype=float), x, side="right")
    return edges[j], edges[j + 1]


def points(values: NumericValues) -> np.ndarray:
    """The number that places each value in a bin: a strict bottom code ``<18`` sits just below 18."""
    x = values.number.copy()
    strict_bottom = (values.code == BOTTOM) & values.strict
    x[strict_bottom] = np.nextafter(x[strict_bottom], -np.inf)
    return x


def _level_labels(values: NumericValues, level: float | np.ndarray, origin: float) -> np.ndarray:
    """Each value's label at one interval level, with top and bottom codes merged in."""
    lo, hi = _bins(points(values), level, origin)
    return merge_codes(values, lo, hi, _labels(lo, hi))


def merge_codes(values: NumericValues, lo: np.ndarray, hi: np.ndarray, labels: np.ndarray) -> np.ndarray:
    """Merge top codes with every bin from theirs up (``>= a``), bottom codes with every bin
    up to theirs (``< b``); when the two meet, the level is one group ``*``."""
    labels = labels.copy()
    x = values.number
    below = np.zeros(len(x), dtype=bool)
    above = np.zeros(len(x), dtype=bool)
    if (values.code == BOTTOM).any():
        cap = hi[values.code == BOTTOM].max()
        below = hi <= cap
        labels[below] = f"< {_fmt(cap)}"
    if (values.code == TOP).any():
        floor = lo[values.code == TOP].min()
        above = lo >= floor
        labels[above] = f">= {_fmt(floor)}"
    if (below & above).any() or below.all() or above.all():
        labels[:] = "*"  # the open groups meet: this level (and every coarser one) is one group
    return labels


def interval_hierarchy(
    values: NumericValues,
    levels: Sequence[float | np.ndarray],
    *,
    origin: float = 0.0,
    top: str = "*",
    name: str = "",
) -> Hierarchy:
    """Intervals, one level per width (``5``) or per array of inner cut points, then ``top``.

    Widths must each be a multiple of the previous one, and each array of cuts
    must be contained in the previous one, or the levels would not nest.

    Raises
    ------
    HierarchyError
        Non-positive widths, widths that do not nest, or no values.
    """
    if len(values.leaves) == 0:
        raise HierarchyError(f"The interval hierarchy of {name or 'the attribute'!r} has no values to cover.")
    widths = [float(w) for w in levels if np.ndim(w) == 0]
    if any(w <= 0 for w in widths):
        raise HierarchyError(f"Interval widths must be positive; got {[_fmt(w) for w in widths]}.")
    check_steps(values, widths, builder="interval", name=name)
    for a, b in zip(widths, widths[1:]):
        ratio = b / a
        if abs(ratio - round(ratio)) > 1e-9 or ratio < 1:
            raise HierarchyError(
                f"Interval widths must each be a multiple of the one before so the levels nest; "
                f"{_fmt(b)} is not a multiple of {_fmt(a)}."
            )
    columns = [values.leaves] + [_level_labels(values, level, origin) for level in levels]
    columns.append(np.full(len(values.leaves), top, dtype=object))
    return Hierarchy.from_rows(np.column_stack(columns).tolist(), name=name)


def quantile_cuts(values: NumericValues, bins: Sequence[int], counts: np.ndarray | None = None) -> list[np.ndarray]:
    """Inner cut points per level: ``bins=(4, 2)`` gives quartiles, then the median.

    Quantiles are of the records (``counts`` per distinct value) when given,
    else of the distinct values.  Each level's count must divide the previous
    one's, so each level's cuts are a subset of the level below.

    Raises
    ------
    HierarchyError
        A count below 2, or one that does not divide the previous count.
    """
    bins = [int(b) for b in bins]
    if any(b < 2 for b in bins):
        raise HierarchyError(f"Quantile levels need at least 2 bins each; got {bins}.")
    for a, b in zip(bins, bins[1:]):
        if a % b:
            raise HierarchyError(f"Quantile bins must each divide the one before so the levels nest; {b} does not divide {a}.")
    plain = values.code == PLAIN
    x = values.number[plain]
    weights = np.ones(len(x)) if counts is None else np.asarray(counts, dtype=float)[plain]
    cumulative = np.cumsum(weights) / max(weights.sum(), 1.0)
    finest = bins[0]
    out = []
    for b in bins:
        step = finest // b
        qs = np.arange(1, finest)[step - 1::step] / finest if b > 1 else np.array([])
        cuts = x[np.minimum(np.searchsorted(cumulative, qs, side="left") + 1, len(x) - 1)] if len(x) else qs
        out.append(np.unique(cuts))
    for i in range(1, len(out)):  # keep the nesting exact after duplicates collapsed
        out[i] = np.intersect1d(out[i], out[i - 1]) if len(out[i - 1]) else out[i]
    return out


def round_hierarchy(values: NumericValues, steps: Sequence[float], *, top: str = "*", name: str = "") -> Hierarchy:
    """Rounding to multiples of each step in turn: ``round:10,100`` gives 149 → 150 → 200.

    Each level rounds the level below (half away from zero), so the levels
    nest; a top code rounds down (``93+`` → ``90+``) and a bottom code up
    (``<14`` → ``< 20``, ``<=17`` → ``<= 20``), so their labels stay true.

    Raises
    ------
    HierarchyError
        A non-positive step, or no values.
    """
    if len(values.leaves) == 0:
        raise HierarchyError(f"The rounding hierarchy of {name or 'the attribute'!r} has no values to cover.")
    if not steps or any(float(s) <= 0 for s in steps):
        raise HierarchyError(f"Rounding steps must be positive numbers; got {list(steps)}.")
    check_steps(values, steps, builder="round", name=name)
    columns = [values.leaves]
    current = values.number.copy()
    for step in map(float, steps):
        plain = np.sign(current) * np.floor(np.abs(current) / step + 0.5) * step
        current = np.where(values.code == TOP, np.floor(current / step) * step,
                           np.where(values.code == BOTTOM, np.ceil(current / step) * step, plain))
        decimals = max(0, -math.floor(math.log10(step))) if step < 1 else 0
        text = pd.Series(np.round(current, decimals)).map(_fmt).to_numpy(dtype=object)
        bottom = np.where(values.strict, "< ", "<= ").astype(object) + text
        text = np.where(values.code == TOP, text + "+", np.where(values.code == BOTTOM, bottom, text))
        columns.append(text.astype(object))
    columns.append(np.full(len(values.leaves), top, dtype=object))
    return Hierarchy.from_rows(np.column_stack(columns).tolist(), name=name)
