"""The neighbour search of ``veil evaluate`` against a plain reference: every target against every
released record, the distance added term by term in column order, records sorted by (quantized
distance, row)."""

from __future__ import annotations

import math
from unittest import mock

import numpy as np
import pandas as pd
from hypothesis import given, settings
from hypothesis import strategies as st

import veil.evaluate._approx as approx_module
from veil.evaluate._columns import encode_tables
from veil.evaluate._neighbors import matches, nearest, nearest_and_ties, pair_distances, patterns

NUMBERS = [0.0, 1.0, 2.5, 3.0, 7.0, math.nan]
VALUES = ["ab", "ac", "bc", None]
LABELS = ["ab", "ac", "bc", None, "*", "a*", "zz"]  # "*" covers all, "a*" masks, "zz" covers nothing


def reference_distance(tables, names, t, r):
    """The distance of original record ``t`` to released record ``r``, one Python float add per column."""
    total = 0.0
    for name in names:
        column = tables.columns[name]
        a, b = tables.original[name][t], tables.release[name][r]
        if column.numeric:
            a, b = float(a), float(b)
            if math.isnan(a) or math.isnan(b):
                total += 0.0 if math.isnan(a) and math.isnan(b) else 1.0
            else:
                total += abs(a - b) / column.scale
        else:
            cover = column.cover
            hit = cover.table[a, b] if cover.table is not None else (cover.label_value[b] == a or cover.covers_all[b])
            total += 0.0 if hit else 1.0
    return total


@st.composite
def evaluations(draw):
    """Small original and release tables of numeric and categorical columns, missing values and
    generalized labels included, with many ties; and ``k``."""
    n_cols = draw(st.integers(1, 4))
    n_original, n_release = draw(st.integers(1, 10)), draw(st.integers(1, 14))
    original, release = {}, {}
    for i in range(n_cols):
        numeric = draw(st.booleans())
        own, released = (NUMBERS, NUMBERS) if numeric else (VALUES, draw(st.sampled_from([VALUES, LABELS])))
        original[f"c{i}"] = draw(st.lists(st.sampled_from(own), min_size=n_original, max_size=n_original))
        release[f"c{i}"] = draw(st.lists(st.sampled_from(released), min_size=n_release, max_size=n_release))
    frames = pd.DataFrame(original), pd.DataFrame(release)
    sizes = {"BLOCK_BYTES": draw(st.sampled_from([1, 40, approx_module.BLOCK_BYTES])),  # one pattern a block, up
             "TABLE_CELLS": draw(st.sampled_from([1, 12, approx_module.TABLE_CELLS]))}  # no lookup table, up
    return frames, draw(st.integers(1, 3)), sizes


def _sized(sizes):
    """Blocks and lookup tables of the given sizes."""
    return mock.patch.multiple(approx_module, **sizes)


def _tables(frames):
    original, release = frames
    names = list(original.columns)
    return encode_tables(original, None, release, names), names


@settings(max_examples=300, deadline=None)
@given(evaluations())
def test_nearest_and_ties_are_those_of_every_pair(case):
    frames, k, sizes = case
    tables, names = _tables(frames)
    n_t, n_r = len(frames[0]), tables.n_release
    with _sized(sizes):
        near, ties = nearest_and_ties(tables, names, tables.take("original", np.arange(n_t), names), k)
    for t in range(n_t):
        d = [reference_distance(tables, names, t, r) for r in range(n_r)]
        ranked = sorted(range(n_r), key=lambda r: (round(d[r] * 2 ** 20), r))[:k]
        assert near[t].tolist() == ranked + [-1] * (k - len(ranked))
        assert ties[t] == sum(x == min(d) for x in d)


@settings(max_examples=300, deadline=None)
@given(evaluations())
def test_matches_are_the_pairs_at_distance_zero(case):
    frames, _, sizes = case
    tables, names = _tables(frames)
    n_t = len(frames[0])
    codes, pattern_of, _, _ = patterns(tables, names)
    with _sized(sizes):
        ti, pi = matches(tables, names, tables.take("original", np.arange(n_t), names), codes)
    found = {(t, r) for t, p in zip(ti.tolist(), pi.tolist()) for r in np.flatnonzero(pattern_of == p).tolist()}
    expected = {(t, r) for t in range(n_t) for r in range(tables.n_release)
                if reference_distance(tables, names, t, r) == 0}
    assert found == expected
    assert ti.tolist() == sorted(ti.tolist())


