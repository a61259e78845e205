"""Private queries on a table: noisy answers instead of a sanitized table.

The unit of privacy
-------------------
Neighbouring tables differ by all rows of one *privacy unit* (a person, a
household, a meter), not by one row.  Before any noise is added veil bounds
what one unit can contribute (:class:`ContributionBounds`): at most
``max_rows_per_unit`` rows in total, and, in a grouped query, rows in at most
``max_groups`` groups and at most ``max_rows_per_group`` rows in each.  Every
sensitivity, hence every noise scale, follows from these bounds, and every
answer states them.

Which rows are kept
-------------------
Rows beyond a bound are dropped by a pseudo-random selection that is *not*
privacy noise and is drawn with numpy (seedable with ``selection_seed``): each
row gets a salted 64-bit hash of its content (and of its occurrence number
among identical rows of its unit), each (unit, group) pair a salted hash of
the unit and the group, and a unit keeps its rows and groups with the smallest
hashes.  Because a row's hash depends only on that row and the salt, never on
other units' rows or on the table order, the selection of one unit's rows does
not change when another unit is added or removed: the bounded table is a
stable transformation and the guarantee holds even if the seed is public.
"""

from __future__ import annotations

import functools
import math
import numbers
from dataclasses import dataclass, field
from typing import Any, Mapping, Sequence

import numpy as np
import pandas as pd

from veil._validation import check_choice, check_int, check_real
from veil.dp._accountant import PrivacyAccountant, PrivacyBudget, ZCDPBudget
from veil.dp._mechanisms import (
    ExponentialMechanism,
    GaussianMechanism,
    GeometricMechanism,
    LaplaceMechanism,
    _check_epsilon,
)
from veil.dp._predicate import Predicate, parse_predicate
from veil.dp._sampler import opendp
from veil.dp._sensitivity import _bounds
from veil.errors import ColumnNotFoundError, ParameterError, SchemaError

__all__ = ["ContributionBounds", "DPAnswer", "PrivateTable"]


def _check_bound(name: str, value: Any, owner: str) -> int | None:
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
        m = _check_bound("max_rows_per_unit", self.max_rows_per_unit, owner)
        l0 = _check_bound("max_groups", self.max_groups, owner)
        linf = _check_bound("max_rows_per_group", self.max_rows_per_group, owner)
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


@dataclass(frozen=True)
class DPAnswer:
    """One differentially private answer with what it cost and how noisy it is.

    Attributes
    ----------
    value : float, int or dict
        The noisy answer.  Histograms, contingency tables and group-by counts
        are ``dict`` from key (a tuple of values when several columns) to count.
    epsilon, delta : float
        The privacy cost of this answer.
    mechanism : str
        ``"geometric"``, ``"gaussian"``, ``"laplace"``, ``"exponential"``,
        ``"laplace_threshold"`` or ``"laplace+geometric"`` (mean).
    noise_scale : float
        The scale of the noise in the answer's units (Laplace/geometric: the
        scale b, mean absolute error ≈ b and standard deviation √2·b;
        Gaussian: the standard deviation σ; for a mean, the sum's scale divided
        by the noisy count; for a quantile, the Gumbel scale of the exponential
        mechanism on its score).
    privacy_unit : str
        What one protected "person" is: ``"row"`` or the name of the unit column.
    budget_remaining : PrivacyBudget
        The accountant's remaining budget right after this answer.
    query : str
        A description of the query.
    details : dict
        Mechanism-specific facts (e.g. the two scales of a mean, the threshold
        of a partition selection, whether the keys are public).
    contribution_bounds : ContributionBounds or None
        The bounds on one unit's contribution that the sensitivity follows from.
    sensitivity : float or None
        The sensitivity the noise was calibrated to: L1 for Laplace, geometric
        and the threshold, L2 for Gaussian, Δu for the exponential mechanism;
        ``None`` for a mean (two releases, see ``details``).
    rho : float or None
        The zCDP cost charged, when the accountant uses ``composition="zcdp"``.
    """

    value: Any
    epsilon: float
    delta: float
    mechanism: str
    noise_scale: float
    privacy_unit: str
    budget_remaining: PrivacyBudget
    query: str = ""
    details: dict = field(default_factory=dict)
    contribution_bounds: ContributionBounds | None = None
    sensitivity: float | None = None
    rho: float | None = None

    def to_dict(self) -> dict:
        """The answer as plain JSON-ready data.

        Keys: ``query``, ``value`` (a dict's tuple keys joined by ``"|"``),
        ``epsilon``, ``delta``, ``mechanism``, ``noise_scale``,
        ``privacy_unit``, ``budget_remaining`` (``{epsilon, delta}``),
        ``contribution_bounds`` (``{max_rows_per_unit, max_groups,
        max_rows_per_group}`` or ``None``), ``sensitivity``, ``rho`` and
        ``details``.
        """
        value = self.value
        if isinstance(value, dict):
            value = {("|".join(map(str, k)) if isinstance(k, tuple) else str(k)): _plain(v)
                     for k, v in value.items()}
        else:
            value = _plain(value)
        bounds = self.contribution_bounds
        return {
            "query": self.query,
            "value": value,
            "epsilon": self.epsilon,
            "delta": self.delta,
            "mechanism": self.mechanism,
            "noise_scale": self.noise_scale,
            "privacy_unit": self.privacy_unit,
            "budget_remaining": {"epsilon": self.budget_remaining.epsilon,
                                 "delta": self.budget_remaining.delta},
            "contribution_bounds": None if bounds is None else bounds.to_dict(),
            "sensitivity": _plain(self.sensitivity),
            "rho": self.rho,
            "details": {str(k): _plain(v) for k, v in self.details.items()},
        }


