"""DP counts and sums of ``veil query`` on an engine's exact aggregates.

The engine computes the exact aggregate (its ``aggregate`` operation: the
number of rows and the clamped sum on the public fixed-point grid); the noise
is then drawn here, on one machine, exactly as :class:`veil.dp.PrivateTable`
draws it with each row its own privacy unit: the geometric mechanism with
sensitivity 1 for a count, the Laplace mechanism with sensitivity
``max(|lower|, |upper|)`` on the grid for a sum, each charged to the
accountant before its noise is drawn.  Per-unit contribution bounds
(``--privacy-unit``) and ``where`` filters are not run in an engine: they are
refused with a message.
"""

from __future__ import annotations

import os
from typing import Any

from veil.dp import (
    ContributionBounds,
    DPAnswer,
    GeometricMechanism,
    LaplaceMechanism,
    PrivacyAccountant,
    PrivacyBudget,
    ZCDPBudget,
)
from veil.dp._sensitivity import clamping_bounds, fixed_point_exponent
from veil.engines._protocol import Engine
from veil.errors import ParameterError

__all__ = ["engine_answer", "check_engine_query"]

#: The query kinds an engine answers.
ENGINE_QUERIES = ("count", "sum")


def _charge(accountant: PrivacyAccountant, epsilon: float, label: str) -> tuple[PrivacyBudget, float | None]:
    """Spend a pure-ε answer as :class:`~veil.dp.PrivateTable` does (ε²/2 under zCDP or a filter)."""
    if accountant.composition in ("zcdp", "filter"):
        cost = ZCDPBudget.from_pure_dp(epsilon)
        accountant.spend(cost, label=label)
        return accountant.remaining, cost.rho
    accountant.spend(PrivacyBudget(epsilon=epsilon, delta=0.0), label=label)
    return accountant.remaining, None


def check_engine_query(spec: Any, engine: str) -> None:
    """Refuse a query an engine does not answer (before any spend).

    Raises
    ------
    ParameterError
        Not a whole-table ``count`` or ``sum COLUMN``.
    """
    if spec.kind not in ENGINE_QUERIES or spec.where is not None:
        raise ParameterError(
            f"With --engine {engine}, veil query answers whole-table 'count' and 'sum COLUMN' only. "
            f"Got {spec.kind!r}{' with a where filter' if spec.where is not None else ''}; use --engine local."
        )


def engine_answer(engine: Engine, path: str | os.PathLike[str], spec: Any, *, accountant: PrivacyAccountant,
                  epsilon: float, lower: float | None = None, upper: float | None = None) -> DPAnswer:
    """The DP answer to a whole-table ``count`` or ``sum COLUMN`` (``spec`` from
    :func:`veil.dp.parse_query`), its exact aggregate computed by ``engine``.

    Raises
    ------
    ParameterError
        Another query kind, a ``where`` filter, or missing clamping bounds for a sum.
    """
    if not hasattr(engine, "aggregate"):
        raise ParameterError(f"The engine {engine.name!r} has no 'aggregate' operation; use local, duckdb or spark.")
    check_engine_query(spec, engine.name)
    bounds = ContributionBounds(max_rows_per_unit=1)
    if spec.kind == "count":
        mech = GeometricMechanism(epsilon=epsilon, sensitivity=1)
        exact = engine.aggregate(path, [], {})  # type: ignore[attr-defined]
        remaining, rho = _charge(accountant, mech.epsilon, "count")
        return DPAnswer(value=mech.release(int(exact["count"].iloc[0])), epsilon=mech.epsilon, delta=0.0,
                        mechanism="geometric", noise_scale=mech.scale, budget_remaining=remaining, query="count",
                        sensitivity=1, rho=rho, privacy_unit="row", contribution_bounds=bounds)
    column = spec.columns[0]
    lo, hi = clamping_bounds(lower, upper, "PrivateTable.sum")
    label = f"sum {column}"
    if max(abs(lo), abs(hi)) == 0.0:  # bounds [0, 0]: the constant 0 whatever the data
        remaining, rho = _charge(accountant, 0.0, label)
        return DPAnswer(value=0.0, epsilon=0.0, delta=0.0, mechanism="none", noise_scale=0.0,
                        budget_remaining=remaining, query=label, sensitivity=0.0, rho=rho,
                        privacy_unit="row", contribution_bounds=bounds)
    factor_exp = fixed_point_exponent(lo, hi)
    # the sensitivity of the grid sum, as clamped_fixed_point_sum states it for one row per unit
    q_bound = max(abs(round(lo * 2.0 ** factor_exp)), abs(round(hi * 2.0 ** factor_exp)))
    sens = q_bound * 2.0 ** -factor_exp
    exact = engine.aggregate(path, [], {column: (lo, hi)})  # type: ignore[attr-defined]
    mech = LaplaceMechanism(epsilon=epsilon, sensitivity=sens)
    remaining, rho = _charge(accountant, epsilon, label)
    return DPAnswer(value=mech.release(float(exact[column].iloc[0])), epsilon=epsilon, delta=0.0,
                    mechanism="laplace", noise_scale=mech.scale, budget_remaining=remaining, query=label,
                    details={"lower": lo, "upper": hi, "sensitivity": sens}, sensitivity=sens, rho=rho,
                    privacy_unit="row", contribution_bounds=bounds)
