"""Grouped sums: the exact per-key sums on the public grid, and their noise, with public keys
or with keys selected privately from the data.

Shared by :meth:`veil.dp.PrivateTable.group_by_sum` (in memory) and ``veil query
--engine`` (:mod:`veil.engines._query`, where the engine computes the exact per-group
counts and grid sums), so that both paths release the same measurement.

The sensitivity
---------------
Each value is clamped to the public [L, U] and rounded to the public grid
:math:`2^{-k}` (:func:`~veil.dp.fixed_point_exponent`), so one row moves the sum of
its own group by at most :math:`B = \\max(|L|, |U|)` on the grid.  A row lies in
one group, and after the contribution bounds one unit keeps at most
:math:`\\Delta_1 = \\min(m, L_0 L_\\infty)` rows in the listed groups
(:attr:`ContributionBounds.l1_sensitivity`, the L1 sensitivity of a histogram), so
the vector of per-key sums moves by at most :math:`\\Delta_1 B` in L1 norm.  Laplace
noise of scale :math:`\\Delta_1 B/\\varepsilon` on every key is therefore ε-DP for
the whole vector: one ε, not one per key (with one row per unit,
:math:`\\Delta_1 = 1`: parallel composition over the disjoint groups).

References
----------
Dwork, C., McSherry, F., Nissim, K. & Smith, A. (2006). Calibrating noise to
sensitivity in private data analysis. TCC.  (The Laplace mechanism, L1 sensitivity.)
Wilson, R. J. et al. (2020). Differentially private SQL with bounded user
contribution. PoPETs.  (Per-partition sums under L0/L∞ contribution bounds; keys
selected by a threshold on noisy per-key counts.)
Korolova, A., Kenthapadi, K., Mishra, N. & Ntoulas, A. (2009). Releasing search
queries and clicks privately. WWW.  (Thresholding noisy counts to release keys.)

Keys found in the data: private partition selection
---------------------------------------------------
Without public keys (:func:`selected_group_sums`), the keys present in the bounded
rows are themselves private.  veil splits the ε of the answer in two halves:

1. **selection**, (ε/2, δ): the per-key row counts (after the contribution bounds)
   go through the partition selection of :meth:`PrivateTable.group_by_count`
   (OpenDP's ``make_laplace_threshold``, discrete Laplace noise of scale
   :math:`\\Delta_1/(\\varepsilon/2)`, the threshold τ of :mod:`veil.dp._grouped` for
   ε/2 and δ); a key is kept iff its noisy count reaches τ;
2. **sums**, (ε/2, 0): Laplace noise of scale :math:`\\Delta_1 B/(\\varepsilon/2)` on the
   sum of each kept key.

The keys' noisy counts are not released (only the keys and their sums).  Both steps
read the same bounded rows, so a unit moves the count vector by at most
:math:`\\Delta_1` (L1) and the sum vector by at most :math:`\\Delta_1 B`; the sums of
the kept keys are the Laplace mechanism on the sums of every possible key (absent ones
0) restricted to the selected ones, so by adaptive composition the answer is
(ε, δ)-DP, charged once as (ε, δ), or under zCDP as δ-approximate
:math:`(\\varepsilon/2)^2/2 + (\\varepsilon/2)^2/2 = \\varepsilon^2/4`-zCDP.  With bounds
[0, 0] the sums are the constant 0: only the selection's (ε/2, δ) is charged.
"""

from __future__ import annotations

import math
from typing import Any, Callable, Sequence

import numpy as np

from veil.dp._bounds import ContributionBounds
from veil.dp._budget import ZCDPBudget
from veil.dp._mechanisms import LaplaceMechanism
from veil.dp._partition import key_str, partition_selection
from veil.dp._sensitivity import fixed_point_exponent, missing_fill
from veil.errors import ParameterError

__all__ = ["grid_bound", "grouped_grid_sums", "noisy_group_sums", "public_keys", "selected_group_sums"]


def public_keys(categories: Sequence[Any] | None, by: str, owner: str) -> list[Any]:
    """The listed keys of a grouped sum, deduplicated in order; refused when absent or empty."""
    if categories is None:
        raise ParameterError(
            f"{owner} needs the groups of {by!r} listed as public keys ('categories'; "
            "--categories in veil query) or a 'delta' in (0, 1) to select the groups found in "
            "the data privately (--delta in veil query); nothing was spent."
        )
    keys = list(dict.fromkeys(categories))
    if not keys:
        raise ParameterError(f"The categories of column {by!r} must not be empty.")
    return keys


def grid_bound(lower: float, upper: float) -> float:
    """:math:`\\max(|L|, |U|)` on the public grid: what one clamped row adds to a sum at most.

    Examples
    --------
    >>> grid_bound(-5.0, 3.0), grid_bound(0.0, 0.1) == round(0.1 * 2**33) / 2**33
    (5.0, True)
    """
    k = fixed_point_exponent(lower, upper)
    factor = math.ldexp(1.0, k)
    return math.ldexp(float(max(abs(round(lower * factor)), abs(round(upper * factor)))), -k)


