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

from dataclasses import dataclass
from typing import ClassVar

import numpy as np

from veil.classes import ClassTable, SensitiveHistogram
from veil.errors import ColumnNotFoundError
from veil.models._base import PrivacyModel
from veil.models._facts import Param

__all__ = ["histogram", "exact_ratio", "SensitiveAttributeModel"]


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
    zero = den == 0
    if not zero.any():  # the usual case: no 0/0 to map to 0, no division by 0 to silence
        return np.asarray(num.astype(np.float64) / den.astype(np.float64), dtype=np.float64)
    with np.errstate(divide="ignore", invalid="ignore"):
        out = num.astype(np.float64) / den.astype(np.float64)
    return np.where((num == 0) & zero, 0.0, out)


@dataclass(frozen=True)
class SensitiveAttributeModel(PrivacyModel):
    """The part every model of one sensitive attribute's per-class distribution shares.

    It holds the ``sensitive`` field (the first parameter), declares the
    facts these models have in common (they read a sensitive attribute and
    judge each class on its own histogram against the whole table's) and reads
    the histogram with the model's name in any error.  Subclasses add their
    own parameters after ``sensitive`` and their own monotonicity.
    """

    sensitive: str

    needs_sensitive: ClassVar[bool] = True
    class_local: ClassVar[bool] = True
    parameters: ClassVar[tuple[Param, ...]] = (Param("sensitive", "str"),)

    def histogram(self, classes: ClassTable) -> SensitiveHistogram:
        """The per-class histogram of :attr:`sensitive`, or a clear error naming the model."""
        return histogram(classes, self.sensitive, type(self).__name__)
