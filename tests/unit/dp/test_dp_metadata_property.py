"""No data-dependent metadata: what an answer reports besides its noisy value depends only
on public parameters, bit for bit, on neighbouring tables (issue #15, finding 5)."""

import numpy as np
import pandas as pd
from hypothesis import given, settings
from hypothesis import strategies as st

from veil.dp import PrivacyAccountant, PrivacyBudget, PrivateTable


def _metadata(frame, lower, upper):
    acc = PrivacyAccountant(budget=PrivacyBudget(epsilon=100.0))
    t = PrivateTable(frame, accountant=acc)
    s = t.sum("v", lower=lower, upper=upper, epsilon=0.7)
    m = t.mean("v", lower=lower, upper=upper, epsilon=0.7)
    c = t.count(epsilon=0.7)
    h = t.histogram("v", bins=[lower, (lower + upper) / 2, upper], epsilon=0.7)
    return (s.sensitivity, s.noise_scale, s.details["sensitivity"],
            m.details["sum_noise_scale"], m.details["count_noise_scale"],
            m.details["sum_sensitivity"], c.sensitivity, c.noise_scale,
            h.sensitivity, h.noise_scale)


@settings(max_examples=25, deadline=None)
@given(n=st.integers(0, 60_000), lower=st.floats(-1e3, 0.0), width=st.floats(1e-3, 1e4),
       seed=st.integers(0, 2**32 - 1))
def test_metadata_is_identical_on_neighbouring_tables(n, lower, width, seed):
    upper = lower + width
    values = np.random.default_rng(seed).uniform(lower, upper, n + 1)  # data only
    big = pd.DataFrame({"v": values})
    small = big.iloc[:n]                                 # one row (one unit) removed
    assert _metadata(big, lower, upper) == _metadata(small, lower, upper)
