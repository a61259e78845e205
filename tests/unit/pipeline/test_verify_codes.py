"""The written-file verification compares cells by code (each column hashed once)."""

import numpy as np
import pandas as pd
import pytest

from veil.anonymization import anonymize
from veil.datasets import load_adult
from veil.errors import VerificationError
from veil.models import KAnonymity
from veil.pipeline import verify_release_table
from veil.pipeline._verify import _encode


def test_a_missing_cell_and_an_empty_one_read_alike():
    # the CSV writer writes a missing cell as "": both must get one code, other texts their own
    codes, texts = _encode(pd.Series(["a", None, "", "a", "b"], dtype="str"))
    assert texts[codes].tolist() == ["a", "", "", "a", "b"]
    assert codes[1] == codes[2] and codes[0] == codes[3] and len(set(codes.tolist())) == 3


def test_numbers_are_read_as_their_text():
    # 1 and 1.0 hash alike but are written differently: the text decides, as the CSV shows it
    codes, texts = _encode(pd.Series([1, 1.0, "1"], dtype=object))
    assert texts[codes].tolist() == ["1", "1.0", "1"]
    assert codes[0] == codes[2] != codes[1]


@pytest.fixture(scope="module")
def released():
    dataset = load_adult()
    models = [KAnonymity(k=5)]
    return dataset, models, anonymize(dataset, models, suppression_limit=0.05, seed=3)


def test_the_untouched_release_passes(released):
    dataset, models, result = released
    frame = result.data.astype("str")
    verify_release_table(frame, result, dataset, models)


def test_a_changed_sensitive_value_is_caught(released):
    dataset, models, result = released
    frame = result.data.astype("str")
    row = int(np.flatnonzero((frame["age"] != "*").to_numpy())[0])
    value = frame.at[row, "salary-class"]
    frame.loc[row, "salary-class"] = "<=50K" if value == ">50K" else ">50K"
    with pytest.raises(VerificationError, match="salary-class"):
        verify_release_table(frame, result, dataset, models)


def test_a_generalized_label_of_another_record_is_caught(released):
    dataset, models, result = released
    frame = result.data.astype("str")
    rows = np.flatnonzero((frame["age"] != "*").to_numpy())
    other = next(r for r in rows[1:] if frame.at[r, "age"] != frame.at[rows[0], "age"])
    frame.loc[rows[0], "age"] = frame.at[other, "age"]
    with pytest.raises(VerificationError):
        verify_release_table(frame, result, dataset, models)