def _plain(value: Any) -> Any:
    """numpy scalars and tuples to plain Python, for JSON."""
    if isinstance(value, np.generic):
        return value.item()
    if isinstance(value, (list, tuple)):
        return [_plain(v) for v in value]
    return value


def _unwrap(data: Any) -> pd.DataFrame:
    frame = data.frame if hasattr(data, "frame") else data
    if not isinstance(frame, pd.DataFrame):
        raise ParameterError(
            f"PrivateTable needs a pandas DataFrame (or an object with a .frame). "
            f"Got {type(data).__name__} instead."
        )
    return frame


def _selection_salt(seed: Any) -> str:
    """A 16-character hash key for the row selection (numpy, not privacy noise)."""
    if seed is not None and not isinstance(seed, np.random.Generator) and (
            isinstance(seed, bool) or not isinstance(seed, numbers.Integral) or seed < 0):
        raise ParameterError(
            "The 'selection_seed' parameter of PrivateTable must be None, an int in [0, inf) "
            f"or a numpy.random.Generator. Got {seed!r} instead."
        )
    rng = seed if isinstance(seed, np.random.Generator) else np.random.default_rng(seed)
    return rng.bytes(8).hex()


class PrivateTable:
    """A table that only answers differentially private queries, through an accountant.

    Parameters
    ----------
    data : pandas.DataFrame or Dataset
        The sensitive table (a ``Dataset`` is read through its ``.frame``).
    accountant : PrivacyAccountant
        Charged for every answer; a query that would overspend raises
        :class:`~veil.errors.BudgetExceededError` before any noise is drawn.
    privacy_unit : str, optional
        The column naming the protected person when one person may have many
        rows (meter readings, visits).  Omitted: each row is its own unit.
    max_rows_per_unit : int in [1, inf), optional
        The total bound m: veil keeps at most m rows of each unit (a
        pseudo-random choice, see the module notes) before any query, and it is
        the sensitivity of counts over the whole table.  Only with
        ``privacy_unit``.  Default: 1 when neither per-group bound is given,
        else no total bound (grouped queries only).
    max_groups : int in [1, inf), optional
        The L0 bound: in each grouped query (histogram, contingency table,
        group-by count) a unit's rows count in at most this many groups, chosen
        pseudo-randomly among its groups.  Only with ``privacy_unit``.
    max_rows_per_group : int in [1, inf), optional
        The L∞ bound: in each grouped query a unit contributes at most this
        many rows to one group.  Only with ``privacy_unit``.
    selection_seed : int, numpy.random.Generator or None
        Seeds only the choice of which rows a unit keeps when it exceeds a
        bound (reproducibility).  The noise always comes from OpenDP's
        cryptographically secure sampler and cannot be seeded.  Default: fresh
        entropy.

    Attributes
    ----------
    contribution_bounds : ContributionBounds
        The bounds in force; each answer carries them.
    privacy_unit : str
        The unit column, or ``"row"``.

    Raises
    ------
    ParameterError
        If a bound is not a positive int, is given without ``privacy_unit``, or
        the bounds leave a unit's contribution unbounded.
    ColumnNotFoundError
        If ``privacy_unit`` is not a column.

    Notes
    -----
    Neighbouring tables differ by all rows of one privacy unit (add/remove).
    Sensitivities follow from the bounds (:class:`ContributionBounds`): a
    count, sum, mean or quantile over the whole table uses m; counts per group
    use :math:`\\Delta_1 = \\min(m, L_0 L_\\infty)` with Laplace/geometric noise
    and :math:`\\Delta_2 = \\sqrt{L_0}\\,L_\\infty` (capped by m) with Gaussian
    noise.  Parallel composition holds only over the groups of one query,
    which partition each unit's bounded rows; separate queries always compose
    sequentially through the accountant.

    Every mechanism draws its noise from OpenDP.  Sums clamp each value to
    user-given bounds (never bounds guessed from the data) and accumulate in
    64-bit integers on a fixed-point grid, so the float sum cannot exceed its
    nominal sensitivity (Casacuberta et al. 2022).  Histogram/contingency keys
    must be public (user-given); :meth:`group_by_count` without keys uses
    thresholded private partition selection, which costs a δ.

    References
    ----------
    Dwork, C. et al. (2006). Calibrating noise to sensitivity. TCC.
    Wilson, R. J. et al. (2020). Differentially private SQL with bounded user
    contribution. PoPETs.
    Casacuberta, S. et al. (2022). Widespread underestimation of sensitivity in
    differentially private libraries and how to fix it. CCS.

    Examples
    --------
    >>> from veil.dp import PrivacyAccountant, PrivacyBudget
    >>> visits = pd.DataFrame({"patient": [1, 1, 1, 2], "ward": ["A", "B", "C", "A"]})
    >>> acc = PrivacyAccountant(budget=PrivacyBudget(epsilon=1.0))
    >>> t = PrivateTable(visits, accountant=acc, privacy_unit="patient",
    ...                  max_groups=2, max_rows_per_group=1)
    >>> ans = t.histogram("ward", categories=["A", "B", "C"], epsilon=0.5)
    >>> ans.privacy_unit, ans.sensitivity, ans.noise_scale
    ('patient', 2, 4.0)
    """

    def __init__(self, data: Any, *, accountant: PrivacyAccountant,
                 privacy_unit: str | None = None, max_rows_per_unit: int | None = None,
                 max_groups: int | None = None, max_rows_per_group: int | None = None,
                 selection_seed: int | np.random.Generator | None = None) -> None:
        owner = "PrivateTable"
        frame = _unwrap(data)
        if not isinstance(accountant, PrivacyAccountant):
            raise ParameterError(
                f"The 'accountant' parameter of PrivateTable must be a PrivacyAccountant. "
                f"Got {accountant!r} instead."
            )
        m = _check_bound("max_rows_per_unit", max_rows_per_unit, owner)
        l0 = _check_bound("max_groups", max_groups, owner)
        linf = _check_bound("max_rows_per_group", max_rows_per_group, owner)
        self._salt = _selection_salt(selection_seed)
        self._unit_codes: np.ndarray | None = None
        self._row_keys: np.ndarray | None = None
        if privacy_unit is None:
            for name, value in (("max_groups", l0), ("max_rows_per_group", linf)):
                if value is not None:
                    raise ParameterError(
                        f"The {name!r} parameter of PrivateTable needs a 'privacy_unit' column "
                        "(without one each row is a unit and counts in one group once). "
                        f"Got {value!r} instead."
                    )
            if m not in (None, 1):
                raise ParameterError(
                    "The 'max_rows_per_unit' parameter of PrivateTable needs a 'privacy_unit' "
                    f"column (without one each row is a unit). Got {m!r} instead."
                )
            bounds = ContributionBounds(max_rows_per_unit=1)
        else:
            _col(frame, privacy_unit)
            if m is None and l0 is None and linf is None:
                m = 1  # each unit keeps one row (the default before per-group bounds existed)
            if m is None and (l0 is None or linf is None):
                missing = "max_rows_per_group" if linf is None else "max_groups"
                raise ParameterError(
                    f"The {missing!r} parameter of PrivateTable must be an int in [1, inf) "
                    "together with the other per-group bound when no total 'max_rows_per_unit' "
                    "is given (else one unit's contribution to a histogram is unbounded). "
                    "Got None instead."
                )
            bounds = ContributionBounds(max_rows_per_unit=m, max_groups=l0,
                                        max_rows_per_group=linf)
            codes, _ = pd.factorize(frame[privacy_unit], use_na_sentinel=False)
            self._unit_codes = codes.astype(np.int64)
            if m is not None and codes.size and np.bincount(codes).max() > m:
                self._frame = frame
                keep = _rank_within([self._unit_codes], self._keys()) < m
                frame = frame.loc[keep]
                self._unit_codes = self._unit_codes[keep]
                self._row_keys = self._keys()[keep]
        self._frame = frame
        self.accountant = accountant
        self.privacy_unit = privacy_unit or "row"
        self.contribution_bounds = bounds
        self.max_rows_per_unit = bounds.max_rows_per_unit
        self.max_groups = bounds.max_groups
        self.max_rows_per_group = bounds.max_rows_per_group
        self._unit_column = privacy_unit
        self._geometric: dict[tuple[float, int], GeometricMechanism] = {}

    @property
    def columns(self) -> list[str]:
        """The column names (public)."""
        return list(self._frame.columns)

    # -- contribution bounding ----------------------------------------------
    def _keys(self) -> np.ndarray:
        """Salted 64-bit hash of each row's content and its occurrence among identical rows."""
        if self._row_keys is None:
            content = pd.util.hash_pandas_object(self._frame, index=False,
                                                 hash_key=self._salt).to_numpy()
            occurrence = pd.DataFrame({"u": self._unit_codes, "h": content}).groupby(
                ["u", "h"], sort=False).cumcount().to_numpy()
            self._row_keys = pd.util.hash_pandas_object(
                pd.DataFrame({"h": content, "o": occurrence}), index=False,
                hash_key=self._salt).to_numpy()
        return self._row_keys

    def _total_bound(self, owner: str) -> int:
        m = self.max_rows_per_unit
        if m is None:
            raise ParameterError(
                f"{owner} needs a total contribution bound: the table was built with "
                f"privacy_unit={self.privacy_unit!r} and per-group bounds only. Give "
                "'max_rows_per_unit' when building the PrivateTable to query the whole table."
            )
        return m

    def _bounded(self, codes: np.ndarray, identity: pd.DataFrame | None) -> np.ndarray:
        """Rows that count after the per-group bounds: a mask over the table.

        ``codes`` is each row's group (-1: the row is not counted); ``identity``
        holds, for the rows with a group, columns that name the group stably
        (public codes, or the key values themselves), so that the choice of a
        unit's groups never depends on other units' rows.
        """
        counted = codes >= 0
        l0, linf = self.max_groups, self.max_rows_per_group
        if self._unit_column is None or (l0 is None and linf is None):
            return counted
        rows = np.flatnonzero(counted)
        if rows.size == 0:
            return counted
        unit, group = self._unit_codes[rows], codes[rows]
        keep = np.ones(rows.size, dtype=bool)
        if linf is not None:
            keep &= _rank_within([unit, group], self._keys()[rows]) < linf
        if l0 is not None:
            assert identity is not None
            named = identity.reset_index(drop=True)
            named.insert(0, "__unit__", self._frame[self._unit_column].iloc[rows].to_numpy())
            pair_key = pd.util.hash_pandas_object(named, index=False,
                                                  hash_key=self._salt).to_numpy()
            keep &= _dense_rank_within(unit, pair_key) < l0
        out = np.zeros(codes.size, dtype=bool)
        out[rows[keep]] = True
        return out

    # -- helpers -----------------------------------------------------------
    def _mask(self, where: str | Predicate | None) -> np.ndarray | None:
        if where is None:
            return None
        pred = parse_predicate(where) if isinstance(where, str) else where
        return pred.mask(self._frame)

    def _charge(self, epsilon: float, delta: float, label: str,
                zcdp_cost: ZCDPBudget | None = None) -> tuple[PrivacyBudget, float | None]:
        """Spend the cost of one answer; return the remaining budget and the ρ charged.

        Under ``composition="zcdp"`` a pure ε answer costs ε²/2 and the others
        pass their own ``zcdp_cost``; otherwise the (ε, δ) is spent.
        """
        if self.accountant.composition == "zcdp":
            cost = zcdp_cost if zcdp_cost is not None else ZCDPBudget.from_pure_dp(epsilon)
            self.accountant.spend(cost, label=label)
            return self.accountant.remaining, cost.rho
        self.accountant.spend(PrivacyBudget(epsilon=epsilon, delta=delta), label=label)
        return self.accountant.remaining, None

    def _geometric_mech(self, epsilon: float, sensitivity: int) -> GeometricMechanism:
        """The geometric mechanism for (ε, Δ) (built once: OpenDP construction dominates)."""
        key = (epsilon, sensitivity) if isinstance(epsilon, float) else None
        mech = self._geometric.get(key) if key is not None else None
        if mech is None:
            mech = GeometricMechanism(epsilon=epsilon, sensitivity=sensitivity)
            if key is not None and len(self._geometric) < 64:
                self._geometric[key] = mech
        return mech

    def _numeric(self, column: str, mask: np.ndarray | None) -> np.ndarray:
        col = _col(self._frame, column)
        if not pd.api.types.is_numeric_dtype(col) or pd.api.types.is_bool_dtype(col):
            raise SchemaError(f"The column {column!r} is not numeric; sum, mean and quantile need "
                              "a numeric column.")
        values = col.to_numpy(dtype=float, na_value=np.nan)
        return values if mask is None else values[mask]

    def _answer(self, **kw: Any) -> DPAnswer:
        return DPAnswer(privacy_unit=self.privacy_unit,
                        contribution_bounds=self.contribution_bounds, **kw)

    # -- queries over the whole table ---------------------------------------
    def count(self, where: str | Predicate | None = None, *, epsilon: float) -> DPAnswer:
        """Noisy number of rows (matching ``where``): geometric noise, Δ = max_rows_per_unit."""
        _check_epsilon(epsilon, "PrivateTable.count")
        m = self._total_bound("PrivateTable.count")
        mech = self._geometric_mech(epsilon, m)
        mask = self._mask(where)
        n = len(self._frame) if mask is None else int(np.count_nonzero(mask))
        label = "count" + (f" where {where}" if where is not None else "")
        remaining, rho = self._charge(mech.epsilon, 0.0, label)
        return self._answer(value=mech.release(n), epsilon=mech.epsilon, delta=0.0,
                            mechanism="geometric", noise_scale=mech.scale,
                            budget_remaining=remaining, query=label, sensitivity=m, rho=rho)

    def _exact_clamped_sum(self, values: np.ndarray, lo: float, hi: float) -> tuple[float, float]:
        """Clamp, then sum exactly on a fixed-point grid; return (sum, sensitivity)."""
        m = self._total_bound("PrivateTable.sum")
        clipped = np.clip(np.nan_to_num(values, nan=min(max(0.0, lo), hi)), lo, hi)
        bound = max(abs(lo), abs(hi))
        if bound == 0.0:
            return 0.0, 0.0
        n = max(len(clipped), 1)
        # 2^k grid so that n * bound * 2^k < 2^52: the int64 sum is exact and converts to
        # a float exactly; dividing by 2^k is exact too.
        k = min(40, math.floor(52 - math.log2(n * bound) - 1))
        factor = math.ldexp(1.0, k)
        q = np.rint(clipped * factor).astype(np.int64)
        total = int(q.sum(dtype=np.int64))
        q_bound = max(abs(round(lo * factor)), abs(round(hi * factor)))
        return math.ldexp(float(total), -k), m * math.ldexp(float(q_bound), -k)

    def sum(self, column: str, *, lower: float | None = None, upper: float | None = None,
            epsilon: float, where: str | Predicate | None = None) -> DPAnswer:
        """Noisy sum of ``column`` clamped to [lower, upper]: Laplace, Δ = m·max(|L|, |U|).

        Missing values count as the clamped 0.  The bounds are required and
        must not be derived from the data.
        """
        eps = _check_epsilon(epsilon, "PrivateTable.sum")
        lo, hi = _bounds(lower, upper, "PrivateTable.sum")
        self._total_bound("PrivateTable.sum")
        values = self._numeric(column, self._mask(where))
        total, sens = self._exact_clamped_sum(values, lo, hi)
        label = f"sum {column}" + (f" where {where}" if where is not None else "")
        if sens == 0.0:  # bounds [0, 0]: the answer is the constant 0 whatever the data
            remaining, rho = self._charge(0.0, 0.0, label)
            return self._answer(value=0.0, epsilon=0.0, delta=0.0, mechanism="none",
                                noise_scale=0.0, budget_remaining=remaining, query=label,
                                sensitivity=0.0, rho=rho)
        mech = LaplaceMechanism(epsilon=eps, sensitivity=sens)
        remaining, rho = self._charge(eps, 0.0, label)
        return self._answer(value=mech.release(total), epsilon=eps, delta=0.0, mechanism="laplace",
                            noise_scale=mech.scale, budget_remaining=remaining, query=label,
                            details={"lower": lo, "upper": hi, "sensitivity": sens},
                            sensitivity=sens, rho=rho)

    def mean(self, column: str, *, lower: float | None = None, upper: float | None = None,
             epsilon: float, where: str | Predicate | None = None) -> DPAnswer:
        """Noisy mean: a noisy clamped sum (ε/2) over a noisy count (ε/2), clamped to [L, U]."""
        eps = _check_epsilon(epsilon, "PrivateTable.mean")
        lo, hi = _bounds(lower, upper, "PrivateTable.mean")
        m = self._total_bound("PrivateTable.mean")
        values = self._numeric(column, self._mask(where))
        total, sens = self._exact_clamped_sum(values, lo, hi)
        count_mech = GeometricMechanism(epsilon=eps / 2, sensitivity=m)
        sum_mech = LaplaceMechanism(epsilon=eps / 2, sensitivity=max(sens, 1e-300))
        label = f"mean {column}" + (f" where {where}" if where is not None else "")
        remaining, rho = self._charge(eps, 0.0, label)
        noisy_n = count_mech.release(len(values))
        noisy_sum = sum_mech.release(total) if sens > 0 else 0.0
        denom = max(noisy_n, 1)
        value = float(np.clip(noisy_sum / denom, lo, hi))
        return self._answer(value=value, epsilon=eps, delta=0.0, mechanism="laplace+geometric",
                            noise_scale=sum_mech.scale / denom, budget_remaining=remaining,
                            query=label, rho=rho,
                            details={"sum_noise_scale": sum_mech.scale,
                                     "count_noise_scale": count_mech.scale,
                                     "sum_sensitivity": sens, "count_sensitivity": m,
                                     "noisy_sum": noisy_sum, "noisy_count": noisy_n})

    def quantile(self, column: str, q: float, *, lower: float | None = None,
                 upper: float | None = None, epsilon: float, candidates: Sequence[float] | None = None,
                 where: str | Predicate | None = None) -> DPAnswer:
        """A private q-quantile chosen by the exponential mechanism among public candidates.

        Candidates default to 1001 evenly spaced points of [lower, upper].  The
        utility of candidate c is :math:`-|(1-q)\\#\\{x<c\\} - q\\#\\{x>c\\}|`,
        whose sensitivity is :math:`m\\max(q, 1-q)` (Smith 2011).
        """
        qq = check_real("q", q, "PrivateTable.quantile", low=0.0, high=1.0)
        eps = _check_epsilon(epsilon, "PrivateTable.quantile")
        lo, hi = _bounds(lower, upper, "PrivateTable.quantile")
        m = self._total_bound("PrivateTable.quantile")
        if candidates is None:
            cands = np.linspace(lo, hi, 1001)
        else:
            cands = np.unique(np.asarray(candidates, dtype=float))
            if cands.size == 0 or not np.all(np.isfinite(cands)):
                raise ParameterError("The 'candidates' of PrivateTable.quantile must be finite numbers.")
        values = self._numeric(column, self._mask(where))
        data = np.sort(np.clip(values[~np.isnan(values)], lo, hi))
        lt = np.searchsorted(data, cands, side="left")
        gt = data.size - np.searchsorted(data, cands, side="right")
        scores = -np.abs((1 - qq) * lt - qq * gt)
        mech = ExponentialMechanism(epsilon=eps, sensitivity=m * max(qq, 1 - qq))
        label = f"quantile {qq:g} {column}" + (f" where {where}" if where is not None else "")
        remaining, rho = self._charge(eps, 0.0, label)
        idx = mech.select(scores)
        return self._answer(value=float(cands[idx]), epsilon=eps, delta=0.0,
                            mechanism="exponential", noise_scale=mech.scale,
                            budget_remaining=remaining, query=label,
                            details={"candidates": int(cands.size)},
                            sensitivity=mech.sensitivity, rho=rho)

    # -- grouped queries -----------------------------------------------------
    def _release_counts(self, counts: np.ndarray, *, epsilon: float, delta: float | None,
                        mechanism: str, label: str, owner: str) -> tuple[np.ndarray, dict]:
        """Add noise calibrated to the per-group bounds; charge; return noisy ints and fields."""
        check_choice("mechanism", mechanism, owner, ("geometric", "gaussian"))
        eps = _check_epsilon(epsilon, owner)
        bounds = self.contribution_bounds
        if mechanism == "geometric":
            if delta is not None and delta != 0:
                raise ParameterError(
                    f"The 'delta' parameter of {owner} is only used with mechanism='gaussian' "
                    f"(geometric noise is pure epsilon-DP). Got {delta!r} instead."
                )
            sens = bounds.l1_sensitivity
            mech = self._geometric_mech(eps, sens)
            remaining, rho = self._charge(mech.epsilon, 0.0, label)
            noisy = np.asarray(mech.release(counts), dtype=np.int64)
            return noisy, dict(epsilon=mech.epsilon, delta=0.0, mechanism="geometric",
                               noise_scale=mech.scale, budget_remaining=remaining,
                               sensitivity=sens, rho=rho)
        if delta is None:
            raise ParameterError(
                f"The 'delta' parameter of {owner} must be a float in (0, 1) with "
                "mechanism='gaussian'. Got None instead."
            )
        dlt = check_real("delta", delta, owner, low=0.0, high=1.0, closed="neither")
        sens2 = bounds.l2_sensitivity
        gauss = GaussianMechanism(epsilon=eps, delta=dlt, sensitivity=sens2)
        remaining, rho = self._charge(
            eps, dlt, label, ZCDPBudget.from_gaussian(sensitivity=sens2, sigma=gauss.scale))
        noisy = np.rint(gauss.release(counts.astype(float))).astype(np.int64)
        return noisy, dict(epsilon=eps, delta=dlt, mechanism="gaussian", noise_scale=gauss.scale,
                           budget_remaining=remaining, sensitivity=sens2, rho=rho)

    def contingency_table(self, columns: Sequence[str], *, categories: Mapping[str, Sequence[Any]],
                          epsilon: float, where: str | Predicate | None = None,
                          mechanism: str = "geometric", delta: float | None = None) -> DPAnswer:
        """Noisy counts of every combination of the public ``categories`` of ``columns``.

        The keys are the user-given categories (all combinations are released,
        including zero counts), so the set of keys reveals nothing.  Rows whose
        value is not among the categories are not counted.  Each unit's rows
        are first bounded to ``max_groups`` cells and ``max_rows_per_group``
        rows per cell; the cells partition the bounded rows, so the whole table
        costs one ε (parallel composition over the cells) with L1 sensitivity
        ``min(m, max_groups * max_rows_per_group)``.

        Parameters
        ----------
        mechanism : {"geometric", "gaussian"}
            Geometric (discrete Laplace) noise calibrated to the L1 sensitivity,
            costing (ε, 0); or Gaussian noise calibrated to the L2 sensitivity
            (analytic calibration, rounded to integers), costing (ε, δ), or
            :math:`\\rho = \\Delta_2^2/(2\\sigma^2)` under a zCDP accountant.
        delta : float in (0, 1), optional
            Required with ``mechanism="gaussian"`` only.
        """
        return self._contingency(columns, categories=categories, epsilon=epsilon, where=where,
                                 mechanism=mechanism, delta=delta,
                                 owner="PrivateTable.contingency_table")

    def _contingency(self, columns: Sequence[str], *, categories: Mapping[str, Sequence[Any]],
                     epsilon: float, where: str | Predicate | None, mechanism: str,
                     delta: float | None, owner: str) -> DPAnswer:
        cols = [columns] if isinstance(columns, str) else list(columns)
        if not cols:
            raise ParameterError("contingency_table needs at least one column.")
        _check_epsilon(epsilon, owner)
        mask = self._mask(where)
        codes, shape, cats = [], [], []
        for c in cols:
            series = _col(self._frame, c)
            if categories is None or c not in categories:
                raise ParameterError(
                    f"The categories of column {c!r} must be given (public keys); keys read from "
                    "the data are themselves private. Use group_by_count(..., delta=...) for "
                    "private partition selection."
                )
            cat = list(dict.fromkeys(categories[c]))
            if not cat:
                raise ParameterError(f"The categories of column {c!r} must not be empty.")
            codes.append(_codes(series, cat))
            shape.append(len(cat))
            cats.append(cat)
        valid = np.logical_and.reduce([cd >= 0 for cd in codes])
        if mask is not None:
            valid &= mask
        flat = np.full(len(self._frame), -1, dtype=np.int64)
        flat[valid] = np.ravel_multi_index([cd[valid] for cd in codes], shape)
        keep = self._bounded(flat, pd.DataFrame({"cell": flat[valid]}))
        counts = np.bincount(flat[keep], minlength=int(np.prod(shape))).astype(np.int64)
        label = f"histogram {', '.join(cols)}" + (f" where {where}" if where is not None else "")
        noisy, fields = self._release_counts(counts, epsilon=epsilon, delta=delta,
                                             mechanism=mechanism, label=label, owner=owner)
        keys = pd.MultiIndex.from_product(cats).tolist() if len(cols) > 1 else cats[0]
        value = dict(zip(keys, (int(v) for v in noisy)))
        return self._answer(value=value, query=label, details=self._group_details(cols, "public",
                                                                                  fields), **fields)

    def _group_details(self, cols: list[str], keys: str, fields: dict) -> dict:
        norm = "l2" if fields["mechanism"] == "gaussian" else "l1"
        return {"columns": cols, "keys": keys, "sensitivity_norm": norm}

    def histogram(self, column: str, *, categories: Sequence[Any] | None = None,
                  bins: Sequence[float] | None = None, epsilon: float,
                  where: str | Predicate | None = None, mechanism: str = "geometric",
                  delta: float | None = None) -> DPAnswer:
        """Noisy counts per public category, or per numeric bin ``[b_i, b_{i+1})``.

        With ``bins`` (public edges, increasing), the keys are ``(b_i, b_{i+1})``
        and values outside the edges are not counted (the last bin is closed).
        Contributions are bounded per group and the noise calibrated as in
        :meth:`contingency_table` (``mechanism``, ``delta``).
        """
        owner = "PrivateTable.histogram"
        if (categories is None) == (bins is None):
            raise ParameterError(
                "PrivateTable.histogram needs exactly one of 'categories' (public keys) or "
                "'bins' (public numeric edges)."
            )
        if categories is not None:
            return self._contingency([column], categories={column: categories},
                                     epsilon=epsilon, where=where, mechanism=mechanism,
                                     delta=delta, owner=owner)
        edges = np.asarray(bins, dtype=float)
        if edges.ndim != 1 or edges.size < 2 or not np.all(np.diff(edges) > 0):
            raise ParameterError("The 'bins' of PrivateTable.histogram must be at least two "
                                 "strictly increasing edges.")
        _check_epsilon(epsilon, owner)
        values = self._numeric(column, None)
        mask = self._mask(where)
        inside = (values >= edges[0]) & (values <= edges[-1])
        if mask is not None:
            inside &= mask
        codes = np.full(values.size, -1, dtype=np.int64)
        codes[inside] = np.clip(np.searchsorted(edges, values[inside], side="right") - 1,
                                0, edges.size - 2)
        keep = self._bounded(codes, pd.DataFrame({"bin": codes[inside]}))
        counts = np.bincount(codes[keep], minlength=edges.size - 1).astype(np.int64)
        label = f"histogram {column}" + (f" where {where}" if where is not None else "")
        noisy, fields = self._release_counts(counts, epsilon=epsilon, delta=delta,
                                             mechanism=mechanism, label=label, owner=owner)
        keys = [(float(a), float(b)) for a, b in zip(edges[:-1], edges[1:])]
        return self._answer(value=dict(zip(keys, (int(v) for v in noisy))), query=label,
                            details=self._group_details([column], "public bins", fields),
                            **fields)

    def group_by_count(self, by: str | Sequence[str], *, epsilon: float,
                       keys: Mapping[str, Sequence[Any]] | None = None, delta: float | None = None,
                       where: str | Predicate | None = None,
                       mechanism: str = "geometric") -> DPAnswer:
        """Noisy counts per group, with public keys or private partition selection.

        With ``keys`` (public, user-given categories per column) this is
        :meth:`contingency_table` and costs (ε, 0) with geometric noise
        (``delta`` is then only used by ``mechanism="gaussian"``).

        Without keys, the groups present in the data are private: veil bounds
        each unit to ``max_groups`` groups and ``max_rows_per_group`` rows per
        group, adds discrete Laplace noise of scale :math:`b = \\Delta_1/\\varepsilon`
        to the count of every group present, and releases only the groups whose
        noisy count reaches a threshold τ (OpenDP's ``make_laplace_threshold``;
        Rogers 2023).  It costs (ε, δ) with δ > 0 required.

        Notes
        -----
        A group held by one unit alone has a count of at most
        :math:`\\ell_\\infty` and is released with probability
        :math:`p(\\tau) = \\Pr[Z \\ge \\tau - \\ell_\\infty] =
        e^{-(\\tau - \\ell_\\infty)/b} / (1 + e^{-1/b})` (discrete Laplace
        tail); the unit holds at most :math:`\\ell_0` such groups, so some key
        of it leaks with probability at most :math:`1 - (1 - p(\\tau))^{\\ell_0}`.
        veil uses the smallest integer τ for which this is at most δ:

        .. math::

            \\tau = \\ell_\\infty + \\Big\\lceil b \\ln \\frac{1}{(1 + e^{-1/b})\\,
            \\delta_1} \\Big\\rceil, \\qquad \\delta_1 = 1 - (1 - \\delta)^{1/\\ell_0}

        (at least :math:`\\ell_\\infty + 1`), found by bisection on OpenDP's
        conservative privacy map.  This is the discrete form of the continuous
        rule :math:`\\tau = \\ell_\\infty + b \\ln(1/(2\\delta_1))` (Wilson et
        al. 2020).  OpenDP 0.16's map for integer counts evaluates the tail
        one step too far (:math:`\\Pr[Z > \\tau - \\ell_\\infty]`, while the
        mechanism releases counts :math:`\\ge \\tau`), so veil certifies τ with
        the map of threshold τ − 1, which equals :math:`p(\\tau)` above.

        Under a zCDP accountant the selection is charged as δ-approximate
        :math:`\\varepsilon^2/2`-zCDP: conditioned on no unit-only group being
        released (probability ≥ 1 − δ), the output is ε-DP.
        """
        owner = "PrivateTable.group_by_count"
        cols = [by] if isinstance(by, str) else list(by)
        if keys is not None:
            return self._contingency(cols, categories=keys, epsilon=epsilon, where=where,
                                     mechanism=mechanism,
                                     delta=delta if mechanism == "gaussian" else None, owner=owner)
        eps = _check_epsilon(epsilon, owner)
        if mechanism != "geometric":
            raise ParameterError(
                f"The 'mechanism' parameter of {owner} must be 'geometric' without public 'keys' "
                f"(private partition selection uses Laplace noise). Got {mechanism!r} instead."
            )
        if delta is None:
            raise ParameterError(
                "PrivateTable.group_by_count without public 'keys' releases keys found in the "
                "data and needs a 'delta' in (0, 1) for private partition selection."
            )
        dlt = check_real("delta", delta, owner, low=0.0, high=1.0, closed="neither")
        for c in cols:
            _col(self._frame, c)
        grouped = self._frame.groupby(cols, sort=True, dropna=True)
        codes = grouped.ngroup().fillna(-1).to_numpy().astype(np.int64)  # -1: missing key
        index = grouped.size().index
        mask = self._mask(where)
        if mask is not None:
            codes[~mask] = -1
        counted = codes >= 0
        identity = self._frame.loc[counted, cols]
        identity.columns = [f"g{i}" for i in range(len(cols))]
        keep = self._bounded(codes, identity)
        counts = np.bincount(codes[keep], minlength=len(index)).astype(np.int64)
        present = np.flatnonzero(counts > 0)  # a group emptied by the bounds is not in the data
        label = f"group_by_count {', '.join(cols)}" + (f" where {where}" if where is not None else "")
        bounds = self.contribution_bounds
        d_in = (bounds.l0_sensitivity, bounds.l1_sensitivity, bounds.linf_sensitivity)
        meas, threshold, scale = _partition_selection(eps, dlt, d_in)
        remaining, rho = self._charge(eps, dlt, label,
                                      ZCDPBudget(rho=eps * eps / 2.0, delta=dlt))
        originals = {_key_str(index[i]): index[i] for i in present}
        as_str = {_key_str(index[i]): int(counts[i]) for i in present}
        released = meas(as_str) if as_str else {}
        value = {originals[k]: int(v) for k, v in sorted(released.items())}
        return self._answer(value=value, epsilon=eps, delta=dlt, mechanism="laplace_threshold",
                            noise_scale=scale, budget_remaining=remaining, query=label,
                            sensitivity=bounds.l1_sensitivity, rho=rho,
                            details={"columns": cols, "keys": "private partition selection",
                                     "sensitivity_norm": "l1", "threshold": threshold})


