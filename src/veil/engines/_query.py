"""DP counts, sums and histograms of ``veil query`` on an engine's exact aggregates.

The engine computes the exact aggregate (its ``aggregate`` operation: the
number of rows, per group or in all, and the clamped sum on the public
fixed-point grid); the noise is then drawn here, on one machine, exactly as
:class:`veil.dp.PrivateTable` draws it with each row its own privacy unit,
each answer charged to the accountant before its noise is drawn:

* ``count``: the geometric mechanism, sensitivity 1;
* ``sum COLUMN``: the Laplace mechanism, sensitivity ``max(|lower|, |upper|)``
  on the grid;
* ``sum COLUMN by KEY`` with public ``categories`` (the keys of KEY): one noisy
  clamped sum per key (an absent one sums to 0; rows of other keys are not
  summed), the Laplace mechanism with L1 sensitivity ``max(|lower|, |upper|)``
  on the grid, one ε for all keys, as :meth:`veil.dp.PrivateTable.group_by_sum`
  (the noise and the answer's fields from :mod:`veil.dp._grouped_sum`);
* ``sum COLUMN by KEY`` without categories and with δ > 0: the engine's exact per-key
  counts select the keys (private partition selection with ε/2, δ) and the kept keys
  get a noisy sum (ε/2), as :meth:`veil.dp.PrivateTable.group_by_sum` with ``delta``:
  the same measurement, threshold τ and (ε, δ) charge (:func:`veil.dp._grouped_sum.selected_group_sums`);
* ``histogram COLUMN`` with public ``categories``: one noisy count per
  category (an absent one counts 0; values outside the categories are not
  counted), the geometric mechanism with L1 sensitivity 1, one ε for the
  whole histogram (parallel composition over the cells), as
  :meth:`veil.dp.PrivateTable.histogram`;
* ``histogram COLUMN, ...`` without categories: private partition selection
  (OpenDP's Laplace threshold, δ > 0), as
  :meth:`veil.dp.PrivateTable.group_by_count`: the same measurement, the same
  threshold τ, the same (ε, δ) charge.

A ``where`` filter runs in the engine (:mod:`veil.engines._filter`: SQL with bound
parameters, a Spark column, a pandas mask), with the typed rules of the in-memory
path; the answer's label ends with it, as in memory.  Per-unit contribution bounds
(``--privacy-unit``), means and quantiles are not run in an engine: they are
refused with a message, before any spend.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from typing import Any

import numpy as np

from veil._validation import check_real
from veil.dp import (
    ContributionBounds,
    DPAnswer,
    GeometricMechanism,
    LaplaceMechanism,
    PrivacyAccountant,
    PrivacyBudget,
    ZCDPBudget,
)
from veil.dp._grouped import category_codes
from veil.dp._grouped_sum import grid_bound, noisy_group_sums, public_keys, selected_group_sums
from veil.dp._mechanisms import check_epsilon
from veil.dp._partition import key_str, partition_selection
from veil.dp._predicate import Predicate
from veil.dp._sensitivity import clamping_bounds, missing_fill
from veil.engines._protocol import Engine
from veil.engines._source import COUNT_COLUMN
from veil.errors import ParameterError

__all__ = ["engine_answer", "check_engine_query"]

#: The query kinds an engine answers.
ENGINE_QUERIES = ("count", "sum", "histogram")
#: One row is one privacy unit: the bounds of every engine answer.
ROW_BOUNDS = ContributionBounds(max_rows_per_unit=1)


def _where_text(where: Predicate | None) -> str:
    """The label's tail for a filter, as :class:`~veil.dp.PrivateTable` writes it."""
    return f" where {where}" if where is not None else ""


def _charge(accountant: PrivacyAccountant, epsilon: float, label: str, *, delta: float = 0.0,
            zcdp_cost: ZCDPBudget | None = None) -> tuple[PrivacyBudget, float | None]:
    """Spend an answer as :class:`~veil.dp.PrivateTable` does: (ε, δ), or under zCDP or a filter
    ``zcdp_cost`` when given, else ε²/2 (δ-approximate)."""
    if accountant.composition in ("zcdp", "filter"):
        cost = zcdp_cost if zcdp_cost is not None else (
            ZCDPBudget(rho=epsilon * epsilon / 2.0, delta=delta) if delta else ZCDPBudget.from_pure_dp(epsilon))
        accountant.spend(cost, label=label)
        return accountant.remaining, cost.rho
    accountant.spend(PrivacyBudget(epsilon=epsilon, delta=delta), label=label)
    return accountant.remaining, None


