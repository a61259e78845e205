"""A value that does not fit its column's kind or ordinal domain is refused with the first rows
(0-based) that hold it, from text and from a categorical alike; nothing is encoded."""

from __future__ import annotations

import pandas as pd
import pytest

from veil.data import Kind, encode_values
from veil.errors import SchemaError


@pytest.mark.parametrize("categorical", [False, True])
@pytest.mark.parametrize("kind, domain, bad, message", [
    (Kind.NUMERIC, None, "old", "declared numeric but has the non-numeric value 'old'"),
    (Kind.DATE, None, "soon", "declared a date but has the value 'soon'"),
    (Kind.ORDINAL, ("low", "high"), "mid", "has value 'mid', which is not in its declared ordinal domain"),
])
def test_the_error_names_the_rows_of_the_value(categorical, kind, domain, bad, message):
    good = {Kind.NUMERIC: "7", Kind.DATE: "2020-01-02", Kind.ORDINAL: "low"}[kind]
    values = pd.Series([good] * 30 + [bad] + [good] * 5 + [bad] * 9)
    if categorical:
        values = values.astype("category")
    with pytest.raises(SchemaError) as caught:
        encode_values(values, column="x", kind=kind, domain=domain)
    text = str(caught.value)
    assert message in text
    assert text.endswith("(first rows, 0-based: [30, 36, 37, 38, 39]).")


def test_a_long_column_names_its_rows_too():
    values = pd.Series(["7"] * 5000 + ["old"] + ["8"] * 5000)  # the head lookup's path (4,096 rows and more)
    with pytest.raises(SchemaError, match=r"'old' \(first rows, 0-based: \[5000\]\)\.$"):
        encode_values(values, column="age", kind=Kind.NUMERIC)
