"""Every sensitive-attribute model gives the same doubles and the same violating classes whether a
histogram is held as (class, value, count) pairs or as a dense matrix, and both equal a
straightforward dense reference (exact fractions rounded once, entropies summed left to right)."""

from __future__ import annotations

import math
from fractions import Fraction

import numpy as np
import pandas as pd
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import veil.classes._histogram as histogram_module
from veil.classes import ClassTable, ClassValueCounts, SensitiveHistogram, dense_space
from veil.hierarchy import Hierarchy
from veil.models import (
    AlphaKAnonymity, LKCPrivacy, BasicBetaLikeness, DeltaDisclosure, DistinctLDiversity, EnhancedBetaLikeness, EntropyLDiversity,
    EqualDistanceTCloseness, HierarchicalTCloseness, OrderedDistanceTCloseness, PresentValuesDeltaDisclosure,
    RecursiveCLDiversity,
)
from veil.models._report import evaluate
from veil.risk import disclosure
from veil.risk.attacks import homogeneity_attack
from veil.schema import Kind


def _hierarchy(m: int, fan: int) -> Hierarchy:
    return Hierarchy.from_rows([[f"v{v:03d}", f"g{v // fan}", "*"] for v in range(m)], name="s")


def _histogram(counts: np.ndarray, overall: np.ndarray, hierarchy: Hierarchy, dense: bool,
               monkeypatch: pytest.MonkeyPatch) -> SensitiveHistogram:
    """The same counts held dense or as pairs, whatever their number of values."""
    with monkeypatch.context() as patch:
        patch.setattr(histogram_module, "DENSE_VALUES", 10**9 if dense else 0)
        labels = np.array([f"v{v:03d}" for v in range(counts.shape[1])], dtype=object)
        hist = SensitiveHistogram("s", labels, counts, overall, Kind.NUMERIC, hierarchy)
    assert hist.is_dense is dense
    return hist


def _table(hist: SensitiveHistogram) -> ClassTable:
    """A class table of one QI whose classes are the histogram's rows."""
    g = hist.n_classes
    sizes = hist.counts.sum(axis=1) if hist.is_dense else hist.pairs.class_sizes()
    n = int(hist.overall.sum())
    return ClassTable(quasi_identifiers=("q",), hierarchies=(Hierarchy.flat([f"c{j}" for j in range(max(g, 1))], name="q"),),
                      levels=(0,), codes=np.arange(g, dtype=np.int32).reshape(-1, 1), counts=sizes, n_records=n,
                      suppressed=n - int(sizes.sum()), input_suppressed=0, base=None,
                      base_map=np.arange(g, dtype=np.int64), sensitive={"s": hist})


# ------------------------------------------------------------------ reference
def _ref_entropy(row: np.ndarray) -> float:
    n = int(row.sum())
    if n == 0:
        return 0.0
    present = row[row > 0].astype(np.float64)
    acc = 0.0
    for term in (present * np.log(present)).tolist():  # left to right, the value order
        acc += term
    return max(float(np.log(np.float64(n))) - acc / n, 0.0)


def _ref_ratio(row: np.ndarray, l: int) -> float:
    ordered = sorted(row.tolist(), reverse=True)
    top, tail = (ordered[0] if ordered else 0), sum(ordered[l - 1:])
    return math.inf if tail == 0 else float(Fraction(top, tail))


def _ref_equal(row: np.ndarray, overall: np.ndarray) -> float:
    n, total = int(row.sum()), int(overall.sum())
    if n == 0:
        return 0.0
    return float(sum(abs(Fraction(int(c), n) - Fraction(int(o), total)) for c, o in zip(row, overall)) / 2)


def _ref_ordered(row: np.ndarray, overall: np.ndarray) -> float:
    n, total, m = int(row.sum()), int(overall.sum()), len(row)
    if n == 0 or m <= 1:
        return 0.0
    running, cost = Fraction(0), Fraction(0)
    for c, o in zip(row, overall):
        running += Fraction(int(c), n) - Fraction(int(o), total)
        cost += abs(running)
    return float(cost / (m - 1))


def _ref_hierarchical(row: np.ndarray, overall: np.ndarray, h: Hierarchy) -> float:
    n, total = int(row.sum()), int(overall.sum())
    if n == 0:
        return 0.0
    extra = {h.leaf_index([f"v{v:03d}"])[0]: Fraction(int(c), n) - Fraction(int(o), total)
             for v, (c, o) in enumerate(zip(row, overall))}
    cost = Fraction(0)
    for level in range(1, h.height + 1):
        parent, summed = h.rollup(level - 1, level), {}
        for code in range(h.n_values(level)):
            children = [extra.get(c, Fraction(0)) for c in np.flatnonzero(parent == code)]
            cost += Fraction(level, h.height) * min(sum((x for x in children if x > 0), Fraction(0)),
                                                    -sum((x for x in children if x < 0), Fraction(0)))
            summed[code] = sum(children, Fraction(0))
        extra = summed
    return float(cost)