def check_engine_query(spec: Any, engine: str, *, categories: Sequence[str] | None = None,
                       delta: float = 0.0) -> None:
    """Refuse a query an engine does not answer (before any spend).

    Raises
    ------
    ParameterError
        Not a ``count``, ``sum COLUMN [by KEY]`` or ``histogram``; a grouped sum
        without ``categories`` and without a ``delta`` > 0, or by its own column; ``categories``
        for a histogram of several columns; or a histogram without ``categories``
        and without a ``delta`` > 0.
    """
    if spec.kind not in ENGINE_QUERIES:
        raise ParameterError(
            f"With --engine {engine}, veil query answers 'count', 'sum COLUMN [by KEY]' and "
            f"'histogram COLUMN[, ...]' (with or without where) only. Got {spec.kind!r}; use --engine local."
        )
    if spec.kind == "sum" and getattr(spec, "by", ()):
        if not categories and delta <= 0:
            public_keys(None, spec.by[0], "A grouped sum")
        if spec.by[0] == spec.columns[0]:  # the engines' aggregate names its output columns after both
            raise ParameterError(f"With --engine {engine}, 'sum COL by KEY' needs a key column other than "
                                 f"the summed one (got {spec.columns[0]!r} twice); use --engine local.")
    if spec.kind != "histogram":
        return
    if categories and len(spec.columns) != 1:
        raise ParameterError("--categories applies to a one-column histogram.")
    if not categories and delta <= 0:
        raise ParameterError(
            "A histogram without --categories releases keys found in the data; give public keys "
            "with --categories or a --delta > 0 for private partition selection."
        )


def engine_answer(engine: Engine, path: str | os.PathLike[str], spec: Any, *, accountant: PrivacyAccountant,
                  epsilon: float, lower: float | None = None, upper: float | None = None,
                  categories: Sequence[str] | None = None, delta: float = 0.0,
                  missing_as: float | None = None) -> DPAnswer:
    """The DP answer to a whole-table ``count``, ``sum COLUMN [by KEY]`` or ``histogram COLUMN[, ...]``
    (``spec`` from :func:`veil.dp.parse_query`), its exact aggregate computed by ``engine``.

    Parameters
    ----------
    categories : sequence of str, optional
        The public keys of a one-column histogram or of ``sum COLUMN by KEY`` (matched to
        the column's text labels).  Without them a histogram or a grouped sum is a private
        partition selection and needs ``delta``.
    delta : float in (0, 1)
        δ of a histogram or grouped sum without ``categories``; unused otherwise.
    missing_as : float in [lower, upper], optional
        What a missing value (NaN included) of a summed column counts as; default ``lower``.

    Raises
    ------
    ParameterError
        Another query kind, missing clamping bounds for a
        sum, or a histogram or grouped sum with neither
        ``categories`` nor ``delta`` > 0.
    """
    if not hasattr(engine, "aggregate"):
        raise ParameterError(f"The engine {engine.name!r} has no 'aggregate' operation; use local, duckdb or spark.")
    check_engine_query(spec, engine.name, categories=categories, delta=delta)
    clamp = _clamp(lower, upper, missing_as) if spec.kind == "sum" else None
    if spec.kind == "histogram":
        if categories:
            return _public_histogram(engine, path, spec.columns[0], categories, accountant=accountant,
                                     epsilon=epsilon, where=spec.where)
        return _partition_selection(engine, path, list(spec.columns), accountant=accountant, epsilon=epsilon,
                                    delta=delta, where=spec.where)
    if spec.kind == "sum" and getattr(spec, "by", ()) and not categories:
        return _selected_group_sum(engine, path, spec.columns[0], spec.by[0], accountant=accountant, epsilon=epsilon,
                                   delta=delta, clamp=clamp, where=spec.where)
    if spec.kind == "sum" and getattr(spec, "by", ()):
        return _public_group_sum(engine, path, spec.columns[0], spec.by[0], categories or [], accountant=accountant,
                                 epsilon=epsilon, clamp=clamp, where=spec.where)
    return _whole_table(engine, path, spec, accountant=accountant, epsilon=epsilon, clamp=clamp)


def _clamp(lower: float | None, upper: float | None, missing_as: float | None) -> tuple[float, float, float]:
    """(lower, upper, missing_as) of a sum, checked before anything is read."""
    lo, hi = clamping_bounds(lower, upper, "PrivateTable.sum")
    return lo, hi, missing_fill(missing_as, lo, hi, "veil query")


