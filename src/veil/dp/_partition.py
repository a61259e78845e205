"""Private partition selection: OpenDP's Laplace threshold, its threshold τ and scale."""

from __future__ import annotations

import functools
import json
import math
from typing import Any

from veil.dp._sampler import opendp
from veil.errors import ParameterError

__all__ = ["partition_selection", "key_str"]


def key_str(key: Any) -> str:
    """A key as the text OpenDP's selection takes: one value's text, or a tuple's values as a JSON
    list (no two tuples give one text, whatever characters their values hold)."""
    return json.dumps([str(part) for part in key]) if isinstance(key, tuple) else str(key)


@functools.lru_cache(maxsize=32)
def partition_selection(epsilon: float, delta: float,
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
