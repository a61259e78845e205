"""Shared reading of a sensitive attribute's per-class histograms.

Every sensitive-attribute model compares a class's distribution of the
sensitive values with another distribution (the whole table's, or a uniform
bound).  The comparisons are done on integer counts so that a value exactly at
a threshold is decided exactly: a distance is formed as an integer numerator
over an integer denominator and rounded **once** (a correctly rounded
division).  A threshold written as a decimal (``t=0.2``) rounds to the same
double as an exact ratio equal to it (``6/30``), so "equal to the threshold"
is recognised as equal; two different ratios of counts below ``2**26`` never
round to the same double.
"""

from __future__ import annotations

import numpy as np

from veil.classes import ClassTable, SensitiveHistogram
from veil.errors import ColumnNotFoundError

__all__ = ["histogram", "exact_ratio"]


def histogram(classes: ClassTable, sensitive: str, owner: str) -> SensitiveHistogram:
    """The histogram of ``sensitive`` in ``classes``, or a clear error."""
    table = classes.sensitive
    if sensitive not in table:
        known = ", ".join(map(repr, table)) or "none"
        if sensitive in classes.quasi_identifiers:
            raise ColumnNotFoundError(
                f"{owner}: {sensitive!r} is a quasi-identifier of this class table, not a sensitive "
                f"attribute; a column has one role (sensitive attributes: {known})."
            )
        raise ColumnNotFoundError(
            f"{owner}: {sensitive!r} is not a sensitive attribute of this class table "
            f"(sensitive attributes: {known}); build the class table with sensitive=[{sensitive!r}]."
        )
    return table[sensitive]


def exact_ratio(numerator: np.ndarray, denominator: np.ndarray | int) -> np.ndarray:
    """``numerator / denominator`` for int64 arrays, rounded once (0/0 -> 0)."""
    num = np.asarray(numerator, dtype=np.int64)
    den = np.asarray(denominator, dtype=np.int64)
    with np.errstate(divide="ignore", invalid="ignore"):
        out = num.astype(np.float64) / den.astype(np.float64)
    return np.where((num == 0) & (den == 0), 0.0, out)