def _whole_table(engine: Engine, path: str | os.PathLike[str], spec: Any, *, accountant: PrivacyAccountant,
                 epsilon: float, clamp: tuple[float, float, float] | None) -> DPAnswer:
    """A whole-table ``count`` (geometric, Δ = 1) or clamped ``sum COLUMN`` (Laplace, Δ = max(|L|, |U|))."""
    bounds = ROW_BOUNDS
    if spec.kind == "count":
        mech = GeometricMechanism(epsilon=epsilon, sensitivity=1)
        exact = engine.aggregate(path, [], {}, where=spec.where)  # type: ignore[attr-defined]
        label = "count" + _where_text(spec.where)
        remaining, rho = _charge(accountant, mech.epsilon, label)
        return DPAnswer(value=mech.release(int(exact["count"].iloc[0])), epsilon=mech.epsilon, delta=0.0,
                        mechanism="geometric", noise_scale=mech.scale, budget_remaining=remaining, query=label,
                        sensitivity=1, rho=rho, privacy_unit="row", contribution_bounds=bounds)
    column = spec.columns[0]
    assert clamp is not None
    lo, hi, fill = clamp
    label = f"sum {column}" + _where_text(spec.where)
    if max(abs(lo), abs(hi)) == 0.0:  # bounds [0, 0]: the constant 0 whatever the data
        remaining, rho = _charge(accountant, 0.0, label)
        return DPAnswer(value=0.0, epsilon=0.0, delta=0.0, mechanism="none", noise_scale=0.0,
                        budget_remaining=remaining, query=label, sensitivity=0.0, rho=rho,
                        privacy_unit="row", contribution_bounds=bounds, missing_as=fill)
    sens = grid_bound(lo, hi)  # the sensitivity of the grid sum, one row per unit
    exact = engine.aggregate(path, [], {column: clamp}, where=spec.where)  # type: ignore[attr-defined]
    mech = LaplaceMechanism(epsilon=epsilon, sensitivity=sens)
    remaining, rho = _charge(accountant, epsilon, label)
    return DPAnswer(value=mech.release(float(exact[column].iloc[0])), epsilon=epsilon, delta=0.0,
                    mechanism="laplace", noise_scale=mech.scale, budget_remaining=remaining, query=label,
                    details={"lower": lo, "upper": hi, "sensitivity": sens}, sensitivity=sens, rho=rho,
                    privacy_unit="row", contribution_bounds=bounds, missing_as=fill)


def _public_histogram(engine: Engine, path: str | os.PathLike[str], column: str, categories: Sequence[str], *,
                      accountant: PrivacyAccountant, epsilon: float, where: Predicate | None) -> DPAnswer:
    """A noisy count per public category (absent ones count 0, others are not counted), as
    :meth:`veil.dp.PrivateTable.histogram`: geometric noise, L1 sensitivity 1, one ε."""
    mech = GeometricMechanism(epsilon=epsilon, sensitivity=ROW_BOUNDS.l1_sensitivity)
    cats = list(dict.fromkeys(str(c) for c in categories))
    exact = engine.aggregate(path, [column], {}, where=where)  # type: ignore[attr-defined]
    # the engine's group labels are text; each maps to the category of the same text (or none)
    codes = category_codes(exact[column].astype(object), cats)
    inside = codes >= 0
    counts = np.bincount(codes[inside], weights=exact[COUNT_COLUMN].to_numpy()[inside],
                         minlength=len(cats)).astype(np.int64)
    label = f"histogram {column}" + _where_text(where)
    remaining, rho = _charge(accountant, mech.epsilon, label)
    noisy = np.asarray(mech.release(counts), dtype=np.int64)
    return DPAnswer(value=dict(zip(cats, (int(v) for v in noisy))), epsilon=mech.epsilon, delta=0.0,
                    mechanism="geometric", noise_scale=mech.scale, budget_remaining=remaining, query=label,
                    details={"columns": [column], "keys": "public", "sensitivity_norm": "l1"},
                    sensitivity=ROW_BOUNDS.l1_sensitivity, rho=rho, privacy_unit="row",
                    contribution_bounds=ROW_BOUNDS)


