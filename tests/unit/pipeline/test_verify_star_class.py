"""The check of a release judges every class, '*' everywhere or not: the suppressed records published
with '*' in every QI are one class of the release (issue #32), their withheld values no value."""

import numpy as np
import pandas as pd
import pytest

from veil import Dataset
from veil.anonymization import verify
from veil.classes import ClassTable
from veil.errors import ParameterError, VerificationError
from veil.models import DistinctLDiversity, KAnonymity
from veil.models._shown import shown


@pytest.fixture
def four():
    frame = pd.DataFrame({"a": ["1", "2", "3", "4"], "s": ["x", "x", "x", "y"]})
    return Dataset.from_pandas(frame, quasi_identifiers=["a"], sensitive=["s"])


def test_a_class_generalized_to_star_everywhere_is_judged(four):
    # four records released as '*' in every QI with their sensitive values: one class of 4,
    # so 5-anonymity fails; before, the check took the '*' rows for suppressed ones and passed
    released = pd.DataFrame({"a": ["*"] * 4, "s": ["x", "x", "x", "y"]})
    with pytest.raises(VerificationError, match="5-anonymity"):
        verify(released, four, [KAnonymity(k=5)], suppressed="blank", suppressed_rows=np.zeros(4, bool))
    classes = verify(released, four, [KAnonymity(k=4), DistinctLDiversity("s", l=2)], suppressed="blank",
                     suppressed_rows=np.zeros(4, bool))
    assert classes.counts.tolist() == [4] and classes.suppressed == 0


def test_suppressed_rows_are_a_class_and_their_blanked_values_read_nowhere(four):
    released = pd.DataFrame({"a": ["1-2", "1-2", "*", "*"], "s": ["x", "y", "*", "*"]})
    star = np.array([False, False, True, True])
    classes = verify(released, four, [KAnonymity(k=2), DistinctLDiversity("s", l=2)], suppressed="blank",
                     suppressed_rows=star)
    assert sorted(classes.counts.tolist()) == [2, 2] and classes.suppressed == 0
    histogram = shown(classes).sensitive["s"]
    assert histogram.labels.tolist() == ["x", "y"]
    assert sorted(histogram.counts.tolist()) == [[0, 0], [1, 1]]  # the '*' class shows no value
    assert histogram.overall.tolist() == [1, 1]  # judged against the values the release shows
    with pytest.raises(VerificationError, match="3-anonymity"):  # the suppressed group is a class of 2
        verify(released, four, [KAnonymity(k=3)], suppressed="blank", suppressed_rows=star)


def test_a_blanked_value_outside_the_suppressed_rows_is_caught(four):
    released = pd.DataFrame({"a": ["1-2", "1-2", "*", "*"], "s": ["x", "*", "x", "*"]})
    with pytest.raises(VerificationError, match="'s'"):
        verify(released, four, [KAnonymity(k=2)], suppressed="blank", suppressed_rows=np.array([0, 0, 1, 1], bool))


def test_the_builder_refuses_a_suppressed_mask_of_another_length(four):
    with pytest.raises(ParameterError, match="3 entries for a table of 4 rows"):
        ClassTable.from_dataset(four, suppressed_rows=np.zeros(3, bool))
