"""A release whose every row is suppressed is checked as the all-'*' table it stands for (every input
record, suppressed), with or without row weights; one row left is judged alone."""

import numpy as np
import pandas as pd
import pytest

from veil import Dataset
from veil.anonymization import verify
from veil.errors import VerificationError
from veil.models import KAnonymity


@pytest.fixture
def four():
    frame = pd.DataFrame({"a": ["1", "2", "3", "4"], "s": ["x", "x", "x", "y"]})
    return Dataset.from_pandas(frame, quasi_identifiers=["a"], sensitive=["s"])


@pytest.mark.parametrize("weights", [None, np.ones(4, dtype=np.int64)])
def test_every_row_suppressed_is_the_all_star_table(four, weights):
    released = pd.DataFrame({"a": ["*"] * 4, "s": ["*"] * 4})
    star = np.ones(4, dtype=bool)
    classes = verify(released, four, [KAnonymity(k=4)], suppressed_rows=star, weights=weights)
    assert (classes.n_classes, classes.n_records, classes.suppressed) == (0, 4, 4)
    assert classes.sensitive["s"].overall.tolist() == [3, 1]  # the input's values, not the blanked ones


def test_one_row_left_is_judged_alone(four):
    # three rows suppressed, one released: its class of 1 fails k=2
    released = pd.DataFrame({"a": ["*", "*", "*", "4"], "s": ["*", "*", "*", "y"]})
    star = np.array([True, True, True, False])
    assert verify(released, four, [KAnonymity(k=1)], suppressed_rows=star).counts.tolist() == [1]
    with pytest.raises(VerificationError):
        verify(released, four, [KAnonymity(k=2)], suppressed_rows=star)
