"""Top-down specialization (HDTDS), on the seed's LKC example (seed 004, Fung et al.,
*Introduction to PPDP*, ch. 6) with the arithmetic done by hand, and on Adult.

The LKC example: QIs Job, Sex, Age; class label Transfuse; sensitive Surgery
with S = {Transgender}; L = 2, K = 2, C = 50 %.  Taxonomies (veil.datasets):

    Job: ANY_Job -> Blue-collar   -> Non-Technical {Janitor, Mover}, Technical {Carpenter, Technician}
                 -> White-collar  -> Professional {Doctor, Lawyer}
    Sex: ANY_Sex -> M, F
    Age: *  -> [1-99) -> [1-60) -> [1-30) {24}, [30-60) {34, 44, 58}
                      -> [60-99) -> [60-99) {63}

    ID Job        Sex Age Transfuse Surgery
     1 Janitor    M   34  Y         Transgender
     2 Doctor     M   58  N         Plastic
     3 Mover      M   34  Y         Transgender
     4 Lawyer     M   24  N         Vascular
     5 Mover      M   58  N         Urology
     6 Janitor    M   44  Y         Plastic
     7 Doctor     M   24  N         Urology
     8 Lawyer     F   58  N         Plastic
     9 Doctor     F   44  N         Vascular
    10 Carpenter  F   63  Y         Vascular
    11 Technician F   63  Y         Plastic
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
import pandas as pd
import pytest

from veil.algorithms._recoding import Recoding
from veil.algorithms.tds import SCORES, top_down_specialization
from veil.anonymization import verify
from veil.classes import ClassTable
from veil.dataset import Dataset
from veil.datasets import load_lkc_patients, load_lkc_patients_anonymized
from veil.errors import HierarchyError, InfeasibleError, ParameterError, VerificationError
from veil.hierarchy import Hierarchy
from veil.models import (
    DistinctLDiversity, KAnonymity, LKCPrivacy, PresentValuesDeltaDisclosure,
)
from veil.utility import info_gain, specialization_info_gain

LABEL = "Transfuse"


def H(*counts: int) -> float:
    """Entropy in bits of a label histogram (hand formula)."""
    n = sum(counts)
    return -sum(c / n * math.log2(c / n) for c in counts if c)


def lkc() -> LKCPrivacy:
    return LKCPrivacy(L=2, K=2, C=0.5, sensitive="Surgery", values=("Transgender",))


@pytest.fixture(scope="module")
def patients() -> Dataset:
    return load_lkc_patients()


@pytest.fixture(scope="module")
def lkc_result(patients) -> Recoding:
    return top_down_specialization(patients, [lkc()], label=LABEL)


def qid_groups(frame: pd.DataFrame, columns: list[str]) -> dict[tuple, tuple[int, int]]:
    """qid -> (|T[qid]|, records of qid with Surgery = Transgender)."""
    grouped = frame.groupby(columns)["Surgery"]
    return {key if isinstance(key, tuple) else (key,): (len(s), int((s == "Transgender").sum()))
            for key, s in grouped}


def further_specializations(result: Recoding, dataset: Dataset):
    """Every value of the released cut that still has children, specialized one at a time.

    Independent of the implementation: a released value's node is the lowest level
    whose label it is for all its records; its records move to their level-below labels.
    Yields (attribute, value, number of distinct children among its records, released frame).
    """
    data = result.data
    for name in dataset.quasi_identifiers:
        h = dataset.hierarchies[name]
        leaves = h.leaf_index(dataset.frame[name].astype(str).to_numpy(), column=name)
        released = data[name].to_numpy(dtype=object)
        for value in pd.unique(released):
            rows = released == value
            leaf = leaves[rows]
            level = next(l for l in range(h.n_levels) if (h.labels[l][h.maps[l][leaf]] == value).all())
            if level == 0:
                continue
            children = h.labels[level - 1][h.maps[level - 1][leaf]]
            out = data.copy()
            column = out[name].to_numpy(dtype=object).copy()
            column[rows] = children
            out[name] = column
            yield name, value, len(set(children)), out


def assert_no_valid_specialization_left(result: Recoding, dataset: Dataset, models) -> int:
    """Anti-monotone stop: every further specialization of the cut breaks a model."""
    tried = 0
    for name, value, n_children, out in further_specializations(result, dataset):
        # a value whose records all fall under one child would have been specialized for free
        assert n_children >= 2, (name, value)
        with pytest.raises(VerificationError):
            verify(out, dataset, models, label=LABEL if LABEL in dataset.columns else None)
        tried += 1
    return tried


# ----------------------------------------------------------------------------- the seed's statements
def test_seed_threats_before_anonymization(patients):
    frame = patients.frame
    # record linkage via qid = <Mover, 34>: record #3 alone
    assert qid_groups(frame, ["Job", "Age"])[("Mover", "34")] == (1, 1)
    # attribute linkage via qid = <M, 34>: records #1 and #3, both Transgender -> conf 2/2 = 100% > 50%
    assert qid_groups(frame, ["Sex", "Age"])[("M", "34")] == (2, 2)
    # the seed's T[qid] example: qid = <Janitor, M> -> {#1, #6}, |T[qid]| = 2
    assert qid_groups(frame, ["Job", "Sex"])[("Janitor", "M")] == (2, 1)
    classes = ClassTable.from_dataset(patients)
    assert not lkc().check(classes)
    assert lkc().achieved_level(classes) == {"L": 2, "K": 1, "C": 1.0}


def test_seed_table_6_2_meets_lkc_but_not_2_anonymity(patients):
    table = load_lkc_patients_anonymized().frame
    verify(table, patients, [lkc()])
    # "K-anonymity (k=2) would require further generalization: <Professional, M, [30-60)>
    # is unique" (record #2)
    released = ClassTable.from_pandas(table, quasi_identifiers=["Job", "Sex", "Age"])
    labels = released.labels()
    unique = labels[labels["count"] == 1]
    assert unique[["Job", "Sex", "Age"]].values.tolist() == [["Professional", "M", "[30-60)"]]
    with pytest.raises(VerificationError):
        verify(table, patients, [KAnonymity(k=2)])


# ----------------------------------------------------------------------------- InfoGain by hand
def test_info_gain_of_the_example_specializations(patients, lkc_result):
    # Transfuse: Y = {1, 3, 6, 10, 11}, N = the other 6 -> E(T) = H(5, 6)
    # ANY_Job -> Blue-collar {1,3,5,6,10,11}: 5 Y 1 N; White-collar {2,4,7,8,9}: 5 N
    any_job = H(5, 6) - 6 / 11 * H(5, 1) - 5 / 11 * H(0, 5)
    assert any_job == pytest.approx(0.639472526941, abs=1e-12)
    # [1-99) -> [1-60) {1..9}: 3 Y 6 N; [60-99) {10, 11}: 2 Y
    age_root = H(5, 6) - 9 / 11 * H(3, 6)
    # [1-60) -> [1-30) {4, 7}: 2 N; [30-60) {1,2,3,5,6,8,9}: 3 Y 4 N
    age_60 = H(3, 6) - 7 / 9 * H(3, 4)
    # Blue-collar -> Non-Technical {1,3,5,6}: 3 Y 1 N; Technical {10, 11}: 2 Y
    blue = H(5, 1) - 4 / 6 * H(3, 1)
    # Non-Technical -> Janitor {1, 6}: 2 Y; Mover {3, 5}: 1 Y 1 N
    non_technical = H(3, 1) - 2 / 4 * H(1, 1)
    # ANY_Sex -> M {1..7}: 3 Y 4 N; F {8..11}: 2 Y 2 N
    sex = H(5, 6) - 7 / 11 * H(3, 4) - 4 / 11 * H(2, 2)
    gains = [step["info_gain"] for step in lkc_result.details["trace"]]
    assert gains == pytest.approx([any_job, age_root, age_60, blue, non_technical, sex], abs=1e-11)
    # the same number from veil.utility.info_gain on the histograms
    assert info_gain([5, 6], [[5, 1], [0, 5]]) == pytest.approx(any_job, abs=1e-12)
    # and from specialization_info_gain on the class table, for every step of the trace
    base = ClassTable.from_dataset(patients, sensitive=["Surgery", LABEL])
    for step in lkc_result.details["trace"]:
        name, level = step["attribute"], step["level"]
        h = base.hierarchy(name)
        code = list(h.labels[level]).index(step["value"])
        gains_at_level = specialization_info_gain(base.generalize({name: level}), name, label=LABEL)
        assert gains_at_level[code] == pytest.approx(step["info_gain"], abs=1e-12)


# ----------------------------------------------------------------------------- HDTDS on the example
def test_hdtds_on_the_example_by_hand(patients, lkc_result):
    # Hand run (InfoGain of the candidates in brackets; see the test above):
    #  free: Age '*' -> [1-99) (one child)
    #  1. ANY_Job (0.639): Blue 6, White 5, Transgender 2/6 -> valid;  free: White-collar -> Professional
    #  2. [1-99) (0.243): <Blue,[60-99)> 2, <Blue,[1-60)> 4 (TG 2/4 = 50%) -> valid;
    #     free: [60-99) -> [60-99) -> 63
    #  3. [1-60) (0.152): <[1-30)> 2, <Blue,[30-60)> 4, <Professional,[1-30)> 2 -> valid;  free: [1-30) -> 24
    #  4. [30-60) (0.700): <34> = {1, 3}, both Transgender: conf 100% -> INVALID (for good)
    #     Blue-collar (0.109): <Non-Technical> 4 (TG 2/4), <Technical> 2 -> valid
    #  5. Non-Technical (0.311): <Janitor> {1,6}, <Mover> {3,5} (TG 1/2 each) -> valid
    #  6. ANY_Sex (0.003): smallest pairs <Professional,F> {8,9}, <F,[30-60)> {8,9}, <M,24> {4,7} -> valid
    #  then Professional (<Doctor,F> = {9}) and Technical (<Carpenter> = {10}) are invalid: stop.
    result = lkc_result
    expected = {
        "Job": ["Janitor", "Professional", "Mover", "Professional", "Mover", "Janitor", "Professional",
                "Professional", "Professional", "Technical", "Technical"],
        "Sex": ["M"] * 7 + ["F"] * 4,
        "Age": ["[30-60)", "[30-60)", "[30-60)", "24", "[30-60)", "[30-60)", "24", "[30-60)", "[30-60)",
                "63", "63"],
    }
    for name, values in expected.items():
        assert result.data[name].tolist() == values, name
    # non-QI columns untouched, rows aligned
    for name in ("ID", "Transfuse", "Surgery"):
        assert result.data[name].tolist() == patients.frame[name].tolist()
    assert [(s["attribute"], s["value"]) for s in result.details["trace"]] == [
        ("Job", "ANY_Job"), ("Age", "[1-99)"), ("Age", "[1-60)"), ("Job", "Blue-collar"),
        ("Job", "Non-Technical"), ("Sex", "ANY_Sex"),
    ]
    details = result.details
    assert details["specializations"] == 6
    assert details["partition_preserving"] == 5  # *, White-collar, [60-99) twice, [1-30)
    assert details["invalidated"] == 3  # [30-60), Professional, Technical
    assert details["stopped"] == "no valid candidate"
    assert details["cuts"] == {
        "Job": ["Technical", "Professional", "Janitor", "Mover"],
        "Sex": ["M", "F"],
        "Age": ["[30-60)", "24", "63"],
    }
    assert result.algorithm == "hdtds" and result.suppressed == 0
    # classes: <Janitor,M,[30-60)> {1,6}, <Professional,M,[30-60)> {2}, <Mover,M,[30-60)> {3,5},
    # <Professional,M,24> {4,7}, <Professional,F,[30-60)> {8,9}, <Technical,F,63> {10,11}
    assert result.groups == 6


def test_example_output_satisfies_lkc_and_refines_table_6_2(patients, lkc_result):
    verified = verify(lkc_result.data, patients, [lkc()], label=LABEL)
    assert lkc().achieved_level(verified) == {"L": 2, "K": 2, "C": 0.5}
    # every released value lies under the seed's Table 6.2 value: HDTDS went at least as deep
    seed_table = load_lkc_patients_anonymized().frame
    for name in ("Job", "Sex", "Age"):
        h = patients.hierarchies[name]
        leaves = h.leaf_index(patients.frame[name].astype(str).to_numpy())
        for leaf, ours, theirs in zip(leaves, lkc_result.data[name], seed_table[name]):
            ours_level = min(l for l in range(h.n_levels) if h.labels[l][h.maps[l][leaf]] == ours)
            theirs_level = max(l for l in range(h.n_levels) if h.labels[l][h.maps[l][leaf]] == theirs)
            assert ours_level <= theirs_level, (name, ours, theirs)
    # LKC keeps Sex; 2-anonymity cannot: <Professional, M, [30-60)> = {#2} is unique
    with pytest.raises(VerificationError):
        verify(lkc_result.data, patients, [KAnonymity(k=2)])


def test_example_no_valid_specialization_left(patients, lkc_result):
    # Professional (<Doctor, F> = {#9}), Technical (<Carpenter> = {#10}), [30-60) (<34>: conf 100%)
    assert assert_no_valid_specialization_left(lkc_result, patients, [lkc()]) == 3


def test_example_2_anonymity(patients):
    # Hand run with classes over (Job, Sex, Age): ANY_Job, [1-99), [1-60) as above; [30-60) is
    # invalid (<Blue-collar, 44> = {6}); Blue-collar, Non-Technical valid; ANY_Sex splits
    # <Professional, [30-60)> = {2, 8, 9} into M {2} and F {8, 9} -> invalid, so Sex stays ANY_Sex;
    # Professional (<Doctor, 24> = {7}) and Technical ({10}) invalid.  Invalid at the end: 4 values.
    result = top_down_specialization(patients, [KAnonymity(k=2)], label=LABEL)
    assert result.data["Sex"].tolist() == ["ANY_Sex"] * 11
    assert result.data["Job"].tolist() == ["Janitor", "Professional", "Mover", "Professional", "Mover", "Janitor",
                                           "Professional", "Professional", "Professional", "Technical", "Technical"]
    assert result.details["specializations"] == 5
    verify(result.data, patients, [KAnonymity(k=2)], label=LABEL)
    assert assert_no_valid_specialization_left(result, patients, [KAnonymity(k=2)]) == 4


def test_anonyloss_score_on_the_example(patients):
    result = top_down_specialization(patients, [lkc()], label=LABEL, score="infogain/anonyloss")
    first = result.details["trace"][0]
    # VIDs = the pairs of QIs (L = 2). Before: every pair has one group of 11.
    # ANY_Job: {Job,Sex} and {Job,Age} both drop to min(Blue 6, White 5) = 5 -> AnonyLoss = (6 + 6) / 2
    # ANY_Sex: {Job,Sex}, {Sex,Age} drop to min(M 7, F 4) = 4 -> 7;  [1-99): to [60-99) = 2 -> 9
    # scores: 0.639 / 7 = 0.0914 > 0.243 / 10, 0.0034 / 8
    assert (first["attribute"], first["value"]) == ("Job", "ANY_Job")
    assert first["anonyloss"] == 6.0
    assert first["score"] == pytest.approx((H(5, 6) - 6 / 11 * H(5, 1)) / 7, abs=1e-12)
    second = result.details["trace"][1]
    # [1-99) after ANY_Job: {Job,Age} 5 -> <Blue,[60-99)> 2 (loss 3); {Sex,Age} 11 -> 2 (loss 9): mean 6
    assert (second["value"], second["anonyloss"]) == ("[1-99)", 6.0)
    verify(result.data, patients, [lkc()], label=LABEL)
    assert_no_valid_specialization_left(result, patients, [lkc()])


def test_max_iterations(patients):
    top = top_down_specialization(patients, [lkc()], label=LABEL, max_iterations=0)
    # the topmost cut, after the free specialization of Age's '*' into its only child
    assert top.details["cuts"] == {"Job": ["ANY_Job"], "Sex": ["ANY_Sex"], "Age": ["[1-99)"]}
    assert top.details["stopped"] == "max_iterations" and top.groups == 1
    two = top_down_specialization(patients, [lkc()], label=LABEL, max_iterations=2)
    assert two.details["specializations"] == 2 and len(two.details["trace"]) == 2
    assert two.data["Job"].tolist()[:2] == ["Blue-collar", "Professional"]
    verify(two.data, patients, [lkc()], label=LABEL)


def test_result_does_not_depend_on_row_order(patients, lkc_result):
    order = np.random.default_rng(7).permutation(patients.n_records)
    shuffled = Dataset.from_pandas(
        patients.frame.iloc[order], identifiers=["ID"], quasi_identifiers=["Job", "Sex", "Age"],
        sensitive=["Surgery"], insensitive=[LABEL], kinds={"Age": "numeric"}, hierarchies=patients.hierarchies,
    )
    result = top_down_specialization(shuffled, [lkc()], label=LABEL)
    by_id = result.data.set_index("ID").loc[lkc_result.data["ID"]].reset_index()
    assert by_id.equals(lkc_result.data)


# ----------------------------------------------------------------------------- other models
@dataclass(frozen=True)
class _WholeTableLKC(LKCPrivacy):
    """LKC-privacy checked on the whole candidate table (a subclass is never checked locally)."""


@dataclass(frozen=True)
class _WholeTableK(KAnonymity):
    """k-anonymity checked on the whole candidate table."""


def test_local_checks_agree_with_the_models_own_check(patients, adult):
    # the local checks (classes of T[v], qids holding the attribute) must decide exactly as
    # model.check on the whole table: the same run, step for step
    slow = _WholeTableLKC(L=2, K=2, C=0.5, sensitive="Surgery", values=("Transgender",))
    local = top_down_specialization(patients, [lkc()], label=LABEL)
    whole = top_down_specialization(patients, [slow], label=LABEL)
    assert local.data.equals(whole.data) and local.details["trace"] == whole.details["trace"]
    for fast, slow in [
        (KAnonymity(k=5), _WholeTableK(k=5)),
        (LKCPrivacy(L=3, K=10, C=0.6, sensitive="salary-class", values=(">50K",)),
         _WholeTableLKC(L=3, K=10, C=0.6, sensitive="salary-class", values=(">50K",))),
    ]:
        a = top_down_specialization(adult, [fast], label="salary-class")
        b = top_down_specialization(adult, [slow], label="salary-class")
        assert a.data.equals(b.data) and a.details["cuts"] == b.details["cuts"]


def test_generic_anti_monotone_models(patients):
    models = [KAnonymity(k=2), DistinctLDiversity(sensitive="Surgery", l=2)]
    result = top_down_specialization(patients, models, label=LABEL)
    verify(result.data, patients, models, label=LABEL)
    assert_no_valid_specialization_left(result, patients, models)


# ----------------------------------------------------------------------------- Adult
@pytest.mark.slow
@pytest.mark.parametrize("models", [
    [KAnonymity(k=5)],
    [LKCPrivacy(L=4, K=10, C=0.6, sensitive="salary-class", values=(">50K",))],
    [LKCPrivacy(L=3, K=20, C=0.8, sensitive="salary-class", values=(">50K",))],
], ids=["k5", "L4K10C0.6", "L3K20C0.8"])
@pytest.mark.parametrize("score", SCORES)
def test_adult(adult, models, score):
    result = top_down_specialization(adult, models, label="salary-class", score=score)
    assert len(result.data) == adult.n_records
    assert (result.data.columns == adult.frame.columns).all()
    verified = verify(result.data, adult, models, label="salary-class")
    for model in models:
        assert model.check(verified)
    assert result.groups == verified.n_classes
    assert result.details["specializations"] > 0
    for name, value, n_children, out in further_specializations(result, adult):
        assert n_children >= 2
        with pytest.raises(VerificationError):
            verify(out, adult, models, label="salary-class")


# ----------------------------------------------------------------------------- edge cases
def test_missing_values_and_input_suppressed_records():
    h = Hierarchy.from_rows([["a", "x", "*"], ["b", "x", "*"], ["c", "y", "*"], ["d", "y", "*"]], name="q")
    g = Hierarchy.from_rows([["m", "*"], ["f", "*"]], name="s")
    frame = pd.DataFrame({
        "q": ["a", "b", "c", "d", "a", "*", None, "c"],
        "s": ["m", "f", "m", "f", "m", "*", "m", "f"],
        "y": ["1", "0", "1", "0", "1", "1", "1", "0"],
    })
    dataset = Dataset.from_pandas(frame, quasi_identifiers=["q", "s"], insensitive=["y"],
                                  hierarchies={"q": h, "s": g})
    result = top_down_specialization(dataset, [KAnonymity(k=1)], label="y")
    # k = 1: everything specializes down to the leaves; the missing value is a leaf of its own
    assert result.data["q"].tolist() == ["a", "b", "c", "d", "a", "*", "<missing>", "c"]
    assert result.data["s"].tolist() == frame["s"].tolist()
    assert result.suppressed == 1  # the record that arrived with '*' everywhere
    strict = top_down_specialization(dataset, [KAnonymity(k=2)], label="y")
    assert strict.data["q"].tolist() == ["*"] * 8 and strict.data["s"].tolist() == frame["s"].tolist()
    verify(strict.data, dataset, [KAnonymity(k=2)], label="y", suppressed="drop")  # a blanked group of 1 < k (#32)


# ----------------------------------------------------------------------------- errors
def test_label_is_required_and_checked(patients):
    with pytest.raises(ParameterError, match=r"^The 'label' parameter of top_down_specialization must name"):
        top_down_specialization(patients, [lkc()], label=None)
    with pytest.raises(ParameterError, match=r"must be a column of the table. Got 'Outcome'"):
        top_down_specialization(patients, [lkc()], label="Outcome")
    with pytest.raises(ParameterError, match="'Job', a quasi-identifier"):
        top_down_specialization(patients, [lkc()], label="Job")
    with pytest.raises(TypeError):
        top_down_specialization(patients, [lkc()])  # label is keyword-only and required


def test_parameter_errors(patients):
    with pytest.raises(ParameterError, match=r"The 'score' parameter .* must be one of .*Got 'gain'"):
        top_down_specialization(patients, [lkc()], label=LABEL, score="gain")
    with pytest.raises(ParameterError, match=r"The 'max_iterations' parameter .* \[0, inf\). Got -1"):
        top_down_specialization(patients, [lkc()], label=LABEL, max_iterations=-1)
    with pytest.raises(ParameterError, match="at least one privacy model"):
        top_down_specialization(patients, [], label=LABEL)
    with pytest.raises(ParameterError, match="anti-monotone"):
        top_down_specialization(patients, [PresentValuesDeltaDisclosure(sensitive="Surgery", delta=1.0)],
                                label=LABEL)
    with pytest.raises(ParameterError, match="'L' parameter of LKCPrivacy must be at most"):
        top_down_specialization(patients, [LKCPrivacy(L=4, K=2)], label=LABEL)
    with pytest.raises(ParameterError, match="'dataset' parameter"):
        top_down_specialization(patients.frame, [lkc()], label=LABEL)


def test_missing_hierarchy(patients):
    bare = Dataset.from_pandas(patients.frame, quasi_identifiers=["Job", "Sex"], insensitive=[LABEL],
                               hierarchies={"Job": patients.hierarchies["Job"]})
    with pytest.raises(HierarchyError, match="'Sex'"):
        top_down_specialization(bare, [KAnonymity(k=2)], label=LABEL)


def test_infeasible_at_the_top(patients):
    # K = 12 > 11 records; C = 0.1 < 2/11 Transgender in the whole table
    with pytest.raises(InfeasibleError, match="most general table"):
        top_down_specialization(patients, [KAnonymity(k=12)], label=LABEL)
    with pytest.raises(InfeasibleError, match="LKC-privacy"):
        top_down_specialization(
            patients, [LKCPrivacy(L=2, K=2, C=0.1, sensitive="Surgery", values=("Transgender",))], label=LABEL
        )
    # at C = 2/11 exactly the top table passes (conf = C is allowed)
    top_down_specialization(
        patients, [LKCPrivacy(L=2, K=2, C=2 / 11, sensitive="Surgery", values=("Transgender",))], label=LABEL
    )


# ----------------------------------------------------------------------------- runtime intervals (seed 004)
@pytest.fixture(scope="module")
def patients_without_age_taxonomy(patients) -> Dataset:
    hierarchies = {name: h for name, h in patients.hierarchies.items() if name != "Age"}
    return Dataset.from_pandas(
        patients.frame, identifiers=["ID"], quasi_identifiers=["Job", "Sex", "Age"], sensitive=["Surgery"],
        insensitive=[LABEL], kinds={"Age": "numeric"}, hierarchies=hierarchies,
    )


def test_hdtds_grows_the_age_intervals_at_runtime(patients_without_age_taxonomy):
    # Seed 004: "for numerical attributes, a taxonomy tree can be grown at runtime; each non-leaf node has two
    # child nodes representing some optimal binary split of the parent interval". Age starts at [1-99).
    # Ages and Transfuse: 24 {4,7}: 2 N;  34 {1,3}: 2 Y;  44 {6,9}: 1 Y 1 N;  58 {2,5,8}: 3 N;  63 {10,11}: 2 Y
    # InfoGain of each split of [1-99) (E = H(5, 6) = 0.994030):
    root_splits = {
        30: H(5, 6) - 9 / 11 * H(5, 4),                        # 24 | 34: 0.183150
        40: H(5, 6) - 4 / 11 * H(2, 2) - 7 / 11 * H(3, 4),     # 34 | 44: 0.003431
        50: H(5, 6) - 6 / 11 * H(3, 3) - 5 / 11 * H(2, 3),     # 44 | 58: 0.007234
        60: H(5, 6) - 9 / 11 * H(3, 6),                        # 58 | 63: 0.242697 (best)
    }
    # [1-60) holds 24, 34, 44, 58: 3 Y 6 N
    splits_60 = {
        30: H(3, 6) - 7 / 9 * H(3, 4),                         # 24 | 34: 0.152008
        40: H(3, 6) - 4 / 9 * H(2, 2) - 5 / 9 * H(1, 4),       # 34 | 44: 0.072781
        50: H(3, 6) - 6 / 9 * H(3, 3),                         # 44 | 58: 0.251629 (best, but invalid)
    }
    # [30-60) holds 34, 44, 58: 3 Y 4 N
    splits_30_60 = {
        40: H(3, 4) - 5 / 7 * H(1, 4),                         # 34 | 44: 0.469565 (invalid)
        50: H(3, 4) - 4 / 7 * H(3, 1),                         # 44 | 58: 0.521641 (invalid)
    }
    assert max(root_splits, key=root_splits.get) == 60 and max(splits_60, key=splits_60.get) == 50
    # Hand run (L = 2, K = 2, C = 50 %; a qid is a pair of QI values):
    #  1. ANY_Job (0.639473): Blue 6 (TG 2/6), White 5 -> valid;  free: White-collar -> Professional
    #  2. [1-99) at 60 (0.242697): <Blue,[60-99)> {10,11}, <Blue,[1-60)> {1,3,5,6} TG 2/4 -> valid
    #  3. [1-60) at 50 (0.251629): [50-60) = {2,5,8}: <Blue,[50-60)> = {5} -> INVALID
    #     [1-60) at 30 (0.152008): <Professional,[1-30)> {4,7}, <Blue,[30-60)> {1,3,5,6} TG 2/4 -> valid
    #  4. [30-60) at 50 (0.521641): <Blue,[50-60)> = {5} -> INVALID
    #     [30-60) at 40 (0.469565): <Blue,[30-40)> = {1,3}, both Transgender: 100 % -> INVALID
    #     Blue-collar (0.109170): <Non-Technical> 4 (TG 2/4), <Technical> 2 -> valid
    #  5. Non-Technical (0.311278): <Janitor> {1,6}, <Mover> {3,5} (TG 1/2 each) -> valid
    #  6. ANY_Sex (0.003431): <Professional,F> {8,9}, <M,[1-30)> {4,7}, <F,[60-99)> {10,11} -> valid
    #  then Technical (<Carpenter,F> = {10}) and Professional (<Doctor,F> = {9}) are invalid: stop.
    #  [1-30) = {24} and [60-99) = {63} hold one value each: leaves.
    result = top_down_specialization(patients_without_age_taxonomy, [lkc()], label=LABEL, intervals={"Age": (1, 99)})
    trace = result.details["trace"]
    assert [(s["attribute"], s["value"], s.get("split_at")) for s in trace] == [
        ("Job", "ANY_Job", None), ("Age", "[1-99)", 60), ("Age", "[1-60)", 30), ("Job", "Blue-collar", None),
        ("Job", "Non-Technical", None), ("Sex", "ANY_Sex", None),
    ]
    expected_scores = [
        H(5, 6) - 6 / 11 * H(5, 1) - 5 / 11 * H(0, 5),  # 0.639473
        root_splits[60], splits_60[30],
        H(5, 1) - 4 / 6 * H(3, 1),                      # 0.109170
        H(3, 1) - 2 / 4 * H(1, 1),                      # 0.311278
        H(5, 6) - 7 / 11 * H(3, 4) - 4 / 11 * H(2, 2),  # 0.003431
    ]
    assert [s["score"] for s in trace] == pytest.approx(expected_scores, abs=1e-11)
    assert [s["info_gain"] for s in trace] == pytest.approx(expected_scores, abs=1e-11)
    assert expected_scores == pytest.approx([0.639473, 0.242697, 0.152008, 0.109170, 0.311278, 0.003431], abs=1e-6)
    assert splits_30_60 == pytest.approx({40: 0.469565, 50: 0.521641}, abs=1e-6)
    details = result.details
    assert details["specializations"] == 6 and details["partition_preserving"] == 1  # White-collar
    assert details["invalidated"] == 5  # [1-60)@50, [30-60)@50, [30-60)@40, Technical, Professional
    assert details["cuts"]["Age"] == ["[1-30)", "[30-60)", "[60-99)"]
    assert details["intervals"] == {"Age": [1.0, 99.0]}
    # the Age column is Table 6.2's exactly; Job goes one step further (Janitor / Mover), as in the run above
    seed_table = load_lkc_patients_anonymized().frame
    assert result.data["Age"].tolist() == seed_table["Age"].tolist()
    assert result.data["Sex"].tolist() == seed_table["Sex"].tolist()
    assert result.data["Job"].tolist() == ["Janitor", "Professional", "Mover", "Professional", "Mover", "Janitor",
                                           "Professional", "Professional", "Professional", "Technical", "Technical"]
    verified = verify(result.data, patients_without_age_taxonomy, [lkc()], label=LABEL)
    assert lkc().achieved_level(verified) == {"L": 2, "K": 2, "C": 0.5}


def test_runtime_interval_parameters(patients_without_age_taxonomy, patients):
    data = patients_without_age_taxonomy
    with pytest.raises(HierarchyError, match="intervals"):
        top_down_specialization(data, [lkc()], label=LABEL)
    with pytest.raises(ParameterError, match=r"must hold every value \(low <= 24, high > 63\)"):
        top_down_specialization(data, [lkc()], label=LABEL, intervals={"Age": (30, 99)})
    with pytest.raises(ParameterError, match="not a quasi-identifier"):
        top_down_specialization(data, [lkc()], label=LABEL, intervals={"Age": None, "Surgery": None})
    with pytest.raises(ParameterError, match="not all numbers"):
        top_down_specialization(patients, [lkc()], label=LABEL, intervals={"Job": None})
    with pytest.raises(ParameterError, match="score='infogain'"):
        top_down_specialization(data, [lkc()], label=LABEL, intervals={"Age": None}, score="infogain/anonyloss")
    # default root: from the smallest value to just above the largest, [24-64)
    result = top_down_specialization(data, [lkc()], label=LABEL, intervals={"Age": None})
    assert result.details["intervals"] == {"Age": [24.0, 64.0]}
    assert result.data["Age"].tolist()[3] == "[24-30)"


def test_round_split_points():
    from veil.algorithms.tds._taxonomy import _round_point

    assert [_round_point(24, 34), _round_point(58, 63), _round_point(44, 58), _round_point(1, 2)] == [30, 60, 50, 2]
    assert _round_point(0.52, 0.57) == pytest.approx(0.53)
    assert _round_point(-7, 3) == 0


def test_adult_with_runtime_age_intervals(adult):
    models = [LKCPrivacy(L=2, K=10, C=1.0)]
    fixed = top_down_specialization(adult, models, label="salary-class")
    grown = top_down_specialization(adult, models, label="salary-class", intervals={"age": None})
    verify(grown.data, adult, models, label="salary-class")
    # the root is [17-91) (ages 17..90); every released age interval holds its records' ages
    assert grown.details["intervals"] == {"age": [17.0, 91.0]}
    ages = adult.frame["age"].astype(int).to_numpy()
    bounds = grown.data["age"].str.extract(r"^\[(\d+)-(\d+)\)$").astype(int).to_numpy()
    assert ((bounds[:, 0] <= ages) & (ages < bounds[:, 1])).all()
    assert grown.details["cuts"]["age"] != fixed.details["cuts"]["age"]
