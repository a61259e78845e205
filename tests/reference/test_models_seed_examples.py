"""The seeds' worked examples, with the arithmetic done by hand in the comments."""

from __future__ import annotations

import math

import pytest

from veil.classes import ClassTable
from veil.datasets import (
    load_lkc_patients,
    load_lkc_patients_anonymized,
    load_patients_3anonymous,
)
from veil.models import (
    BasicBetaLikeness,
    DeltaDisclosure,
    DistinctLDiversity,
    EntropyLDiversity,
    EqualDistanceTCloseness,
    KAnonymity,
    LKCPrivacy,
    PresentValuesDeltaDisclosure,
    RecursiveCLDiversity,
    check,
)


@pytest.fixture(scope="module")
def patients() -> ClassTable:
    # seed 004 / Machanavajjhala et al. Fig. 2: classes
    #   (476**, 2*)  : Cancer, Cancer, Cancer
    #   (4790*, >=40): Flu, Heart Disease, Cancer
    #   (476**, 3*)  : Heart Disease x2, Viral Infection x2
    # table: Cancer 4, Flu 1, Heart Disease 3, Viral Infection 2 (N = 10)
    return ClassTable.from_dataset(load_patients_3anonymous())


def test_patients_are_3_anonymous(patients):
    # class sizes 3, 3, 4 -> k = 3; fails at 4
    assert KAnonymity(k=3).check(patients)
    assert not KAnonymity(k=4).check(patients)
    assert KAnonymity(k=3).achieved_level(patients) == 3


def test_patients_homogeneity_attack_is_1_diverse(patients):
    # the all-Cancer class has 1 distinct value -> distinct l = 1 (Bob's class)
    assert DistinctLDiversity(sensitive="Disease", l=1).achieved_level(patients) == 1
    assert not DistinctLDiversity(sensitive="Disease", l=2).check(patients)
    # entropy of the all-Cancer class is 0 -> exp(0) = 1
    assert EntropyLDiversity(sensitive="Disease", l=1).achieved_level(patients) == 1.0


def test_patients_entropy_of_each_class(patients):
    # H = ln 3 for {Flu, HD, Cancer}; ln 2 for {HD, HD, VI, VI}; 0 for the Cancer class
    h = sorted(EntropyLDiversity(sensitive="Disease", l=1).entropies(patients))
    assert h == pytest.approx([0.0, math.log(2), math.log(3)], abs=1e-12)


def test_patients_recursive_cl_without_the_homogeneous_class(patients):
    # drop the all-Cancer class: {1,1,1} -> r1 / (r2 + r3) = 1/2; {2,2} -> 2/2 = 1  => c* = 1 at l=2
    rest = patients.suppress(DistinctLDiversity(sensitive="Disease", l=1).distinct(patients) == 1)
    model = RecursiveCLDiversity(sensitive="Disease", c=1, l=2)
    assert model.achieved_level(rest) == 1.0
    assert not model.check(rest)  # strict: 2 < 1*2 is false
    assert RecursiveCLDiversity(sensitive="Disease", c=1, l=2, strict=False).check(rest)  # 2 <= 2


def test_patients_t_closeness_equal_distance(patients):
    # q = (Cancer .4, Flu .1, HD .3, VI .2)
    # Cancer class: 1/2(|1-.4| + .1 + .3 + .2) = .6
    # mixed class : 1/2(|1/3-.4| + |1/3-.1| + |1/3-.3| + .2) = 1/2(2/30+7/30+1/30+6/30) = 8/30
    # HD/VI class : 1/2(.4 + .1 + |.5-.3| + |.5-.2|) = .5
    d = EqualDistanceTCloseness(sensitive="Disease", t=1).distances(patients)
    assert sorted(d) == pytest.approx([8 / 30, 0.5, 0.6], abs=1e-15)
    assert EqualDistanceTCloseness(sensitive="Disease", t=0.6).check(patients)  # exactly at t
    assert not EqualDistanceTCloseness(sensitive="Disease", t=0.5999).check(patients)


