"""Builders of generalization hierarchies: ARX CSV, intervals, masking, dates, trees."""

from __future__ import annotations

import csv
import math
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any, Literal

import numpy as np
import pandas as pd

from veil.errors import HierarchyError
from veil.hierarchy._hierarchy import Hierarchy
from veil.hierarchy._numeric import PLAIN, bin_labels, check_steps, merge_codes, parse_numbers, points

__all__ = ["from_csv", "intervals", "masking", "prefix", "dates", "taxonomy", "flat", "distinct_present", "read_text_file"]


#: Texts that are no value: blank, and the label veil gives missing values (veil.dataset.MISSING).
_NO_VALUE = frozenset({"", "<missing>"})


def distinct_present(values: Sequence[Any]) -> list[str]:
    """The distinct values as text, in order, without missing ones (None, NaN, blank, ``<missing>``)."""
    series = pd.Series(list(values), dtype=object)
    text = series.astype(str)
    keep = series.notna().to_numpy() & ~text.str.strip().isin(_NO_VALUE).to_numpy()
    return list(dict.fromkeys(text[keep].tolist()))


def flat(values: Sequence[str], *, top: str = "*", name: str = "") -> Hierarchy:
    """Two levels: the values and ``top``; an attribute can only be suppressed."""
    return Hierarchy.flat(distinct_present(values), top=top, name=name)


def from_csv(path: str | Path, *, sep: str | None = None, encoding: str = "utf-8", name: str = "") -> Hierarchy:
    """Read an ARX-style hierarchy: one row per value, its generalizations to the right.

    ``sep=None`` takes ``;`` if the first line has one, else ``,``.  There is no
    header line.

    Raises
    ------
    HierarchyError
        Missing or empty file, ragged rows (naming the line), duplicates,
        non-monotone levels, several top values.
    """
    path = Path(path)
    if not path.is_file():
        raise HierarchyError(f"No such hierarchy file: {str(path)!r}.")
    text = read_text_file(path, "hierarchy file", encoding=encoding)
    numbered = [(i + 1, line) for i, line in enumerate(text.splitlines()) if line.strip()]
    if not numbered:
        raise HierarchyError(f"The hierarchy file {str(path)!r} is empty.")
    first = numbered[0][1]
    if sep is None:
        sep = ";" if ";" in first else ("\t" if "\t" in first else ",")
    rows = list(csv.reader([line for _, line in numbered], delimiter=sep))
    width = len(rows[0])
    for (number, _), row in zip(numbered, rows):
        if len(row) != width:
            raise HierarchyError(
                f"{str(path)!r}, line {number}: {len(row)} levels where line {numbered[0][0]} has {width}; "
                "every row needs the same number of levels."
            )
        empty = [j for j, label in enumerate(row) if not label.strip()]
        if empty:
            raise HierarchyError(
                f"{str(path)!r}, line {number}: the label of level {empty[0]} (field {empty[0] + 1}) is empty; "
                "every value and generalization needs a label (an empty one is read back as missing)."
            )
    return Hierarchy.from_rows(rows, name=name or path.stem, source=repr(str(path)))


def read_text_file(path: Path, what: str, *, encoding: str = "utf-8") -> str:
    """The text of a hierarchy or taxonomy file: UTF-8 (a byte-order mark is dropped), else one error
    that names the file and the line of the first byte that is not UTF-8."""
    data = path.read_bytes()
    codec = "utf-8-sig" if encoding.replace("_", "-").lower() in ("utf-8", "utf8") else encoding
    try:
        return data.decode(codec)
    except UnicodeDecodeError as exc:
        line = data.count(b"\n", 0, exc.start) + 1
        raise HierarchyError(
            f"The {what} {str(path)!r} is not valid UTF-8 (line {line}, byte {exc.start}); save it as UTF-8."
        ) from None
    except LookupError:
        raise HierarchyError(f"Unknown encoding {encoding!r} for the {what} {str(path)!r}.") from None


def _fmt(x: float) -> str:
    return str(int(x)) if float(x).is_integer() else repr(float(x))


def _interval_levels(
    widths: Sequence[float] | None, cuts: Sequence[Sequence[float]] | None, low: float | None, high: float | None,
) -> tuple[list[Any], float, float]:
    """The levels (widths, or arrays of cuts) and the covered range ``[low, high)``."""
    if cuts is not None:
        levels: list[Any] = [np.unique(np.asarray(c, dtype=float)) for c in cuts]
        if any(len(c) < 2 for c in levels):
            raise HierarchyError("Each level of cuts needs at least two boundaries.")
        return levels, min(c[0] for c in levels), max(c[-1] for c in levels)
    levels = [float(w) for w in widths or ()]
    if any(w <= 0 for w in levels):
        raise HierarchyError(f"Interval widths must be positive; got {list(widths or ())}.")
    return levels, -math.inf if low is None else float(low), math.inf if high is None else float(high)


