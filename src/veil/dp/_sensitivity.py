"""Global sensitivities of the standard queries, and the local sensitivity of a table.

Neighbouring tables
-------------------
``"remove_one"`` (unbounded DP): D₂ is D₁ with one privacy unit's rows added or
removed.  ``"replace_one"`` (bounded DP): D₂ is D₁ with one unit's rows
replaced.  veil's :class:`PrivateTable` uses ``"remove_one"``.

Δf = max |f(D₁) − f(D₂)| over all neighbours (Dwork et al. 2006).  With
``max_rows`` rows per privacy unit every bound below is multiplied by
``max_rows`` (each unit is at most that many rows).
"""

from __future__ import annotations

import math
from typing import Any, Callable

import numpy as np
import pandas as pd

from veil._validation import check_choice, check_int, check_real
from veil.errors import ParameterError

__all__ = [
    "count_sensitivity",
    "sum_sensitivity",
    "mean_sensitivity",
    "histogram_sensitivity",
    "local_sensitivity",
    "fixed_point_exponent",
    "clamped_fixed_point_sum",
    "missing_fill",
]

_NEIGHBOURS = ("remove_one", "replace_one")


def clamping_bounds(lower: Any, upper: Any, owner: str) -> tuple[float, float]:
    if lower is None or upper is None:
        raise ParameterError(
            f"{owner} needs clamping bounds 'lower' and 'upper' chosen without looking at the "
            "data; veil does not guess them from the data (that would leak it)."
        )
    lo = check_real("lower", lower, owner)
    hi = check_real("upper", upper, owner)
    for name, value in (("lower", lo), ("upper", hi)):
        if not math.isfinite(value):
            raise ParameterError(f"The {name!r} parameter of {owner} must be a finite float (a clamping "
                                 f"bound). Got {value!r} instead.")
    if not lo <= hi:
        raise ParameterError(
            f"The 'upper' parameter of {owner} must be a float in [{lo:g}, inf) (at least "
            f"'lower'). Got {upper!r} instead."
        )
    return lo, hi


def missing_fill(missing_as: Any, lower: float, upper: float, owner: str) -> float:
    """What a missing value counts as in a clamped aggregate: ``missing_as``, by default the lower
    bound; a public choice, never one made from the data.

    Raises
    ------
    ParameterError
        ``missing_as`` is not a float in [lower, upper].
    """
    if missing_as is None:
        return lower
    return check_real("missing_as", missing_as, owner, low=lower, high=upper)


def count_sensitivity(*, neighbours: str = "remove_one", max_rows: int = 1) -> int:
    """Δ of a (filtered) count: ``max_rows`` (rows per privacy unit) for both neighbour relations.

    Under ``"replace_one"`` a filtered count can still change by ``max_rows``
    (the replaced rows may leave and enter the filter), so both give
    ``max_rows``; the unfiltered size under replace-one is public (Δ = 0), which
    veil does not special-case.
    """
    check_choice("neighbours", neighbours, "count_sensitivity", _NEIGHBOURS)
    return check_int("max_rows", max_rows, "count_sensitivity", low=1)


def sum_sensitivity(*, lower: float | None, upper: float | None,
                    neighbours: str = "remove_one", max_rows: int = 1) -> float:
    """Δ of a sum of values clamped to [lower, upper].

    :math:`\\Delta = m \\max(|L|, |U|)` under remove-one neighbours and
    :math:`\\Delta = m (U - L)` under replace-one (m = ``max_rows``).

    Examples
    --------
    The seed's table (sold real estates 4, 2, 7, 1, all in [0, 7]):

    >>> sum_sensitivity(lower=0, upper=7)
    7.0
    """
    owner = "sum_sensitivity"
    lo, hi = clamping_bounds(lower, upper, owner)
    check_choice("neighbours", neighbours, owner, _NEIGHBOURS)
    m = check_int("max_rows", max_rows, owner, low=1)
    if neighbours == "remove_one":
        return m * max(abs(lo), abs(hi))
    return m * (hi - lo)


def mean_sensitivity(*, lower: float | None, upper: float | None, n: int | None = None,
                     neighbours: str = "replace_one") -> float:
    """Δ of the mean of values clamped to [lower, upper].

    Only defined when the size n is public, i.e. under ``"replace_one"``:
    :math:`\\Delta = (U - L)/n`.  Under ``"remove_one"`` the size is private and
    the mean has no useful global sensitivity; veil then releases a noisy sum
    and a noisy count and divides them (post-processing), which is what
    :meth:`PrivateTable.mean` does.
    """
    owner = "mean_sensitivity"
    lo, hi = clamping_bounds(lower, upper, owner)
    check_choice("neighbours", neighbours, owner, _NEIGHBOURS)
    if neighbours == "remove_one":
        raise ParameterError(
            "The mean has no bounded sensitivity under remove-one neighbours (the size is "
            "private); release a noisy sum and a noisy count instead (PrivateTable.mean)."
        )
    size = check_int("n", n, owner, low=1)
    return (hi - lo) / size