def _ref_likeness(row: np.ndarray, overall: np.ndarray) -> tuple[float, float]:
    n, total = int(row.sum()), int(overall.sum())
    gains = [float(Fraction(int(c) * total - o * n, o * n)) if o > 0 and n > 0 else 0.0
             for c, o in zip(row.tolist(), overall.tolist())]
    caps = [-float(np.log(float(Fraction(o, total)))) if o > 0 else math.inf for o in overall.tolist()]
    basic = max([0.0, *gains])
    over = any(g > 0 and g > cap for g, cap in zip(gains, caps))
    return basic, (math.inf if over else basic)


def _ref_delta(row: np.ndarray, overall: np.ndarray, present_only: bool) -> float:
    n, total = int(row.sum()), int(overall.sum())
    logs = [0.0]
    for c, o in zip(row.tolist(), overall.tolist()):
        if o == 0 or (present_only and c == 0):
            continue
        logs.append(math.inf if c == 0 else abs(float(np.log(float(Fraction(c * total, n * o))))))
    return max(logs)


# ------------------------------------------------------------------ tables
@st.composite
def count_tables(draw):
    """Sparse counts of 0-8 classes over 1-40 values (a class may be empty), overall at least their sum."""
    seed = draw(st.integers(0, 2**32 - 1))
    rng = np.random.default_rng(seed)
    g, m = draw(st.integers(0, 8)), draw(st.integers(1, 40))
    density = draw(st.sampled_from([0.05, 0.3, 0.9]))
    counts = np.where(rng.random((g, m)) < density, rng.integers(1, 9, (g, m)), 0).astype(np.int64)
    overall = counts.sum(axis=0) + np.where(rng.random(m) < 0.3, rng.integers(0, 5, m), 0)
    if overall.sum() == 0:
        overall[0] = 1
    return counts, overall.astype(np.int64), draw(st.integers(1, 4)), draw(st.integers(1, 4))


SETTINGS = settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])


def _same(a, b) -> bool:
    a, b = np.asarray(a, dtype=np.float64), np.asarray(b, dtype=np.float64)
    return a.shape == b.shape and bool(np.array_equal(a, b))


@SETTINGS
@given(count_tables())
def test_pairs_and_matrix_equal_the_reference(monkeypatch, table):
    counts, overall, l, fan = table
    h = _hierarchy(counts.shape[1], fan)
    rows = list(counts)
    expected = {
        "distinct": [int((r > 0).sum()) for r in rows],
        "entropy": [_ref_entropy(r) for r in rows],
        "ratio": [_ref_ratio(r, l) for r in rows],
        "equal": [_ref_equal(r, overall) for r in rows],
        "ordered": [_ref_ordered(r, overall) for r in rows],
        "hierarchical": [_ref_hierarchical(r, overall, h) for r in rows],
        "basic": [_ref_likeness(r, overall)[0] for r in rows],
        "enhanced": [_ref_likeness(r, overall)[1] for r in rows],
        "delta": [_ref_delta(r, overall, False) for r in rows],
        "delta_present": [_ref_delta(r, overall, True) for r in rows],
    }
    for dense in (True, False):
        table = _table(_histogram(counts, overall, h, dense, monkeypatch))
        got = {
            "distinct": DistinctLDiversity("s", l=l).distinct(table),
            "entropy": EntropyLDiversity("s", l=l).entropies(table),
            "ratio": RecursiveCLDiversity("s", c=1.0, l=l).ratios(table),
            "equal": EqualDistanceTCloseness("s", t=0.3).distances(table),
            "ordered": OrderedDistanceTCloseness("s", t=0.3).distances(table),
            "hierarchical": HierarchicalTCloseness("s", t=0.3).distances(table),
            "basic": BasicBetaLikeness("s", beta=1.0).likeness(table),
            "enhanced": EnhancedBetaLikeness("s", beta=1.0).likeness(table),
            "delta": DeltaDisclosure("s", delta=1.0).deltas(table),
            "delta_present": PresentValuesDeltaDisclosure("s", delta=1.0).deltas(table),
        }
        for key, values in expected.items():
            assert _same(got[key], values), (key, dense, got[key], values)