def test_a_hand_computed_neighbourhood():
    # age range 0..40 over both tables: distances from the target (age 20, sex F) to the released
    # records: (20, M) 1.0, (30, F) 0.25, (0, F) 0.5, (30, F) 0.25, (20, F) 0.0
    original = pd.DataFrame({"age": [20.0], "sex": ["F"]})
    release = pd.DataFrame({"age": [20.0, 30.0, 0.0, 30.0, 20.0, 40.0], "sex": ["M", "F", "F", "F", "F", "M"]})
    tables = encode_tables(original, None, release, ["age", "sex"])
    near, ties = nearest_and_ties(tables, ["age", "sex"], tables.take("original", np.arange(1), ["age", "sex"]), 4)
    assert near.tolist() == [[4, 1, 3, 2]]  # the tie at 0.25 broken by row order
    assert ties.tolist() == [1]
    assert nearest(tables, ["age", "sex"], tables.take("original", np.arange(1), ["age", "sex"]), 7).tolist() == [
        [4, 1, 3, 2, 0, 5, -1]]


@st.composite
def close_numbers(draw):
    """Numeric columns whose values lie closer together than single precision tells apart."""
    base = draw(st.floats(-1e6, 1e6, allow_nan=False))
    step = draw(st.sampled_from([1e-9, 1e-6, 1e-3, 1.0]))
    values = st.one_of(st.integers(-3, 3).map(lambda i: base + i * step), st.just(math.nan))
    n_cols = draw(st.integers(1, 3))
    n_original, n_release = draw(st.integers(1, 8)), draw(st.integers(1, 12))
    original = {f"c{i}": draw(st.lists(values, min_size=n_original, max_size=n_original)) for i in range(n_cols)}
    release = {f"c{i}": draw(st.lists(values, min_size=n_release, max_size=n_release)) for i in range(n_cols)}
    return (pd.DataFrame(original), pd.DataFrame(release)), draw(st.integers(1, 3))


@settings(max_examples=200, deadline=None)
@given(close_numbers())
def test_numbers_closer_than_single_precision_keep_their_order(case):
    frames, k = case
    tables, names = _tables(frames)
    n_t, n_r = len(frames[0]), tables.n_release
    near, ties = nearest_and_ties(tables, names, tables.take("original", np.arange(n_t), names), k)
    for t in range(n_t):
        d = [reference_distance(tables, names, t, r) for r in range(n_r)]
        ranked = sorted(range(n_r), key=lambda r: (round(d[r] * 2 ** 20), r))[:k]
        assert near[t].tolist() == ranked + [-1] * (k - len(ranked))
        assert ties[t] == sum(x == min(d) for x in d)


@st.composite
def spread_numbers(draw):
    """Mixed tables whose numeric values are arbitrary floats: every gap rounds in single precision."""
    n_cols = draw(st.integers(1, 5))
    n_original, n_release = draw(st.integers(1, 8)), draw(st.integers(1, 12))
    numbers = st.floats(-1e3, 1e3, allow_nan=False)
    original, release = {}, {}
    for i in range(n_cols):
        own = numbers if draw(st.booleans()) else st.sampled_from(VALUES)
        released = own if own is numbers else st.sampled_from(LABELS)
        original[f"c{i}"] = draw(st.lists(own, min_size=n_original, max_size=n_original))
        release[f"c{i}"] = draw(st.lists(released, min_size=n_release, max_size=n_release))
    return pd.DataFrame(original), pd.DataFrame(release)


@settings(max_examples=300, deadline=None)
@given(st.one_of(spread_numbers(), close_numbers().map(lambda case: case[0]), evaluations().map(lambda c: c[0])))
def test_the_cheap_distance_is_within_its_slack_of_the_distance(frames):
    tables, names = _tables(frames)
    targets = tables.take("original", np.arange(len(frames[0])), names)
    codes = patterns(tables, names)[0]
    approx = approx_module.approximation(tables, names, targets, codes)
    cheap = approx.block(0, approx.n_patterns)
    ti, pi = np.divmod(np.arange(cheap.size), approx.n_patterns)
    exact = pair_distances(tables, names, targets, codes, ti, pi).reshape(cheap.shape)
    assert np.all(np.abs(cheap - exact) <= approx.slack)
