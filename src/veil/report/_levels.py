"""What a generalization level means, in words, from the hierarchy's spec (and its labels).

The report's ``columns`` say ``"treatment": "generalized", "level": 5``; a
steward needs "32-wide bands" or "masked 2 characters".  The words come from
the spec the report records under ``hierarchies`` (``interval:10,50``,
``mask:1``, ``date:month,year``, ...); a hierarchy file or taxonomy has no
words of its own, so its level is described by its place and, when the
released class table is given, the number of released values.  Nothing here
reads a record value: a spec is a parameter, and a count of released values is
what the release itself shows.
"""

from __future__ import annotations

import re
from typing import Any

from veil.report._format import format_value, number

__all__ = ["describe_level"]

_SUPPRESSED = "suppressed (every value written as *)"


def _spec_text(spec: Any) -> str:
    """The builder spec of a report's ``hierarchies`` entry (``auto (group:8)`` gives ``group:8``)."""
    text = str(spec).strip()
    inner = re.fullmatch(r"auto\s*\((.*)\)", text)  # "auto (interval:5,10)", perhaps with a reason after it
    return re.split(r"[;\s]", inner.group(1).strip(), maxsplit=1)[0] if inner else text


def _numbers(rest: str) -> list[float]:
    out = []
    for part in rest.split(","):
        figure = number(_float(part.strip()))
        if figure is None:
            return []
        out.append(figure)
    return out


def _float(text: str) -> float | None:
    try:
        return float(text)
    except ValueError:
        return None


def _from_spec(spec: str, level: int) -> str | None:
    """Words for ``level`` of a built hierarchy, or None when the spec does not say (a file)."""
    head, colon, rest = spec.partition(":")
    builder = head.strip().lower()
    if builder == "suppress" and not colon:
        return _SUPPRESSED if level >= 1 else None
    if builder == "date":
        words = [w.strip().lower() for w in rest.split(",") if w.strip()] or ["month", "year"]
        return words[level - 1] if level <= len(words) else _SUPPRESSED
    quantiles = rest.strip().lower().startswith("quantiles=")
    figures = _numbers(rest.partition("=")[2] if quantiles else rest) if colon else []
    if builder not in ("interval", "mask", "round", "group") or not figures:
        return None
    if builder == "mask":  # one step of n characters per level
        return f"masked {format_value(figures[0] * level)} characters from the right"
    if level > len(figures):
        return _SUPPRESSED
    figure = format_value(figures[level - 1])
    if builder == "interval":
        return f"{figure} quantile groups of the records" if quantiles else f"{figure}-wide bands"
    if builder == "round":
        return f"rounded to multiples of {figure}"
    return f"values held by fewer than {figure} records pooled as (other)"


def describe_level(level: Any, spec: Any = None, *, height: int | None = None, values: int | None = None) -> str:
    """What ``level`` of a quasi-identifier's hierarchy does, in words.

    Parameters
    ----------
    level : int
        The generalization level (0 = the original values).
    spec : str, optional
        The hierarchy spec recorded in the report (``interval:10,50``, a file path, ``auto (mask:1)``).
    height : int, optional
        The hierarchy's height (its top level is full suppression), when known.
    values : int, optional
        The number of distinct values the release shows at this level.

    Examples
    --------
    >>> describe_level(2, "interval:10,50")
    '50-wide bands'
    >>> describe_level(2, "mask:1")
    'masked 2 characters from the right'
    >>> describe_level(1, "date:month,year"), describe_level(0, "mask:1")
    ('month', 'original values')
    >>> describe_level(2, "age.csv", height=4, values=6)
    'level 2 of 4 (6 released values)'
    """
    figure = number(level)
    if figure is None or figure < 0 or not figure.is_integer():
        return f"level {format_value(level)}"
    step = int(figure)
    if step == 0:
        return "original values"
    if height is not None and step >= height:
        return _SUPPRESSED
    words = _from_spec(_spec_text(spec), step) if spec is not None else None
    if words is None:
        words = f"level {step}" + (f" of {height}" if height is not None else "")
    if values is not None and words != _SUPPRESSED:
        words += f" ({format_value(values)} released value{'' if values == 1 else 's'})"
    return words