def _rank_within(groups: list[np.ndarray], order_key: np.ndarray) -> np.ndarray:
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


def _dense_rank_within(unit: np.ndarray, key: np.ndarray) -> np.ndarray:
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


def _key_str(key: Any) -> str:
    return "\x1f".join(map(str, key)) if isinstance(key, tuple) else str(key)


@functools.lru_cache(maxsize=32)
def _partition_selection(epsilon: float, delta: float,
                         d_in: tuple[int, int, int]) -> tuple[Any, int, float]:
    """OpenDP's Laplace threshold measurement, its threshold τ and its scale.

    ``d_in`` is (ℓ0, ℓ1, ℓ∞) of one unit's bounded contribution.  The scale is
    ℓ1/ε (widened by ulps if OpenDP's ε rounds above the target); τ is the
    smallest integer whose release probability for a unit-only key, certified
    by OpenDP's map for threshold τ − 1 (see :meth:`PrivateTable.group_by_count`),
    is at most δ.
    """
    dp = opendp()
    dom = dp.map_domain(dp.atom_domain(T=str), dp.atom_domain(T="i64"))
    met = dp.l01inf_distance(dp.absolute_distance(T="i64"))
    l1, linf = d_in[1], d_in[2]
    scale = l1 / epsilon

    def build(tau: int) -> Any:
        return dp.m.make_laplace_threshold(dom, met, scale=scale, threshold=tau)

    def released_delta(tau: int) -> float:
        return build(tau - 1).map(d_in)[1]

    for _ in range(64):  # widen the scale by ulps if OpenDP's epsilon rounds above the target
        if build(10**9).map(d_in)[0] <= epsilon * (1 + 1e-9):
            break
        scale = math.nextafter(scale, math.inf) * (1 + 1e-12)
    lo = hi = linf + 1
    while released_delta(hi) > delta:
        lo, hi = hi + 1, hi * 2
        if hi > 2**40:  # pragma: no cover
            raise ParameterError("No partition-selection threshold meets this delta.")
    while lo < hi:
        mid = (lo + hi) // 2
        if released_delta(mid) <= delta:
            hi = mid
        else:
            lo = mid + 1
    return build(hi), hi, scale


def _col(frame: pd.DataFrame, name: str) -> pd.Series:
    if name not in frame.columns:
        raise ColumnNotFoundError(
            f"The column {name!r} is not in the table; available columns: "
            f"{', '.join(map(str, frame.columns))}."
        )
    return frame[name]


def _codes(series: pd.Series, categories: list[Any]) -> np.ndarray:
    """Integer code of each value in ``categories`` (-1 when absent), vectorised."""
    codes = pd.Index(categories).get_indexer(series).astype(np.int64)
    if (codes < 0).any() and not pd.api.types.is_numeric_dtype(series):
        # text column with non-text categories (e.g. 1 vs "1"): match on strings too
        alt = pd.Index([str(c) for c in categories]).get_indexer(series.astype("string"))
        codes = np.where(codes >= 0, codes, alt.astype(np.int64))
    return codes
