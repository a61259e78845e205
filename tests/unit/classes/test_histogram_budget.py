"""Derived tables' histograms are bounded in bytes: the oldest are dropped and derived again on demand."""

from __future__ import annotations

import numpy as np
import pandas as pd

from veil.classes import ClassTable, ClassValueCounts
from veil.classes._histogram import DERIVED_HISTOGRAMS, HistogramBudget


def _table(n: int = 3_000, values: int = 900, seed: int = 2) -> ClassTable:
    rng = np.random.default_rng(seed)
    frame = pd.DataFrame({"a": rng.integers(0, 30, n).astype(str), "b": rng.integers(0, 20, n).astype(str),
                          "s": rng.integers(0, values, n).astype(str)})
    return ClassTable.from_pandas(frame, quasi_identifiers=["a", "b"], sensitive=["s"])


def test_the_oldest_derived_histograms_are_dropped_past_the_limit(monkeypatch):
    base = _table()
    one, two = base.generalize([1, 0]), base.generalize([0, 1])
    size = one.sensitive["s"].nbytes
    monkeypatch.setattr(DERIVED_HISTOGRAMS, "limit", size + 1)  # room for one table's histograms
    expected = one.sensitive["s"].counts.copy()
    assert "sensitive" in one.__dict__
    two.sensitive  # noqa: B018 - derives two's, past the limit: one's are dropped
    assert "sensitive" not in one.__dict__
    assert "sensitive" in two.__dict__
    assert np.array_equal(one.sensitive["s"].counts, expected)  # derived again, from the base
    assert "sensitive" in base.__dict__  # a base table's, built from the rows, are never dropped


def test_a_budget_counts_each_table_once_and_forgets_the_dead():
    budget = HistogramBudget(10**9)
    table = _table()
    derived = table.generalize([1, 1])
    histograms = derived.sensitive
    budget.keep(derived, histograms)
    budget.keep(derived, histograms)
    assert budget.total == histograms["s"].nbytes
    del derived, histograms
    import gc

    gc.collect()
    assert budget.total == 0 and not budget.held


def test_pairs_take_and_columns():
    pairs = ClassValueCounts.from_dense(np.array([[2, 0, 1], [0, 0, 4], [1, 1, 0]]))
    kept = pairs.take(np.array([True, False, True]))
    assert kept.to_dense().tolist() == [[2, 0, 1], [1, 1, 0]]
    assert pairs.columns(np.array([2, 0])).tolist() == [[1, 2], [4, 0], [0, 1]]
    assert pairs.with_values(np.array([1, -1, 0]), 2).to_dense().tolist() == [[1, 2], [4, 0], [0, 1]]
    assert pairs.class_sizes().tolist() == [3, 4, 2] and pairs.distinct().tolist() == [2, 1, 2]
    assert pairs.nbytes == 5 * (4 + 4 + 8) + 4 * 8  # int32 class and value, int64 count; the row index, built


def test_a_suppressed_table_derives_its_dropped_histograms_again(monkeypatch):
    base = _table()
    rolled = base.generalize([1, 0])
    rolled.sensitive  # noqa: B018 - the suppression filters them
    suppressed = rolled.suppress(rolled.counts < 40)
    expected = suppressed.sensitive["s"].counts.copy()
    monkeypatch.setattr(DERIVED_HISTOGRAMS, "limit", 0)  # every older table's are dropped at the next derivation
    base.generalize([0, 1]).sensitive  # noqa: B018
    assert "sensitive" not in suppressed.__dict__ and "sensitive" not in rolled.__dict__
    assert np.array_equal(suppressed.sensitive["s"].counts, expected)
    assert np.array_equal(suppressed.sensitive["s"].overall, base.sensitive["s"].overall)