def _outside(numbers: Any, x: np.ndarray, lo_bound: float, hi_bound: float, outside: str,
             name: str) -> tuple[np.ndarray, np.ndarray]:
    """The values below and above the covered range; an error on a plain one unless ``outside="open"``."""
    below, above = x < lo_bound, x >= hi_bound
    if ((below | above) & (numbers.code == PLAIN)).any() and outside == "error":
        bad = numbers.leaves[int(np.flatnonzero((below | above) & (numbers.code == PLAIN))[0])]
        raise HierarchyError(
            f"The value {bad!r} of {name or 'the attribute'!r} is outside the hierarchy's range "
            f"[{_fmt(lo_bound)}, {_fmt(hi_bound)}); widen the range or use outside='open'."
        )
    return below, above


def intervals(
    values: Sequence[Any],
    *,
    widths: Sequence[float] | None = None,
    cuts: Sequence[Sequence[float]] | None = None,
    origin: float = 0.0,
    low: float | None = None,
    high: float | None = None,
    outside: Literal["error", "open"] = "error",
    label_format: str = "[{low}, {high})",
    top: str = "*",
    name: str = "",
) -> Hierarchy:
    """Numeric intervals, one level per width (or per list of cut points), then the top.

    Parameters
    ----------
    values : sequence
        The values (text or numbers), each a leaf; missing ones are left out, top and
        bottom codes (``90+``, ``<18``) join the open interval of their threshold.
    widths : sequence of float, optional
        Interval width per level, e.g. ``(5, 10, 20)`` for age 5 → 10 → 20 → ``*``.
        Intervals start at ``origin + i * width``.  Each width must be a
        multiple of the previous one, or the levels are not monotone.
    cuts : sequence of sequences of float, optional
        Explicit boundaries per level: value ``v`` falls in ``[c_i, c_{i+1})``.
        Each level's cuts must include the next level's (monotone).
    low, high : float, optional
        With ``widths``, the covered range ``[low, high)``.  With ``cuts``, the
        first and last cut.
    outside : {"error", "open"}
        A value outside the covered range is an error naming it, or falls in an
        open interval (``< low`` / ``>= high``).
    label_format : str
        The label of ``[a, b)``; fields ``low``, ``high`` and ``last`` (``b - 1``,
        for integer data: ``"{low}-{last}"`` gives ``1970-1979``).
    """
    if (widths is None) == (cuts is None):
        raise HierarchyError("Give either widths=... or cuts=... for an interval hierarchy, not both.")
    numbers = parse_numbers(distinct_present(values), name=name)
    x = points(numbers)
    levels, lo_bound, hi_bound = _interval_levels(widths, cuts, low, high)
    if cuts is None:
        check_steps(numbers, levels, builder="interval", name=name)
    below, above = _outside(numbers, x, lo_bound, hi_bound, outside, name)
    columns = [numbers.leaves]
    for level in levels:
        if cuts is not None:
            edges = np.concatenate([[-np.inf], level, [np.inf]])
            j = np.searchsorted(level, x, side="right")
            lo, hi = edges[j], edges[j + 1]
        else:
            lo = origin + np.floor((x - origin) / level) * level
            hi = lo + level
        lo = np.where(below, -np.inf, np.where(above, hi_bound, lo))
        hi = np.where(below, lo_bound, np.where(above, np.inf, hi))
        labels = bin_labels(lo, hi, label_format=label_format, integral=numbers.integral, fmt=_fmt)
        columns.append(merge_codes(numbers, lo, hi, labels))
    columns.append(np.full(len(numbers.leaves), top, dtype=object))
    return Hierarchy.from_rows(np.column_stack(columns).tolist(), name=name)


