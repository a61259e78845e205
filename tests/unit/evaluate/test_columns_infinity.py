"""An infinite number in a numeric column: the distances of the attacks cannot measure from it (an
infinite gap scaled by an infinite range is NaN, and NaN sorted first, so a target of 1.0 had the
`inf` record as its nearest). The column is read as categories instead, as a column of texts
holding "inf" already was."""

from __future__ import annotations

import numpy as np
import pandas as pd

from veil.evaluate._columns import encode_tables


def test_a_float_column_holding_an_infinity_is_read_as_categories_like_its_text():
    original = pd.DataFrame({"x": [1.0, 2.0, np.inf, 4.0]})
    release = pd.DataFrame({"x": [1.0, np.inf, 3.0]})
    as_floats = encode_tables(original, None, release, ["x"]).columns["x"]
    as_texts = encode_tables(original.astype(str), None, release.astype(str), ["x"]).columns["x"]
    assert not as_floats.numeric and not as_texts.numeric
    assert list(as_floats.values) == ["1", "2", "inf", "4"]


def test_a_finite_float_column_stays_numeric():
    original = pd.DataFrame({"x": [1.0, 2.0, np.nan, 4.0]})
    tables = encode_tables(original, None, pd.DataFrame({"x": [1.5, 2.5]}), ["x"])
    assert tables.columns["x"].numeric and tables.columns["x"].scale == 3.0
