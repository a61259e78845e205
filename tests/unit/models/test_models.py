"""Unit tests of the privacy models: hand-computed values, tightness, bad input."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest

from veil.classes import ClassTable
from veil.errors import ColumnNotFoundError, HierarchyError, ParameterError, SchemaError
from veil.hierarchy import Hierarchy
from veil.models import (
    AlphaKAnonymity,
    AverageRisk,
    BasicBetaLikeness,
    DeltaDisclosure,
    DeltaPresence,
    DistinctLDiversity,
    EnhancedBetaLikeness,
    EntropyLDiversity,
    EqualDistanceTCloseness,
    HierarchicalTCloseness,
    KAnonymity,
    KLinkAnonymity,
    KMap,
    LKCPrivacy,
    MaxProsecutorRisk,
    OrderedDistanceTCloseness,
    PresentValuesDeltaDisclosure,
    RecordsAtRiskShare,
    RecursiveCLDiversity,
)


def table(groups: dict[str, list[str]], *, kind: str = "categorical", hierarchy=None, domain=None) -> ClassTable:
    """A class table with one QI 'q' whose classes hold the given sensitive values 's'."""
    q = [name for name, values in groups.items() for _ in values]
    s = [v for values in groups.values() for v in values]
    from veil.dataset import Dataset

    ds = Dataset.from_pandas(
        pd.DataFrame({"q": q, "s": s}), quasi_identifiers=["q"], sensitive=["s"], kinds={"s": kind},
        domains={"s": domain} if domain else None,
    )
    return ClassTable.from_dataset(ds, hierarchies={"s": hierarchy} if hierarchy else None)


# ---------------------------------------------------------------- l-diversity
def test_recursive_cl_sorts_descending_10_1_1():
    # class {10, 1, 1}: r(1) = 10, tail for l=2 is 1 + 1 = 2 -> c* = 5 (not ~1)
    t = table({"a": ["x"] * 10 + ["y", "z"]})
    assert RecursiveCLDiversity(sensitive="s", c=5, l=2).achieved_level(t) == 5.0
    # strict: 10 < 5*2 false; 10 < 5.0001*2 true; non-strict 10 <= 10 true
    assert not RecursiveCLDiversity(sensitive="s", c=5, l=2).check(t)
    assert RecursiveCLDiversity(sensitive="s", c=5.0001, l=2).check(t)
    assert RecursiveCLDiversity(sensitive="s", c=5, l=2, strict=False).check(t)
    assert not RecursiveCLDiversity(sensitive="s", c=4.9999, l=2, strict=False).check(t)
    # l = 3: tail is r(3) = 1 -> c* = 10
    assert RecursiveCLDiversity(sensitive="s", c=1, l=3).achieved_level(t) == 10.0


def test_recursive_cl_max_over_classes_and_empty_tail():
    # class a {3, 2, 1}: 3 / (2 + 1) = 1; class b {4, 4}: 4 / 4 = 1; class c {5, 1}: 5 / 1 = 5 -> c* = 5
    t = table({"a": ["x"] * 3 + ["y"] * 2 + ["z"], "b": ["x"] * 4 + ["y"] * 4, "c": ["x"] * 5 + ["y"]})
    model = RecursiveCLDiversity(sensitive="s", c=5, l=2)
    assert model.achieved_level(t) == 5.0
    assert model.violating(t).tolist() == [False, False, True]
    # l = 3: class b has 2 distinct values -> empty tail -> infinite c*
    assert math.isinf(RecursiveCLDiversity(sensitive="s", c=5, l=3).achieved_level(t))


def test_distinct_and_entropy_l():
    # a: {x, y} -> 2 distinct, H = ln 2; b: {x, y, z, z} -> 3 distinct,
    # H = -(1/4 ln 1/4 * 2 + 1/2 ln 1/2) = 1.5 ln 2 -> exp = 2^1.5
    t = table({"a": ["x", "y"], "b": ["x", "y", "z", "z"]})
    assert DistinctLDiversity(sensitive="s", l=2).achieved_level(t) == 2
    assert DistinctLDiversity(sensitive="s", l=2).check(t)
    assert not DistinctLDiversity(sensitive="s", l=3).check(t)
    ent = EntropyLDiversity(sensitive="s", l=2)
    assert ent.entropies(t) == pytest.approx([math.log(2), 1.5 * math.log(2)], rel=1e-14)
    # the achieved l is real, not truncated: min(2, 2.83) = 2.0; with b alone 2**1.5
    assert ent.achieved_level(t) == pytest.approx(2.0, rel=1e-14)
    only_b = t.suppress(np.array([True, False]))
    assert EntropyLDiversity(sensitive="s", l=2).achieved_level(only_b) == pytest.approx(2**1.5, rel=1e-14)
    # tightness: passes at l = 2 (ln 2 exactly, within the documented tolerance), fails just above
    assert ent.check(t)
    assert not EntropyLDiversity(sensitive="s", l=2.0001).check(t)


def test_l_larger_than_distinct_values_cannot_be_met():
    t = table({"a": ["x", "y"], "b": ["x", "y"]})
    for model in (
        DistinctLDiversity(sensitive="s", l=3),
        EntropyLDiversity(sensitive="s", l=3),
        RecursiveCLDiversity(sensitive="s", c=2, l=3),
    ):
        with pytest.raises(ParameterError, match="cannot be met on 's': the table has only 2 distinct"):
            model.check(t)


# ---------------------------------------------------------------- t-closeness
def test_equal_distance_hand_values():
    # q = (x 3/4, y 1/4); class a (1/2, 1/2): 1/2(1/4 + 1/4) = 1/4; class b (1, 0): 1/2(1/4 + 1/4) = 1/4
    t = table({"a": ["x", "y"], "b": ["x", "x"]})
    model = EqualDistanceTCloseness(sensitive="s", t=0.25)
    assert model.distances(t).tolist() == [0.25, 0.25]
    assert model.check(t)
    assert not EqualDistanceTCloseness(sensitive="s", t=np.nextafter(0.25, 0)).check(t)


def test_equal_distance_uses_declared_domain():
    # declared domain {x, y, z}; z occurs nowhere so it adds |0 - 0| = 0: same distances
    t = table({"a": ["x", "y"], "b": ["x", "x"]}, domain=["x", "y", "z"])
    assert t.sensitive["s"].n_values == 3
    assert EqualDistanceTCloseness(sensitive="s", t=1).distances(t).tolist() == [0.25, 0.25]


def test_ordered_distance_hand_values_and_normalisation():
    # domain 1 < 2 < 3 (m = 3); q = (1/4, 1/4, 1/2)
    # a = (1/2, 1/2, 0): diffs (1/4, 1/4, -1/2), cumsum (1/4, 1/2, 0) -> 3/4 / (m-1) = 3/8
    t = table({"a": ["1", "2"], "b": ["3", "3"]}, kind="numeric")
    model = OrderedDistanceTCloseness(sensitive="s", t=0.375)
    assert model.distances(t).tolist() == [0.375, 0.375]
    assert model.check(t)
    assert not OrderedDistanceTCloseness(sensitive="s", t=0.374).check(t)


def test_ordered_distance_orders_numbers_by_value():
    # "10" > "9" by value: a = {9}, b = {10}, c = {2}; q uniform over 2 < 9 < 10
    # a: p = (0, 1, 0); diffs (-1/3, 2/3, -1/3); cumsum (-1/3, 1/3, 0) -> 2/3 / 2 = 1/3
    # c: p = (1, 0, 0); diffs (2/3, -1/3, -1/3); cumsum (2/3, 1/3, 0) -> 1 / 2 = 1/2
    t = table({"a": ["9"], "b": ["10"], "c": ["2"]}, kind="numeric")
    d = dict(zip(t.labels()["q"], OrderedDistanceTCloseness(sensitive="s", t=1).distances(t)))
    assert d["a"] == pytest.approx(1 / 3) and d["c"] == pytest.approx(0.5) and d["b"] == pytest.approx(0.5)


def test_hierarchical_distance_hand_values():
    # tree: * -> resp {flu, cold}, stom {ulcer, gastritis}; H = 2
    h = Hierarchy.from_rows([["flu", "resp", "*"], ["cold", "resp", "*"], ["ulcer", "stom", "*"],
                             ["gastritis", "stom", "*"]])
    # q: flu 1/4, cold 1/4, ulcer 1/4, gastritis 1/4
    # a = {flu, cold}: extras (1/4, 1/4, -1/4, -1/4); resp: pos 1/2 neg 0 -> 0; stom: 0;
    #     root: extra(resp) = 1/2, extra(stom) = -1/2 -> 2/2 * 1/2 = 1/2
    # b = {ulcer, gastritis}: symmetric -> 1/2
    t = table({"a": ["flu", "cold"], "b": ["ulcer", "gastritis"]}, hierarchy=h)
    assert HierarchicalTCloseness(sensitive="s", t=1).distances(t).tolist() == [0.5, 0.5]
    # c = {flu, ulcer}, d = {cold, gastritis}: resp node of c: extras (1/4, -1/4) -> 1/2 * 1/4 = 1/8;
    #     stom node: same 1/8; root: extra 0 and 0 -> 0. total 1/4
    t2 = table({"c": ["flu", "ulcer"], "d": ["cold", "gastritis"]}, hierarchy=h)
    assert HierarchicalTCloseness(sensitive="s", t=0.25).distances(t2).tolist() == [0.25, 0.25]
    assert HierarchicalTCloseness(sensitive="s", t=0.25).check(t2)
    assert not HierarchicalTCloseness(sensitive="s", t=0.2499).check(t2)


def test_hierarchical_needs_a_hierarchy():
    t = table({"a": ["x", "y"]})
    with pytest.raises(HierarchyError, match="needs a hierarchy for 's'"):
        HierarchicalTCloseness(sensitive="s", t=0.5).check(t)


@pytest.mark.parametrize("bad", [-0.1, 1.5, float("nan"), "0.2"])
def test_t_outside_unit_interval(bad):
    with pytest.raises(ParameterError, match="The 't' parameter of EqualDistanceTCloseness must be a float in"):
        EqualDistanceTCloseness(sensitive="s", t=bad)


# ---------------------------------------------------------------- δ-disclosure
def test_delta_disclosure_absent_value_is_a_violation():
    # a = {x, x}: y absent -> ln 0 -> infinite; present-values: x: ln(1 / (3/4)) = ln(4/3)
    # b = {x, y}: x: |ln((1/2)/(3/4))| = ln(3/2); y: ln((1/2)/(1/4)) = ln 2
    t = table({"a": ["x", "x"], "b": ["x", "y"]})
    full = DeltaDisclosure(sensitive="s", delta=5)
    assert full.deltas(t)[0] == math.inf
    assert full.deltas(t)[1] == pytest.approx(math.log(2))
    assert not full.check(t)
    present = PresentValuesDeltaDisclosure(sensitive="s", delta=5)
    assert present.deltas(t).tolist() == pytest.approx([math.log(4 / 3), math.log(2)])
    achieved = present.achieved_level(t)
    # strict inequality: fails at the achieved level, passes just above it
    assert not PresentValuesDeltaDisclosure(sensitive="s", delta=achieved).check(t)
    assert PresentValuesDeltaDisclosure(sensitive="s", delta=np.nextafter(achieved, 10)).check(t)


def test_delta_must_be_positive():
    with pytest.raises(ParameterError, match=r"must be a float in \(0, inf\)"):
        DeltaDisclosure(sensitive="s", delta=0)


# ---------------------------------------------------------------- (α,k), β
def test_alpha_k():
    # a = {x, x, y}: share 2/3, size 3; b = {x, y, y, y}: 3/4, size 4 -> alpha 3/4, k 3
    t = table({"a": ["x", "x", "y"], "b": ["x", "y", "y", "y"]})
    assert AlphaKAnonymity(sensitive="s", alpha=0.75, k=3).achieved_level(t) == {"alpha": 0.75, "k": 3}
    assert AlphaKAnonymity(sensitive="s", alpha=0.75, k=3).check(t)
    assert not AlphaKAnonymity(sensitive="s", alpha=0.74, k=3).check(t)
    assert not AlphaKAnonymity(sensitive="s", alpha=0.75, k=4).check(t)
    # protecting only x: shares 2/3, 1/4 -> 2/3
    only_x = AlphaKAnonymity(sensitive="s", alpha=0.7, k=3, values=("x",))
    assert only_x.achieved_level(t)["alpha"] == pytest.approx(2 / 3)
    with pytest.raises(ParameterError, match=r"must be a float in \(0, 1\]"):
        AlphaKAnonymity(sensitive="s", alpha=0, k=2)


def test_beta_likeness():
    # q: x 3/7, y 4/7. a = {x, x, y}: x gain (2/3 - 3/7)/(3/7) = 5/9; b = {x,y,y,y}: y (3/4-4/7)/(4/7) = 5/16
    t = table({"a": ["x", "x", "y"], "b": ["x", "y", "y", "y"]})
    basic = BasicBetaLikeness(sensitive="s", beta=5 / 9)
    assert basic.achieved_level(t) == pytest.approx(5 / 9, rel=1e-15)
    assert basic.check(t)
    assert not BasicBetaLikeness(sensitive="s", beta=0.55).check(t)
    # enhanced: caps -ln(3/7) = 0.847 > 5/9 and -ln(4/7) = 0.5596 > 5/16 -> same level
    assert EnhancedBetaLikeness(sensitive="s", beta=1).achieved_level(t) == pytest.approx(5 / 9)
    # a class {x}: q(x) = 3/4 -> gain 1/3 > -ln(3/4) = 0.288 -> no beta meets enhanced
    t2 = table({"a": ["x"], "b": ["x", "x", "y"]})
    assert math.isinf(EnhancedBetaLikeness(sensitive="s", beta=1).achieved_level(t2))
    assert BasicBetaLikeness(sensitive="s", beta=1).check(t2)


# ---------------------------------------------------------------- population models
def test_delta_presence_and_k_map():
    population = pd.DataFrame({"q": ["a"] * 4 + ["b"] * 2 + ["c"] * 3})
    sample = ClassTable.from_pandas(pd.DataFrame({"q": ["a", "a", "b"]}), quasi_identifiers=["q"])
    # ratios: a 2/4, b 1/2 -> [0.5, 0.5]; population sizes 4, 2 -> k-map 2
    dp = DeltaPresence(delta_min=0.5, delta_max=0.5, population=population)
    assert dp.check(sample) and dp.achieved_level(sample) == {"delta_min": 0.5, "delta_max": 0.5}
    assert not DeltaPresence(delta_min=0, delta_max=0.49, population=population).check(sample)
    assert KMap(k=2, population=population).check(sample)
    assert not KMap(k=3, population=population).check(sample)
    # a population ClassTable works too
    pop_classes = ClassTable.from_pandas(population, quasi_identifiers=["q"])
    assert KMap(k=2, population=pop_classes).achieved_level(sample) == 2


def test_population_generalized_through_hierarchy():
    h = Hierarchy.from_rows([["47677", "4767*", "*"], ["47678", "4767*", "*"], ["47905", "4790*", "*"]])
    frame = pd.DataFrame({"zip": ["47677", "47678", "47905"]})
    sample = ClassTable.from_pandas(frame, quasi_identifiers=["zip"], hierarchies={"zip": h}).generalize([1])
    population = pd.DataFrame({"zip": ["47677", "47677", "47678", "47905", "47905", "47905"]})
    # 4767*: sample 2 / population 3; 4790*: 1 / 3
    assert KMap(k=3, population=population).achieved_level(sample) == 3
    assert DeltaPresence(delta_min=0, delta_max=1, population=population).achieved_level(sample) == {
        "delta_min": pytest.approx(1 / 3), "delta_max": pytest.approx(2 / 3)}


def test_missing_population_is_an_error():
    with pytest.raises(ParameterError, match="DeltaPresence needs a population table"):
        DeltaPresence(delta_min=0, delta_max=0.5)
    with pytest.raises(ParameterError, match="KMap needs a population table"):
        KMap(k=2)


def test_sample_not_in_population_is_an_error():
    sample = ClassTable.from_pandas(pd.DataFrame({"q": ["a", "z"]}), quasi_identifiers=["q"])
    with pytest.raises(ParameterError, match="absent from the population"):
        KMap(k=1, population=pd.DataFrame({"q": ["a"]})).check(sample)


# ---------------------------------------------------------------- LKC, risk, k-link
def test_lkc_L_larger_than_qis():
    t = ClassTable.from_pandas(pd.DataFrame({"a": ["x"], "b": ["y"]}), quasi_identifiers=["a", "b"])
    with pytest.raises(ParameterError, match="'L' parameter of LKCPrivacy must be at most the number of quasi-identifiers \\(2\\)"):
        LKCPrivacy(L=3, K=1).check(t)


def test_lkc_equals_k_anonymity_at_full_L():
    frame = pd.DataFrame({"a": list("xxyyy"), "b": list("ppqqr")})
    t = ClassTable.from_pandas(frame, quasi_identifiers=["a", "b"])
    # classes (x,p)=2, (y,q)=2, (y,r)=1 -> k = 1; with L = 1: a groups 2, 3; b groups 2, 2, 1 -> K = 1
    assert LKCPrivacy(L=2, K=1).achieved_level(t)["K"] == KAnonymity(k=1).achieved_level(t) == 1
    assert LKCPrivacy(L=2, K=2).violating(t).tolist() == KAnonymity(k=2).violating(t).tolist()


def test_lkc_needs_sensitive_when_C_below_1():
    with pytest.raises(ParameterError, match="needs the sensitive attribute"):
        LKCPrivacy(L=1, K=2, C=0.5)


def test_risk_thresholds():
    # classes of size 1 and 5: max risk 1, average 2/6 = 1/3, records at risk (> 0.5): 1/6
    t = ClassTable.from_pandas(pd.DataFrame({"q": list("abbbbb")}), quasi_identifiers=["q"])
    assert MaxProsecutorRisk(threshold=1).achieved_level(t) == 1.0
    assert not MaxProsecutorRisk(threshold=0.5).check(t)
    assert MaxProsecutorRisk(threshold=0.5).violating(t).tolist() == [True, False]
    avg = AverageRisk(threshold=1 / 3)
    assert avg.achieved_level(t) == 1 / 3 and avg.check(t)
    assert not AverageRisk(threshold=0.33).check(t)
    # removing the singleton: 1/5 = 0.2 <= 0.33 -> violating = the smallest class only
    assert AverageRisk(threshold=0.33).violating(t).tolist() == [True, False]
    assert not AverageRisk(threshold=1 / 3).violating(t).any()
    share = RecordsAtRiskShare(threshold=0.5, share=0.1)
    assert share.achieved_level(t) == 1 / 6 and not share.check(t)
    assert share.violating(t).tolist() == [True, False]
    assert RecordsAtRiskShare(threshold=0.5, share=1 / 6).check(t)


def test_average_risk_suppressing_violating_meets_it():
    t = ClassTable.from_pandas(pd.DataFrame({"q": list("abccdddeeee")}), quasi_identifiers=["q"])
    model = AverageRisk(threshold=0.25)  # 5 classes / 11 records = 0.4545
    mask = model.violating(t)
    # smallest first: drop a, b (1, 1) -> 3/9 = .33; drop c (2) -> 2/7 = .2857; drop d (3) -> 1/4 = .25
    assert mask.tolist() == [True, True, True, True, False]
    assert model.check(t.suppress(mask))


def test_k_link_anonymity_over_marginals():
    frame = pd.DataFrame({"a": list("xxyy"), "b": list("ppqr")})
    t = ClassTable.from_pandas(frame, quasi_identifiers=["a", "b"])
    # marginal a: x 2, y 2; marginal b: p 2, q 1, r 1 -> 1
    model = KLinkAnonymity(k=2)
    assert model.check_marginals([t.project(["a"])])
    assert model.achieved_level_marginals([t.project(["a"]), t.project(["b"])]) == 1
    with pytest.raises(ParameterError, match="at least one marginal"):
        model.check_marginals([])


# ---------------------------------------------------------------- bad input
def test_sensitive_that_is_also_a_qi():
    frame = pd.DataFrame({"q": ["a"], "s": ["x"]})
    with pytest.raises(SchemaError, match="a column has"):
        ClassTable.from_pandas(frame, quasi_identifiers=["q", "s"], sensitive=["s"])
    t = ClassTable.from_pandas(frame, quasi_identifiers=["q", "s"])
    with pytest.raises(ColumnNotFoundError, match="'s' is a quasi-identifier of this class table, not a sensitive"):
        DistinctLDiversity(sensitive="s", l=1).check(t)


@pytest.mark.parametrize("c", [0, -1.0])
def test_c_must_be_positive(c):
    with pytest.raises(ParameterError, match=r"The 'c' parameter of RecursiveCLDiversity must be a float in \(0, inf\)"):
        RecursiveCLDiversity(sensitive="s", c=c, l=2)


PUBLIC_INVALID = [
    (KAnonymity, {"k": 0}),
    (DistinctLDiversity, {"sensitive": "s", "l": 0}),
    (EntropyLDiversity, {"sensitive": "s", "l": 0.5}),
    (RecursiveCLDiversity, {"sensitive": "s", "c": 1, "l": 0}),
    (EqualDistanceTCloseness, {"sensitive": "s", "t": 2}),
    (OrderedDistanceTCloseness, {"sensitive": "s", "t": -1}),
    (HierarchicalTCloseness, {"sensitive": "s", "t": 1.01}),
    (DeltaDisclosure, {"sensitive": "s", "delta": -1}),
    (PresentValuesDeltaDisclosure, {"sensitive": "s", "delta": 0}),
    (DeltaPresence, {"delta_min": 0.6, "delta_max": 0.5, "population": pd.DataFrame()}),
    (AlphaKAnonymity, {"sensitive": "s", "alpha": 1.5, "k": 2}),
    (BasicBetaLikeness, {"sensitive": "s", "beta": 0}),
    (EnhancedBetaLikeness, {"sensitive": "s", "beta": -1}),
    (KMap, {"k": 0, "population": pd.DataFrame()}),
    (LKCPrivacy, {"L": 0, "K": 2}),
    (MaxProsecutorRisk, {"threshold": 0}),
    (AverageRisk, {"threshold": 1.5}),
    (RecordsAtRiskShare, {"threshold": 0.5, "share": 2}),
    (KLinkAnonymity, {"k": True}),
]


@pytest.mark.parametrize(("cls", "params"), PUBLIC_INVALID, ids=[c.__name__ for c, _ in PUBLIC_INVALID])
def test_every_model_rejects_invalid_parameters(cls, params):
    with pytest.raises(ParameterError, match=f"parameter of {cls.__name__} must be"):
        cls(**params)


def test_models_are_frozen_and_declare_facts():
    model = DistinctLDiversity(sensitive="s", l=2)
    with pytest.raises(AttributeError):
        model.l = 3  # type: ignore[misc]
    monotone_with_suppression = {
        cls.__name__ for cls, _ in PUBLIC_INVALID if cls.monotone_with_suppression
    }
    assert monotone_with_suppression == {"KAnonymity", "DistinctLDiversity", "KMap", "MaxProsecutorRisk", "KLinkAnonymity"}
    assert not PresentValuesDeltaDisclosure.monotone_generalization
    assert all(cls.reference for cls, _ in PUBLIC_INVALID)
