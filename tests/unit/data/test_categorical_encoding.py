"""A pandas categorical of text encodes as its text does, and its counts are the rows' (the fast path
of a release's QI columns equals the general path)."""

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from veil.data import Kind
from veil.data._encoding import encode_values
from veil.errors import SchemaError

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
    if min(codes) < 0 and "<missing>" in [categories[c] for c in codes if c >= 0]:
        for values in (column, text):  # a missing value and the label's text: refused either way
            with pytest.raises(SchemaError, match="could not be told apart"):
                encode_values(values, column="c", kind=kind, domain=declared)
        return
    fast = encode_values(column, column="c", kind=kind, domain=declared)
    slow = encode_values(text, column="c", kind=kind, domain=declared)
    np.testing.assert_array_equal(fast.codes, slow.codes)
    assert fast.labels.tolist() == slow.labels.tolist() and fast.missing_code == slow.missing_code
    if fast.counts is not None:
        np.testing.assert_array_equal(fast.counts, np.bincount(fast.codes, minlength=fast.n_values))
    else:
        assert min(codes) < 0  # only a column with a missing value takes the general path


@settings(max_examples=80, deadline=None)
@given(values=st.lists(st.one_of(st.none(), st.sampled_from(["x", "y", "3", "<missing>"])), min_size=1, max_size=30),
       form=st.sampled_from(["str", "object", "category", "category_unused", "arrow"]), domain=st.booleans())
def test_every_label_occurs_is_what_the_codes_show(values, form, domain):
    # when the encoding says every label is some row's value, each code is some row's
    import pyarrow as pa

    if form == "arrow":
        column = pa.array(values, type=pa.string())
    elif form.startswith("category"):
        extra = ["unused"] if form == "category_unused" else []
        column = pd.Series(pd.Categorical(values, categories=sorted({v for v in values if v} | set(extra))))
    else:
        column = pd.Series(values, dtype=form)
    declared = ("x", "y", "z") if domain else None
    if None in values and "<missing>" in values:  # a missing value and the label's text: refused
        with pytest.raises(SchemaError, match="could not be told apart"):
            encode_values(column, column="c", domain=declared)
        return
    encoded = encode_values(column, column="c", domain=declared)
    occurs = np.bincount(encoded.codes, minlength=encoded.n_values) > 0
    assert encoded.every_label_occurs == bool(occurs.all())


@settings(max_examples=25, deadline=None)
@given(seed=st.integers(0, 2**16), rare=st.booleans(), missing=st.booleans())
def test_a_long_text_column_encodes_as_arrow_dictionary_encoding_does(seed, rare, missing):
    # 8,192 rows (the head lookup's length): every row in the head, or rare values it lacks, or nulls
    import pyarrow as pa

    rng = np.random.default_rng(seed)
    values = rng.choice(["b", "a", "c", "d"], size=8192).astype(object)
    if rare:
        values[rng.integers(0, 8192, size=3)] = "zz-rare"
    if missing:
        values[rng.integers(0, 8192, size=5)] = None
    fast = encode_values(pa.array(values, type=pa.large_string()), column="c")
    slow = encode_values(pa.array(values, type=pa.large_string()).dictionary_encode(), column="c")
    np.testing.assert_array_equal(fast.codes, slow.codes)
    assert fast.labels.tolist() == slow.labels.tolist() and fast.missing_code == slow.missing_code


def test_complete_text_categorical_reads_the_codes_of_a_text_categorical_only():
    from veil.data import complete_text_categorical

    column = pd.Series(pd.Categorical(["b", "a", "b"], categories=["a", "b", "c"]))
    codes, categories = complete_text_categorical(column)
    assert codes.tolist() == [1, 0, 1] and categories.tolist() == ["a", "b", "c"]  # unused 'c' kept
    assert complete_text_categorical(pd.Series(pd.Categorical(["a", None]))) is None  # a missing cell
    assert complete_text_categorical(pd.Series(pd.Categorical([1, 2]))) is None  # not text
    assert complete_text_categorical(pd.Series(["a", "b"])) is None  # not a categorical
    assert complete_text_categorical(pd.Series(pd.Categorical([], categories=["a"]))) is None  # no row
