"""Parameter checks with one message shape for every public class and function.

The message always reads like scikit-learn's:
``The 'k' parameter of KAnonymity must be an int in [2, inf). Got 1 instead.``
and is raised as :class:`veil.errors.ParameterError` (a ``ValueError``).
"""

from __future__ import annotations

import math
import numbers
from typing import Any

from veil.errors import ParameterError

__all__ = ["check_int", "check_real", "check_choice", "interval"]


def interval(low: float | None, high: float | None, closed: str) -> str:
    """Render an interval in mathematical notation, e.g. ``[2, inf)``."""
    left = "[" if closed in ("both", "left") and low is not None else "("
    right = "]" if closed in ("both", "right") and high is not None else ")"
    lo = "-inf" if low is None else _fmt(low)
    hi = "inf" if high is None else _fmt(high)
    return f"{left}{lo}, {hi}{right}"


def _fmt(x: float) -> str:
    return str(int(x)) if float(x).is_integer() else repr(float(x))


def _inside(value: float, low: float | None, high: float | None, closed: str) -> bool:
    if low is not None:
        if closed in ("both", "left"):
            if value < low:
                return False
        elif value <= low:
            return False
    if high is not None:
        if closed in ("both", "right"):
            if value > high:
                return False
        elif value >= high:
            return False
    return True


def check_int(
    name: str, value: Any, owner: str, *, low: int | None = None, high: int | None = None,
    closed: str = "both",
) -> int:
    """Return ``value`` as an int if it is an integer inside the interval, else raise."""
    rng = interval(low, high, closed)
    if isinstance(value, bool) or not isinstance(value, numbers.Integral):
        raise ParameterError(
            f"The {name!r} parameter of {owner} must be an int in {rng}. Got {value!r} instead."
        )
    if not _inside(int(value), low, high, closed):
        raise ParameterError(
            f"The {name!r} parameter of {owner} must be an int in {rng}. Got {value!r} instead."
        )
    return int(value)


def check_real(
    name: str, value: Any, owner: str, *, low: float | None = None, high: float | None = None,
    closed: str = "both",
) -> float:
    """Return ``value`` as a float if it is a finite real inside the interval, else raise."""
    rng = interval(low, high, closed)
    if isinstance(value, bool) or not isinstance(value, numbers.Real) or math.isnan(float(value)):
        raise ParameterError(
            f"The {name!r} parameter of {owner} must be a float in {rng}. Got {value!r} instead."
        )
    if not _inside(float(value), low, high, closed):
        raise ParameterError(
            f"The {name!r} parameter of {owner} must be a float in {rng}. Got {value!r} instead."
        )
    return float(value)


def check_choice(name: str, value: Any, owner: str, choices: tuple[Any, ...]) -> Any:
    """Return ``value`` if it is one of ``choices``, else raise."""
    if value not in choices:
        options = ", ".join(repr(c) for c in choices)
        raise ParameterError(
            f"The {name!r} parameter of {owner} must be one of {{{options}}}. Got {value!r} instead."
        )
    return value
