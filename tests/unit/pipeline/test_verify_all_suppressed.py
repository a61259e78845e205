"""A release whose every row is suppressed is checked as what it shows: one class of every record
(``*`` in every QI), with or without row weights; one row left is a class beside it."""

import numpy as np
import pandas as pd
import pytest

from veil import Dataset
from veil.anonymization import verify
from veil.errors import VerificationError
from veil.models import KAnonymity
from veil.models._shown import shown


@pytest.fixture
def four():
    frame = pd.DataFrame({"a": ["1", "2", "3", "4"], "s": ["x", "x", "x", "y"]})
    return Dataset.from_pandas(frame, quasi_identifiers=["a"], sensitive=["s"])


@pytest.mark.parametrize("weights", [None, np.ones(4, dtype=np.int64)])
def test_every_row_suppressed_is_one_class(four, weights):
    released = pd.DataFrame({"a": ["*"] * 4, "s": ["*"] * 4})
    star = np.ones(4, dtype=bool)
    classes = verify(released, four, [KAnonymity(k=4)], suppressed_rows=star, weights=weights)
    assert (classes.n_classes, classes.n_records, classes.counts.tolist()) == (1, 4, [4])
    assert shown(classes).sensitive["s"].labels.tolist() == []  # every value withheld: none shown
    with pytest.raises(VerificationError, match="5-anonymity"):
        verify(released, four, [KAnonymity(k=5)], suppressed_rows=star, weights=weights)


def test_one_row_left_is_a_class_beside_the_suppressed_group(four):
    # three rows suppressed (a class of 3), one released: its class of 1 fails k=2
    released = pd.DataFrame({"a": ["*", "*", "*", "4"], "s": ["*", "*", "*", "y"]})
    star = np.array([True, True, True, False])
    assert sorted(verify(released, four, [KAnonymity(k=1)], suppressed_rows=star).counts.tolist()) == [1, 3]
    with pytest.raises(VerificationError):
        verify(released, four, [KAnonymity(k=2)], suppressed_rows=star)
