"""The sorting grouping kernel (:func:`veil.classes._grouping.sum_by_sorted_key`) groups and sums
as the dense one and the hash table do, and the class tables it gives are those of the general path."""

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from veil.classes import ClassTable
from veil.classes._grouping import group_keys, key_space, regroup_codes, sum_by_key, sum_by_sorted_key
from veil.hierarchy import Hierarchy


@settings(max_examples=80, deadline=None)
@given(n=st.integers(1, 300), space=st.integers(1, 10**12), distinct=st.integers(1, 50), seed=st.integers(0, 2**16))
def test_sorted_sums_match_the_hash_table(n, space, distinct, seed):
    rng = np.random.default_rng(seed)
    values = rng.integers(0, space, distinct)
    key = values[rng.integers(0, distinct, n)]
    weights = rng.integers(1, 1000, n).astype(np.int64)
    keys, sums, inverse = sum_by_sorted_key(key, space, weights)
    hashed, hashed_inverse = group_keys(key, space)
    order = np.argsort(hashed)
    assert np.array_equal(keys, hashed[order])  # increasing distinct keys
    assert sums.dtype == np.int64
    assert np.array_equal(sums, np.bincount(hashed_inverse, weights=weights).astype(np.int64)[order])
    assert np.array_equal(keys[inverse()], key)
    dense = sum_by_key(key, space, weights)
    if dense is not None:
        assert np.array_equal(dense[0], keys) and np.array_equal(dense[1], sums)
        assert np.array_equal(dense[2](), inverse())


def test_no_sorted_grouping_when_keys_and_rows_do_not_fit():
    key = np.array([1, 2, 2], dtype=np.int64)
    assert sum_by_sorted_key(key, 1 << 61, np.ones(3, np.int64)) is None
    assert sum_by_sorted_key(key[:0], 10, np.ones(0, np.int64)) is None


def test_sparse_regrouping_gives_the_general_path_classes():
    """Columns whose key space is far larger than the classes: the sorted sums, with the
    codes unpacked from the keys, give the classes a row-by-row grouping gives."""
    rng = np.random.default_rng(2)
    n, radices = 500, [1000, 1000, 7]
    columns = [rng.integers(0, r, n).astype(np.int32) for r in radices]
    columns[0][: n // 2] = columns[0][n // 2:]  # some classes merge
    columns[1][: n // 2] = columns[1][n // 2:]
    columns[2][: n // 2] = columns[2][n // 2:]
    counts = rng.integers(1, 5, n).astype(np.int64)
    grouped = regroup_codes(lambda i: columns[i], radices, counts, positive=True)
    codes = grouped.codes() if callable(grouped.codes) else grouped.codes
    inverse = grouped.inverse() if callable(grouped.inverse) else grouped.inverse
    assert grouped.counts is not None and grouped.n_groups == len(codes) < n
    frame = pd.DataFrame({"a": columns[0], "b": columns[1], "c": columns[2], "n": counts})
    expected = frame.groupby(["a", "b", "c"], sort=True)["n"].sum()
    assert [tuple(row) for row in codes.tolist()] == list(expected.index)
    assert grouped.counts.tolist() == expected.tolist()
    assert np.array_equal(codes[inverse], np.column_stack(columns))


@settings(max_examples=60, deadline=None)
@given(n=st.integers(1, 200), distinct=st.integers(1, 40), seed=st.integers(0, 2**16))
def test_sorted_members_are_each_groups_first_row(n, distinct, seed):
    rng = np.random.default_rng(seed)
    key = rng.integers(0, 10**9, distinct)[rng.integers(0, distinct, n)]
    keys, _, inverse = sum_by_sorted_key(key, 10**9, np.ones(n, np.int64))
    members = inverse.members()
    assert np.array_equal(key[members], keys)
    assert np.array_equal(members, [int(np.flatnonzero(key == k)[0]) for k in keys])


@settings(max_examples=40, deadline=None)
@given(n=st.integers(1, 120), seed=st.integers(0, 2**16), positive=st.booleans())
def test_sparse_codes_read_at_members_are_the_unpacked_keys(n, seed, positive):
    """Sorted (positive sizes) or hashed, the codes read at one member of each group are
    those the packed keys unpack to, in the order of the groups."""
    rng = np.random.default_rng(seed)
    radices = [int(r) for r in rng.integers(1, 5000, 3)]
    columns = [rng.integers(0, r, n).astype(np.int32) for r in radices]
    columns[1][: n // 2] = columns[1][n - n // 2:]  # some rows share their codes
    columns[0][: n // 2], columns[2][: n // 2] = columns[0][n - n // 2:], columns[2][n - n // 2:]
    grouped = regroup_codes(lambda i: columns[i], radices, np.ones(n, np.int64), positive=positive)
    codes = grouped.codes() if callable(grouped.codes) else grouped.codes
    inverse = grouped.inverse() if callable(grouped.inverse) else grouped.inverse
    assert np.array_equal(codes[inverse], np.column_stack(columns))
    if positive:  # sorted: the groups in increasing order of their codes
        assert [tuple(row) for row in codes.tolist()] == sorted({tuple(row) for row in np.column_stack(columns).tolist()})


@given(st.lists(st.one_of(st.integers(-3, 10**6), st.floats(-2, 50, allow_nan=False)), max_size=8))
def test_key_space_is_the_product_of_the_radices_above_one(radices):
    expected = 1
    for r in radices:
        expected *= max(int(r), 1)
    assert key_space(radices) == expected


def test_positions_are_a_read_only_range_made_once_per_length():
    from veil.classes._grouping import positions

    first = positions(1000)
    assert first.dtype == np.int64 and first.tolist() == list(range(1000))
    assert positions(1000) is first  # made once
    with pytest.raises(ValueError):
        first[0] = 5  # read-only: a caller cannot spoil the next grouping's positions
    for n in range(1, 10):  # eight other lengths push the first one out
        positions(n)
    assert positions(1000) is not first and positions(1000).tolist() == list(range(1000))


@settings(max_examples=60, deadline=None)
@given(keys=st.lists(st.integers(0, 10**6), min_size=1, max_size=300))
def test_sorted_sums_equal_a_count_of_each_key(keys):
    from veil.classes._grouping import sum_by_sorted_key

    key = np.array(keys, dtype=np.int32)
    weights = np.arange(1, len(keys) + 1, dtype=np.int64)
    distinct, sums, inverse = sum_by_sorted_key(key, 10**6 + 1, weights)
    expected: dict[int, int] = {}
    for k, w in zip(keys, weights.tolist()):
        expected[k] = expected.get(k, 0) + w
    assert distinct.tolist() == sorted(expected) and sums.tolist() == [expected[k] for k in sorted(expected)]
    assert distinct[inverse()].tolist() == keys
