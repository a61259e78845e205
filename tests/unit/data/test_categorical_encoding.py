"""A pandas categorical of text encodes as its text does, and its counts are the rows' (the fast path
of a release's QI columns equals the general path)."""

import numpy as np
import pandas as pd
from hypothesis import given, settings
from hypothesis import strategies as st

from veil.data import Kind
from veil.data._encoding import encode_values

LABELS = ["b", "a", "*", "10", "9", "<missing>"]


@settings(max_examples=80, deadline=None)
@given(codes=st.lists(st.integers(-1, len(LABELS) - 1), min_size=1, max_size=40),
       order=st.permutations(LABELS), numeric=st.booleans(), domain=st.booleans())
def test_a_categorical_encodes_as_its_text(codes, order, numeric, domain):
    categories = [label for label in order if not numeric or label.isdigit()]
    codes = [c % len(categories) if c >= 0 else -1 for c in codes]
    column = pd.Series(pd.Categorical.from_codes(codes, dtype=pd.CategoricalDtype(pd.Index(categories, dtype="str"))))
    text = column.astype(object).where(column.notna(), None).astype("str")
    kind = Kind.NUMERIC if numeric else Kind.CATEGORICAL
    declared = tuple(sorted(categories)) + ("zz",) if domain and not numeric else None
    fast = encode_values(column, column="c", kind=kind, domain=declared)
    slow = encode_values(text, column="c", kind=kind, domain=declared)
    np.testing.assert_array_equal(fast.codes, slow.codes)
    assert fast.labels.tolist() == slow.labels.tolist() and fast.missing_code == slow.missing_code
    if fast.counts is not None:
        np.testing.assert_array_equal(fast.counts, np.bincount(fast.codes, minlength=fast.n_values))
    else:
        assert min(codes) < 0  # only a column with a missing value takes the general path
