"""Private queries on a table: noisy answers instead of a sanitized table."""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any, Mapping, Sequence

import numpy as np
import pandas as pd

from veil._validation import check_int, check_real
from veil.dp._accountant import PrivacyAccountant, PrivacyBudget
from veil.dp._mechanisms import ExponentialMechanism, GeometricMechanism, LaplaceMechanism, _check_epsilon
from veil.dp._predicate import Predicate, parse_predicate
from veil.dp._sampler import opendp
from veil.dp._sensitivity import _bounds
from veil.errors import ColumnNotFoundError, ParameterError, SchemaError

__all__ = ["DPAnswer", "PrivateTable"]


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
        ``"geometric"``, ``"laplace"``, ``"exponential"``, ``"laplace_threshold"``
        or ``"laplace+geometric"`` (mean).
    noise_scale : float
        The scale b of the noise in the answer's units (Laplace/geometric: the
        mean absolute error is ≈ b and the standard deviation √2·b; for a mean,
        the sum's scale divided by the noisy count; for a quantile, the Gumbel
        scale of the exponential mechanism on its score).
    privacy_unit : str
        What one protected "person" is: ``"row"`` or the name of the unit column.
    budget_remaining : PrivacyBudget
        The accountant's remaining budget right after this answer.
    query : str
        A description of the query.
    details : dict
        Mechanism-specific facts (e.g. the two scales of a mean, the threshold
        of a partition selection).
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


