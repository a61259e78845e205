"""A sensitive value missing only in records the release leaves out is still in the input's domain.

Found by hypothesis (tests/unit/testing/test_testing_helpers.py, seed
223581719914877462447309537839183806291): q0 = [missing, v0, v0], s0 = [missing, 0, 0],
k = 2.  The record with the missing QI is a class of one and is suppressed; the
released records hold no missing s0, so the verification's rebuilt histogram
lacked the input's missing value and refused a correct release.
"""

from __future__ import annotations

import pandas as pd
import pytest

import veil
from veil import Dataset
from veil.hierarchy import Hierarchy
from veil.models import DistinctLDiversity, EqualDistanceTCloseness, KAnonymity, OrderedDistanceTCloseness


@pytest.mark.parametrize("kind", ["numeric", "categorical"])
@pytest.mark.parametrize("drop", [False, True])
@pytest.mark.parametrize("extra", [None, "l", "t"])
def test_release_verifies_when_the_missing_value_is_only_in_suppressed_records(kind, drop, extra):
    frame = pd.DataFrame({"q0": [None, "v0", "v0"], "s0": [None, "0", "0"]})
    dataset = Dataset.from_pandas(frame, quasi_identifiers=["q0"], sensitive=["s0"], kinds={"s0": kind},
                                  hierarchies={"q0": Hierarchy.flat(["v0"], name="q0")})
    models = [KAnonymity(k=2)]
    if extra == "l":
        models.append(DistinctLDiversity(sensitive="s0", l=1))
    elif extra == "t":  # s0 over {0, missing}: 2/3 and 1/3; the class (v0) has 0 twice: distance 1/3
        cls = OrderedDistanceTCloseness if kind == "numeric" else EqualDistanceTCloseness
        models.append(cls(sensitive="s0", t=0.5))
    result = veil.anonymize(dataset, models, suppression_limit=0.5, seed=1, drop_suppressed=drop)
    assert result.report["verified"] is True
    if not drop:  # blank would publish a suppressed group of one record under 2-anonymity (issue #32)
        assert result.report["transformation"] == {"q0": 1} and result.report["suppressed"] == 0
        return
    # level 0 with the one-record class suppressed: the other two released as they are
    released = result.data[result.data["q0"] != "*"]
    assert released.values.tolist() == [["v0", "0"], ["v0", "0"]]
    assert len(result.data) == (2 if drop else 3)
