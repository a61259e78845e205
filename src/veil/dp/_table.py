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

from typing import Any, Sequence

import numpy as np
import pandas as pd

from veil._validation import check_real
from veil.dp._accountant import PrivacyAccountant
from veil.dp._answer import DPAnswer
from veil.dp._bounds import (
    ContributionBounds,
    frame_of,
    unit_codes,
    check_bound,
    dense_rank_within,
    rank_within,
    selection_salt,
)
from veil.dp._budget import PrivacyBudget, ZCDPBudget
from veil.dp._columns import is_number_column, number_values
from veil.dp._grouped import GroupedQueries, column_of
from veil.dp._mechanisms import GeometricMechanism, LaplaceMechanism, check_epsilon
from veil.dp._predicate import Predicate, parse_predicate
from veil.dp._selection import PermuteAndFlip
from veil.dp._sensitivity import clamped_fixed_point_sum, clamping_bounds, missing_fill
from veil.errors import ParameterError, SchemaError

__all__ = ["ContributionBounds", "DPAnswer", "PrivateTable"]


def _contribution_bounds(frame: Any, privacy_unit: str | None, m: int | None, l0: int | None,
                         linf: int | None) -> ContributionBounds:
    """The contribution bounds of a table, checked against the privacy unit (one row per unit by default)."""
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
        return ContributionBounds(max_rows_per_unit=1)
    column_of(frame, privacy_unit)
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
    return ContributionBounds(max_rows_per_unit=m, max_groups=l0, max_rows_per_group=linf)


