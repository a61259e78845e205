"""The singling-out attack (Anonymeter; Cohen & Nissim 2020; Article 29 WP216).

The attacker reads the release and writes predicates that isolate exactly one
released record:

* *univariate*: one column, a value seen once in the release (``col == v``),
  the smallest or largest number (``col <= min``, ``col >= max``), or the only
  missing value;
* *multivariate*: a released record's values on ``n_cols`` random columns,
  each an equality (categorical) or a half line through the value, away from
  the median (numeric); ``n_attacks`` of them drawn uniformly among those that
  isolate a record, every candidate counted on the class tables
  (:mod:`veil.evaluate._candidates`) or, past a bound known beforehand, drawn
  in batches.

A predicate succeeds when it also isolates exactly one record of the original
(a generalized label matches every value it covers).  The same predicates are
counted on the control; as the control is smaller, its count is rescaled to the
original's size with the model of Cohen & Nissim, fitted on sub-samples of the
control, as Anonymeter does.  The baseline draws random predicates (random
columns, values and operators).  Each table is taken without repeated records.
"""

from __future__ import annotations

from collections.abc import Sequence
from math import comb

import numpy as np
import pandas as pd

from veil.evaluate._candidates import draw_singling_out, enumerable, record_predicates
from veil.evaluate._columns import Tables
from veil.evaluate._group_counts import Counter, counts as match_counts
from veil.evaluate._predicates import EQ, GE, ISNULL, LE, NE, NOTNULL, Predicates, sample_counts
from veil.evaluate._rates import AttackResult, attack_result

__all__ = ["singling_out", "distinct_rows", "draw_in_batches", "release_medians", "univariate_predicates",
           "singling_out_probability_integral"]

_BATCH = 1000
#: The most draws per candidate (distinct released record × set of columns) when drawing in batches.
DRAWS_PER_CANDIDATE = 32


def distinct_rows(tables: Tables, side: str, names: Sequence[str]) -> np.ndarray:
    """Positions of the first occurrence of each distinct record of ``side`` over ``names``."""
    frame = pd.DataFrame({n: getattr(tables, side)[n] for n in names})
    return np.flatnonzero(~frame.duplicated().to_numpy())


def _one(names: Sequence[str], column: np.ndarray, op: np.ndarray, code: np.ndarray, value: np.ndarray) -> Predicates:
    return Predicates(tuple(names), column[:, None], op[:, None], code[:, None], value[:, None])