def masking(
    values: Sequence[Any],
    *,
    keep: Sequence[int] | None = None,
    char: str = "*",
    top: str | None = None,
    name: str = "",
) -> Hierarchy:
    """Mask characters right to left: ``47677 → 4767* → 476** → … → *****``.

    Parameters
    ----------
    keep : sequence of int, optional
        How many leading characters each level keeps, decreasing.  Default:
        one fewer per level, down to 0 (every character masked).
    char : str
        The masking character.
    top : str, optional
        A top label.  Added only when the last masked level is not already a
        single value (values of different lengths), default ``"*"``.
    """
    leaves = distinct_present(values)
    if not leaves:
        raise HierarchyError("A masking hierarchy needs at least one value.")
    longest = max(len(v) for v in leaves)
    keep = list(range(longest - 1, -1, -1)) if keep is None else list(keep)
    if any(b >= a for a, b in zip(keep, keep[1:])) or any(k < 0 for k in keep):
        raise HierarchyError(f"keep must be decreasing non-negative lengths; got {keep}.")
    series = pd.Series(leaves, dtype=object)
    columns = [series]
    for k in keep:
        lengths = series.str.len()
        columns.append(series.str.slice(0, k) + lengths.sub(k).clip(lower=0).map(lambda n: char * n))
    matrix = np.column_stack([c.to_numpy(dtype=object) for c in columns])
    if len(set(matrix[:, -1].tolist())) != 1 or top is not None:
        matrix = np.column_stack([matrix, np.full(len(leaves), top or "*", dtype=object)])
    return Hierarchy.from_rows(matrix.tolist(), name=name)


def prefix(values: Sequence[Any], *, keep: Sequence[int], char: str = "*", name: str = "") -> Hierarchy:
    """Keep a prefix of a code: ``5555555555554444 → 555*************`` for ``keep=(3,)``.

    Each entry of ``keep`` is a level; a single top ``*`` closes the hierarchy.
    """
    return masking(values, keep=keep, char=char, top="*", name=name)


_DATE_LEVELS = ("month", "year", "decade")


def dates(
    values: Sequence[Any],
    *,
    levels: Sequence[str] = _DATE_LEVELS,
    top: str = "*",
    name: str = "",
) -> Hierarchy:
    """Dates: day → month (``YYYY-MM``) → year → decade (``1990-1999``) → top.

    Raises
    ------
    HierarchyError
        A value is not a date (naming it), or an unknown level is asked for.
    """
    unknown = [lvl for lvl in levels if lvl not in _DATE_LEVELS]
    if unknown:
        raise HierarchyError(f"Unknown date level {unknown[0]!r}; use some of {', '.join(_DATE_LEVELS)}.")
    leaves = distinct_present(values)
    parsed = pd.to_datetime(pd.Series(leaves), errors="coerce", format="mixed")
    if parsed.isna().any():
        bad = leaves[int(np.flatnonzero(parsed.isna().to_numpy())[0])]
        raise HierarchyError(f"The date hierarchy of {name or 'the attribute'!r} cannot read {bad!r} as a date.")
    columns = [pd.Series(leaves, dtype=object)]
    for lvl in levels:
        if lvl == "month":
            columns.append(parsed.dt.strftime("%Y-%m").astype(object))
        elif lvl == "year":
            columns.append(parsed.dt.year.astype(str).astype(object))
        else:
            start = (parsed.dt.year // 10) * 10
            columns.append((start.astype(str) + "-" + (start + 9).astype(str)).astype(object))
    columns.append(pd.Series([top] * len(leaves), dtype=object))
    matrix = np.column_stack([c.to_numpy(dtype=object) for c in columns])
    return Hierarchy.from_rows(matrix.tolist(), name=name)


def taxonomy(tree: Mapping[str, Any], *, name: str = "") -> Hierarchy:
    """A taxonomy tree given as nested dicts: ``{"*": {"Professional": ["Doctor", "Lawyer"]}}``.

    The single root key is the top value; a leaf is a string in a list, or a
    key whose value is ``None`` or empty.  Leaves at different depths are
    padded: a shallow leaf stays itself on the extra levels below its parent,
    so full-domain generalization sees one level count for every value.
    """
    if not isinstance(tree, Mapping) or len(tree) != 1:
        raise HierarchyError("A taxonomy tree needs exactly one root, e.g. {'*': {...}}.")
    paths: list[list[str]] = []

    def walk(node: Any, path: list[str]) -> None:
        if node is None or (isinstance(node, (Mapping, list, tuple)) and len(node) == 0):
            paths.append(path)
            return
        if isinstance(node, Mapping):
            for key, child in node.items():
                walk(child, path + [str(key)])
        elif isinstance(node, (list, tuple)):
            for child in node:
                if isinstance(child, Mapping):
                    walk(child, path)
                else:
                    paths.append(path + [str(child)])
        else:
            paths.append(path + [str(node)])

    walk(tree, [])
    depth = max(len(p) for p in paths)
    rows = []
    for path in paths:
        leaf = path[-1]
        padded = path[:-1] + [leaf] * (depth - len(path) + 1)
        rows.append(list(reversed(padded)))
    return Hierarchy.from_rows(rows, name=name)
