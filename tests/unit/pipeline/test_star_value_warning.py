"""A sensitive value that reads ``*`` under ``suppressed: blank``: the release warns that a reader of
the file cannot tell it from a blanked value (in memory; an engine refuses it, see
tests/unit/engines/test_engine_star_values.py)."""

import numpy as np
import pandas as pd
import pytest

import veil
from veil import Dataset
from veil.hierarchy import Hierarchy
from veil.models import KAnonymity


def _dataset(values):
    rng = np.random.default_rng(1)
    zips = [str(z) for z in range(100, 105) for _ in range(70)] + [str(z) for z in range(150, 155)]  # 5 alone
    frame = pd.DataFrame({"zip": zips, "disease": rng.choice(values, len(zips))})
    zips = sorted(frame["zip"].unique())
    hierarchy = Hierarchy.from_rows([[z, z[:2] + "*", "*"] for z in zips], name="zip")
    return Dataset.from_pandas(frame, quasi_identifiers=["zip"], sensitive=["disease"], hierarchies={"zip": hierarchy})


def _warned(result):
    return [w for w in result.report["warnings"] if "cannot tell the two apart" in w]


@pytest.mark.parametrize("mode", ["blank", "drop", "keep"])
def test_a_star_value_is_warned_about_only_when_values_are_blanked(mode):
    result = veil.anonymize(_dataset(["flu", "cold", "*"]), [KAnonymity(k=5)], suppression_limit=0.05, seed=2,
                            suppressed=mode)
    assert result.report["suppressed"] > 0  # some record suppressed: blank writes '*' for its value
    warned = _warned(result)
    assert bool(warned) == (mode == "blank")
    if warned:
        assert "'disease'" in warned[0]


def test_no_star_value_no_warning():
    result = veil.anonymize(_dataset(["flu", "cold", "none"]), [KAnonymity(k=5)], suppression_limit=0.05, seed=2)
    assert result.report["suppressed"] > 0 and not _warned(result)