def _numeric_univariate(x: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """A numeric column's univariate predicates (operators, values) and which single out a record.

    A value seen once and the only missing value single out by construction; ``<= min`` and
    ``>= max`` when the smallest or largest number is seen once.
    """
    finite = x[~np.isnan(x)]
    values, counts = np.unique(finite, return_counts=True)
    rare = values[counts == 1]
    ops, vals, single = [np.full(len(rare), EQ)], [rare], [np.ones(len(rare), dtype=np.bool_)]
    if len(finite):
        ops += [np.array([LE, GE])]
        vals += [np.array([finite.min(), finite.max()])]
        single += [np.array([counts[0] == 1, counts[-1] == 1])]
    if np.isnan(x).sum() == 1:
        ops += [np.array([ISNULL])]
        vals += [np.array([np.nan])]
        single += [np.ones(1, dtype=np.bool_)]
    return np.concatenate(ops), np.concatenate(vals), np.concatenate(single)


def univariate_predicates(tables: Tables, names: Sequence[str], rows: np.ndarray, n: int,
                          rng: np.random.Generator) -> Predicates:
    """The univariate predicates that single out a distinct released record (``rows``), at most ``n``
    in a random order; whether each singles out is read from the value counts of its column."""
    parts, singles = [], []
    for c, name in enumerate(names):  # one vectorised pass per column
        x = tables.release[name][rows]
        if tables.columns[name].numeric:
            op, val, single = _numeric_univariate(x)
            parts.append(_one(names, np.full(len(op), c), op, np.full(len(op), -1), val))
        else:
            labels, counts = np.unique(x, return_counts=True)
            rare = labels[counts == 1]
            parts.append(_one(names, np.full(len(rare), c), np.full(len(rare), EQ), rare, np.full(len(rare), np.nan)))
            single = np.ones(len(rare), dtype=np.bool_)
        singles.append(single)
    order = rng.permutation(sum(len(p) for p in parts))
    queries = Predicates.concat(parts).subset(order)
    return queries.subset(np.flatnonzero(np.concatenate(singles)[order])[:n])


def _record_queries(tables: Tables, names: Sequence[str], rows: np.ndarray, n_cols: int,
                    rng: np.random.Generator, medians: np.ndarray) -> Predicates:
    """``_BATCH`` predicates from random released records, ``n_cols`` random columns each."""
    picks = rows[rng.integers(0, len(rows), _BATCH)]
    column = np.argsort(rng.random((_BATCH, len(names))), axis=1)[:, :n_cols]
    return record_predicates(tables, names, picks, column, medians)


def release_medians(tables: Tables, names: Sequence[str], rows: np.ndarray) -> np.ndarray:
    """The median of each numeric column over the released records ``rows`` (NaN for the others)."""
    return np.array([np.nanmedian(tables.release[name][rows]) if tables.columns[name].numeric
                     and not np.all(np.isnan(tables.release[name][rows])) else np.nan for name in names])


def draw_in_batches(tables: Tables, names: Sequence[str], rows: np.ndarray, n: int, n_cols: int,
                    rng: np.random.Generator, max_attempts: int, medians: np.ndarray) -> Predicates:
    """Candidates drawn in batches of 1,000 until ``n`` distinct ones single out a released record
    or ``max_attempts`` were drawn, and never more than :data:`DRAWS_PER_CANDIDATE` times the
    candidates there are (past it, a candidate is still undrawn with probability ``e^-32``)."""
    max_attempts = min(max_attempts, DRAWS_PER_CANDIDATE * len(rows) * comb(len(names), n_cols))
    found: list[Predicates] = []
    seen: set[str] = set()
    total = attempts = 0
    count = Counter(tables, "release", rows)
    while total < n and attempts < max_attempts:
        batch = _record_queries(tables, names, rows, n_cols, rng, medians)
        attempts += _BATCH
        batch = batch.subset(np.flatnonzero(count(batch) == 1))
        keys = batch.keys()
        _, first = np.unique(keys, return_index=True)
        candidates = np.sort(first)
        fresh = candidates[~pd.Series(keys[candidates], dtype=object).isin(seen).to_numpy()][: n - total]
        seen.update(keys[fresh])
        found.append(batch.subset(fresh))
        total += len(fresh)
    return Predicates.concat(found) if found else _one(names, *(np.zeros(0, np.int64),) * 3, np.zeros(0))


def _multivariate(tables: Tables, names: Sequence[str], rows: np.ndarray, n: int, n_cols: int,
                  rng: np.random.Generator, max_attempts: int) -> Predicates:
    """``n`` distinct predicates that single out a released record (all of them when fewer).

    When the candidates are few enough (:func:`veil.evaluate._candidates.enumerable`: a bound
    known before any work), every one is counted at once on the class tables and ``n`` of those
    that single out are drawn; otherwise candidates are drawn in batches.  Both give a uniform
    random sample of the candidates that single out.
    """
    medians = release_medians(tables, names, rows)
    if enumerable(tables, names, len(rows), n_cols):
        return draw_singling_out(tables, names, rows, n, n_cols, rng, medians)
    return draw_in_batches(tables, names, rows, n, n_cols, rng, max_attempts, medians)


def _random_queries(tables: Tables, names: Sequence[str], rows: np.ndarray, n: int, n_cols: int,
                    rng: np.random.Generator) -> Predicates:
    """The baseline: ``n`` predicates on random columns with random released values and operators."""
    column = np.argsort(rng.random((n, len(names))), axis=1)[:, :n_cols]
    op = np.zeros(column.shape, dtype=np.int64)
    code = np.full(column.shape, -1, dtype=np.int64)
    value = np.full(column.shape, np.nan)
    for c, name in enumerate(names):
        at = column == c
        k = int(at.sum())
        if not k:
            continue
        uniques = np.unique(tables.release[name][rows])
        drawn = uniques[rng.integers(0, len(uniques), k)]
        if tables.columns[name].numeric:
            value[at] = drawn
            op[at] = np.where(np.isnan(drawn), rng.choice([ISNULL, NOTNULL], k), rng.integers(0, 6, k))
        else:
            code[at] = drawn
            op[at] = rng.choice([EQ, NE], k)
    return Predicates(tuple(names), column, op, code, value)


def singling_out_probability_integral(n: float, w_min: float, w_max: float) -> float:
    """The integral over ``w`` in ``[w_min, w_max]`` of ``P(w, n) = n w (1 - w)^(n - 1)``, the chance
    that a predicate of weight ``w`` isolates one record among ``n`` (Cohen & Nissim 2020)."""
    return ((n * w_min + 1) * (1 - w_min) ** n - (n * w_max + 1) * (1 - w_max) ** n) / (n + 1)


def _control_scale(tables: Tables, queries: Predicates, rows: np.ndarray, n_original: int,
                   rng: np.random.Generator) -> float:
    """How much more often the predicates would isolate a record in a table of the original's size
    than in the control.

    Anonymeter's model: successes on ``n`` records ``= norm × ∫_0^w P(v, n) dv``, fitted on
    sub-samples of the control (10 sizes from 1,000 to all of it, 5 draws each).  The fit is a grid
    over ``w`` (400 points, log-spaced from 1e-9 to 1) with ``norm`` solved by least squares at
    each: the model is linear in ``norm``, and a local optimiser (Anonymeter uses scipy's
    ``curve_fit``) can settle where ``n·w ≫ 1`` and predict fewer successes on more records while
    the sub-samples show more.
    """
    sizes = np.repeat(np.linspace(min(1000, len(rows)), len(rows), 10).astype(int), 5)  # 10 sizes × 5 draws
    samples = np.zeros((len(sizes), len(rows)), dtype=np.bool_)
    for s, size in enumerate(sizes):  # 50 draws; rows are sorted, so a drawn row's column is its rank
        samples[s, np.searchsorted(rows, rng.choice(rows, size=size, replace=False))] = True
    successes = (sample_counts(tables, "control", queries, rows, samples) == 1).sum(axis=0)
    x, y = sizes.astype(np.float64), successes.astype(np.float64)
    w = np.logspace(-9, 0, 400)
    f = singling_out_probability_integral(x[:, None], 0.0, w[None, :])  # sizes × grid
    norm = (f * y[:, None]).sum(axis=0) / np.maximum((f * f).sum(axis=0), 1e-300)
    error = ((norm[None, :] * f - y[:, None]) ** 2).sum(axis=0)
    best = w[int(np.argmin(error))]
    below = singling_out_probability_integral(float(len(rows)), 0.0, best)
    above = singling_out_probability_integral(float(n_original), 0.0, best)
    return float(above / below) if below > 0 else 1.0


def singling_out(tables: Tables, names: Sequence[str], *, mode: str, n_attacks: int, n_cols: int,
                 confidence: float, rng: np.random.Generator, max_attempts: int = 10_000_000) -> AttackResult:
    """Run the univariate or multivariate singling-out attack; the risk against the control."""
    release_rows = distinct_rows(tables, "release", names)
    original_rows = distinct_rows(tables, "original", names)
    if mode == "univariate":
        queries, width = univariate_predicates(tables, names, release_rows, n_attacks, rng), 1
    else:
        queries, width = _multivariate(tables, names, release_rows, n_attacks, n_cols, rng, max_attempts), n_cols
    made = len(queries)
    if made == 0:
        return AttackResult(0.0, (0.0, 0.0), 0.0, None if tables.control is None else 0.0, 0.0, 0, False)
    on_original = Counter(tables, "original", original_rows)
    main = int((on_original(queries) == 1).sum())
    baseline_queries = _random_queries(tables, names, release_rows, made, width, rng)
    baseline = int((on_original(baseline_queries) == 1).sum())
    control = None
    if tables.control is not None:
        control_rows = distinct_rows(tables, "control", names)
        control = float((match_counts(tables, "control", queries, control_rows) == 1).sum())
        if len(control_rows) != len(original_rows):
            control *= _control_scale(tables, queries, control_rows, len(original_rows), rng)
            control = min(control, float(made))
    return attack_result(made, main, baseline, control, confidence)