def test_patients_delta_disclosure(patients):
    # paper's definition: the Cancer class lacks Flu/HD/VI -> ln 0 -> no delta works
    assert math.isinf(DeltaDisclosure(sensitive="Disease", delta=1).achieved_level(patients))
    # present values only: the largest is Flu in the mixed class: ln((1/3)/(1/10)) = ln(10/3)
    present = PresentValuesDeltaDisclosure(sensitive="Disease", delta=2)
    assert present.achieved_level(patients) == pytest.approx(math.log(10 / 3), rel=1e-15)


def test_patients_beta_likeness(patients):
    # Flu in the mixed class: (1/3 - 1/10) / (1/10) = 7/3
    assert BasicBetaLikeness(sensitive="Disease", beta=3).achieved_level(patients) == pytest.approx(7 / 3)


def test_patients_check_report(patients):
    report = check(load_patients_3anonymous(), require="k>=3, l>=2, t<=0.6")
    assert [r.met for r in report.requirements] == [True, False, True]
    s = report.to_dict()["sensitive"]["Disease"]
    assert s["recursive_cl"]["c"] is None and s["delta_disclosure"] is None
    assert s["alpha_k"] == {"alpha": 1.0, "k": 3}  # the all-Cancer class: share 3/3


@pytest.fixture(scope="module")
def lkc_anonymized() -> ClassTable:
    return ClassTable.from_dataset(load_lkc_patients_anonymized())


def test_lkc_table_6_2_satisfies_L2_K2_C50(lkc_anonymized):
    # seed 004, Table 6.2; QID pairs {Job,Sex}, {Job,Age}, {Sex,Age}:
    #   Job,Sex : (NT,M)=4 (Transgender 2/4 = 50%), (Prof,M)=3, (Prof,F)=2, (Tech,F)=2
    #   Job,Age : (NT,[30-60))=4, (Prof,[30-60))=3, (Prof,[1-30))=2, (Tech,[60-99))=2
    #   Sex,Age : (M,[30-60))=5 (2/5), (M,[1-30))=2, (F,[30-60))=2, (F,[60-99))=2
    #   singles: NT 4, Prof 5, Tech 2; M 7, F 4; [30-60) 7, [1-30) 2, [60-99) 2
    # smallest group 2; highest Transgender confidence 2/4 = 50%
    model = LKCPrivacy(L=2, K=2, C=0.5, sensitive="Surgery", values=("Transgender",))
    assert model.check(lkc_anonymized)
    assert model.achieved_level(lkc_anonymized) == {"L": 2, "K": 2, "C": 0.5}
    assert not LKCPrivacy(L=2, K=3, C=0.5, sensitive="Surgery", values=("Transgender",)).check(lkc_anonymized)
    assert not LKCPrivacy(L=2, K=2, C=0.49, sensitive="Surgery", values=("Transgender",)).check(lkc_anonymized)


def test_lkc_table_6_2_is_not_2_anonymous(lkc_anonymized):
    # <Professional, M, [30-60)> holds only record 2 -> k = 1
    assert not KAnonymity(k=2).check(lkc_anonymized)
    assert KAnonymity(k=1).achieved_level(lkc_anonymized) == 1
    # k-anonymity is LKC with L = |QID| = 3, C = 100%: same answer
    assert not LKCPrivacy(L=3, K=2).check(lkc_anonymized)
    assert LKCPrivacy(L=3, K=1).achieved_level(lkc_anonymized)["K"] == 1


def test_lkc_original_table_violates(lkc_anonymized):
    # the raw table: <Mover, 34> (Job, Age) is shared by record 3 only -> K = 1
    raw = ClassTable.from_dataset(load_lkc_patients())
    model = LKCPrivacy(L=2, K=2, C=0.5, sensitive="Surgery", values=("Transgender",))
    assert not model.check(raw)
    assert model.achieved_level(raw)["K"] == 1
    # generalizing the raw table to Table 6.2's levels (Job->category, Age->interval) gives the same classes
    table = raw.generalize({"Job": 1, "Age": 1})
    assert model.check(table)
    assert sorted(table.counts.tolist()) == sorted(lkc_anonymized.counts.tolist())
