"""An entropy l read back from a table (``exp(H)``) may exceed its distinct values by rounding
(found by hypothesis: three equally frequent values give l = 3.0000000000000004); asking for it is
attainable, and a larger l is still refused."""

import math

import pandas as pd
import pytest

from veil import Dataset
from veil.classes import ClassTable
from veil.errors import ParameterError
from veil.hierarchy import Hierarchy
from veil.models import EntropyLDiversity


def _classes():
    frame = pd.DataFrame({"q": ["c", "c", "c"], "s": ["1", "2", "3"]})
    dataset = Dataset.from_pandas(frame, quasi_identifiers=["q"], sensitive=["s"],
                                  hierarchies={"q": Hierarchy.flat(["c"], name="q")})
    return ClassTable.from_dataset(dataset)


def test_the_achieved_entropy_l_is_attainable_and_met():
    classes = _classes()
    achieved = EntropyLDiversity("s", l=1).achieved_level(classes)
    assert math.isclose(achieved, 3.0)
    assert EntropyLDiversity("s", l=achieved).check(classes)
    assert EntropyLDiversity("s", l=3.0000000000000004).check(classes)


def test_more_than_the_distinct_values_is_refused():
    with pytest.raises(ParameterError, match="choose l <= 3"):
        EntropyLDiversity("s", l=3.001).check(_classes())