def grouped_grid_sums(values: np.ndarray, codes: np.ndarray, n_groups: int, lower: float,
                      upper: float, missing_as: float | None = None) -> np.ndarray:
    """Per group, the sum of ``values`` clamped to [lower, upper], exact on the public grid.

    The same arithmetic as :func:`~veil.dp.clamped_fixed_point_sum` (a missing value
    counts as ``missing_as``, by default ``lower``; each value rounded half to even to :math:`2^{-k}` grid
    steps, summed in int64), per group: ``codes`` holds each row's group in
    ``[0, n_groups)``, -1 for a row not counted.
    """
    if max(abs(lower), abs(upper)) == 0.0:
        return np.zeros(n_groups)
    counted = codes >= 0
    if np.count_nonzero(counted) > 2**32:
        raise ParameterError("A clamped sum handles at most 2**32 rows.")
    fill = missing_fill(missing_as, lower, upper, "grouped_grid_sums")
    clipped = np.clip(np.where(np.isnan(values[counted]), fill, values[counted]), lower, upper)
    k = fixed_point_exponent(lower, upper)
    steps = np.rint(clipped * math.ldexp(1.0, k)).astype(np.int64)
    totals = np.zeros(n_groups, dtype=np.int64)
    np.add.at(totals, codes[counted], steps)
    return np.ldexp(totals.astype(float), -k)


def noisy_group_sums(keys: list[Any], sums: np.ndarray, *, epsilon: float, l1_rows: int,
                     lower: float, upper: float, by: str,
                     charge: Callable[[float], tuple[Any, float | None]]) -> dict[str, Any]:
    """The fields of the answer: Laplace noise of scale :math:`\\Delta_1 B/\\varepsilon` on each key.

    ``charge(epsilon)`` spends the answer and returns the remaining budget and the ρ
    charged; it runs once, before any noise is drawn.  Bounds [0, 0] make every sum the
    constant 0: nothing is spent and no noise is drawn (as :meth:`PrivateTable.sum`).
    """
    sens = l1_rows * grid_bound(lower, upper)
    details = {"columns": [by], "keys": "public", "sensitivity_norm": "l1",
               "lower": lower, "upper": upper}
    if sens == 0.0:
        remaining, rho = charge(0.0)
        return dict(value={k: 0.0 for k in keys}, epsilon=0.0, delta=0.0, mechanism="none",
                    noise_scale=0.0, budget_remaining=remaining, sensitivity=0.0, rho=rho,
                    details=details)
    mech = LaplaceMechanism(epsilon=epsilon, sensitivity=sens)
    remaining, rho = charge(epsilon)
    noisy = np.asarray(mech.release(np.asarray(sums, dtype=float)), dtype=float)
    return dict(value=dict(zip(keys, (float(v) for v in noisy))), epsilon=epsilon, delta=0.0,
                mechanism="laplace", noise_scale=mech.scale, budget_remaining=remaining,
                sensitivity=sens, rho=rho, details=details)


def selected_group_sums(keys: Sequence[Any], counts: np.ndarray, sums: np.ndarray, *, epsilon: float,
                        delta: float, bounds: ContributionBounds, lower: float, upper: float, by: str,
                        charge: Callable[[float, float, ZCDPBudget], tuple[Any, float | None]]
                        ) -> dict[str, Any]:
    """The fields of a grouped sum whose keys are selected privately (module notes: the ε split).

    ``keys`` are the groups present in the bounded rows, ``counts`` their row counts (> 0)
    and ``sums`` their exact grid sums, all after the contribution ``bounds``.
    ``charge(epsilon, delta, zcdp_cost)`` spends the whole answer once and returns the
    remaining budget and the ρ charged; it runs before the selection's or the sums' noise
    is drawn.  The value holds the kept keys, ordered by their text as a histogram's.
    """
    half = epsilon / 2.0
    d_in = (bounds.l0_sensitivity, bounds.l1_sensitivity, bounds.linf_sensitivity)
    meas, threshold, selection_scale = partition_selection(half, delta, d_in)
    sens = bounds.l1_sensitivity * grid_bound(lower, upper)
    mech = LaplaceMechanism(epsilon=half, sensitivity=sens) if sens > 0.0 else None
    spent = epsilon if mech is not None else half  # bounds [0, 0]: the sums are the constant 0
    remaining, rho = charge(spent, delta, ZCDPBudget(rho=(spent - half) ** 2 / 2 + half * half / 2,
                                                     delta=delta))
    index = {key_str(k): i for i, k in enumerate(keys)}
    released = meas({name: int(counts[i]) for name, i in index.items()}) if index else {}
    kept = np.array([index[name] for name in sorted(released)], dtype=np.int64)
    exact = np.asarray(sums, dtype=float)[kept]
    noisy = np.asarray(mech.release(exact), dtype=float) if mech is not None and kept.size else exact * 0.0
    details = {"columns": [by], "keys": "private partition selection", "sensitivity_norm": "l1",
               "lower": lower, "upper": upper, "threshold": threshold, "selection_epsilon": half,
               "selection_noise_scale": selection_scale, "selection_sensitivity": bounds.l1_sensitivity,
               "sum_epsilon": spent - half}
    return dict(value={keys[i]: float(v) for i, v in zip(kept, noisy)}, epsilon=spent, delta=delta,
                mechanism="laplace_threshold+laplace" if mech is not None else "laplace_threshold",
                noise_scale=mech.scale if mech is not None else 0.0, budget_remaining=remaining,
                sensitivity=sens, rho=rho, details=details)
