"""Tests of veil.algorithms.microaggregation (MDAV)."""

from __future__ import annotations

import json

import numpy as np
import pandas as pd
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from veil.algorithms.microaggregation import mdav, mdav_groups
from veil.anonymization import verify
from veil.dataset import Dataset
from veil.errors import ColumnNotFoundError, ParameterError, SchemaError, VerificationError
from veil.models import KAnonymity

NINE = [1, 2, 3, 10, 11, 12, 20, 21, 22]


def one_column(values, name="x") -> Dataset:
    return Dataset.from_pandas(pd.DataFrame({name: values}), quasi_identifiers=[name], kinds={name: "numeric"})


def assert_mdav_sizes(sizes: np.ndarray, k: int) -> None:
    """MDAV's shape: every group has exactly k records except one with k to 2k - 1."""
    sizes = np.sort(sizes)
    assert sizes.min() >= k
    assert (sizes[:-1] == k).all()
    assert sizes[-1] <= 2 * k - 1


def test_hand_worked_example():
    """x = 1, 2, 3, 10, 11, 12, 20, 21, 22 with k = 3 (n = 9 = 3k, so the loop runs once).

    The centroid is 102/9 = 11.33; the farthest record is r = 22 (10.67 away; 1 is
    10.33 away); the farthest from r is s = 1.  The group of r and its 2 nearest is
    {20, 21, 22} (centroid 21), then the 3 nearest to s among the rest are {1, 2, 3}
    (centroid 2).  3 records remain (< 2k): {10, 11, 12} is the last group (centroid 11).

    SSE = 3 groups x ((-1)^2 + 0^2 + 1^2) = 6.
    SST = sum x^2 - n mean^2 = 1704 - 102^2/9 = 1704 - 1156 = 548.
    SSE/SST = 6/548 = 3/274 (standardizing one column changes neither sum's ratio).
    """
    out = mdav(one_column(NINE), ["x"], k=3)
    assert out.data["x"].tolist() == [2.0] * 3 + [11.0] * 3 + [21.0] * 3
    assert out.data["x"].dtype == np.float64
    assert out.groups == 3 and out.algorithm == "mdav"
    assert out.details["information_loss"] == pytest.approx(6 / 548, rel=1e-12)
    assert json.loads(json.dumps(out.details)) == out.details
    assert out.details["information_loss_by_column"]["x"] == pytest.approx(6 / 548, rel=1e-12)
    raw = mdav(one_column(NINE), ["x"], k=3, standardize=False)
    assert raw.details["sse"] == pytest.approx(6.0) and raw.details["sst"] == pytest.approx(548.0)
    # group formation order: {20,21,22} first (around r), then {1,2,3} (around s), then the rest
    groups = mdav_groups(np.array(NINE, dtype=float), 3)
    assert groups.tolist() == [1, 1, 1, 2, 2, 2, 0, 0, 0]


def test_row_order_does_not_change_the_hand_example():
    order = [4, 8, 0, 6, 2, 7, 1, 5, 3]
    shuffled = [NINE[i] for i in order]
    out = mdav(one_column(shuffled), k=3)
    expected = {1: 2.0, 2: 2.0, 3: 2.0, 10: 11.0, 11: 11.0, 12: 11.0, 20: 21.0, 21: 21.0, 22: 21.0}
    assert out.data["x"].tolist() == [expected[v] for v in shuffled]


def test_tail_cases():
    """n = 10, k = 3: one loop (6 records) leaves 4 (< 2k = 6): one last group of 4.
    n = 7, k = 3: no loop (7 < 9), 7 >= 2k: a group of 3 around the farthest record, then 4.
    n = 4, k = 3: a single group."""
    for n, k, expected in [(10, 3, [3, 3, 4]), (7, 3, [3, 4]), (4, 3, [4]), (5, 5, [5]), (15, 3, [3, 3, 3, 3, 3])]:
        groups = mdav_groups(np.arange(n, dtype=float), k)
        assert sorted(np.bincount(groups).tolist()) == expected
    # n = 7, k = 3 on 0..6: centroid 3, farthest is 0 (first of the tied 0 and 6): group {0, 1, 2}
    assert mdav_groups(np.arange(7, dtype=float), 3).tolist() == [0, 0, 0, 1, 1, 1, 1]