class PrivateTable(GroupedQueries):
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
    missing_units : {"error", "own_unit"}
        What a row without a privacy-unit ID is.  ``"error"`` (default): such
        a row is refused with :class:`~veil.errors.SchemaError` naming the
        column.  ``"own_unit"``: each such row is a unit of its own.  (Merging
        them into one unit, as veil once did, lets one more such row change
        which of their rows is kept, so the stated sensitivity would not hold.)
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

    Every answer is charged to ``accountant`` before its noise is drawn; with
    an accountant from :meth:`PrivacyAccountant.from_ledger` the spend is
    file-locked, journaled and fsynced first, so no answer exists unless its
    spend was saved.  Every mechanism draws its noise from OpenDP.  Sums clamp each value to
    user-given bounds (never bounds guessed from the data) and accumulate in
    64-bit integers on a fixed-point grid, so the float sum cannot exceed its
    nominal sensitivity (Casacuberta et al. 2022).  Histogram/contingency keys
    must be public (user-given); :meth:`group_by_count` and :meth:`group_by_sum`
    without keys use thresholded private partition selection, which costs a δ.

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
                 missing_units: str = "error",
                 selection_seed: int | np.random.Generator | None = None) -> None:
        owner = "PrivateTable"
        frame = frame_of(data)
        if not isinstance(accountant, PrivacyAccountant):
            raise ParameterError(
                f"The 'accountant' parameter of PrivateTable must be a PrivacyAccountant. "
                f"Got {accountant!r} instead."
            )
        m = check_bound("max_rows_per_unit", max_rows_per_unit, owner)
        l0 = check_bound("max_groups", max_groups, owner)
        linf = check_bound("max_rows_per_group", max_rows_per_group, owner)
        self._salt = selection_salt(selection_seed)
        self._unit_codes: np.ndarray | None = None
        self._row_keys: np.ndarray | None = None
        bounds = _contribution_bounds(frame, privacy_unit, m, l0, linf)
        if privacy_unit is not None:
            m = bounds.max_rows_per_unit
            codes = unit_codes(frame[privacy_unit], privacy_unit, missing_units)
            self._unit_codes = codes
            if m is not None and codes.size and np.bincount(codes).max() > m:
                self._frame = frame
                keep = rank_within([self._unit_codes], self._keys()) < m
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

    def is_numeric(self, column: str) -> bool:
        """Whether ``column`` holds numbers: ints, floats or decimals, not bools (its type is public,
        like its name)."""
        return is_number_column(column_of(self._frame, column))

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
            keep &= rank_within([unit, group], self._keys()[rows]) < linf
        if l0 is not None:
            assert identity is not None
            named = identity.reset_index(drop=True)
            named.insert(0, "__unit__", self._frame[self._unit_column].iloc[rows].to_numpy())
            pair_key = pd.util.hash_pandas_object(named, index=False,
                                                  hash_key=self._salt).to_numpy()
            keep &= dense_rank_within(unit, pair_key) < l0
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

        Under ``composition="zcdp"`` or ``"filter"`` a pure ε answer costs
        ε²/2 and the others pass their own ``zcdp_cost`` (from OpenDP's map of
        the measurement run); otherwise the (ε, δ) is spent.  With a ledger,
        the spend is saved before this returns, hence before any noise is drawn.
        """
        if self.accountant.composition in ("zcdp", "filter"):
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
        col = column_of(self._frame, column)
        if not is_number_column(col) and col.notna().any():  # ints, floats, decimals; not bools, dates, text
            raise SchemaError(f"The column {column!r} is not numeric; sum, mean and quantile need "
                              "a numeric column.")
        values = number_values(col)
        return values if mask is None else values[mask]

    def _answer(self, **kw: Any) -> DPAnswer:
        return DPAnswer(privacy_unit=self.privacy_unit,
                        contribution_bounds=self.contribution_bounds, **kw)

    # -- queries over the whole table ---------------------------------------
    def count(self, where: str | Predicate | None = None, *, epsilon: float) -> DPAnswer:
        """Noisy number of rows (matching ``where``): geometric noise, Δ = max_rows_per_unit."""
        check_epsilon(epsilon, "PrivateTable.count")
        m = self._total_bound("PrivateTable.count")
        mech = self._geometric_mech(epsilon, m)
        mask = self._mask(where)
        n = len(self._frame) if mask is None else int(np.count_nonzero(mask))
        label = "count" + (f" where {where}" if where is not None else "")
        remaining, rho = self._charge(mech.epsilon, 0.0, label)
        return self._answer(value=mech.release(n), epsilon=mech.epsilon, delta=0.0,
                            mechanism="geometric", noise_scale=mech.scale,
                            budget_remaining=remaining, query=label, sensitivity=m, rho=rho)

    def sum(self, column: str, *, lower: float | None = None, upper: float | None = None,
            epsilon: float, where: str | Predicate | None = None, missing_as: float | None = None) -> DPAnswer:
        """Noisy sum of ``column`` clamped to [lower, upper]: Laplace, Δ = m·max(|L|, |U|).

        A missing value counts as ``missing_as`` (by default ``lower``; stated in the answer).
        The bounds are required and must not be derived from the data.
        """
        eps = check_epsilon(epsilon, "PrivateTable.sum")
        lo, hi = clamping_bounds(lower, upper, "PrivateTable.sum")
        fill = missing_fill(missing_as, lo, hi, "PrivateTable.sum")
        m = self._total_bound("PrivateTable.sum")
        values = self._numeric(column, self._mask(where))
        total, sens = clamped_fixed_point_sum(values, lo, hi, m, fill)
        label = f"sum {column}" + (f" where {where}" if where is not None else "")
        if sens == 0.0:  # bounds [0, 0]: the answer is the constant 0 whatever the data
            remaining, rho = self._charge(0.0, 0.0, label)
            return self._answer(value=0.0, epsilon=0.0, delta=0.0, mechanism="none",
                                noise_scale=0.0, budget_remaining=remaining, query=label,
                                sensitivity=0.0, rho=rho, missing_as=fill)
        mech = LaplaceMechanism(epsilon=eps, sensitivity=sens)
        remaining, rho = self._charge(eps, 0.0, label)
        return self._answer(value=mech.release(total), epsilon=eps, delta=0.0, mechanism="laplace",
                            noise_scale=mech.scale, budget_remaining=remaining, query=label,
                            details={"lower": lo, "upper": hi, "sensitivity": sens},
                            sensitivity=sens, rho=rho, missing_as=fill)

    def mean(self, column: str, *, lower: float | None = None, upper: float | None = None,
             epsilon: float, where: str | Predicate | None = None, missing_as: float | None = None) -> DPAnswer:
        """Noisy mean: a noisy clamped sum (ε/2) over a noisy count (ε/2), clamped to [L, U]; a
        missing value counts as ``missing_as`` (by default ``lower``)."""
        eps = check_epsilon(epsilon, "PrivateTable.mean")
        lo, hi = clamping_bounds(lower, upper, "PrivateTable.mean")
        fill = missing_fill(missing_as, lo, hi, "PrivateTable.mean")
        m = self._total_bound("PrivateTable.mean")
        values = self._numeric(column, self._mask(where))
        total, sens = clamped_fixed_point_sum(values, lo, hi, m, fill)
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
                            query=label, rho=rho, missing_as=fill,
                            details={"sum_noise_scale": sum_mech.scale,
                                     "count_noise_scale": count_mech.scale,
                                     "sum_sensitivity": sens, "count_sensitivity": m,
                                     "noisy_sum": noisy_sum, "noisy_count": noisy_n})

    def quantile(self, column: str, q: float, *, lower: float | None = None,
                 upper: float | None = None, epsilon: float, candidates: Sequence[float] | None = None,
                 where: str | Predicate | None = None, missing_as: float | None = None) -> DPAnswer:
        """A private q-quantile chosen by permute-and-flip among public candidates.

        Candidates default to 1001 evenly spaced points of [lower, upper].  The
        utility of candidate c is :math:`-|(1-q)\\#\\{x<c\\} - q\\#\\{x>c\\}|`,
        whose sensitivity is :math:`m\\max(q, 1-q)` (Smith 2011).  The
        selection is :class:`~veil.dp.PermuteAndFlip` (McKenna & Sheldon
        2020), ε-DP and at least as accurate as the exponential mechanism.  A missing
        value counts as ``missing_as`` (by default ``lower``).
        """
        qq = check_real("q", q, "PrivateTable.quantile", low=0.0, high=1.0)
        eps = check_epsilon(epsilon, "PrivateTable.quantile")
        lo, hi = clamping_bounds(lower, upper, "PrivateTable.quantile")
        fill = missing_fill(missing_as, lo, hi, "PrivateTable.quantile")
        m = self._total_bound("PrivateTable.quantile")
        if candidates is None:
            cands = np.linspace(lo, hi, 1001)
        else:
            cands = np.unique(np.asarray(candidates, dtype=float))
            if cands.size == 0 or not np.all(np.isfinite(cands)):
                raise ParameterError("The 'candidates' of PrivateTable.quantile must be finite numbers.")
        values = self._numeric(column, self._mask(where))
        data = np.sort(np.clip(np.where(np.isnan(values), fill, values), lo, hi))
        lt = np.searchsorted(data, cands, side="left")
        gt = data.size - np.searchsorted(data, cands, side="right")
        scores = -np.abs((1 - qq) * lt - qq * gt)
        mech = PermuteAndFlip(epsilon=eps, sensitivity=m * max(qq, 1 - qq))
        label = f"quantile {qq:g} {column}" + (f" where {where}" if where is not None else "")
        remaining, rho = self._charge(eps, 0.0, label)
        idx = mech.select(scores)
        return self._answer(value=float(cands[idx]), epsilon=eps, delta=0.0,
                            mechanism="permute_and_flip", noise_scale=mech.scale,
                            budget_remaining=remaining, query=label,
                            details={"candidates": int(cands.size)},
                            sensitivity=mech.sensitivity, rho=rho, missing_as=fill)

    # -- grouped queries -----------------------------------------------------
