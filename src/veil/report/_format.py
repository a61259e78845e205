"""Formatting helpers shared by the report's sections: one way to write a number."""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Any

import numpy as np

__all__ = ["format_value", "share", "percent", "number", "as_dict", "items", "add_row", "other_rows"]


def format_value(value: Any) -> str:
    """A report value as the HTML report writes it.

    Integers (and floats with an integral value) get thousands separators
    (``30,162``), other floats four significant digits (``{:.4g}``) or, from
    10,000 up, no decimals and thousands separators (``360,695``),
    ``None`` and NaN an em dash, infinities ``∞``, booleans ``yes``/``no``,
    lists their items joined by commas; anything else ``str(value)``.

    Examples
    --------
    >>> format_value(30162), format_value(0.0059903047), format_value(10.0), format_value(None)
    ('30,162', '0.00599', '10', '—')
    """
    if value is None:
        return "—"
    if isinstance(value, (bool, np.bool_)):
        return "yes" if value else "no"
    if isinstance(value, (int, np.integer)):
        return f"{int(value):,}"
    if isinstance(value, (float, np.floating)):
        value = float(value)
        if math.isnan(value):
            return "—"
        if math.isinf(value):
            return "∞" if value > 0 else "−∞"
        if value.is_integer() and abs(value) < 1e15:
            return f"{int(value):,}"
        if abs(value) >= 1e4:
            return f"{value:,.0f}"
        return f"{value:.4g}"
    if isinstance(value, (list, tuple)):
        return ", ".join(format_value(v) for v in value)
    if isinstance(value, Mapping):
        return ", ".join(f"{k}={format_value(v)}" for k, v in value.items())
    return str(value)


def share(part: Any, whole: Any) -> str:
    if number(part) is None or number(whole) is None or not whole:
        return ""
    return f"{float(part) / float(whole):.2%} of the records"


def percent(value: Any) -> str:
    figure = number(value)
    return format_value(value) if figure is None else f"{figure:.2%}"


def number(value: Any) -> float | None:
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, (int, float, np.integer, np.floating)):
        return None
    value = float(value)
    return value if math.isfinite(value) else None


def as_dict(value: Any) -> dict[str, Any]:
    return dict(value) if isinstance(value, Mapping) else {}


def items(value: Any) -> list[Any]:
    """A list value as a list; a lone value as a one-item list; ``None`` as no items."""
    if value is None:
        return []
    if isinstance(value, (list, tuple)):
        return list(value)
    return [value]


def add_row(rows: list[dict[str, str]], label: str, value: Any, note: str = "") -> None:
    rows.append({"label": label, "value": format_value(value), "note": note})



def other_rows(fields: Mapping[str, Any], *, depth: int = 3) -> list[dict[str, str]]:
    """Fields the page has no section for, as readable rows: ``a › b`` labels, formatted values.

    Nested mappings are spelled out (up to ``depth`` levels), lists of plain
    values joined, anything deeper written as compact text.

    Examples
    --------
    >>> other_rows({"notes": ["a", "b"], "extra": {"seconds": 1.5, "size": 12000}})
    [{'label': 'notes', 'value': 'a, b', 'note': ''}, {'label': 'extra › seconds', 'value': '1.5', 'note': ''}, \
{'label': 'extra › size', 'value': '12,000', 'note': ''}]
    """
    rows: list[dict[str, str]] = []

    def walk(prefix: str, value: Any, level: int) -> None:
        if isinstance(value, Mapping) and value and level < depth:
            for key, item in value.items():
                walk(f"{prefix} › {key}" if prefix else str(key), item, level + 1)
        elif isinstance(value, Mapping) and not value:
            add_row(rows, prefix, "—")
        elif isinstance(value, (list, tuple)) and any(isinstance(v, (Mapping, list, tuple)) for v in value):
            for index, item in enumerate(value, 1):
                walk(f"{prefix} › {index}", item, level + 1)
        else:
            add_row(rows, prefix, value)

    for key, value in fields.items():
        walk(str(key), value, 0)
    return rows