def test_group_sizes_on_random_data():
    rng = np.random.default_rng(0)
    for n, k, p in [(1000, 5, 1), (997, 7, 3), (500, 2, 2), (333, 10, 6)]:
        groups = mdav_groups(rng.normal(size=(n, p)), k)
        assert (groups >= 0).all()
        assert_mdav_sizes(np.bincount(groups), k)


def test_identical_points():
    groups = mdav_groups(np.zeros((23, 2)), 4)
    assert_mdav_sizes(np.bincount(groups), 4)


def test_standardize_decides_the_grouping():
    """a in {0, 1}, b in {0, 300, 600, 900}: the 8 combinations, k = 2.

    Raw distances: records 1 apart in a but 300 apart in b, so every pair shares b
    (e.g. the first group is (0,0) and its nearest (1,0), 1 away; (0,300) is 300 away):
    b is released unchanged and a becomes 0.5.
    z-scores: a becomes +-1 (2 apart), b steps 300/335.4 = 0.894 apart, so every pair
    shares a (from (-1,-1.342) the nearest is (-1,-0.447), 0.894 away; (1,-1.342) is 2
    away): a is released unchanged and b is averaged.
    """
    frame = pd.DataFrame({"a": [0, 0, 0, 0, 1, 1, 1, 1], "b": [0, 300, 600, 900] * 2})
    ds = Dataset.from_pandas(frame, quasi_identifiers=["a", "b"])
    raw = mdav(ds, ["a", "b"], k=2, standardize=False)
    assert raw.data["b"].tolist() == frame["b"].astype(float).tolist()
    assert (raw.data["a"] == 0.5).all()
    z = mdav(ds, ["a", "b"], k=2)
    assert z.data["a"].tolist() == frame["a"].astype(float).tolist()
    # pairs of b-neighbours: (0, 300) -> 150 and (600, 900) -> 750, whichever tied corner starts
    assert z.data["b"].tolist() == [150.0, 150.0, 750.0, 750.0] * 2
    assert z.groups == raw.groups == 4
    # raw loses a's variance entirely, z-scores keep it
    assert raw.details["information_loss_by_column"]["a"] == pytest.approx(1.0)
    assert z.details["information_loss_by_column"]["a"] == pytest.approx(0.0)


def test_adult_age_k5_is_k_anonymous(adult):
    out = mdav(adult, ["age"], k=5)
    assert len(out.data) == adult.n_records and list(out.data.columns) == adult.columns
    assert out.data["age"].dtype == np.float64
    age = adult.frame["age"].astype(float)
    assert out.data["age"].mean() == pytest.approx(age.mean(), rel=1e-12)  # means are preserved
    for column in adult.columns:
        if column != "age":
            assert out.data[column].tolist() == adult.frame[column].tolist()
    sizes = out.data.groupby("age").size()
    assert sizes.min() >= 5
    assert out.details["group_size_min"] == 5 and out.details["group_size_max"] <= 9
    assert 0 <= out.details["information_loss"] < 1e-3
    only_age = adult.with_roles(quasi_identifiers=["age"], sensitive=["salary-class"], kinds={"age": "numeric"})
    classes = verify(out.data, only_age, [KAnonymity(k=5)])
    assert classes.counts.min() >= 5 and classes.counts.sum() == adult.n_records
    with pytest.raises(VerificationError):  # 5-anonymity is all MDAV promises: 6+ may fail
        verify(out.data, only_age, [KAnonymity(k=int(classes.counts.min()) + 1)])


def test_default_columns_are_numeric_quasi_identifiers(adult):
    out = mdav(adult, k=5)
    assert out.details["columns"] == ["age"]


