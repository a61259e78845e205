"""The shuffle drawn on the column pool, beside the rows' classes, is the seeded permutation."""

import numpy as np
import pandas as pd
import pytest

import veil
import veil.pipeline._memory as memory
from veil.datasets import load_adult
from veil.models import KAnonymity


@pytest.mark.parametrize("threshold", [0, 10**12])  # beside the work, or one after the other
def test_the_permutation_is_the_seeded_generators_either_way(monkeypatch, threshold):
    monkeypatch.setattr(memory, "PARALLEL_ROWS", threshold)
    order, done = memory._permutation_beside(1000, 7, lambda: "made")
    assert order.tolist() == np.random.default_rng(7).permutation(1000).tolist() and done == "made"
    order, done = memory._permutation_beside(10, 7, None)
    assert order.tolist() == np.random.default_rng(7).permutation(10).tolist() and done is None


def test_a_failing_work_fails_after_the_permutation_is_drawn(monkeypatch):
    monkeypatch.setattr(memory, "PARALLEL_ROWS", 0)

    def fail():
        raise RuntimeError("boom")

    with pytest.raises(RuntimeError, match="boom"):
        memory._permutation_beside(1000, 1, fail)


@pytest.mark.parametrize("mode", ["blank", "drop", "keep"])
def test_the_release_is_the_same_with_the_shuffle_beside(monkeypatch, mode):
    adult = load_adult()

    def release():
        return veil.anonymize(adult, [KAnonymity(k=5)], suppression_limit=0.05, seed=5, suppressed=mode)

    alone = release()
    monkeypatch.setattr(memory, "PARALLEL_ROWS", 0)  # Adult's 30k rows shuffled on the pool
    beside = release()
    pd.testing.assert_frame_equal(beside.data, alone.data)
    assert beside.source_rows.tolist() == alone.source_rows.tolist()


@pytest.mark.parametrize("mode", ["blank", "keep", "drop"])
def test_every_row_released_draws_the_order_once_while_the_search_runs(monkeypatch, mode):
    # blank and keep release every row: the order is submitted to the pool when the class table is
    # built, before the search; drop knows its rows only after the search, and draws it then
    from veil.pipeline import _run

    adult = load_adult()
    events = []
    monkeypatch.setattr(memory, "PARALLEL_ROWS", 0)
    permutation, search = memory._permutation, _run.search
    monkeypatch.setattr(memory, "_permutation", lambda n, seed: (events.append("drawn"), permutation(n, seed))[1])
    submit = memory.column_pool().submit
    monkeypatch.setattr(memory, "column_pool", lambda: type("Pool", (), {"submit": staticmethod(
        lambda fn, *a: (events.append("submitted"), submit(fn, *a))[1])})())
    monkeypatch.setattr(_run, "search", lambda *a, **k: (events.append("search"), search(*a, **k))[1])
    result = veil.anonymize(adult, [KAnonymity(k=5)], suppression_limit=0.05, seed=5, suppressed=mode)
    assert events.count("drawn") == 1
    assert (events.index("submitted") < events.index("search")) == (mode != "drop")
    expected = np.random.default_rng(5).permutation(len(result.data))
    kept = np.arange(adult.n_records) if mode != "drop" else np.flatnonzero(result.classes.row_classes() >= 0)
    assert result.source_rows.tolist() == kept[expected].tolist()
