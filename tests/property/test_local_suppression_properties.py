"""Local suppression: every record ends with at least k compatible records (a blank matches any value),
checked by comparing every pair of records; and the blank-matching counts equal that pairwise count."""

from __future__ import annotations

import numpy as np
import pandas as pd
from hypothesis import given, settings
from hypothesis import strategies as st

from veil.algorithms.local_suppression import local_suppression
from veil.dataset import Dataset
from veil.errors import InfeasibleError
from veil.risk._individual_blanks import blank_matching_frequencies


def pairwise_frequencies(values: np.ndarray, blank: np.ndarray) -> np.ndarray:
    """f_i by definition: records j with x_ia == x_ja or a blank on either side, for every key a."""
    agree = (values[:, None, :] == values[None, :, :]) | blank[:, None, :] | blank[None, :, :]
    return agree.all(axis=2).sum(axis=1)


tables = st.integers(1, 4).flatmap(lambda q: st.lists(
    st.tuples(*[st.sampled_from("abc") for _ in range(q)]), min_size=1, max_size=30))


@settings(max_examples=50, deadline=None)
@given(rows=tables, data=st.data())
def test_release_is_k_anonymous_under_the_rule(rows, data):
    frame = pd.DataFrame(rows, columns=[f"q{i}" for i in range(len(rows[0]))])
    k = data.draw(st.integers(1, len(frame)))
    result = local_suppression(Dataset.from_pandas(frame, quasi_identifiers=list(frame.columns)), k=k)
    released = result.data[list(frame.columns)].to_numpy(dtype=object)
    blank = released == "*"
    suppressed = blank.all(axis=1)
    kept = ~suppressed
    f = pairwise_frequencies(released[kept], blank[kept])
    assert (f >= k).all()
    # only cells are blanked, never changed; the report counts them
    assert ((released == frame.to_numpy(dtype=object)) | blank).all()
    assert result.details["cells_blanked_total"] == int(blank.sum())
    assert result.details["k_achieved"] == (int(f.min()) if len(f) else 0)


@settings(max_examples=80, deadline=None)
@given(rows=tables, data=st.data())
def test_blank_matching_frequencies_equal_pairwise(rows, data):
    values = np.array(rows, dtype=object)
    blank = np.array(data.draw(st.lists(st.lists(st.booleans(), min_size=values.shape[1], max_size=values.shape[1]),
                                        min_size=len(rows), max_size=len(rows))), dtype=bool)
    codes = np.column_stack([pd.factorize(values[:, j])[0] for j in range(values.shape[1])])
    got = blank_matching_frequencies(codes, np.ones(len(rows), dtype=np.int64), blank)
    np.testing.assert_array_equal(got, pairwise_frequencies(values, blank))


@settings(max_examples=50, deadline=None)
@given(rows=tables, data=st.data())
def test_threshold_rule_leaves_every_risk_under_the_threshold(rows, data):
    from veil.risk._individual import risk_from_frequencies

    frame = pd.DataFrame(rows, columns=[f"q{i}" for i in range(len(rows[0]))])
    frame["w"] = data.draw(st.lists(st.integers(1, 40), min_size=len(frame), max_size=len(frame)))
    threshold = data.draw(st.sampled_from([0.05, 0.2, 0.5, 0.9]))
    qis = [c for c in frame.columns if c != "w"]
    try:
        result = local_suppression(Dataset.from_pandas(frame, quasi_identifiers=qis), risk_threshold=threshold,
                                   weight="w")
    except InfeasibleError:
        return  # refused, never released above the threshold
    released = result.data[qis].to_numpy(dtype=object)
    blank = released == "*"
    kept = ~blank.all(axis=1)
    agree = ((released[kept][:, None, :] == released[kept][None, :, :]) | blank[kept][:, None, :]
             | blank[kept][None, :, :]).all(axis=2)
    f = agree.sum(axis=1)
    big_f = agree @ frame["w"].to_numpy(dtype=float)[kept]
    if len(f):
        assert (risk_from_frequencies(f, big_f) < threshold).all()


@settings(max_examples=50, deadline=None)
@given(rows=st.integers(2, 4).flatmap(lambda q: st.lists(
    st.tuples(*[st.sampled_from("abc") for _ in range(q)]), min_size=2, max_size=30)), data=st.data())
def test_combs_make_every_set_of_keys_k_anonymous(rows, data):
    from itertools import combinations

    frame = pd.DataFrame(rows, columns=[f"q{i}" for i in range(len(rows[0]))])
    q = frame.shape[1]
    k = data.draw(st.integers(1, len(frame)))
    sizes = tuple(data.draw(st.lists(st.integers(1, q), min_size=1, max_size=2, unique=True)))
    result = local_suppression(Dataset.from_pandas(frame, quasi_identifiers=list(frame.columns)), k=k, combs=sizes)
    released = result.data[list(frame.columns)].to_numpy(dtype=object)
    blank = released == "*"
    kept = ~blank.all(axis=1)
    smallest = None
    for size in sizes:
        for subset in combinations(range(q), size):
            f = pairwise_frequencies(released[kept][:, subset], blank[kept][:, subset])
            assert (f >= k).all()
            if len(f):
                smallest = f.min() if smallest is None else min(smallest, f.min())
    if kept.any():
        assert result.details["k_achieved"] == smallest and result.details["combs"] == list(sizes)
