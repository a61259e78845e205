"""The release policy of issue #13 on small tables worked by hand."""

import pandas as pd
import pytest

import veil
from veil.errors import InfeasibleError
from veil.hierarchy import Hierarchy
from veil.models import DistinctLDiversity, KAnonymity
from veil.pipeline import IdentifierLeakError, ReleasePolicy


def _table():
    # zips 4767* hold 4 records with flu/cancer; the one 4790* record has the rare disease.
    frame = pd.DataFrame({
        "zip": ["47677", "47678", "47677", "47678", "47905"],
        "disease": ["flu", "cancer", "cancer", "flu", "rare-disease"],
    })
    zips = Hierarchy.from_rows([[z, z[:4] + "*", "*"] for z in ["47677", "47678", "47905"]])
    return veil.Dataset.from_pandas(frame, quasi_identifiers=["zip"], sensitive=["disease"], hierarchies={"zip": zips})


MODELS = [KAnonymity(k=2), DistinctLDiversity(sensitive="disease", l=2)]


def test_blank_withholds_the_suppressed_rare_disease():
    # level 0: classes 47677 (flu, cancer) and 47678 (cancer, flu) are 2-anonymous and
    # 2-diverse; 47905 and 47906 (1 record each, the rare disease) are suppressed: 2 of 6 <= 34%,
    # the least loss.  blank publishes those records as *,*: a group of 2, so 2-anonymous too
    # (a group of one would not be: issue #32), its values withheld
    frame = pd.DataFrame({"zip": ["47677", "47678", "47677", "47678", "47905", "47906"],
                          "disease": ["flu", "cancer", "cancer", "flu", "rare-disease", "rare-disease"]})
    zips = Hierarchy.from_rows([[z, z[:4] + "*", "*"] for z in ["47677", "47678", "47905", "47906"]])
    dataset = veil.Dataset.from_pandas(frame, quasi_identifiers=["zip"], sensitive=["disease"], hierarchies={"zip": zips})
    result = veil.anonymize(dataset, MODELS, suppression_limit=0.34, suppressed="blank")
    assert result.report["transformation"] == {"zip": 0}
    star = result.data["zip"] == "*"
    assert star.sum() == 2 and (result.data.loc[star, "disease"] == "*").all()
    assert "rare-disease" not in set(result.data["disease"])
    # the suppressed group of one record (the table of five) is refused: the top node instead
    assert veil.anonymize(_table(), MODELS, suppression_limit=0.2, suppressed="blank").report["transformation"] == {
        "zip": 2}


def test_keep_refuses_a_node_whose_suppressed_group_fails():
    # keep would publish "*,rare-disease": a group of 1 value fails 2-diversity, so levels
    # 0 and 1 (each suppressing the 47905/4790* record) are no solution; level 2 puts all 5 records in one class ('*': flu, cancer, rare) with
    # nothing suppressed, which is 2-diverse.
    result = veil.anonymize(_table(), MODELS, suppression_limit=0.2, suppressed="keep")
    assert result.report["transformation"] == {"zip": 2}
    assert result.report["suppressed"] == 0


def test_keep_is_infeasible_when_every_node_leaves_a_bad_group():
    with pytest.raises(InfeasibleError):
        veil.anonymize(_table(), MODELS, suppression_limit=0.2, suppressed="keep", max_levels={"zip": 1})


def test_drop_leaves_the_suppressed_record_out():
    result = veil.anonymize(_table(), MODELS, suppression_limit=0.2, suppressed="drop")
    assert len(result.data) == 4 and result.report["suppressed_dropped"] == 1


def test_policy_columns_and_identifier_scan():
    frame = pd.DataFrame({"email": [f"p{i}@example.org" for i in range(12)], "zip": ["1"] * 12, "x": ["a"] * 12})
    ds = veil.Dataset.from_pandas(frame, quasi_identifiers=["zip"], insensitive=["email"])
    policy = ReleasePolicy()
    assert [(c.name, c.role, c.treatment) for c in policy.columns(ds)] == [
        ("email", "insensitive", "unchanged"), ("zip", "quasi-identifier", "generalized"), ("x", "unlisted", "dropped")]
    with pytest.raises(IdentifierLeakError, match="'email' looks like a direct identifier"):
        policy.check_identifiers(frame, ["email", "zip"])
    ReleasePolicy(allow_identifiers=["email"]).check_identifiers(frame, ["email", "zip"])
