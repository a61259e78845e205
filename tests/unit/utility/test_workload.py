"""Workload utility: the protocol (alignment of a shuffled release), errors, determinism, Adult."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

import veil
from veil.dataset import Dataset
from veil.errors import ParameterError, VerificationError
from veil.hierarchy import Hierarchy
from veil.models import KAnonymity
from veil.utility import Workload, align_release, infer_levels, workload, workload_summary

AGE = Hierarchy.from_rows(
    [["20", "20-29", "*"], ["25", "20-29", "*"], ["31", "30-39", "*"], ["35", "30-39", "*"], ["47", "40-49", "*"]],
    name="age",
)


def small() -> Dataset:
    frame = pd.DataFrame({
        "age": ["20", "25", "20", "31", "35", "31", "35", "47"] * 4,
        "job": ["x", "y", "x", "y", "x", "y", "x", "y"] * 4,
        "y": ["lo", "lo", "lo", "hi", "hi", "hi", "lo", "hi"] * 4,
    })
    return Dataset.from_pandas(frame, quasi_identifiers=["age"], sensitive=["y"], hierarchies={"age": AGE})


def test_align_release_recovers_row_order_with_suppressed_records_kept_or_dropped():
    data = small()
    for drop in (False, True):
        result = veil.anonymize(data, [KAnonymity(k=5)], suppression_limit=0.2, seed=3,
                                suppressed="drop" if drop else "keep", keep_unlisted=True)
        aligned = align_release(data, result.data, quasi_identifiers=["age"], levels=result.transformation)
        expected = result.classes.apply(data)  # the same recoding, in input order
        assert aligned["age"].tolist() == expected["age"].tolist()
        assert aligned["y"].tolist() == data.frame["y"].tolist()


def test_align_release_of_blanked_suppressed_records():
    # the default release blanks the sensitive values of suppressed records: they stay '*' once aligned
    # (30%: ages 25 and 47 suppressed, a group of 8; one of 4 would be smaller than k, issue #32)
    data = small()
    result = veil.anonymize(data, [KAnonymity(k=5)], suppression_limit=0.3, seed=3, keep_unlisted=True)
    aligned = align_release(data, result.data, quasi_identifiers=["age"], levels=result.transformation)
    suppressed = (aligned["age"] == "*").to_numpy()
    assert suppressed.sum() == result.report["suppressed"] > 0
    assert (aligned.loc[suppressed, "y"] == "*").all()
    assert aligned.loc[~suppressed, "y"].tolist() == data.frame.loc[~suppressed, "y"].tolist()


def test_infer_levels_finds_the_release_level():
    data = small()
    release = data.frame.assign(age=data.frame["age"].map({"20": "20-29", "25": "20-29", "31": "30-39", "35": "30-39", "47": "40-49"}))
    assert infer_levels(data, release, quasi_identifiers=["age"]) == {"age": 1}


def test_a_release_of_another_table_is_refused():
    data = small()
    release = data.frame.copy()
    release.loc[0, "y"] = "hi" if release.loc[0, "y"] == "lo" else "lo"  # one sensitive value changed
    with pytest.raises(VerificationError, match="not this original's full-domain release"):
        workload(data, release, target="y")


def test_aligned_release_needs_one_row_per_record():
    data = small()
    with pytest.raises(ParameterError, match="one row per original record"):
        workload(data, data.frame.iloc[:-1], target="y", aligned=True)


@pytest.mark.parametrize(
    ("options", "message"),
    [
        ({"target": "age"}, "is a quasi-identifier"),
        ({"target": "nope"}, "not a column"),
        ({"target": "y", "classifiers": ["svm"]}, "takes names from"),
        ({"target": "y", "classifiers": []}, "at least one"),
        ({"target": "y", "test_size": 1.5}, "test_size"),
    ],
)
def test_bad_parameters_are_parameter_errors(options, message):
    with pytest.raises(ParameterError, match=message):
        Workload(small(), **options)


def test_features_are_the_columns_the_release_publishes():
    data = small()
    withheld = workload(data, data.frame.drop(columns=["job"]), target="y", aligned=True)
    assert withheld.features == ("age",)
    assert workload(data, data.frame, target="y", aligned=True).features == ("age", "job")
    # the class's default: the columns a release publishes under the default policy (job has no role)
    assert Workload(data, target="y").features == ("age",)
    with pytest.raises(ParameterError, match="lacks the column"):  # a feature asked for must be published
        workload(data, data.frame.drop(columns=["job"]), target="y", features=["job"])
    with pytest.raises(ParameterError, match="does not publish the target"):
        workload(data, data.frame.drop(columns=["y"]), target="y")


def test_deterministic_given_random_state_and_sensitive_to_it():
    data = small()
    release = data.frame.sample(frac=1.0, random_state=1)
    first = workload(data, release, target="y", random_state=5).to_dict()
    assert workload(data, release, target="y", random_state=5).to_dict() == first
    prepared = Workload(data, target="y", random_state=6)
    assert not np.array_equal(prepared.test, Workload(data, target="y", random_state=5).test)


def test_base_drops_only_the_quasi_identifiers():
    # job is not a QI: U_base learns from it (job x -> mostly lo), so it beats the majority guess here
    data = small()
    scores = workload(data, data.frame, target="y", aligned=True, classifiers=["decision-tree"]).classifiers
    majority = Workload(data, target="y", classifiers=["decision-tree"])
    y_test = majority.y[majority.test]
    share = max(np.mean(y_test == "lo"), np.mean(y_test == "hi"))
    assert scores["decision-tree"].u_base >= share


@pytest.fixture(scope="module")
def adult_k5(adult):
    result = veil.anonymize(adult, [KAnonymity(k=5)], suppression_limit=0.05, seed=0)
    return adult, result


def test_adult_k5_workload(adult_k5):
    adult, result = adult_k5
    summary = workload_summary(adult, result.data, target="salary-class", levels=result.transformation)
    assert summary["target"] == "salary-class"
    assert set(summary["classifiers"]) == {"decision-tree", "naive-bayes", "logistic-regression"}
    y = adult.frame["salary-class"].to_numpy()
    prepared = Workload(adult, target="salary-class", classifiers=["decision-tree"])
    majority = float(np.mean(y[prepared.test] == "<=50K"))  # Adult's majority class, 75.1%
    for scores in summary["classifiers"].values():
        for key in ("u_base", "u_san", "u_max"):
            assert 0.0 <= scores[key] <= 1.0
        # Adult has no column besides the 8 QIs and the target: U_base is the majority guess
        assert scores["u_base"] == pytest.approx(majority)
        assert scores["u_max"] > scores["u_base"] + 0.03  # the QIs predict salary
        assert scores["u_san"] > scores["u_base"]
    # A_acc recomputed by hand from the aligned release: classes = released QI tuples (suppressed left out)
    aligned = align_release(adult, result.data, quasi_identifiers=adult.quasi_identifiers, levels=result.transformation)
    kept = aligned.loc[aligned["sex"] != "*"]
    counts = kept.groupby([*adult.quasi_identifiers, "salary-class"]).size()
    majority_per_class = counts.groupby(level=list(range(8))).max().sum()
    expected = majority_per_class / len(kept) - (y == "<=50K").mean()
    assert summary["a_acc"] == pytest.approx(expected)


def test_adult_shuffled_and_aligned_agree(adult_k5):
    adult, result = adult_k5
    shuffled = workload(adult, result.data, target="salary-class", classifiers=["naive-bayes"])
    aligned = workload(adult, result.classes.apply(adult), target="salary-class", classifiers=["naive-bayes"], aligned=True)
    assert shuffled.classifiers == aligned.classifiers
    assert shuffled.a_acc == aligned.a_acc


def test_aligned_release_in_another_order_is_refused():
    data = small()
    shuffled = data.frame.sample(frac=1.0, random_state=2).reset_index(drop=True)
    with pytest.raises(ParameterError, match="not in the original's order"):
        workload(data, shuffled, target="y", aligned=True)
