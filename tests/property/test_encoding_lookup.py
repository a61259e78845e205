"""Encoding a text column by lookup against its head gives the plain dictionary encoding.

``encode_values`` looks the values of a long text column with repeated values up
in the distinct values of its first rows, and encodes the rows whose value the
head lacks apart (``veil.data._encoding``).  Whatever the path, the result is
defined by the values alone: the labels are the distinct values in the kind's
order (then ``<missing>``) and each row's code is its value's position.  The
reference below computes that in plain Python.  The columns are long (8,192 rows)
with a few frequent values, as the lookup needs, and rare values placed anywhere,
so that some lie beyond the head and take the second path.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
from hypothesis import given, settings
from hypothesis import strategies as st

from veil.data import Kind
from veil.dataset import MISSING
from veil.data._encoding import encode_values

ROWS = 8_192
FREQUENT = st.lists(st.text(alphabet="ab ç9-", min_size=0, max_size=4), min_size=1, max_size=6, unique=True)
RARE = st.lists(st.tuples(st.integers(0, ROWS - 1), st.one_of(st.none(), st.text(alphabet="xyzé1", max_size=5))),
                max_size=40)


def reference(values: list[str | None], kind: Kind) -> tuple[list[str], list[int]]:
    """The labels in the kind's order (``<missing>`` last when a value is missing) and each row's code."""
    distinct = {v for v in values if v is not None}
    if kind is Kind.NUMERIC:  # by value, ties by text
        labels = sorted(distinct, key=lambda v: (float(v), v))
    else:
        labels = sorted(distinct)
    if any(v is None for v in values):
        labels.append(MISSING)
    where = {v: i for i, v in enumerate(labels)}
    return labels, [where[MISSING] if v is None else where[v] for v in values]


@settings(max_examples=40, deadline=None)
@given(FREQUENT, RARE, st.integers(0, 2**32 - 1), st.sampled_from(["str", "string", "object", "category"]))
def test_lookup_encoding_equals_the_plain_one(frequent, rare, seed, dtype):
    rng = np.random.default_rng(seed)
    values: list[str | None] = [frequent[i] for i in rng.integers(0, len(frequent), ROWS)]
    for row, value in rare:
        values[row] = value
    if dtype == "category":  # a release's labels: its codes are read as they are; a category no row uses is dropped
        present = list(dict.fromkeys(v for v in values if v is not None))
        categories = pd.Index(present[::-1] + ["unused"] * ("unused" not in present), dtype="str")
        column = pd.Series(pd.Categorical(values, categories=categories))
    else:
        column = pd.Series(values, dtype=object if dtype == "object" else dtype)
    encoded = encode_values(column, column="c")
    labels, codes = reference(values, Kind.CATEGORICAL)
    assert encoded.labels.tolist() == labels
    assert encoded.codes.tolist() == codes
    assert encoded.missing_code == (labels.index(MISSING) if MISSING in labels else -1)


@settings(max_examples=20, deadline=None)
@given(st.lists(st.integers(-50, 120), min_size=1, max_size=30, unique=True),
       st.lists(st.tuples(st.integers(0, ROWS - 1), st.integers(-999, 999)), max_size=30), st.integers(0, 2**32 - 1))
def test_lookup_encoding_of_numbers_keeps_their_order(frequent, rare, seed):
    # numbers as text ("9" < "10" by value); rare ones beyond the head are coded in their place
    rng = np.random.default_rng(seed)
    values = [str(frequent[i]) for i in rng.integers(0, len(frequent), ROWS)]
    for row, number in rare:
        values[row] = str(number)
    encoded = encode_values(pd.Series(values, dtype="str"), column="n", kind=Kind.NUMERIC)
    labels, codes = reference(values, Kind.NUMERIC)
    assert encoded.labels.tolist() == labels
    assert encoded.codes.tolist() == codes


@settings(max_examples=20, deadline=None)
@given(st.integers(1, 400), st.integers(0, 2**32 - 1))
def test_lookup_encoding_of_sorted_columns(distinct, seed):
    # a file sorted by the column: its values come in runs, none of them only at the head
    rng = np.random.default_rng(seed)
    values = sorted(f"v{i:03d}" for i in rng.integers(0, distinct, ROWS))
    encoded = encode_values(pd.Series(values, dtype="str"), column="s")
    labels, codes = reference(values, Kind.CATEGORICAL)
    assert encoded.labels.tolist() == labels
    assert encoded.codes.tolist() == codes
