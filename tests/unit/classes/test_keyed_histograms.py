"""Sensitive histograms summed by the grouping's keys (:class:`veil.classes._grouping.KeyedInverse`)
are those summed through the class -> group index, and a rolled-up table's are the base's."""

import numpy as np
import pandas as pd
from hypothesis import given, settings
from hypothesis import strategies as st

from veil.classes import ClassTable, SensitiveHistogram
from veil.classes._grouping import KeyedInverse, sum_by_key
from veil.classes._histogram import roll_up_histograms
from veil.hierarchy import Hierarchy


@settings(max_examples=150, deadline=None)
@given(n=st.integers(1, 200), space=st.integers(1, 600), values=st.integers(1, 4), seed=st.integers(0, 2**16))
def test_sums_by_key_match_the_index(n, space, values, seed):
    rng = np.random.default_rng(seed)
    key = rng.integers(0, space, n).astype(np.int32)
    hist = rng.integers(0, 9, (n, values)).astype(np.int64)
    hist[:, 0] += 1  # every class holds a record
    summed = sum_by_key(key, space, hist.sum(axis=1))
    assert summed is not None
    keys, sums, inverse = summed
    assert isinstance(inverse, KeyedInverse)
    source = {"s": SensitiveHistogram("s", np.array([f"v{j}" for j in range(values)]), hist, hist.sum(axis=0))}
    by_key = roll_up_histograms(source, inverse, len(keys))["s"].counts
    by_index = roll_up_histograms(source, inverse(), len(keys))["s"].counts
    assert by_key.dtype == np.int64 and np.array_equal(by_key, by_index)
    assert np.array_equal(by_key.sum(axis=1), sums)


def test_a_rolled_up_tables_histograms_are_the_bases():
    rng = np.random.default_rng(3)
    n = 400
    ages = [str(a) for a in range(20, 60)]
    h = Hierarchy.from_rows([[a, f"{int(a) // 10 * 10}s", "*"] for a in ages], name="age")
    frame = pd.DataFrame({"age": rng.choice(ages, n), "zip": rng.choice(list("abcdefgh"), n),
                          "s": rng.choice(["x", "y", "z"], n)})
    hz = Hierarchy.from_rows([[z, "ab" if z < "c" else "rest", "*"] for z in "abcdefgh"], name="zip")
    base = ClassTable.from_pandas(frame, quasi_identifiers=["age", "zip"], sensitive=["s"],
                                  hierarchies={"age": h, "zip": hz})
    hub = base.roll_up((1, 0)).retain()
    hub.sensitive
    table = hub.roll_up((1, 1))
    direct = base.generalize((1, 1))
    expected = direct.sensitive["s"].counts
    assert np.array_equal(table.codes, direct.codes) and np.array_equal(table.sensitive["s"].counts, expected)
    assert np.array_equal(table.row_classes(), direct.row_classes())  # the index is still built on demand


@settings(max_examples=100, deadline=None)
@given(n=st.integers(1, 120), space=st.integers(1, 300), big=st.sampled_from([0, 20, 26, 40]),
       seed=st.integers(0, 2**16))
def test_two_values_packed_in_one_float_unpack_to_each_sum(n, space, big, seed):
    """Two values are summed in one pass as c0 + c1 * 2**shift; counts too large for an exact
    float sum (``big`` bits) take one pass per value: the same integers either way."""
    rng = np.random.default_rng(seed)
    key = rng.integers(0, space, n).astype(np.int32)
    hist = rng.integers(0, 9, (n, 2)).astype(np.int64) << rng.integers(0, big + 1, (n, 2))
    hist[:, 0] += 1
    keys, _, inverse = sum_by_key(key, space, hist.sum(axis=1).astype(np.float64))
    source = {"s": SensitiveHistogram("s", np.array(["x", "y"]), hist, hist.sum(axis=0))}
    by_key = roll_up_histograms(source, inverse, len(keys))["s"].counts
    expected = np.zeros((space, 2), np.int64)
    np.add.at(expected, key, hist)
    assert np.array_equal(by_key, expected[keys])
    assert (source["s"].packed_weights is None) == (int(hist[:, 1].sum()) >= 1 << (53 - int(hist[:, 0].sum()).bit_length()))