def _unwrap(data: Any) -> pd.DataFrame:
    frame = data.frame if hasattr(data, "frame") else data
    if not isinstance(frame, pd.DataFrame):
        raise ParameterError(
            f"PrivateTable needs a pandas DataFrame (or an object with a .frame). "
            f"Got {type(data).__name__} instead."
        )
    return frame


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
        rows.  Omitted: each row is its own unit.
    max_rows_per_unit : int in [1, inf)
        Contribution bound: veil keeps the first ``max_rows_per_unit`` rows of
        each unit (in table order) and drops the rest before any query, and
        scales every sensitivity by it.  Only with ``privacy_unit``.

    Notes
    -----
    Neighbouring tables differ by all rows of one privacy unit (add/remove).
    Every mechanism draws its noise from OpenDP.  Sums clamp each value to
    user-given bounds (never bounds guessed from the data) and accumulate in
    64-bit integers on a fixed-point grid, so the float sum cannot exceed its
    nominal sensitivity (Casacuberta et al. 2022).  Histogram/contingency keys
    must be public (user-given); :meth:`group_by_count` without keys uses
    OpenDP's thresholded private partition selection, which costs a δ.

    References
    ----------
    Dwork, C. et al. (2006). Calibrating noise to sensitivity. TCC.
    Casacuberta, S. et al. (2022). Widespread underestimation of sensitivity in
    differentially private libraries and how to fix it. CCS.
    """

    def __init__(self, data: Any, *, accountant: PrivacyAccountant,
                 privacy_unit: str | None = None, max_rows_per_unit: int = 1) -> None:
        frame = _unwrap(data)
        if not isinstance(accountant, PrivacyAccountant):
            raise ParameterError(
                f"The 'accountant' parameter of PrivateTable must be a PrivacyAccountant. "
                f"Got {accountant!r} instead."
            )
        m = check_int("max_rows_per_unit", max_rows_per_unit, "PrivateTable", low=1)
        if privacy_unit is None:
            if m != 1:
                raise ParameterError(
                    "The 'max_rows_per_unit' parameter of PrivateTable needs a 'privacy_unit' "
                    f"column (without one each row is a unit). Got {m!r} instead."
                )
        else:
            _col(frame, privacy_unit)
            keep = frame.groupby(privacy_unit, sort=False, dropna=False).cumcount().to_numpy() < m
            if not keep.all():
                frame = frame.loc[keep]
        self._frame = frame
        self.accountant = accountant
        self.privacy_unit = privacy_unit or "row"
        self.max_rows_per_unit = m
        self._geometric: dict[float, GeometricMechanism] = {}

    def _geometric_mech(self, epsilon: float) -> GeometricMechanism:
        """The geometric mechanism for ε (built once per ε: OpenDP construction dominates)."""
        key = epsilon if isinstance(epsilon, float) else None
        mech = self._geometric.get(key) if key is not None else None
        if mech is None:
            mech = GeometricMechanism(epsilon=epsilon, sensitivity=self.max_rows_per_unit)
            if key is not None and len(self._geometric) < 64:
                self._geometric[key] = mech
        return mech

    @property
    def columns(self) -> list[str]:
        """The column names (public)."""
        return list(self._frame.columns)

    # -- helpers -----------------------------------------------------------
    def _mask(self, where: str | Predicate | None) -> np.ndarray | None:
        if where is None:
            return None
        pred = parse_predicate(where) if isinstance(where, str) else where
        return pred.mask(self._frame)

    def _charge(self, epsilon: float, delta: float, label: str) -> PrivacyBudget:
        cost = PrivacyBudget(epsilon=epsilon, delta=delta)
        self.accountant.spend(cost, label=label)
        return self.accountant.remaining

    def _numeric(self, column: str, mask: np.ndarray | None) -> np.ndarray:
        col = _col(self._frame, column)
        if not pd.api.types.is_numeric_dtype(col) or pd.api.types.is_bool_dtype(col):
            raise SchemaError(f"The column {column!r} is not numeric; sum, mean and quantile need "
                              "a numeric column.")
        values = col.to_numpy(dtype=float, na_value=np.nan)
        return values if mask is None else values[mask]

    def _answer(self, **kw: Any) -> DPAnswer:
        return DPAnswer(privacy_unit=self.privacy_unit, **kw)

    # -- queries -----------------------------------------------------------
    def count(self, where: str | Predicate | None = None, *, epsilon: float) -> DPAnswer:
        """Noisy number of rows (matching ``where``): geometric noise, Δ = max_rows_per_unit."""
        mech = self._geometric_mech(epsilon)
        mask = self._mask(where)
        n = len(self._frame) if mask is None else int(np.count_nonzero(mask))
        label = "count" + (f" where {where}" if where is not None else "")
        remaining = self._charge(mech.epsilon, 0.0, label)
        return self._answer(value=mech.release(n), epsilon=mech.epsilon, delta=0.0,
                            mechanism="geometric", noise_scale=mech.scale,
                            budget_remaining=remaining, query=label)

    def _exact_clamped_sum(self, values: np.ndarray, lo: float, hi: float) -> tuple[float, float]:
        """Clamp, then sum exactly on a fixed-point grid; return (sum, sensitivity)."""
        m = self.max_rows_per_unit
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
        values = self._numeric(column, self._mask(where))
        total, sens = self._exact_clamped_sum(values, lo, hi)
        label = f"sum {column}" + (f" where {where}" if where is not None else "")
        if sens == 0.0:  # bounds [0, 0]: the answer is the constant 0 whatever the data
            remaining = self._charge(0.0, 0.0, label)
            return self._answer(value=0.0, epsilon=0.0, delta=0.0, mechanism="none",
                                noise_scale=0.0, budget_remaining=remaining, query=label)
        mech = LaplaceMechanism(epsilon=eps, sensitivity=sens)
        remaining = self._charge(eps, 0.0, label)
        return self._answer(value=mech.release(total), epsilon=eps, delta=0.0, mechanism="laplace",
                            noise_scale=mech.scale, budget_remaining=remaining, query=label,
                            details={"lower": lo, "upper": hi, "sensitivity": sens})

    def mean(self, column: str, *, lower: float | None = None, upper: float | None = None,
             epsilon: float, where: str | Predicate | None = None) -> DPAnswer:
        """Noisy mean: a noisy clamped sum (ε/2) over a noisy count (ε/2), clamped to [L, U]."""
        eps = _check_epsilon(epsilon, "PrivateTable.mean")
        lo, hi = _bounds(lower, upper, "PrivateTable.mean")
        values = self._numeric(column, self._mask(where))
        total, sens = self._exact_clamped_sum(values, lo, hi)
        count_mech = GeometricMechanism(epsilon=eps / 2, sensitivity=self.max_rows_per_unit)
        sum_mech = LaplaceMechanism(epsilon=eps / 2, sensitivity=max(sens, 1e-300))
        label = f"mean {column}" + (f" where {where}" if where is not None else "")
        remaining = self._charge(eps, 0.0, label)
        noisy_n = count_mech.release(len(values))
        noisy_sum = sum_mech.release(total) if sens > 0 else 0.0
        denom = max(noisy_n, 1)
        value = float(np.clip(noisy_sum / denom, lo, hi))
        return self._answer(value=value, epsilon=eps, delta=0.0, mechanism="laplace+geometric",
                            noise_scale=sum_mech.scale / denom, budget_remaining=remaining,
                            query=label,
                            details={"sum_noise_scale": sum_mech.scale,
                                     "count_noise_scale": count_mech.scale,
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
        mech = ExponentialMechanism(epsilon=eps, sensitivity=self.max_rows_per_unit * max(qq, 1 - qq))
        label = f"quantile {qq:g} {column}" + (f" where {where}" if where is not None else "")
        remaining = self._charge(eps, 0.0, label)
        idx = mech.select(scores)
        return self._answer(value=float(cands[idx]), epsilon=eps, delta=0.0,
                            mechanism="exponential", noise_scale=mech.scale,
                            budget_remaining=remaining, query=label,
                            details={"candidates": int(cands.size)})

    def contingency_table(self, columns: Sequence[str], *, categories: Mapping[str, Sequence[Any]],
                          epsilon: float, where: str | Predicate | None = None) -> DPAnswer:
        """Noisy counts of every combination of the public ``categories`` of ``columns``.

        The keys are the user-given categories (all combinations are released,
        including zero counts), so the set of keys reveals nothing.  Rows whose
        value is not among the categories are not counted.  One unit's rows fall
        into disjoint cells, so the L1 sensitivity is ``max_rows_per_unit`` and
        the whole table costs one ε (parallel composition over the cells).
        """
        cols = [columns] if isinstance(columns, str) else list(columns)
        if not cols:
            raise ParameterError("contingency_table needs at least one column.")
        mech = GeometricMechanism(epsilon=epsilon, sensitivity=self.max_rows_per_unit)
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
            code = _codes(series, cat)
            codes.append(code if mask is None else code[mask])
            shape.append(len(cat))
            cats.append(cat)
        valid = np.logical_and.reduce([cd >= 0 for cd in codes])
        flat = np.ravel_multi_index([cd[valid] for cd in codes], shape)
        counts = np.bincount(flat, minlength=int(np.prod(shape))).astype(np.int64)
        label = f"histogram {', '.join(cols)}" + (f" where {where}" if where is not None else "")
        remaining = self._charge(mech.epsilon, 0.0, label)
        noisy = mech.release(counts)
        keys = pd.MultiIndex.from_product(cats).tolist() if len(cols) > 1 else cats[0]
        value = dict(zip(keys, (int(v) for v in noisy)))
        return self._answer(value=value, epsilon=mech.epsilon, delta=0.0, mechanism="geometric",
                            noise_scale=mech.scale, budget_remaining=remaining, query=label,
                            details={"columns": cols, "keys": "public"})

    def histogram(self, column: str, *, categories: Sequence[Any] | None = None,
                  bins: Sequence[float] | None = None, epsilon: float,
                  where: str | Predicate | None = None) -> DPAnswer:
        """Noisy counts per public category, or per numeric bin ``[b_i, b_{i+1})``.

        With ``bins`` (public edges, increasing), the keys are ``(b_i, b_{i+1})``
        and values outside the edges are not counted (the last bin is closed).
        """
        if (categories is None) == (bins is None):
            raise ParameterError(
                "PrivateTable.histogram needs exactly one of 'categories' (public keys) or "
                "'bins' (public numeric edges)."
            )
        if categories is not None:
            return self.contingency_table([column], categories={column: categories},
                                          epsilon=epsilon, where=where)
        edges = np.asarray(bins, dtype=float)
        if edges.ndim != 1 or edges.size < 2 or not np.all(np.diff(edges) > 0):
            raise ParameterError("The 'bins' of PrivateTable.histogram must be at least two "
                                 "strictly increasing edges.")
        mech = GeometricMechanism(epsilon=epsilon, sensitivity=self.max_rows_per_unit)
        values = self._numeric(column, self._mask(where))
        inside = (values >= edges[0]) & (values <= edges[-1])
        idx = np.clip(np.searchsorted(edges, values[inside], side="right") - 1, 0, edges.size - 2)
        counts = np.bincount(idx, minlength=edges.size - 1).astype(np.int64)
        label = f"histogram {column}" + (f" where {where}" if where is not None else "")
        remaining = self._charge(mech.epsilon, 0.0, label)
        noisy = mech.release(counts)
        keys = [(float(a), float(b)) for a, b in zip(edges[:-1], edges[1:])]
        return self._answer(value=dict(zip(keys, (int(v) for v in noisy))), epsilon=mech.epsilon,
                            delta=0.0, mechanism="geometric", noise_scale=mech.scale,
                            budget_remaining=remaining, query=label,
                            details={"columns": [column], "keys": "public bins"})

    def group_by_count(self, by: str | Sequence[str], *, epsilon: float,
                       keys: Mapping[str, Sequence[Any]] | None = None, delta: float | None = None,
                       where: str | Predicate | None = None) -> DPAnswer:
        """Noisy counts per group.

        With ``keys`` (public, user-given categories per column) this is
        :meth:`contingency_table` and costs (ε, 0).  Without keys, the groups
        present in the data are private: veil uses OpenDP's
        ``make_laplace_threshold`` (Laplace noise, then only groups whose noisy
        count reaches a threshold are released; Rogers 2023), which costs
        (ε, δ) with δ > 0 required; the threshold is the smallest integer that
        meets δ.
        """
        cols = [by] if isinstance(by, str) else list(by)
        if keys is not None:
            return self.contingency_table(cols, categories=keys, epsilon=epsilon, where=where)
        eps = _check_epsilon(epsilon, "PrivateTable.group_by_count")
        if delta is None:
            raise ParameterError(
                "PrivateTable.group_by_count without public 'keys' releases keys found in the "
                "data and needs a 'delta' in (0, 1) for private partition selection."
            )
        dlt = check_real("delta", delta, "PrivateTable.group_by_count", low=0.0, high=1.0,
                         closed="neither")
        for c in cols:
            _col(self._frame, c)
        mask = self._mask(where)
        frame = self._frame if mask is None else self._frame.loc[mask]
        grouped = frame.groupby(cols, sort=True, dropna=True).size()
        label = f"group_by_count {', '.join(cols)}" + (f" where {where}" if where is not None else "")
        m = self.max_rows_per_unit
        meas, threshold, scale = _partition_selection(eps, dlt, m)
        remaining = self._charge(eps, dlt, label)
        as_str = {_key_str(k): int(v) for k, v in grouped.items()}
        originals = {_key_str(k): k for k in grouped.index}
        released = meas(as_str) if as_str else {}
        value = {originals[k]: int(v) for k, v in sorted(released.items())}
        return self._answer(value=value, epsilon=eps, delta=dlt, mechanism="laplace_threshold",
                            noise_scale=scale, budget_remaining=remaining, query=label,
                            details={"columns": cols, "keys": "private partition selection",
                                     "threshold": threshold})


def _key_str(key: Any) -> str:
    return "\x1f".join(map(str, key)) if isinstance(key, tuple) else str(key)


def _partition_selection(epsilon: float, delta: float, m: int) -> tuple[Any, int, float]:
    dp = opendp()
    dom = dp.map_domain(dp.atom_domain(T=str), dp.atom_domain(T="i64"))
    met = dp.l01inf_distance(dp.absolute_distance(T="i64"))
    d_in = (m, m, m)
    scale = m / epsilon

    def build(tau: int) -> Any:
        return dp.m.make_laplace_threshold(dom, met, scale=scale, threshold=tau)

    def ok(meas: Any) -> bool:
        e, d = meas.map(d_in)
        return e <= epsilon * (1 + 1e-9) and d <= delta

    for _ in range(64):  # widen the scale by ulps if OpenDP's epsilon rounds above the target
        if build(10**9).map(d_in)[0] <= epsilon * (1 + 1e-9):
            break
        scale = math.nextafter(scale, math.inf) * (1 + 1e-12)
    lo, hi = 1, 2
    while not ok(build(hi)):
        lo, hi = hi, hi * 2
        if hi > 2**40:  # pragma: no cover
            raise ParameterError("No partition-selection threshold meets this delta.")
    while lo < hi:
        mid = (lo + hi) // 2
        if ok(build(mid)):
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
