"""The float copies of a table's class sizes that the dense grouping sums
(:func:`veil.classes._grouping.float_weights`): made once per array, never served for another."""

import gc

import numpy as np

from veil.classes._grouping import _FLOATS, float_weights, sum_by_key


def test_a_large_array_is_converted_once():
    weights = np.arange(1, 5001, dtype=np.int64)
    first = float_weights(weights)
    assert first.dtype == np.float64 and np.array_equal(first, weights)
    assert float_weights(weights) is first


def test_small_and_float_arrays_are_used_as_they_are():
    small = np.arange(1, 100, dtype=np.int64)
    floats = np.ones(5000)
    assert float_weights(small) is small and float_weights(floats) is floats


def test_a_copy_goes_with_its_array_and_never_serves_another():
    for seed in range(20):  # new arrays often take a dead one's id
        weights = np.full(4096, seed + 1, dtype=np.int64)
        ident = id(weights)
        assert np.array_equal(float_weights(weights), weights)
        del weights
        gc.collect()
        assert ident not in _FLOATS


def test_at_most_sixteen_copies_are_kept():
    arrays = [np.full(2048, i + 1, dtype=np.int64) for i in range(40)]
    for weights in arrays:
        float_weights(weights)
    assert len(_FLOATS) <= 16
    assert all(np.array_equal(float_weights(w), w) for w in arrays)


def test_sums_by_key_are_those_of_the_integers():
    rng = np.random.default_rng(3)
    key = rng.integers(0, 300, 5000).astype(np.int32)
    weights = rng.integers(1, 1 << 40, 5000).astype(np.int64)  # exact as floats: sums below 2**53
    for _ in range(2):  # converted, then the kept copy
        keys, sums, _ = sum_by_key(key, 300, weights)
        expected = np.zeros(300, dtype=np.int64)
        np.add.at(expected, key, weights)
        assert np.array_equal(keys, np.flatnonzero(expected)) and np.array_equal(sums, expected[keys])