def histogram_sensitivity(
    *,
    neighbours: str = "remove_one",
    max_rows: int | None = 1,
    max_groups: int | None = None,
    max_rows_per_group: int | None = None,
) -> int:
    """L1 Δ of a histogram (counts per disjoint bin): m under remove-one, 2m under replace-one.

    One unit's m rows fall in at most m bins (parallel composition over the
    disjoint bins), so the whole histogram costs one ε.  With per-group bounds
    (a unit contributes to at most ``max_groups`` bins and at most
    ``max_rows_per_group`` rows to each), Δ = min(m, max_groups ·
    max_rows_per_group); ``max_rows=None`` leaves only the per-group bounds
    (see :class:`~veil.dp.ContributionBounds`).

    Examples
    --------
    >>> histogram_sensitivity(max_rows=10)
    10
    >>> histogram_sensitivity(max_rows=10, max_groups=2, max_rows_per_group=3)
    6
    >>> histogram_sensitivity(neighbours="replace_one", max_rows=None, max_groups=2, max_rows_per_group=3)
    12
    """
    check_choice("neighbours", neighbours, "histogram_sensitivity", _NEIGHBOURS)
    bounds = []
    if max_rows is not None:
        bounds.append(check_int("max_rows", max_rows, "histogram_sensitivity", low=1))
    if (max_groups is None) != (max_rows_per_group is None):
        raise ParameterError(
            "histogram_sensitivity needs both max_groups and max_rows_per_group, or neither."
        )
    if max_groups is not None:
        groups = check_int("max_groups", max_groups, "histogram_sensitivity", low=1)
        per_group = check_int("max_rows_per_group", max_rows_per_group, "histogram_sensitivity", low=1)
        bounds.append(groups * per_group)
    if not bounds:
        raise ParameterError("histogram_sensitivity needs max_rows, or max_groups and max_rows_per_group.")
    m = min(bounds)
    return m if neighbours == "remove_one" else 2 * m


def local_sensitivity(query: Callable[[pd.DataFrame], float], frame: pd.DataFrame) -> float:
    """max |f(D) − f(D − row i)| over the remove-one neighbours of this very table.

    It evaluates ``query`` n + 1 times (a definition helper for small tables).

    This is the seed's worked computation; it describes one table and must
    **not** be used to calibrate noise (it depends on the data, so the noise
    level itself would leak).  Use the global bounds above for that.

    Examples
    --------
    >>> df = pd.DataFrame({"sold": [4, 2, 7, 1]})
    >>> local_sensitivity(lambda d: d["sold"].sum(), df)
    7.0
    """
    full = float(query(frame))
    if len(frame) == 0:
        return 0.0
    drops = np.array([float(query(frame.drop(index=frame.index[i]))) for i in range(len(frame))])
    return float(np.max(np.abs(full - drops)))


_bounds = clamping_bounds  # the old private name, kept for existing imports


def fixed_point_exponent(lower: float, upper: float) -> int:
    """k of the public grid :math:`2^{-k}` for sums clamped to [lower, upper].

    The largest k with :math:`\\max(|L|, |U|)\\,2^k \\le 2^{30}` (at most
    1023, so that :math:`2^k` is a finite double): a function of the public bounds alone.

    Examples
    --------
    >>> fixed_point_exponent(0.0, 1.0), fixed_point_exponent(-5.0, 3.0)
    (30, 27)
    """
    bound = max(abs(lower), abs(upper))
    return min(1023, 30 - math.frexp(bound)[1] + (1 if math.frexp(bound)[0] == 0.5 else 0))


def clamped_fixed_point_sum(values: np.ndarray, lower: float, upper: float,
                            max_rows: int, missing_as: float | None = None) -> tuple[float, float]:
    """Clamp to [lower, upper], then sum exactly on the public grid; return (sum, sensitivity).

    The grid :math:`2^{-k}` (:func:`fixed_point_exponent`) depends only on the
    public bounds, never on the number of rows, so the sensitivity
    ``max_rows * max|grid value|`` and the noise scale are the same on
    neighbouring tables.  Each clamped value is at most :math:`2^{30}` grid
    steps, so the int64 sum is exact for up to :math:`2^{32}` rows.  A missing
    value counts as ``missing_as`` (:func:`missing_fill`: by default ``lower``).
    """
    fill = missing_fill(missing_as, lower, upper, "clamped_fixed_point_sum")
    clipped = np.clip(np.where(np.isnan(values), fill, values), lower, upper)
    if max(abs(lower), abs(upper)) == 0.0:
        return 0.0, 0.0
    if clipped.size > 2**32:
        raise ParameterError("A clamped sum handles at most 2**32 rows.")
    k = fixed_point_exponent(lower, upper)
    factor = math.ldexp(1.0, k)
    total = int(np.rint(clipped * factor).astype(np.int64).sum(dtype=np.int64))
    q_bound = max(abs(round(lower * factor)), abs(round(upper * factor)))
    return math.ldexp(float(total), -k), max_rows * math.ldexp(float(q_bound), -k)
