"""The hierarchy spec grammar shared by the CLI (``--hierarchy COL=SPEC``) and the release config.

A spec is a file path or ``builder:arguments``::

    age.csv                   an ARX-style hierarchy file (also file:age.csv)
    interval:5,10,20          interval widths per level, then *
    interval:quantiles=4,2    quartiles, then halves (of the records), then *
    mask:1                    mask 1 character per level from the right (ZIP codes)
    date:month,year           dates to months, then years (also decade), then *
    round:10,100              round to multiples of 10, then of 100, then *
    group:2,10                categories with fewer than 2, then 10 records become (other)
    ordered:2,4               ordered categories (1. ... 5., 10-19, education levels, Likert
                              answers) merged with their neighbours in runs of 2, then 4, then *
    suppress                  the value, then *
    taxonomy:tree.csv         a tree written as parent,child lines
    auto                      chosen from the column's values (see veil.hierarchy.choose)

Builder names and date levels ignore case.  Missing values are never part of
a built hierarchy: veil adds the missing-value label below the top when it
binds the hierarchy to a column.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from veil.errors import HierarchyError
from veil.hierarchy._builders import dates, distinct_present, flat, from_csv, masking
from veil.hierarchy._categorical import frequency_groups, taxonomy_file
from veil.hierarchy._hierarchy import Hierarchy
from veil.hierarchy._numeric import interval_hierarchy, parse_numbers, quantile_cuts, round_hierarchy
from veil.hierarchy._order import ordered_groups

__all__ = ["BuilderSpec", "parse_spec", "build_spec", "BUILDERS", "present_values", "MAX_MASK_LEVELS"]

#: The builders of the grammar (besides a file path).
BUILDERS = ("interval", "mask", "date", "round", "group", "ordered", "suppress", "taxonomy", "auto", "file")
_DATE_LEVELS = ("month", "year", "decade")
#: The most levels ``mask:N`` builds: one per N characters of the longest value.
MAX_MASK_LEVELS = 64
#: Texts that are no value: blank, and the label veil gives missing values (veil.dataset.MISSING).
#: Texts such as "NA" that survived the reader's missing-value list are values of their own.
_MISSING_TEXT = frozenset({"", "<missing>"})


@dataclass(frozen=True)
class BuilderSpec:
    """A parsed hierarchy spec: which builder, with which arguments.

    Attributes
    ----------
    builder : str
        One of :data:`BUILDERS`.
    numbers : tuple of float
        Widths (interval), quantile bin counts (interval with ``quantiles``),
        characters per level (mask), steps (round), thresholds (group) or
        run lengths (ordered).
    words : tuple of str
        Date levels.
    path : str
        The file of ``file`` and ``taxonomy``.
    quantiles : bool
        ``interval:quantiles=...``.
    reason : str
        Why ``auto`` chose this spec (empty for a spec given by the user); not
        part of the spec's text or of its equality.
    """

    builder: str
    numbers: tuple[float, ...] = ()
    words: tuple[str, ...] = ()
    path: str = ""
    quantiles: bool = False
    reason: str = field(default="", compare=False)

    def __str__(self) -> str:
        nums = ",".join(str(int(x)) if float(x).is_integer() else f"{x:g}" for x in self.numbers)
        if self.builder == "file":
            return self.path
        if self.builder == "taxonomy":
            return f"taxonomy:{self.path}"
        if self.builder in ("suppress", "auto"):
            return self.builder
        if self.builder == "date":
            return "date:" + ",".join(self.words)
        return f"{self.builder}:{'quantiles=' if self.quantiles else ''}{nums}"

    @property
    def files(self) -> tuple[str, ...]:
        """The files this spec reads (for the output writer's input list)."""
        return (self.path,) if self.builder in ("file", "taxonomy") else ()


def _numbers(text: str, spec: str, *, integer: bool = False, low: float = 0.0) -> tuple[float, ...]:
    parts = [p.strip() for p in text.split(",") if p.strip()]
    if not parts:
        raise HierarchyError(f"The hierarchy spec {spec!r} needs numbers after ':', e.g. interval:5,10,20.")
    try:
        values = tuple(float(p) for p in parts)
    except ValueError:
        bad = next(p for p in parts if not _is_float(p))
        raise HierarchyError(f"The hierarchy spec {spec!r} needs numbers; got {bad!r}.") from None
    if any(not math.isfinite(v) or v <= low for v in values) or (integer and any(not v.is_integer() for v in values)):
        kind = "integers" if integer else "numbers"
        raise HierarchyError(f"The hierarchy spec {spec!r} needs {kind} above {low:g}; got {text.strip()!r}.")
    return values


def _is_float(text: str) -> bool:
    try:
        float(text)
    except ValueError:
        return False
    return True


def parse_spec(text: str) -> BuilderSpec:
    """Parse one spec of the grammar (see the module docstring).

    Raises
    ------
    HierarchyError
        An unknown builder (naming it and the known ones) or bad arguments.

    Examples
    --------
    >>> str(parse_spec("Interval: 5, 10"))
    'interval:5,10'
    >>> parse_spec("age.csv").builder
    'file'
    """
    if not isinstance(text, str) or not text.strip():
        raise HierarchyError("A hierarchy spec is empty; give a file path or a builder such as interval:5,10.")
    spec = text.strip()
    head, colon, rest = spec.partition(":")
    name = head.strip().lower()
    rest = rest.strip()
    if name not in BUILDERS:
        if colon and head.strip().isalpha() and len(head.strip()) > 1:
            raise HierarchyError(
                f"Unknown hierarchy builder {head.strip()!r} in {spec!r}; use a file path or one of "
                f"{', '.join(b for b in BUILDERS if b != 'file')}."
            )
        return BuilderSpec("file", path=spec)
    if name in ("suppress", "auto"):
        if rest:
            raise HierarchyError(f"The hierarchy builder {name!r} takes no arguments; got {spec!r}.")
        return BuilderSpec(name)
    if name in ("file", "taxonomy"):
        if not rest:
            raise HierarchyError(f"The hierarchy spec {spec!r} needs a file after ':', e.g. {name}:tree.csv.")
        return BuilderSpec(name, path=rest)
    if name == "date":
        words = tuple(w.strip().lower() for w in rest.split(",") if w.strip()) or ("month", "year")
        unknown = [w for w in words if w not in _DATE_LEVELS]
        if unknown:
            raise HierarchyError(f"Unknown date level {unknown[0]!r} in {spec!r}; use some of month, year, decade.")
        return BuilderSpec("date", words=words)
    if name == "mask":
        return BuilderSpec("mask", numbers=_numbers(rest or "1", spec, integer=True)[:1])
    if name == "interval" and rest.lower().startswith("quantiles="):
        return BuilderSpec("interval", numbers=_numbers(rest.partition("=")[2], spec, integer=True, low=1), quantiles=True)
    if name in ("group", "ordered"):
        return BuilderSpec(name, numbers=_numbers(rest, spec, integer=True, low=1))
    return BuilderSpec(name, numbers=_numbers(rest, spec))


def present_values(values: Sequence[Any], counts: Sequence[int] | np.ndarray | None = None) -> tuple[list[str], np.ndarray | None]:
    """The distinct values (and their summed counts) without missing ones: None, NaN, blank, ``<missing>``."""
    if counts is None:
        return distinct_present(values), None
    series = pd.Series(list(values), dtype=object)
    keep = series.notna().to_numpy() & ~series.astype(str).str.strip().isin(_MISSING_TEXT).to_numpy()
    kept = series[keep].astype(str)
    summed = pd.Series(np.asarray(counts)[keep], index=kept.to_numpy()).groupby(level=0, sort=False).sum()
    return [str(v) for v in summed.index], summed.to_numpy()


def build_spec(
    spec: BuilderSpec | str,
    values: Sequence[Any],
    *,
    counts: Sequence[int] | np.ndarray | None = None,
    name: str = "",
    kind: str | None = None,
    base_dir: str | Path | None = None,
) -> Hierarchy:
    """Build the hierarchy a spec other than ``auto`` describes over a column's distinct values.

    The parameters are those of :func:`veil.hierarchy.build`, which also
    takes ``auto`` (``kind`` is what ``auto`` follows; this builder ignores it).

    Raises
    ------
    HierarchyError
        ``auto``, or a spec that does not fit the values (naming the first one it cannot read).
    """
    spec = parse_spec(spec) if isinstance(spec, str) else spec
    leaves, n = present_values(values, counts)
    if spec.builder == "auto":
        raise HierarchyError("auto is chosen from the column's values: build it with veil.hierarchy.build.")
    if spec.builder == "file":
        return from_csv(_where(spec.path, base_dir), name=name)
    if spec.builder == "taxonomy":
        return taxonomy_file(_where(spec.path, base_dir), leaves, name=name)
    if not leaves:  # every record is missing: the missing label, then the top
        from veil.dataset import MISSING

        return Hierarchy.flat([MISSING], name=name)
    if spec.builder == "suppress":
        return flat(leaves, name=name)
    if spec.builder == "group":
        return frequency_groups(leaves, n, spec.numbers, name=name)
    if spec.builder == "ordered":
        return ordered_groups(leaves, spec.numbers, name=name)
    if spec.builder == "mask":
        step = int(spec.numbers[0])
        longest = max(len(v) for v in leaves)
        if math.ceil(longest / step) > MAX_MASK_LEVELS:
            raise HierarchyError(
                f"mask:{step} on {name or 'the attribute'!r} would build {math.ceil(longest / step):,} levels (its "
                f"longest value has {longest:,} characters); at most {MAX_MASK_LEVELS}: use mask:N with N of at least "
                f"{math.ceil(longest / MAX_MASK_LEVELS)}, or another builder."
            )
        keep = list(range(longest - step, 0, -step)) + [0]
        return masking(leaves, keep=keep, name=name)
    if spec.builder == "date":
        return dates(leaves, levels=spec.words, name=name)
    return _numeric(spec, leaves, n, name)


def _where(path: str, base_dir: str | Path | None) -> Path:
    p = Path(path).expanduser()
    return p if p.is_absolute() or base_dir is None else Path(base_dir) / p


def _numeric(spec: BuilderSpec, leaves: list[str], counts: np.ndarray | None, name: str) -> Hierarchy:
    """``interval`` (widths or quantiles of the records) and ``round``."""
    numbers = parse_numbers(leaves, name=name)
    if spec.builder == "round":
        return round_hierarchy(numbers, spec.numbers, name=name)
    if spec.quantiles:
        weights = None if counts is None else pd.Series(counts, index=leaves).reindex(numbers.leaves).to_numpy()
        return interval_hierarchy(numbers, quantile_cuts(numbers, spec.numbers, weights), name=name)
    return interval_hierarchy(numbers, spec.numbers, name=name)
