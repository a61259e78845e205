"""The identifier scan of an encoded text column (a categorical of its labels, as
``Dataset.frame_of(..., encoded=True)`` gives it) finds what the scan of the text finds."""

import numpy as np
import pandas as pd
import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st

from veil import anonymize
from veil.data import categorical_of
from veil.dataset import Dataset
from veil.pipeline import IdentifierLeakError
from veil.hierarchy import Hierarchy
from veil.models import KAnonymity
from veil.sanitize import is_text, scan, scan_columns

VALUES = ["ann@example.org", "bob@example.com", "555-0100", "", "<missing>", "Smith", "  x ", "é", "1.5", "10"]


def findings(frame: pd.DataFrame, **options) -> dict:
    return {name: finding.to_dict() for name, finding in scan(frame, **options).columns.items()}


@settings(max_examples=80, deadline=None)
@given(cells=st.lists(st.one_of(st.none(), st.sampled_from(VALUES)), min_size=1, max_size=60),
       unique=st.booleans())
def test_an_encoded_column_scans_as_its_text(cells, unique):
    if unique:  # every value distinct: the uniqueness evidence
        cells = [f"user{i}@example.org" for i in range(len(cells))]
    assume(not (None in cells and "<missing>" in cells))  # refused by the encoding
    text = pd.DataFrame({"c": pd.Series(cells, dtype="str")})
    dataset = Dataset.from_pandas(text, sensitive=["c"])
    dataset.encode("c")
    encoded = dataset.frame_of(["c"], encoded=True)
    assert isinstance(encoded["c"].dtype, pd.CategoricalDtype) and is_text(encoded["c"])
    # the same cells, missing ones missing
    assert encoded["c"].astype(object).where(encoded["c"].notna(), None).tolist() == text["c"].astype(
        object).where(text["c"].notna(), None).tolist()
    assert findings(encoded, sample_size=100, min_rows_for_uniqueness=2) == findings(
        text, sample_size=100, min_rows_for_uniqueness=2)
    # the columns without their frame, as the release's check gives them
    parts = dataset.columns_of(["c"], encoded=True)
    assert {name: finding.to_dict() for name, finding in scan_columns(
        parts, len(cells), sample_size=100, min_rows_for_uniqueness=2).columns.items()} == findings(
        text, sample_size=100, min_rows_for_uniqueness=2)


def test_categorical_of_leaves_missing_out_of_the_categories():
    frame = pd.DataFrame({"c": pd.Series(["b", None, "c", "a", None], dtype="str")})
    encoded = Dataset.from_pandas(frame, sensitive=["c"]).encode("c")
    assert encoded.missing_code >= 0
    column = categorical_of(encoded)
    assert column.isna().tolist() == [False, True, False, False, True]
    assert sorted(column.cat.categories) == ["a", "b", "c"]
    assert column.astype(object).tolist()[2] == "c"


def test_a_column_not_yet_encoded_is_given_as_text():
    frame = pd.DataFrame({"c": pd.Series(["a", "b"], dtype="str")})
    dataset = Dataset.from_pandas(frame, sensitive=["c"])
    assert isinstance(dataset.frame_of(["c"], encoded=True)["c"].dtype, pd.StringDtype)


def test_a_categorical_of_non_text_is_not_text():
    assert not is_text(pd.Series(pd.Categorical([1.0, 2.0])))
    assert is_text(pd.Series(pd.Categorical(["a", None])))


def test_anonymize_still_refuses_a_sensitive_column_of_e_mails():
    rng = np.random.default_rng(0)
    frame = pd.DataFrame({"sex": rng.choice(["F", "M"], 200),
                          "contact": [f"person{i}@example.org" for i in range(200)]})
    dataset = Dataset.from_pandas(frame, quasi_identifiers=["sex"], sensitive=["contact"],
                                  hierarchies={"sex": Hierarchy.from_rows([["F", "*"], ["M", "*"]], name="sex")})
    with pytest.raises(IdentifierLeakError, match="contact"):
        anonymize(dataset, [KAnonymity(k=2)])


@settings(max_examples=60, deadline=None)
@given(cells=st.lists(st.one_of(st.none(), st.sampled_from(VALUES)), min_size=1, max_size=60),
       size=st.sampled_from([100, 10_000]))
def test_column_values_counts_the_present_values(cells, size):
    from veil.sanitize._column_values import column_values

    present = [c for c in cells if c is not None and c != ""]
    for column in (pd.Series(cells, dtype="str"), pd.Series(pd.Categorical(cells))):
        values = column_values(column, size, 0)
        assert values.n_present == len(present)
        assert values.distinct == len(set(present))
        assert values.examined == min(len(present), size)
        if len(present) <= size:  # the whole column: each text counted as often as it occurs
            counted = {}
            for text, times in zip(values.text, values.occurs):
                counted[text] = counted.get(text, 0) + int(times)
            expected = {}
            for c in present:
                expected[c.strip()] = expected.get(c.strip(), 0) + 1
            assert counted == expected


def test_text_codes_read_only_the_labels_some_row_has():
    # a declared domain value no row has is no distinct value of the column, with or without the flag
    import numpy as np
    from veil.data import TextCodes, text_codes
    from veil.data._encoding import distinct_codes

    frame = pd.DataFrame({"c": pd.Series(["b", "a", None, "b"], dtype="str")})
    dataset = Dataset.from_pandas(frame, sensitive=["c"], domains={"c": ["a", "b", "z"]}, kinds={"c": "ordinal"})
    parts = text_codes(dataset.encode("c"))
    assert not parts.every_label_occurs and list(parts.labels) == ["a", "b", "z"]
    codes, labels = distinct_codes(parts)
    assert list(labels) == ["a", "b"] and codes.tolist() == [1, 0, -1, 1]
    plain = text_codes(Dataset.from_pandas(frame, sensitive=["c"]).encode("c"))
    assert plain.every_label_occurs
    codes, labels = distinct_codes(plain)
    assert list(labels) == ["a", "b"] and codes.tolist() == [1, 0, -1, 1]
    assert distinct_codes(TextCodes(np.array([0, 0], dtype=np.int32), np.array(["x", "y"], dtype=object)))[1].tolist() == ["x"]
