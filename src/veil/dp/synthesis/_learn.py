"""Categories learned under differential privacy, for a text column the user gave no domain.

OpenDP's Laplace-threshold partition selection (:func:`veil.dp._partition.partition_selection`)
over the column's value counts: a category is kept only if its noisy count
passes a threshold τ set so that a category held by one record is released
with probability at most δ.  A category seen once therefore never appears
(except with probability δ); the kept categories are sorted, their noisy
counts discarded (MST measures again), and every other value becomes the
public label :data:`OTHER`.  (ε, δ)-DP, charged as δ-approximate ε²/2-zCDP
(Bun & Steinke 2016, Section 8).
"""

from __future__ import annotations

import math
from typing import Mapping

import pandas as pd

from veil.data import format_labels
from veil.dp._partition import partition_selection

__all__ = ["OTHER", "learn_categories", "learn_from_counts", "selection_epsilon"]

#: The label of every value outside a learned domain.
OTHER = "(other)"


def selection_epsilon(rho: float) -> float:
    """The ε whose ε²/2-zCDP cost is ``rho``."""
    return math.sqrt(2.0 * rho)


def learn_categories(column: pd.Series, *, epsilon: float, delta: float) -> tuple[str, ...]:
    """The categories of ``column`` whose Laplace-noised count passes the threshold, sorted."""
    counts = format_labels(column).dropna().value_counts()
    return learn_from_counts({str(k): int(v) for k, v in counts.items()}, epsilon=epsilon, delta=delta)


def learn_from_counts(counts: Mapping[str, int], *, epsilon: float, delta: float) -> tuple[str, ...]:
    """:func:`learn_categories` from a column's value counts (``value -> count`` of its present
    values, as text), e.g. an engine's group count of the column."""
    meas, _, _ = partition_selection(epsilon, delta, (1, 1, 1))
    kept = meas({str(k): int(v) for k, v in counts.items()})
    return tuple(sorted(k for k in kept if k != OTHER))