@pytest.mark.parametrize(
    "kwargs, error, message",
    [
        ({"k": 1}, ParameterError, r"^The 'k' parameter of mdav must be an int in \[2, inf\)\. Got 1 instead\.$"),
        ({"k": 10}, ParameterError, r"^The 'k' parameter of mdav must be an int in \[2, 9\] \(the table has 9 records\)"),
        ({"k": True}, ParameterError, r"'k' parameter of mdav must be an int"),
        ({"k": 2.0}, ParameterError, r"'k' parameter of mdav must be an int"),
        ({"k": 2, "columns": ["nope"]}, ColumnNotFoundError, r"'nope'"),
        ({"k": 2, "columns": ["x", "x"]}, ParameterError, r"lists a column twice"),
        ({"k": 2, "columns": []}, ParameterError, r"at least one column"),
        ({"k": 2, "standardize": "yes"}, ParameterError, r"'standardize' parameter of mdav must be a bool"),
    ],
)
def test_bad_parameters(kwargs, error, message):
    with pytest.raises(error, match=message):
        mdav(one_column(NINE), **kwargs)


def test_non_numeric_and_missing_values():
    ds = Dataset.from_pandas(pd.DataFrame({"x": ["1", "two", "3"]}), quasi_identifiers=["x"])
    with pytest.raises(SchemaError, match=r"Column 'x' has 1 non-numeric value\(s\)"):
        mdav(ds, ["x"], k=2)
    ds = Dataset.from_pandas(pd.DataFrame({"x": [1.0, None, 3.0]}), quasi_identifiers=["x"])
    with pytest.raises(SchemaError, match=r"Column 'x' has 1 missing value\(s\)"):
        mdav(ds, ["x"], k=2)
    ds = Dataset.from_pandas(pd.DataFrame({"s": ["a", "b"]}), quasi_identifiers=["s"])
    with pytest.raises(ParameterError, match="needs numeric columns"):
        mdav(ds, k=2)


# ---------------------------------------------------------------------------- properties
@st.composite
def numeric_tables(draw):
    n = draw(st.integers(min_value=2, max_value=60))
    p = draw(st.integers(min_value=1, max_value=3))
    k = draw(st.integers(min_value=2, max_value=n))
    values = draw(st.lists(st.integers(min_value=-5, max_value=5), min_size=n * p, max_size=n * p))
    frame = pd.DataFrame(np.array(values, dtype=float).reshape(n, p), columns=[f"q{j}" for j in range(p)])
    return frame, k


@settings(max_examples=120, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(numeric_tables(), st.booleans())
def test_mdav_properties(table, standardize):
    """For random small tables (many ties): MDAV's group sizes, each record released as
    the mean of the records released with it, means preserved, SSE/SST in [0, 1], and
    k-anonymity by `verify`.

    Groups are judged from the output, not recomputed: with every group of size k but
    one of size k..2k-1, there are exactly n // k groups and the largest has
    n - (n // k - 1) k records.  Groups whose centroids coincide release the same
    values; their union still has the released values as its mean.
    """
    frame, k = table
    n = len(frame)
    columns = list(frame.columns)
    ds = Dataset.from_pandas(frame, quasi_identifiers=columns)
    out = mdav(ds, columns, k=k, standardize=standardize)
    assert len(out.data) == n
    g = n // k
    assert out.groups == g
    assert out.details["group_size_max"] == n - (g - 1) * k
    assert out.details["group_size_min"] == (k if g > 1 else n)
    released = out.data[columns]
    original = frame.to_numpy()
    keys = pd.MultiIndex.from_frame(released).factorize()[0] if len(columns) > 1 else pd.factorize(released[columns[0]])[0]
    for key in np.unique(keys):
        members = keys == key
        assert members.sum() >= k
        np.testing.assert_allclose(released.to_numpy()[members][0], original[members].mean(axis=0), atol=1e-9)
    np.testing.assert_allclose(released.mean().to_numpy(), frame.mean().to_numpy(), atol=1e-9)
    assert -1e-12 <= out.details["information_loss"] <= 1 + 1e-12
    classes = verify(out.data, ds, [KAnonymity(k=k)])
    assert classes.counts.min() >= k
    # the partition itself, on the same points
    assert_mdav_sizes(np.bincount(mdav_groups(original, k)), k)
