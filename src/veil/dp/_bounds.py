"""How much one privacy unit may contribute, and the stable choice of which rows it keeps.

Rows beyond a bound are dropped by a pseudo-random selection that is *not*
privacy noise and is drawn with numpy (seedable): each row gets a salted
64-bit hash of its content (and of its occurrence number among identical rows
of its unit), each (unit, group) pair a salted hash of the unit and the group,
and a unit keeps its rows and groups with the smallest hashes.  A row's hash
depends only on that row and the salt, so the selection of one unit's rows
does not change when another unit is added or removed: the bounded table is a
stable transformation and the guarantee holds even if the seed is public.
"""

from __future__ import annotations

import math
import numbers
from dataclasses import dataclass
from typing import Any

import numpy as np

import pandas as pd

from veil._validation import check_choice, check_int
from veil.errors import ParameterError, SchemaError

__all__ = ["ContributionBounds", "check_bound", "rank_within", "dense_rank_within",
           "selection_salt", "unit_codes", "frame_of"]


def check_bound(name: str, value: Any, owner: str) -> int | None:
    return None if value is None else check_int(name, value, owner, low=1)


@dataclass(frozen=True, slots=True, kw_only=True)
class ContributionBounds:
    """How much one privacy unit may contribute, and the sensitivities that follow.

    Parameters
    ----------
    max_rows_per_unit : int in [1, inf) or None
        The total bound m: rows one unit keeps in the whole table.  ``None``:
        no total bound (then both per-group bounds are required, and queries
        over the whole table such as a count or a sum are refused).
    max_groups : int in [1, inf) or None
        The L0 bound (``max_partitions_contributed`` in PipelineDP): the number
        of groups of one grouped query a unit may contribute to.  ``None``: only
        limited by m.
    max_rows_per_group : int in [1, inf) or None
        The L∞ bound (``max_contributions_per_partition``): rows one unit may
        contribute within one group.  ``None``: only limited by m.

    Raises
    ------
    ParameterError
        If a bound is not a positive int, or if the bounds leave one unit's
        contribution to a histogram unbounded (no m and a per-group bound
        missing).

    Notes
    -----
    For the vector of counts per group of a histogram, contingency table or
    group-by count, one unit (L0 = ``max_groups``, L∞ =
    ``max_rows_per_group``, ``None`` read as ∞) changes

    * at most :math:`\\ell_0 = \\min(L_0, m)` groups,
    * each by at most :math:`\\ell_\\infty = \\min(L_\\infty, m)`,
    * in total (L1 sensitivity, Laplace/geometric noise)
      :math:`\\Delta_1 = \\min(m, L_0 L_\\infty)`,
    * in Euclidean norm (L2 sensitivity, Gaussian noise)
      :math:`\\Delta_2 = \\sqrt{k\\,\\ell_\\infty^2 + r^2}` with
      :math:`k = \\min(\\ell_0, \\lfloor m/\\ell_\\infty \\rfloor)` full groups
      and a remainder :math:`r = \\min(m - k\\ell_\\infty, \\ell_\\infty)` in one
      more group if :math:`k < \\ell_0` (else :math:`r = 0`); without m this is
      :math:`\\sqrt{L_0}\\,L_\\infty`, with m alone it is m.

    Filling whole groups first maximises :math:`\\sum_g c_g^2` under these
    constraints (a convex function is maximised at a vertex).  With only m,
    every sensitivity is m, as for a query over the whole table.

    References
    ----------
    Wilson, R. J. et al. (2020). Differentially private SQL with bounded user
    contribution. PoPETs.  (The L0/L∞ contribution bounds.)
    Amin, K. et al. (2019). Bounding user contributions: a bias-variance
    trade-off in differential privacy. ICML.

    Examples
    --------
    >>> b = ContributionBounds(max_groups=2, max_rows_per_group=3)
    >>> b.l1_sensitivity, round(b.l2_sensitivity, 4)
    (6, 4.2426)
    >>> ContributionBounds(max_rows_per_unit=4, max_groups=2, max_rows_per_group=3).l1_sensitivity
    4
    """

    max_rows_per_unit: int | None = None
    max_groups: int | None = None
    max_rows_per_group: int | None = None

    def __post_init__(self) -> None:
        owner = "ContributionBounds"
        m = check_bound("max_rows_per_unit", self.max_rows_per_unit, owner)
        l0 = check_bound("max_groups", self.max_groups, owner)
        linf = check_bound("max_rows_per_group", self.max_rows_per_group, owner)
        if m is None and (l0 is None or linf is None):
            missing = "max_groups" if l0 is None else "max_rows_per_group"
            raise ParameterError(
                f"The {missing!r} parameter of {owner} must be an int in [1, inf) when "
                "'max_rows_per_unit' is None: without a total bound both per-group bounds are "
                "needed, else one unit's contribution is unbounded. Got None instead."
            )
        object.__setattr__(self, "max_rows_per_unit", m)
        object.__setattr__(self, "max_groups", l0)
        object.__setattr__(self, "max_rows_per_group", linf)

    @property
    def l0_sensitivity(self) -> int:
        """Groups one unit can change: ``min(max_groups, max_rows_per_unit)``."""
        return min(x for x in (self.max_groups, self.max_rows_per_unit) if x is not None)

    @property
    def linf_sensitivity(self) -> int:
        """Most one unit can change one group: ``min(max_rows_per_group, max_rows_per_unit)``."""
        return min(x for x in (self.max_rows_per_group, self.max_rows_per_unit) if x is not None)

    @property
    def l1_sensitivity(self) -> int:
        """L1 sensitivity of counts per group: ``min(m, max_groups * max_rows_per_group)``."""
        product = (None if self.max_groups is None or self.max_rows_per_group is None
                   else self.max_groups * self.max_rows_per_group)
        return min(x for x in (self.max_rows_per_unit, product) if x is not None)

    @property
    def l2_sensitivity(self) -> float:
        """L2 sensitivity of counts per group (see Notes)."""
        l0, linf, m = self.l0_sensitivity, self.linf_sensitivity, self.max_rows_per_unit
        if m is None:
            return math.sqrt(l0) * linf
        full = min(l0, m // linf)
        rest = min(m - full * linf, linf) if full < l0 else 0
        return math.sqrt(full * linf * linf + rest * rest)

    def to_dict(self) -> dict:
        """The three bounds (``None`` = not bounded separately), for JSON."""
        return {"max_rows_per_unit": self.max_rows_per_unit, "max_groups": self.max_groups,
                "max_rows_per_group": self.max_rows_per_group}


def selection_salt(seed: Any) -> str:
    """A 16-character hash key for the row selection (numpy, not privacy noise)."""
    if seed is not None and not isinstance(seed, np.random.Generator) and (
            isinstance(seed, bool) or not isinstance(seed, numbers.Integral) or seed < 0):
        raise ParameterError(
            "The 'selection_seed' parameter of PrivateTable must be None, an int in [0, inf) "
            f"or a numpy.random.Generator. Got {seed!r} instead."
        )
    rng = seed if isinstance(seed, np.random.Generator) else np.random.default_rng(seed)
    return rng.bytes(8).hex()


def rank_within(groups: list[np.ndarray], order_key: np.ndarray) -> np.ndarray:
    """0-based rank of each element by ``order_key`` inside its group (lexsort, no row loop)."""
    n = order_key.size
    if n == 0:
        return np.zeros(0, dtype=np.int64)
    order = np.lexsort((order_key, *reversed(groups)))
    new = np.zeros(n, dtype=bool)
    new[0] = True
    for g in groups:  # one pass per grouping column
        gs = g[order]
        new[1:] |= gs[1:] != gs[:-1]
    position = np.arange(n)
    start = np.maximum.accumulate(np.where(new, position, 0))
    rank = np.empty(n, dtype=np.int64)
    rank[order] = position - start
    return rank


def dense_rank_within(unit: np.ndarray, key: np.ndarray) -> np.ndarray:
    """0-based rank of each element's distinct ``key`` among its unit's distinct keys."""
    n = key.size
    if n == 0:
        return np.zeros(0, dtype=np.int64)
    order = np.lexsort((key, unit))
    us, ks = unit[order], key[order]
    new_unit = np.ones(n, dtype=bool)
    new_unit[1:] = us[1:] != us[:-1]
    new_key = new_unit.copy()
    new_key[1:] |= ks[1:] != ks[:-1]
    distinct = np.cumsum(new_key) - 1
    base = np.maximum.accumulate(np.where(new_unit, distinct, 0))
    rank = np.empty(n, dtype=np.int64)
    rank[order] = distinct - base
    return rank


def unit_codes(units: pd.Series, column: str, missing_units: str) -> np.ndarray:
    """An integer code per row for its privacy unit; missing IDs refused or made their own units."""
    check_choice("missing_units", missing_units, "PrivateTable", ("error", "own_unit"))
    codes, _ = pd.factorize(units, use_na_sentinel=True)
    codes = codes.astype(np.int64)
    missing = codes < 0
    if missing.any():
        if missing_units == "error":
            raise SchemaError(
                f"The privacy-unit column {column!r} has {int(missing.sum())} rows without an ID; "
                "give every row its unit, drop those rows, or pass missing_units='own_unit' "
                "(--missing-units own-unit) to make each such row a unit of its own."
            )
        codes[missing] = codes.max(initial=-1) + 1 + np.arange(int(missing.sum()))
    return codes


def frame_of(data: Any) -> pd.DataFrame:
    frame = data.frame if hasattr(data, "frame") else data
    if not isinstance(frame, pd.DataFrame):
        raise ParameterError(
            f"PrivateTable needs a pandas DataFrame (or an object with a .frame). "
            f"Got {type(data).__name__} instead."
        )
    return frame