def _partition_selection(engine: Engine, path: str | os.PathLike[str], columns: list[str], *,
                         accountant: PrivacyAccountant, epsilon: float, delta: float,
                         where: Predicate | None) -> DPAnswer:
    """The groups of ``columns`` whose noisy count passes the threshold τ, as
    :meth:`veil.dp.PrivateTable.group_by_count` without keys (OpenDP's Laplace threshold;
    groups with a missing key are not counted)."""
    owner = "PrivateTable.group_by_count"
    eps = check_epsilon(epsilon, owner)
    dlt = check_real("delta", delta, owner, low=0.0, high=1.0, closed="neither")
    exact = engine.aggregate(path, columns, {}, where=where)  # type: ignore[attr-defined]
    exact = exact[exact[columns].notna().all(axis=1).to_numpy()]  # a missing key is no group (dropna)
    d_in = (ROW_BOUNDS.l0_sensitivity, ROW_BOUNDS.l1_sensitivity, ROW_BOUNDS.linf_sensitivity)
    meas, threshold, scale = partition_selection(eps, dlt, d_in)
    label = f"group_by_count {', '.join(columns)}" + _where_text(where)
    remaining, rho = _charge(accountant, eps, label, delta=dlt)
    keys = list(exact[columns].itertuples(index=False, name=None)) if len(columns) > 1 else list(exact[columns[0]])
    originals = {key_str(k): k for k in keys}
    counts = {key_str(k): int(n) for k, n in zip(keys, exact[COUNT_COLUMN].tolist())}
    released = meas(counts) if counts else {}
    value = {originals[k]: int(v) for k, v in sorted(released.items())}
    return DPAnswer(value=value, epsilon=eps, delta=dlt, mechanism="laplace_threshold", noise_scale=scale,
                    budget_remaining=remaining, query=label, sensitivity=ROW_BOUNDS.l1_sensitivity, rho=rho,
                    details={"columns": columns, "keys": "private partition selection", "sensitivity_norm": "l1",
                             "threshold": threshold}, privacy_unit="row", contribution_bounds=ROW_BOUNDS)


def _public_group_sum(engine: Engine, path: str | os.PathLike[str], column: str, by: str, categories: Sequence[str],
                      *, accountant: PrivacyAccountant, epsilon: float, clamp: Any,
                      where: Predicate | None) -> DPAnswer:
    """A noisy clamped grid sum per public key of ``by`` (absent keys 0, other keys not summed), as
    :meth:`veil.dp.PrivateTable.group_by_sum` with one row per unit: Laplace, Δ = max(|L|, |U|), one ε."""
    owner = "PrivateTable.group_by_sum"
    eps = check_epsilon(epsilon, owner)
    keys = public_keys([str(c) for c in categories] or None, by, owner)
    lo, hi, fill = clamp
    exact = engine.aggregate(path, [by], {column: clamp}, where=where)  # type: ignore[attr-defined]
    # the engine's group labels are text; each maps to the key of the same text (or none); one label per key
    codes = category_codes(exact[by].astype(object), keys)
    inside = codes >= 0
    sums = np.zeros(len(keys))
    sums[codes[inside]] = exact[column].to_numpy(dtype=float)[inside]
    label = f"sum {column} by {by}" + _where_text(where)
    fields = noisy_group_sums(keys, sums, epsilon=eps, l1_rows=ROW_BOUNDS.l1_sensitivity, lower=lo, upper=hi,
                              by=by, charge=lambda e: _charge(accountant, e, label))
    return DPAnswer(query=label, privacy_unit="row", contribution_bounds=ROW_BOUNDS, missing_as=fill, **fields)


def _selected_group_sum(engine: Engine, path: str | os.PathLike[str], column: str, by: str, *,
                        accountant: PrivacyAccountant, epsilon: float, delta: float, clamp: Any,
                        where: Predicate | None) -> DPAnswer:
    """The keys of ``by`` selected privately from the engine's exact per-key counts, each kept key's clamped
    grid sum with Laplace noise, as :meth:`veil.dp.PrivateTable.group_by_sum` with ``delta`` (one row per unit;
    a missing key is no group)."""
    owner = "PrivateTable.group_by_sum"
    eps = check_epsilon(epsilon, owner)
    dlt = check_real("delta", delta, owner, low=0.0, high=1.0, closed="neither")
    lo, hi, fill = clamp
    exact = engine.aggregate(path, [by], {column: clamp}, where=where)  # type: ignore[attr-defined]
    exact = exact[exact[by].notna().to_numpy()]  # a missing key is no group (dropna)
    label = f"sum {column} by {by}" + _where_text(where)
    fields = selected_group_sums(list(exact[by]), exact[COUNT_COLUMN].to_numpy(dtype=np.int64),
                                 exact[column].to_numpy(dtype=float), epsilon=eps, delta=dlt, bounds=ROW_BOUNDS,
                                 lower=lo, upper=hi, by=by,
                                 charge=lambda e, d, z: _charge(accountant, e, label, delta=d, zcdp_cost=z))
    return DPAnswer(query=label, privacy_unit="row", contribution_bounds=ROW_BOUNDS, missing_as=fill, **fields)