@SETTINGS
@given(count_tables())
def test_models_judge_pairs_and_matrix_alike(monkeypatch, table):
    """Violating masks, achieved levels and the whole check report agree, to the bit."""
    counts, overall, l, fan = table
    h = _hierarchy(counts.shape[1], fan)
    tables = [_table(_histogram(counts, overall, h, dense, monkeypatch)) for dense in (True, False)]
    distinct = int((overall > 0).sum())
    models = [EqualDistanceTCloseness("s", t=0.3),
              OrderedDistanceTCloseness("s", t=0.2), HierarchicalTCloseness("s", t=0.25),
              BasicBetaLikeness("s", beta=1.0), EnhancedBetaLikeness("s", beta=0.5), DeltaDisclosure("s", delta=1.5),
              PresentValuesDeltaDisclosure("s", delta=0.7)]
    if l <= distinct:
        models += [DistinctLDiversity("s", l=l), EntropyLDiversity("s", l=l), RecursiveCLDiversity("s", c=2.0, l=l)]
    for model in models:
        masks = [model.violating(t) for t in tables]
        assert np.array_equal(masks[0], masks[1]), model
        levels = [model.achieved_level(t) for t in tables]
        assert _same(levels[0], levels[1]), model
    others = [LKCPrivacy(L=1, K=2, C=0.5, sensitive="s"), AlphaKAnonymity(alpha=0.5, k=2, sensitive="s")]
    if counts.shape[1] >= 2:  # protected values named
        others += [LKCPrivacy(L=1, K=1, C=0.4, sensitive="s", values=("v000", "v001")),
                   AlphaKAnonymity(alpha=0.4, k=1, sensitive="s", values=("v001",))]
    for model in others:
        assert np.array_equal(model.violating(tables[0]), model.violating(tables[1])), model
        assert model.achieved_level(tables[0]) == model.achieved_level(tables[1]), model
    reports = [evaluate(t, recursive_l=l).to_dict() for t in tables]
    assert reports[0] == reports[1]


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(st.integers(0, 2**32 - 1), st.integers(2, 60), st.integers(20, 400))
def test_built_rolled_and_suppressed_alike(monkeypatch, seed, m, n):
    """Built from rows, generalized, suppressed and the suppressed group: the same counts either way."""
    rng = np.random.default_rng(seed)
    frame = pd.DataFrame({"a": rng.integers(0, 6, n).astype(str), "b": rng.integers(0, 4, n).astype(str),
                          "s": rng.integers(0, m, n).astype(str)})
    frame.loc[rng.random(n) < 0.1, "s"] = None
    made = []
    for dense in (True, False):
        with monkeypatch.context() as patch:
            patch.setattr(histogram_module, "DENSE_VALUES", 10**9 if dense else 0)
            base = ClassTable.from_pandas(frame, quasi_identifiers=["a", "b"], sensitive=["s"])
            rolled = base.generalize([1, 0])
            suppressed = rolled.suppress(rolled.counts < 4)
            group = suppressed.suppressed_group()
            made.append([base, rolled, base.generalize([0, 1]).suppress(base.generalize([0, 1]).counts < 10),
                         suppressed, group])
            assert base.sensitive["s"].is_dense is dense
    for dense_table, pair_table in zip(*made):
        if dense_table is None:
            assert pair_table is None
            continue
        a, b = dense_table.sensitive["s"], pair_table.sensitive["s"]
        assert np.array_equal(a.counts, b.counts)
        assert np.array_equal(a.overall, b.overall)
        assert np.array_equal(a.modes(), b.modes()) and np.array_equal(a.distinct(), b.distinct())
        assert np.array_equal(a.class_top(), b.class_top())
        assert evaluate(dense_table).to_dict() == evaluate(pair_table).to_dict()
        homogeneous = [homogeneity_attack(t, "s") for t in (dense_table, pair_table)]
        assert np.array_equal(homogeneous[0].class_mask, homogeneous[1].class_mask)
        judged = [disclosure(t, "s") for t in (dense_table, pair_table)]
        assert judged[1].a_diff == pytest.approx(judged[0].a_diff, rel=1e-12, abs=1e-15)
        assert judged[1].a_know == pytest.approx(judged[0].a_know, rel=1e-12, abs=1e-15)
        assert judged[1].a_acc == pytest.approx(judged[0].a_acc, rel=1e-12, abs=1e-15)
        assert judged[1].delta == judged[0].delta


@settings(max_examples=200, deadline=None)
@given(st.integers(0, 2**32 - 1), st.integers(0, 30), st.integers(1, 3000), st.integers(1, 12),
       st.sampled_from([0.001, 0.02, 0.3]))
def test_pairs_roll_up_as_the_matrix_sums(seed, g, m, groups, density):
    """Pairs rolled up by any class -> group map (-1: left out) are the dense matrix summed by group,
    in both of their ways (one bincount over a small key space, or one sort)."""
    rng = np.random.default_rng(seed)
    dense = np.where(rng.random((g, m)) < density, rng.integers(1, 5, (g, m)), 0)
    mapping = rng.integers(-1, groups, g)
    expected = np.zeros((groups, m), dtype=np.int64)
    np.add.at(expected, mapping[mapping >= 0], dense[mapping >= 0])
    pairs = ClassValueCounts.from_dense(dense)
    sorted_path.append(not dense_space(groups * m, pairs.n_pairs))
    got = pairs.roll_up(mapping, groups)
    assert np.array_equal(got.to_dense(), expected)
    assert bool(np.all(np.diff(got.classes.astype(np.int64) * m + got.values) > 0))  # sorted, merged
    assert bool(np.all(got.counts > 0))


sorted_path: list[bool] = []


def test_both_ways_of_rolling_up_were_drawn():
    """(Runs after the property above: its draws took the sorting way and the counting way.)"""
    if sorted_path:
        assert any(sorted_path) and not all(sorted_path)
