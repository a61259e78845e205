"""Grouped private queries of :class:`~veil.dp.PrivateTable`: histograms, contingency
tables, group-by counts and group-by sums, with public keys or private partition selection.

The partition-selection threshold
---------------------------------
For :meth:`PrivateTable.group_by_count` without public keys:
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

from __future__ import annotations

from typing import Any, Mapping, Sequence

import numpy as np
import pandas as pd

from veil._validation import check_choice, check_real
from veil.dp._answer import DPAnswer
from veil.dp._budget import ZCDPBudget
from veil.dp._columns import is_number_column, number_values, text_labels
from veil.dp._grouped_sum import grouped_grid_sums, noisy_group_sums, public_keys, selected_group_sums
from veil.dp._mechanisms import GaussianMechanism, check_epsilon
from veil.dp._partition import key_str, partition_selection
from veil.dp._predicate import Predicate
from veil.dp._sensitivity import clamping_bounds, missing_fill
from veil.errors import ColumnNotFoundError, ParameterError

__all__ = ["GroupedQueries", "column_of", "category_codes"]


class GroupedQueries:
    """The grouped queries of :class:`~veil.dp.PrivateTable` (a mixin over its state)."""

    def _release_counts(self, counts: np.ndarray, *, epsilon: float, delta: float | None,
                        mechanism: str, label: str, owner: str) -> tuple[np.ndarray, dict]:
        """Add noise calibrated to the per-group bounds; charge; return noisy ints and fields."""
        check_choice("mechanism", mechanism, owner, ("geometric", "gaussian"))
        eps = check_epsilon(epsilon, owner)
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
            eps, dlt, label, ZCDPBudget(rho=gauss.rho))
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
        check_epsilon(epsilon, owner)
        mask = self._mask(where)
        codes, shape, cats = [], [], []
        for c in cols:
            series = column_of(self._frame, c)
            if categories is None or c not in categories:
                raise ParameterError(
                    f"The categories of column {c!r} must be given (public keys); keys read from "
                    "the data are themselves private. Use group_by_count(..., delta=...) for "
                    "private partition selection."
                )
            cat = list(dict.fromkeys(categories[c]))
            if not cat:
                raise ParameterError(f"The categories of column {c!r} must not be empty.")
            codes.append(category_codes(series, cat))
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
        check_epsilon(epsilon, owner)
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

    def _bounded_group_codes(self, cols: list[str], where: str | Predicate | None) -> tuple[Any, np.ndarray]:
        """The groups of ``cols`` in the data, and each row's group after the per-unit bounds (-1: not counted)."""
        for c in cols:
            column_of(self._frame, c)
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
        return index, np.where(keep, codes, -1)

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
        The threshold τ and why it is δ-safe are derived in the module docstring
        ("The partition-selection threshold").
        """
        owner = "PrivateTable.group_by_count"
        cols = [by] if isinstance(by, str) else list(by)
        if keys is not None:
            return self._contingency(cols, categories=keys, epsilon=epsilon, where=where,
                                     mechanism=mechanism,
                                     delta=delta if mechanism == "gaussian" else None, owner=owner)
        eps, dlt = _check_selection(owner, epsilon, mechanism, delta)
        index, codes = self._bounded_group_codes(cols, where)
        counts = np.bincount(codes[codes >= 0], minlength=len(index)).astype(np.int64)
        present = np.flatnonzero(counts > 0)  # a group emptied by the bounds is not in the data
        label = f"group_by_count {', '.join(cols)}" + (f" where {where}" if where is not None else "")
        bounds = self.contribution_bounds
        d_in = (bounds.l0_sensitivity, bounds.l1_sensitivity, bounds.linf_sensitivity)
        meas, threshold, scale = partition_selection(eps, dlt, d_in)
        remaining, rho = self._charge(eps, dlt, label,
                                      ZCDPBudget(rho=eps * eps / 2.0, delta=dlt))
        originals = {key_str(index[i]): index[i] for i in present}
        as_str = {key_str(index[i]): int(counts[i]) for i in present}
        released = meas(as_str) if as_str else {}
        value = {originals[k]: int(v) for k, v in sorted(released.items())}
        return self._answer(value=value, epsilon=eps, delta=dlt, mechanism="laplace_threshold",
                            noise_scale=scale, budget_remaining=remaining, query=label,
                            sensitivity=bounds.l1_sensitivity, rho=rho,
                            details={"columns": cols, "keys": "private partition selection",
                                     "sensitivity_norm": "l1", "threshold": threshold})


    def group_by_sum(self, column: str, by: str, *, categories: Sequence[Any] | None = None,
                     lower: float | None = None, upper: float | None = None, epsilon: float,
                     delta: float | None = None, where: str | Predicate | None = None,
                     missing_as: float | None = None) -> DPAnswer:
        """Noisy sum of ``column`` clamped to [lower, upper] per key of ``by``: public keys, or
        keys found in the data by private partition selection.

        Each unit is bounded first as in :meth:`contingency_table`.  With ``categories`` each listed
        key gets its rows' clamped sum on the public grid of :meth:`sum` plus Laplace noise (an absent
        key a noisy 0; rows of unlisted keys are not summed): (ε, 0).  With ``delta`` instead, the keys
        present are selected as in :meth:`group_by_count` with ε/2 and only the kept keys get a noisy
        sum, with ε/2: (ε, δ), charged once.

        Parameters
        ----------
        categories : sequence, optional
            The public keys of ``by``.  Without them and ``delta``: ParameterError, nothing spent.
        lower, upper, missing_as : float
            Public clamping bounds; a missing value counts as ``missing_as`` (default ``lower``).
        epsilon : float in [1e-9, 1e4]
            The whole answer's ε (split in two halves without ``categories``).
        delta : float in (0, 1), optional
            Only without ``categories``: the δ of the key selection.

        Notes
        -----
        One row moves its key's sum by at most :math:`B = \\max(|L|, |U|)` on the grid; one unit keeps at
        most :math:`\\Delta_1 = \\min(m, L_0 L_\\infty)` rows in the keys (:attr:`ContributionBounds.l1_sensitivity`):
        L1 sensitivity :math:`\\Delta_1 B`, noise scale :math:`\\Delta_1 B/\\varepsilon` on every key (one row per
        unit: :math:`\\Delta_1 = 1`, parallel composition); :math:`2\\Delta_1 B/\\varepsilon` on the kept keys of a
        selection, whose τ is :meth:`group_by_count`'s at ε/2 (``details["threshold"]``).
        Derivation, ε split, references (Wilson et al. 2020): :mod:`veil.dp._grouped_sum`.

        Examples
        --------
        >>> from veil.dp import PrivacyAccountant, PrivacyBudget, PrivateTable
        >>> people = pd.DataFrame({"sex": ["F", "M", "F"], "income": [10, 20, 30]})
        >>> t = PrivateTable(people, accountant=PrivacyAccountant(budget=PrivacyBudget(epsilon=2, delta=1e-6)))
        >>> ans = t.group_by_sum("income", "sex", categories=["F", "M", "X"], lower=0,
        ...                      upper=100, epsilon=0.5)
        >>> sorted(ans.value), ans.sensitivity, ans.noise_scale
        (['F', 'M', 'X'], 100.0, 200.0)
        >>> found = t.group_by_sum("income", "sex", lower=0, upper=100, epsilon=1, delta=1e-6)
        >>> # one row per unit, ε/2 = 0.5: b = 2, τ = 1 + ⌈2 ln(1/((1 + e^-0.5) 1e-6))⌉ = 1 + ⌈26.68⌉
        >>> found.noise_scale, found.details["threshold"], found.delta
        (200.0, 28, 1e-06)
        """
        owner = "PrivateTable.group_by_sum"
        eps = check_epsilon(epsilon, owner)
        lo, hi = clamping_bounds(lower, upper, owner)
        clamp = (lo, hi, missing_fill(missing_as, lo, hi, owner))
        if categories is None and delta is not None:
            dlt = check_real("delta", delta, owner, low=0.0, high=1.0, closed="neither")
            return self._selected_group_sum(column, by, clamp, epsilon=eps, delta=dlt, where=where)
        keys = public_keys(categories, by, owner)
        if delta is not None:
            raise ParameterError(f"The 'delta' parameter of {owner} is only used without 'categories' (private "
                                 "selection of the keys); sums over public keys cost (epsilon, 0). "
                                 f"Got {delta!r} instead.")
        return self._public_group_sum(column, by, keys, clamp, epsilon=eps, where=where)

    def _public_group_sum(self, column: str, by: str, keys: list[Any], clamp: tuple[float, float, float], *,
                          epsilon: float, where: str | Predicate | None) -> DPAnswer:
        """:meth:`group_by_sum` over public keys (:func:`noisy_group_sums`); ``clamp`` is (lower, upper,
        missing_as)."""
        lo, hi, fill = clamp
        values = self._numeric(column, None)
        codes = category_codes(column_of(self._frame, by), keys)
        mask = self._mask(where)
        if mask is not None:
            codes[~mask] = -1
        keep = self._bounded(codes, pd.DataFrame({"cell": codes[codes >= 0]}))
        sums = grouped_grid_sums(values, np.where(keep, codes, -1), len(keys), lo, hi, fill)
        label = f"sum {column} by {by}" + (f" where {where}" if where is not None else "")
        fields = noisy_group_sums(keys, sums, epsilon=epsilon, l1_rows=self.contribution_bounds.l1_sensitivity,
                                  lower=lo, upper=hi, by=by,
                                  charge=lambda e: self._charge(e, 0.0, label))
        return self._answer(query=label, missing_as=fill, **fields)

    def _selected_group_sum(self, column: str, by: str, clamp: tuple[float, float, float], *,
                            epsilon: float, delta: float, where: str | Predicate | None) -> DPAnswer:
        """:meth:`group_by_sum` without public keys (:func:`selected_group_sums`)."""
        lo, hi, fill = clamp
        values = self._numeric(column, None)
        index, codes = self._bounded_group_codes([by], where)
        counts = np.bincount(codes[codes >= 0], minlength=len(index)).astype(np.int64)
        present = np.flatnonzero(counts > 0)  # a group emptied by the bounds or filter is not in the data
        sums = grouped_grid_sums(values, codes, len(index), lo, hi, fill)
        label = f"sum {column} by {by}" + (f" where {where}" if where is not None else "")
        fields = selected_group_sums([index[i] for i in present], counts[present], sums[present],
                                     epsilon=epsilon, delta=delta, bounds=self.contribution_bounds,
                                     lower=lo, upper=hi, by=by,
                                     charge=lambda e, d, z: self._charge(e, d, label, z))
        return self._answer(query=label, missing_as=fill, **fields)


def _check_selection(owner: str, epsilon: float, mechanism: str, delta: float | None) -> tuple[float, float]:
    """ε and δ of a private partition selection (geometric mechanism only, δ required)."""
    eps = check_epsilon(epsilon, owner)
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
    return eps, check_real("delta", delta, owner, low=0.0, high=1.0, closed="neither")


def column_of(frame: pd.DataFrame, name: str) -> pd.Series:
    if name not in frame.columns:
        raise ColumnNotFoundError(
            f"The column {name!r} is not in the table; available columns: "
            f"{', '.join(map(str, frame.columns))}."
        )
    return frame[name]


def category_codes(series: pd.Series, categories: list[Any]) -> np.ndarray:
    """Integer code of each value in ``categories`` (-1 when absent), vectorised.

    A number column (ints, floats, decimals) matches its values with the categories as
    numbers; any other column (text, bools, dates) also matches its text labels, as the
    engines read them (:func:`~veil.dp._columns.text_labels`), with each category's
    text: a bool column's ``True`` is the key ``'True'``, a date the key ``'2020-01-31'``.
    """
    if is_number_column(series):
        values = series if pd.api.types.is_numeric_dtype(series) else pd.Series(number_values(series))
        return pd.Index(categories).get_indexer(values).astype(np.int64)
    codes = np.full(len(series), -1, dtype=np.int64)
    if pd.api.types.is_string_dtype(series):  # text (an object column of text: not bools)
        # the values themselves first (a Python API's object keys); the labels for the rest
        codes = pd.Index(categories).get_indexer(series).astype(np.int64)
    if (codes < 0).any():
        first: dict[str, int] = {}
        for i, c in enumerate(categories):
            first.setdefault(str(c), i)  # two categories of one text: the first one's code
        positions = np.fromiter(first.values(), dtype=np.int64, count=len(first))
        found = pd.Index(list(first)).get_indexer(text_labels(series).astype(object))
        alt = np.where(found >= 0, positions[found], -1)
        codes = np.where(codes >= 0, codes, alt)
    return codes
