"""Encoding a text column by lookup against its head gives the plain dictionary encoding.

``encode_values`` looks the values of a long text column with repeated values up
in the distinct values of its first rows, and encodes the rows whose value the
head lacks apart (``veil.data._lookup``).  Whatever the path, the result is
defined by the values alone: the labels are the distinct values in the kind's
order (then ``<missing>``) and each row's code is its value's position.  The
reference below computes that in plain Python.  The columns are long (8,192 rows)
with a few frequent values, as the lookup needs, and rare values placed anywhere,
so that some lie beyond the head and take the second path.  Each test runs with the
lookup on from 4,096 rows (so that these columns take it) and with the default
threshold (:data:`~veil.data._lookup.LOOKUP_ROWS`: Arrow's dictionary encoding).
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from veil.data import Kind
from veil.dataset import MISSING
from veil.data import _lookup
from veil.data._encoding import encode_values

ROWS = 8_192
FREQUENT = st.lists(st.text(alphabet="ab ç9-", min_size=0, max_size=4), min_size=1, max_size=6, unique=True)
PATHS = pytest.mark.parametrize("lookup_rows", [4_096, _lookup.LOOKUP_ROWS], ids=["lookup", "dictionary"])


@contextmanager
def lookup_from(rows: int) -> Iterator[None]:
    """Columns of ``rows`` rows or more are encoded by lookup in their head's values."""
    saved = _lookup.LOOKUP_ROWS
    _lookup.LOOKUP_ROWS = rows
    try:
        yield
    finally:
        _lookup.LOOKUP_ROWS = saved


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


@PATHS
@settings(max_examples=40, deadline=None)
@given(FREQUENT, RARE, st.integers(0, 2**32 - 1), st.sampled_from(["str", "string", "object", "category"]))
def test_lookup_encoding_equals_the_plain_one(lookup_rows, frequent, rare, seed, dtype):
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
    with lookup_from(lookup_rows):
        encoded = encode_values(column, column="c")
    labels, codes = reference(values, Kind.CATEGORICAL)
    assert encoded.labels.tolist() == labels
    assert encoded.codes.tolist() == codes
    assert encoded.missing_code == (labels.index(MISSING) if MISSING in labels else -1)


@PATHS
@settings(max_examples=20, deadline=None)
@given(st.lists(st.integers(-50, 120), min_size=1, max_size=30, unique=True),
       st.lists(st.tuples(st.integers(0, ROWS - 1), st.integers(-999, 999)), max_size=30), st.integers(0, 2**32 - 1))
def test_lookup_encoding_of_numbers_keeps_their_order(lookup_rows, frequent, rare, seed):
    # numbers as text ("9" < "10" by value); rare ones beyond the head are coded in their place
    rng = np.random.default_rng(seed)
    values = [str(frequent[i]) for i in rng.integers(0, len(frequent), ROWS)]
    for row, number in rare:
        values[row] = str(number)
    with lookup_from(lookup_rows):
        encoded = encode_values(pd.Series(values, dtype="str"), column="n", kind=Kind.NUMERIC)
    labels, codes = reference(values, Kind.NUMERIC)
    assert encoded.labels.tolist() == labels
    assert encoded.codes.tolist() == codes


@PATHS
@settings(max_examples=20, deadline=None)
@given(st.integers(1, 400), st.integers(0, 2**32 - 1))
def test_lookup_encoding_of_sorted_columns(lookup_rows, distinct, seed):
    # a file sorted by the column: its values come in runs, none of them only at the head
    rng = np.random.default_rng(seed)
    values = sorted(f"v{i:03d}" for i in rng.integers(0, distinct, ROWS))
    with lookup_from(lookup_rows):
        encoded = encode_values(pd.Series(values, dtype="str"), column="s")
    labels, codes = reference(values, Kind.CATEGORICAL)
    assert encoded.labels.tolist() == labels
    assert encoded.codes.tolist() == codes


def test_the_threshold_picks_the_path():
    # the columns above take the lookup only when it is on for their length
    import pyarrow as pa

    column = pa.array(["a", "b", "c"] * (ROWS // 3))
    with lookup_from(4_096):
        assert _lookup.text_dictionary(column) is not None
    assert len(column) < _lookup.LOOKUP_ROWS
    assert _lookup.text_dictionary(column) is None


@PATHS
@settings(max_examples=30, deadline=None)
@given(FREQUENT, RARE, st.integers(0, 2**32 - 1), st.lists(st.integers(0, ROWS), min_size=1, max_size=4))
def test_a_column_in_chunks_encodes_as_one(lookup_rows, frequent, rare, seed, cuts):
    # an Arrow column in several chunks (a reader's batches, a pandas concatenation) is looked up
    # chunk by chunk: the same labels and codes as the plain encoding of its values
    import pyarrow as pa

    rng = np.random.default_rng(seed)
    values: list[str | None] = [frequent[i] for i in rng.integers(0, len(frequent), ROWS)]
    for row, value in rare:
        values[row] = value
    bounds = [0, *sorted(cuts), ROWS]
    column = pa.chunked_array([pa.array(values[a:b], type=pa.large_string()) for a, b in zip(bounds, bounds[1:])],
                              type=pa.large_string())
    with lookup_from(lookup_rows):
        encoded = encode_values(column, column="c")
        as_series = encode_values(pd.Series(pd.arrays.ArrowStringArray(column)), column="c")
    labels, codes = reference(values, Kind.CATEGORICAL)
    for got in (encoded, as_series):
        assert got.labels.tolist() == labels
        assert got.codes.tolist() == codes
