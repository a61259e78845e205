"""Attack simulations, disclosure measures and information measures on hand-computed tables."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest

from veil.classes import ClassTable
from veil.datasets import load_din_table, load_patients_3anonymous
from veil.errors import ColumnNotFoundError, ParameterError, SchemaError
from veil.risk import (
    background_knowledge_attack,
    disclosure,
    homogeneity_attack,
    hypothetical_information,
    linkage_attack,
    perceived_information,
    sparse_linkage_attack,
    sparse_linkage_scores,
)


# ------------------------------------------------------------------ linkage
def _voters():
    # the adversary's identified list (Sweeney's voter list): names, gender, exact year of birth
    return pd.DataFrame({
        "voter": ["Gill", "Alice", "John", "Bill", "Nobody"],
        "Gender": ["Female", "Female", "Male", "Male", "Female"],
        "YOB": ["1995", "1987", "1979", "1995", "1960"],
    })


def test_exact_linkage_on_the_raw_release():
    din = load_din_table()
    release = din.frame.drop(columns=["Name"])
    result = linkage_attack(release, _voters(), on=["Gender", "YOB"], k=3)
    # (F,1995): 2 candidates; (F,1987): 1 -> unique; (M,1979): 3; (M,1995): 1 -> unique; (F,1960): none
    assert result.candidates.tolist() == [2, 1, 3, 1, 0]
    assert result.unique == 2 and result.matched == 4 and result.below_k == 3
    assert result.unique_rate == 2 / 5


def test_linkage_through_the_generalization():
    decades = ClassTable.from_dataset(load_din_table()).generalize({"YOB": 1})
    result = linkage_attack(decades, _voters())
    # voters map to (F,1990-1999): 2, (F,1980-1989): 2, (M,1970-1979): 3, (M,1990-1999): 2, (F,1960s): 0
    assert result.candidates.tolist() == [2, 2, 3, 2, 0]
    assert result.unique == 0 and result.below_k == 0  # k = 2: only candidate sets of size 1 count
    assert linkage_attack(decades, _voters(), k=3).below_k == 3


def test_linkage_ground_truth():
    release = pd.DataFrame({"id": ["1", "2", "3"], "zip": ["a", "a", "b"]})
    external = pd.DataFrame({"id": ["3", "2", "9"], "zip": ["b", "a", "b"]})
    result = linkage_attack(release, external, on=["zip"], id_column="id")
    # external 3 -> zip b -> unique, right; 2 -> zip a, 2 candidates; 9 -> zip b unique but wrong person
    assert result.unique == 2 and result.correct == 1


def test_linkage_missing_attribute_in_external_table():
    release = pd.DataFrame({"zip": ["a"], "sex": ["F"]})
    with pytest.raises(ColumnNotFoundError, match="external table lacks the join attribute 'sex'"):
        linkage_attack(release, pd.DataFrame({"zip": ["a"]}), on=["zip", "sex"])


def test_linkage_empty_external_table():
    with pytest.raises(SchemaError, match="no records"):
        linkage_attack(pd.DataFrame({"zip": ["a"]}), pd.DataFrame({"zip": []}), on=["zip"])


def test_linkage_suppressed_records_match_no_one():
    release = pd.DataFrame({"zip": ["a", "*", "*"], "sex": ["F", "*", "*"]})
    external = pd.DataFrame({"zip": ["a", "*"], "sex": ["F", "*"]})
    assert linkage_attack(release, external, on=["zip", "sex"]).candidates.tolist() == [1, 0]


# --------------------------------------------------------------- homogeneity
def test_homogeneity_needs_a_sensitive_attribute():
    classes = ClassTable.from_pandas(pd.DataFrame({"q": ["a"]}), quasi_identifiers=["q"])
    with pytest.raises(ParameterError, match="Name the sensitive attribute"):
        homogeneity_attack(classes)
    with pytest.raises(ColumnNotFoundError):
        homogeneity_attack(ClassTable.from_dataset(load_patients_3anonymous()), "Salary")


# ------------------------------------------------------- background knowledge
def test_background_knowledge_uniform_prior_is_the_class_distribution():
    classes = ClassTable.from_dataset(load_patients_3anonymous())
    result = background_knowledge_attack(classes, np.ones(4))
    hist = classes.sensitive["Disease"].counts
    np.testing.assert_allclose(result.posterior, hist / hist.sum(axis=1, keepdims=True))
    # Bob's class: Cancer 1 - prior 1/4 = 3/4, the largest gain
    assert result.largest_gain == 0.75


def test_background_knowledge_contradiction_and_bad_priors():
    classes = ClassTable.from_dataset(load_patients_3anonymous())
    result = background_knowledge_attack(classes, {"Cancer": 1.0})
    # all the mass on Cancer: class (476**, 3*) has no Cancer -> contradicted, posterior row of zeros
    assert result.contradicted_classes == 1
    assert result.posterior.sum(axis=1).tolist() == [1.0, 1.0, 0.0] or sorted(
        result.posterior.sum(axis=1).tolist()) == [0.0, 1.0, 1.0]
    with pytest.raises(ParameterError, match="sum to 1.5"):
        background_knowledge_attack(classes, {"Cancer": 0.8, "Flu": 0.7})
    with pytest.raises(ParameterError, match="not a value"):
        background_knowledge_attack(classes, {"Measles": 0.1})
    with pytest.raises(ParameterError, match="one weight per value"):
        background_knowledge_attack(classes, [1.0, 2.0])


# -------------------------------------------------------------------- sparse
def _ratings(seed=0, users=300, items=200, density=0.05):
    rng = np.random.default_rng(seed)
    data = np.where(rng.random((users, items)) < density, rng.integers(1, 6, (users, items)).astype(float), np.nan)
    return pd.DataFrame(data, columns=[f"m{i}" for i in range(items)])


def test_sparse_scores_by_hand():
    data = pd.DataFrame({"a": [5.0, 5.0, np.nan], "b": [1.0, np.nan, 1.0], "c": [3.0, np.nan, np.nan]})
    scores = sparse_linkage_scores(data, {"a": 5, "c": 3})
    # supports: a 2, c 1 -> weights 1/log 3, 1/log 2; record 0 matches both, record 1 only a
    assert scores.tolist() == pytest.approx([1 / math.log(3) + 1 / math.log(2), 1 / math.log(3), 0.0])
    assert sparse_linkage_scores(data, {"a": 4}, tolerance=1).tolist() == pytest.approx(
        [1 / math.log(3), 1 / math.log(3), 0.0])


def test_more_auxiliary_knowledge_identifies_more():
    data = _ratings()
    rates = [sparse_linkage_attack(data, aux_size=a, targets=100, seed=1).rate for a in (1, 2, 4, 8)]
    assert rates[0] < rates[-1] and rates[-1] >= 0.9
    assert rates == sorted(rates)


def test_sparse_attack_is_reproducible_and_validates():
    data = _ratings()
    assert sparse_linkage_attack(data, aux_size=3, seed=5) == sparse_linkage_attack(data, aux_size=3, seed=5)
    with pytest.raises(ParameterError, match="No record has 500 known attributes"):
        sparse_linkage_attack(data, aux_size=500)
    with pytest.raises(ColumnNotFoundError):
        sparse_linkage_scores(data, {"nope": 1})


# ---------------------------------------------------------------- disclosure
def test_disclosure_by_hand():
    # overall Cancer 4, Flu 1, HD 3, VI 2 of 10 -> (.4, .1, .3, .2)
    # class 1 Cancer x3: A_diff = (.6 + .1 + .3 + .2)/2 = .6
    # class 2 Flu, HD, Cancer: (|.4-1/3| + |.1-1/3| + |.3-1/3| + .2)/2 = (1/15 + 7/30 + 1/30 + 1/5)/2 = 4/15
    # class 3 HD x2, VI x2: (.4 + .1 + .2 + .3)/2 = .5
    result = disclosure(load_patients_3anonymous())
    assert sorted(result.a_diff.tolist()) == pytest.approx(sorted([0.6, 4 / 15, 0.5]))
    # A_know = (3*.6 + 3*4/15 + 4*.5)/10 = .46
    assert result.a_know == pytest.approx(0.46, abs=1e-12)
    # A_acc = (3 + 1 + 2)/10 - .4 = .2
    assert result.a_acc == pytest.approx(0.2, abs=1e-12)
    assert result.delta == math.inf and result.to_dict()["delta"] is None


def test_delta_finite():
    frame = pd.DataFrame({"q": ["a", "a", "b", "b", "b", "b"], "s": ["x", "y", "x", "x", "y", "y"]})
    classes = ClassTable.from_pandas(frame, quasi_identifiers=["q"], sensitive=["s"])
    # overall x 1/2; both classes 1/2 each -> delta = |log 1| = 0
    assert disclosure(classes).delta == 0.0
    frame.loc[2, "s"] = "y"  # class b: x 1/4, y 3/4; overall x 1/3, y 2/3
    classes = ClassTable.from_pandas(frame, quasi_identifiers=["q"], sensitive=["s"])
    expected = max(abs(math.log(0.5 / (1 / 3))), abs(math.log(0.5 / (2 / 3))), abs(math.log(0.25 / (1 / 3))),
                   abs(math.log(0.75 / (2 / 3))))
    assert disclosure(classes).delta == pytest.approx(expected, rel=1e-12)


# --------------------------------------------------------------- information
def test_hypothetical_information_of_a_class_table():
    classes = ClassTable.from_dataset(load_din_table())
    # log2 11 - (3 log2 3 + 2 log2 2)/11
    expected = math.log2(11) - (3 * math.log2(3) + 2) / 11
    assert hypothetical_information(classes).bits == pytest.approx(expected, rel=1e-12)


def test_hypothetical_information_probabilistic():
    # seed 002: U2 likes comedy 60% / drama 40%; U1 the opposite.  Pr[u|comedy] = (.6, .4) swapped...
    likelihood = np.array([[0.4, 0.6], [0.6, 0.4]])
    result = hypothetical_information(likelihood)
    # I(U;O) = 1 - H(0.6) bits
    h = -(0.6 * math.log2(0.6) + 0.4 * math.log2(0.4))
    assert result.bits == pytest.approx(1 - h, rel=1e-12) and result.entropy == 1.0
    assert hypothetical_information(np.full((2, 2), 0.5)).bits == 0.0
    with pytest.raises(ParameterError, match="sum to 1"):
        hypothetical_information(np.array([[0.5, 0.6]]))


def test_perceived_information_by_hand():
    users = ["a", "a", "a", "b", "b", "b"]
    obs = ["x", "x", "y", "y", "y", "x"]
    test = [False, False, True, False, False, True]
    # profiling: a -> x only, b -> y only; testing: a sees y, b sees x -> Pr_p[a|y] = 0: PI = -inf
    assert perceived_information(users, obs, test=test).bits == -math.inf
    # with smoothing 1: Pr_p[x|a] = 3/4, Pr_p[y|a] = 1/4 (and mirrored); Pr_p[a|y] = 1/4
    # PI = 1 + 1/2 (log2 1/4) + 1/2 (log2 1/4) = -1: the adversary believes wrongly
    assert perceived_information(users, obs, test=test, smoothing=1.0).bits == pytest.approx(-1.0)
    test2 = [False, True, False, False, True, False]  # a tests x, b tests y
    # profiling a: x, y (1/2 each); b: y, x -> Pr_p[a|x] = 1/2 -> PI = 1 + log2(1/2) = 0
    assert perceived_information(users, obs, test=test2).bits == pytest.approx(0.0)


def test_information_accepts_a_dataset_like_the_other_risk_functions():
    from veil.risk import success_rate

    data = load_din_table()
    assert hypothetical_information(data).bits == hypothetical_information(ClassTable.from_dataset(data)).bits
    frame = data.frame[list(data.quasi_identifiers)]
    assert hypothetical_information(frame, quasi_identifiers=list(data.quasi_identifiers)).bits == pytest.approx(
        hypothetical_information(data).bits, rel=1e-12)
    with pytest.raises(ParameterError, match="prior"):
        hypothetical_information(data, prior=[1.0] * 11)
    with pytest.raises(ParameterError, match="per_attempt"):
        success_rate(1.5, 2)
    with pytest.raises(ParameterError, match="attempts"):
        success_rate(0.5, -1)


def test_perceived_information_of_a_dataset_needs_its_user_column():
    from veil.dataset import Dataset
    from veil.errors import SchemaError

    frame = pd.DataFrame({"who": ["a", "a", "b", "b"], "q": ["x", "x", "y", "y"]})
    with pytest.raises(SchemaError, match="user"):
        perceived_information(Dataset.from_pandas(frame, quasi_identifiers=["q"]), test=[0, 1, 0, 1])
    data = Dataset.from_pandas(frame, quasi_identifiers=["q"], insensitive=["who"])
    # each user's test observation is the one it was profiled on: PI = H[U] = 1 bit
    assert perceived_information(data, user="who", test=[0, 1, 0, 1]).bits == 1.0
    with pytest.raises(ParameterError, match="alone"):
        perceived_information(data, ["x"] * 4, user="who")
