"""Form fields read the way the CLI reads its options (the Risk, DP, Synthesize and Evaluate pages):
a bad value is the CLI's one-line error naming the option (``--epsilon must be a number. Got 'x'.``)."""

from __future__ import annotations

from typing import Any

from veil.errors import ParameterError

__all__ = ["number_field", "integer_field", "text_field", "lines_field"]


def text_field(form: Any, name: str) -> str | None:
    """The stripped text of ``name``, or None when empty or absent."""
    value = form.get(name)
    text = "" if value is None else str(value).strip()
    return text or None


def number_field(form: Any, name: str, flag: str, default: float | None = None) -> float | None:
    """``name`` as a float (``default`` when empty), else a ParameterError naming ``flag``."""
    text = text_field(form, name)
    if text is None:
        return default
    try:
        return float(text)
    except ValueError:
        raise ParameterError(f"{flag} must be a number. Got {text[:40]!r} instead.") from None


def integer_field(form: Any, name: str, flag: str, default: int | None = None) -> int | None:
    """``name`` as an int (``default`` when empty), else a ParameterError naming ``flag``."""
    text = text_field(form, name)
    if text is None:
        return default
    try:
        return int(text)
    except ValueError:
        raise ParameterError(f"{flag} must be an integer. Got {text[:40]!r} instead.") from None


def lines_field(form: Any, name: str) -> list[str]:
    """The non-empty lines of a text area."""
    return [line.strip() for line in str(form.get(name) or "").splitlines() if line.strip()]
