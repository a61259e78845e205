"""Unit tests of Mondrian multidimensional partitioning (veil.algorithms.mondrian).

Reference tables are worked by hand in the docstrings; every released table is
re-checked from its rows with :func:`veil.anonymization.verify`.
"""

from __future__ import annotations

import json
import math
import re

import numpy as np
import pandas as pd
import pytest

from veil.algorithms._recoding import Recoding
from veil.algorithms.mondrian import CLASS_LOCAL_MODELS, mondrian
from veil.anonymization import verify
from veil.dataset import Dataset
from veil.errors import HierarchyError, InfeasibleError, ParameterError, SchemaError, VerificationError
from veil.hierarchy import Hierarchy, taxonomy
from veil.models import (
    AverageRisk,
    DistinctLDiversity,
    EntropyLDiversity,
    EqualDistanceTCloseness,
    KAnonymity,
    LKCPrivacy,
    RecursiveCLDiversity,
)

RANGE = re.compile(r"^\[(.+?)-(.+)\]$")

JOB = {"*": {"professional": ["engineer", "lawyer"], "artist": ["writer", "dancer"]}}


def _bounds(label: str) -> tuple[float, float]:
    """``"[25-27]"`` -> (25, 27); ``"30"`` -> (30, 30) (non-negative numbers only)."""
    match = RANGE.match(label)
    if match:
        return float(match.group(1)), float(match.group(2))
    return float(label), float(label)


def _ancestor_labels(hierarchy: Hierarchy) -> dict[str, set[str]]:
    """Each leaf's labels at every level (itself included)."""
    frame = hierarchy.to_frame()
    return {row[0]: set(row) for row in frame.itertuples(index=False, name=None)}


def _assert_covers(dataset: Dataset, released: pd.DataFrame) -> None:
    """Each record's released label contains its own original value (row by row)."""
    original = dataset.frame
    for name in dataset.quasi_identifiers:
        kind = dataset.schema.kind(name).value
        pairs = pd.DataFrame({"value": original[name].astype(str), "label": released[name].astype(str)})
        pairs = pairs.drop_duplicates()
        if kind == "numeric":
            for value, label in pairs.itertuples(index=False, name=None):
                low, high = _bounds(label)
                assert low <= float(value) <= high, (name, value, label)
        else:
            ancestors = _ancestor_labels(dataset.hierarchies[name])
            for value, label in pairs.itertuples(index=False, name=None):
                assert label in ancestors[value], (name, value, label)


def _age_job(order=("age", "job")) -> Dataset:
    frame = pd.DataFrame(
        {
            "id": list("abcdefgh"),
            "age": ["25", "27", "30", "32", "41", "45", "52", "60"],
            "job": ["engineer", "lawyer", "engineer", "writer", "dancer", "writer", "lawyer", "dancer"],
        }
    )
    return Dataset.from_pandas(
        frame, identifiers=["id"], quasi_identifiers=list(order), kinds={"age": "numeric"},
        hierarchies={"job": taxonomy(JOB, name="job")},
    )


# --------------------------------------------------------------- reference tables
def test_reference_table_age_first():
    """Hand-worked, k = 2, QIs (age, job); job: {engineer, lawyer} -> professional,
    {writer, dancer} -> artist -> *.  Ages 25 27 30 32 41 45 52 60, range 35.

    Root: age width (60-25)/35 = 1, job LCA * covers 4/4 leaves = 1: tie, the QI
    listed first (age) wins.  Lower median of the 8 ages = 32: {25,27,30,32} | {41,45,52,60}.
    * Left {a,b,c,d}: age 7/35, job * = 1 -> job first: professional {a,b,c} vs
      artist {d} (1 < 2) fails; age: median 27 -> {a,b} | {c,d}, allowed.
      - {a,b}: job professional 2/4 = 0.5: {engineer} | {lawyer} fails; age 1|1
        fails -> final [25-27], professional.
      - {c,d}: engineer, writer -> *; both splits 1|1 -> final [30-32], *.
    * Right {e,f,g,h}: job *: professional {g} fails; age median 45 -> {e,f} | {g,h}.
      - {e,f}: dancer, writer -> artist, final [41-45], artist.
      - {g,h}: lawyer, dancer -> *, final [52-60], *.
    NCP: age 2*(2+2+4+8)/35 = 32/35; job 2*(0.5+1+0.5+1) = 6; GCP = (32/35 + 6)/(8*2)
    = 242/560.
    """
    dataset = _age_job()
    result = mondrian(dataset, [KAnonymity(k=2)])
    assert isinstance(result, Recoding) and result.algorithm == "mondrian"
    assert result.data["age"].tolist() == ["[25-27]"] * 2 + ["[30-32]"] * 2 + ["[41-45]"] * 2 + ["[52-60]"] * 2
    assert result.data["job"].tolist() == ["professional"] * 2 + ["*"] * 2 + ["artist"] * 2 + ["*"] * 2
    assert result.data["id"].tolist() == list("abcdefgh")
    assert result.groups == 4 and result.suppressed == 0
    d = result.details
    assert d["partitions"] == 4 and d["released_classes"] == 4
    assert d["splits"] == {"age": 3, "job": 0}
    assert d["ncp"] == pytest.approx(242 / 560, abs=1e-15)
    assert d["ncp_per_attribute"] == pytest.approx({"age": (32 / 35) / 8, "job": 6 / 8})
    assert d["dimensions"] == {"age": "ordered", "job": "hierarchy"}
    verify(result.data, dataset, [KAnonymity(k=2)])


def test_reference_table_categorical_split():
    """Same table, QIs listed (job, age): the root tie now goes to job.

    Root: * -> professional {a,b,c,g} | artist {d,e,f,h}, both >= 2.
    * professional: ages 25 27 30 52 (width 27/35 > job 0.5): median 27 ->
      {a,b} | {c,g}; {a,b} final [25-27]; {c,g} (30, 52) final [30-52].
    * artist: ages 32 41 45 60 (28/35): median 41 -> {d,e} [32-41] | {f,h} [45-60].
    NCP: age 2*(2+22+9+15)/35 = 96/35, job 8*0.5 = 4: GCP = (96/35 + 4)/16 = 236/560.
    """
    dataset = _age_job(order=("job", "age"))
    result = mondrian(dataset, [KAnonymity(k=2)])
    assert result.data["job"].tolist() == ["professional"] * 3 + ["artist"] * 3 + ["professional", "artist"]
    assert result.data["age"].tolist() == [
        "[25-27]", "[25-27]", "[30-52]", "[32-41]", "[32-41]", "[45-60]", "[30-52]", "[45-60]",
    ]
    assert result.details["splits"] == {"job": 1, "age": 2} and result.groups == 4
    assert result.details["ncp"] == pytest.approx(236 / 560, abs=1e-15)
    verify(result.data, dataset, [KAnonymity(k=2)])


def test_single_value_label_and_k_equal_n():
    """k = n: the root is final; a constant column is released as its value, not a range."""
    frame = pd.DataFrame({"age": ["40", "40", "40"], "zip": ["1", "2", "3"]})
    dataset = Dataset.from_pandas(frame, quasi_identifiers=["age", "zip"], kinds={"age": "numeric", "zip": "numeric"})
    result = mondrian(dataset, [KAnonymity(k=3)])
    assert result.data["age"].tolist() == ["40"] * 3
    assert result.data["zip"].tolist() == ["[1-3]"] * 3
    assert result.details["partitions"] == 1 and result.details["ncp"] == pytest.approx(0.5)


def test_strict_cut_moves_below_the_median_when_nothing_is_above():
    """Ages 10 20 20 20 20 20, k = 1: the lower median is 20 and nothing lies above it,
    so the strict cut is "< 20": {10} | {20 x 5}."""
    frame = pd.DataFrame({"age": ["10", "20", "20", "20", "20", "20"]})
    dataset = Dataset.from_pandas(frame, quasi_identifiers=["age"], kinds={"age": "numeric"})
    result = mondrian(dataset, [KAnonymity(k=1)])
    assert result.data["age"].tolist() == ["10"] + ["20"] * 5


# ----------------------------------------------------------------- strict/relaxed
def _duplicates() -> Dataset:
    frame = pd.DataFrame({"age": ["30", "30", "30", "30", "40", "40"], "s": list("abcabc")})
    return Dataset.from_pandas(frame, quasi_identifiers=["age"], sensitive=["s"], kinds={"age": "numeric"})


def test_strict_vs_relaxed():
    """Ages 30 30 30 30 40 40, k = 3.  Strict: the only cut (<= 30) gives 4 | 2: not
    allowed, one class [30-40].  Relaxed: the 3 smallest records go left ({30,30,30},
    released 30), the rest right ({30,40,40}, released [30-40]): ranges overlap at 30."""
    dataset = _duplicates()
    strict = mondrian(dataset, [KAnonymity(k=3)])
    assert strict.data["age"].tolist() == ["[30-40]"] * 6 and strict.groups == 1
    relaxed = mondrian(dataset, [KAnonymity(k=3)], strict=False)
    assert relaxed.data["age"].tolist() == ["30", "30", "30", "[30-40]", "[30-40]", "[30-40]"]
    assert relaxed.groups == 2 and relaxed.details["strict"] is False
    verify(relaxed.data, dataset, [KAnonymity(k=3)])
    # with a seed, which 30s go left is random, but the result is still 3 | 3 and valid
    seeded = mondrian(dataset, [KAnonymity(k=3)], strict=False, seed=7)
    assert sorted(seeded.data["age"].value_counts().tolist()) == [3, 3]
    assert seeded.data.equals(mondrian(dataset, [KAnonymity(k=3)], strict=False, seed=7).data)
    verify(seeded.data, dataset, [KAnonymity(k=3)])


def test_relaxed_partitions_are_balanced_on_numeric_data():
    """Relaxed, k-anonymity alone, distinct numeric values: every class has k..2k-1 records."""
    rng = np.random.default_rng(3)
    frame = pd.DataFrame({"a": rng.permutation(200).astype(str), "b": rng.permutation(200).astype(str)})
    dataset = Dataset.from_pandas(frame, quasi_identifiers=["a", "b"], kinds={"a": "numeric", "b": "numeric"})
    for k in (3, 4, 7):
        result = mondrian(dataset, [KAnonymity(k=k)], strict=False)
        sizes = result.data.groupby(["a", "b"]).size()
        assert sizes.min() >= k and sizes.max() <= 2 * k - 1
        assert result.details["largest_partition"] <= 2 * k - 1


# -------------------------------------------------------------------------- Adult
@pytest.mark.parametrize("k", [5, 10])
def test_adult_k_anonymity(adult, k):
    result = mondrian(adult, [KAnonymity(k=k)])
    classes = verify(result.data, adult, [KAnonymity(k=k)])
    assert classes.counts.min() >= k
    assert len(result.data) == adult.n_records and result.suppressed == 0
    sizes = result.data.groupby(list(adult.quasi_identifiers)).size()
    assert sizes.min() >= k and result.details["smallest_partition"] >= k
    assert result.details["released_classes"] == len(sizes) == classes.n_classes
    assert result.details["partitions"] == result.groups >= len(sizes)
    assert sum(result.details["splits"].values()) >= 1000  # local recoding splits a lot
    assert 0 < result.details["ncp"] < 0.5
    assert result.data["salary-class"].equals(adult.frame["salary-class"])
    json.dumps(result.details)  # JSON-serializable


def test_adult_ncp_grows_with_k(adult):
    ncp = [mondrian(adult, [KAnonymity(k=k)]).details["ncp"] for k in (5, 50)]
    assert ncp[0] < ncp[1]


@pytest.mark.parametrize(
    "extra",
    [
        DistinctLDiversity(sensitive="salary-class", l=2),
        EntropyLDiversity(sensitive="salary-class", l=1.5),
        RecursiveCLDiversity(sensitive="salary-class", c=4, l=2),
        EqualDistanceTCloseness(sensitive="salary-class", t=0.15),
    ],
    ids=["distinct", "entropy", "recursive", "t-closeness"],
)
def test_adult_k_with_sensitive_models(adult, extra):
    models = [KAnonymity(k=5), extra]
    result = mondrian(adult, models)
    verify(result.data, adult, models)
    # the sensitive model binds: fewer partitions than k-anonymity alone
    assert result.groups < mondrian(adult, [KAnonymity(k=5)]).groups


def test_adult_t_closeness_is_judged_against_the_whole_table(adult):
    """If the parts were compared with their parent's distribution instead of the whole
    table's, deep splits would drift away from the table and verify() would fail."""
    models = [KAnonymity(k=2), EqualDistanceTCloseness(sensitive="salary-class", t=0.15)]
    result = mondrian(adult, models)
    classes = verify(result.data, adult, models)
    assert models[1].achieved_level(classes) <= 0.15
    assert result.groups > 10  # splits happened (t <= 0.1 already stops the first one)
    assert mondrian(adult, [KAnonymity(k=2), EqualDistanceTCloseness(sensitive="salary-class", t=0.1)]).groups == 1


def test_adult_labels_cover_original_values(adult):
    result = mondrian(adult, [KAnonymity(k=10)])
    _assert_covers(adult, result.data)


def test_adult_relaxed(adult):
    result = mondrian(adult, [KAnonymity(k=5)], strict=False)
    verify(result.data, adult, [KAnonymity(k=5)])
    _assert_covers(adult, result.data)
    strict = mondrian(adult, [KAnonymity(k=5)])
    assert result.details["ncp"] < strict.details["ncp"]  # relaxed splits more


# ------------------------------------------------------------------ row alignment
def test_rows_are_aligned_with_the_input(adult):
    """Strict Mondrian depends only on the multiset of records: permuting the input
    permutes the output the same way, row for row."""
    frame = adult.frame.iloc[:3000].reset_index(drop=True)
    frame.insert(0, "row", np.arange(len(frame)).astype(str))
    order = np.random.default_rng(1).permutation(len(frame))
    hierarchies = {q: adult.hierarchies[q] for q in adult.quasi_identifiers}

    def build(f):
        return Dataset.from_pandas(
            f, identifiers=["row"], quasi_identifiers=adult.quasi_identifiers, sensitive=["salary-class"],
            kinds={"age": "numeric"}, hierarchies=hierarchies,
        )

    base = mondrian(build(frame), [KAnonymity(k=5)]).data
    shuffled = mondrian(build(frame.iloc[order].reset_index(drop=True)), [KAnonymity(k=5)]).data
    assert shuffled["row"].tolist() == frame["row"].iloc[order].tolist()
    assert shuffled.reset_index(drop=True).equals(base.iloc[order].reset_index(drop=True))


# ------------------------------------------------------------------------ kinds
def test_ordinal_and_ordered_categorical_need_no_hierarchy():
    """Ordinal grades in declared order low < mid < high (lexicographic would be
    high < low < mid), k = 3: sorted low low low mid high high, lower median low,
    cut <= low gives 3 | 3: {low x 3} | {mid, high, high}."""
    frame = pd.DataFrame({"grade": ["low", "mid", "high", "low", "high", "low"],
                          "city": ["b", "a", "c", "a", "c", "b"]})
    ordinal = Dataset.from_pandas(frame, quasi_identifiers=["grade"], kinds={"grade": "ordinal"},
                                  domains={"grade": ["low", "mid", "high"]})
    result = mondrian(ordinal, [KAnonymity(k=3)])
    assert result.data["grade"].tolist() == ["low", "[mid-high]", "[mid-high]", "low", "[mid-high]", "low"]
    with pytest.raises(HierarchyError, match="categorical quasi-identifier 'city'"):
        mondrian(Dataset.from_pandas(frame, quasi_identifiers=["city"]), [KAnonymity(k=2)])
    # categorical="ordered": label order a < b < c; {a, a, b, b} | {c, c}, then {a, a} | {b, b}
    ordered = mondrian(Dataset.from_pandas(frame, quasi_identifiers=["city"]), [KAnonymity(k=2)],
                       categorical="ordered")
    assert ordered.data["city"].tolist() == ["b", "a", "c", "a", "c", "b"]
    assert ordered.details["dimensions"] == {"city": "ordered"} and ordered.details["splits"] == {"city": 2}


def test_date_quasi_identifier():
    frame = pd.DataFrame({"day": ["2020-01-05", "2020-01-01", "2020-03-01", "2020-02-01"]})
    dataset = Dataset.from_pandas(frame, quasi_identifiers=["day"], kinds={"day": "date"})
    result = mondrian(dataset, [KAnonymity(k=2)])
    assert result.data["day"].tolist() == ["[2020-01-01-2020-01-05]"] * 2 + ["[2020-02-01-2020-03-01]"] * 2


def test_missing_numeric_value_is_an_error():
    frame = pd.DataFrame({"age": ["30", None, "40", "50"]})
    dataset = Dataset.from_pandas(frame, quasi_identifiers=["age"], kinds={"age": "numeric"})
    with pytest.raises(SchemaError, match="'age' has missing values"):
        mondrian(dataset, [KAnonymity(k=2)])


def test_missing_categorical_value_is_a_leaf():
    frame = pd.DataFrame({"job": ["engineer", None, "lawyer", "writer", "dancer", None]})
    dataset = Dataset.from_pandas(frame, quasi_identifiers=["job"], hierarchies={"job": taxonomy(JOB, name="job")})
    result = mondrian(dataset, [KAnonymity(k=2)])
    verify(result.data, dataset, [KAnonymity(k=2)])


def test_input_suppressed_records_stay_suppressed():
    frame = pd.DataFrame({"job": ["engineer", "*", "lawyer", "writer", "dancer", "lawyer", "engineer"],
                          "sex": ["m", "*", "f", "f", "m", "m", "f"]})
    sex = Hierarchy.from_rows([["m", "*"], ["f", "*"]], name="sex")
    dataset = Dataset.from_pandas(frame, quasi_identifiers=["job", "sex"],
                                  hierarchies={"job": taxonomy(JOB, name="job"), "sex": sex})
    result = mondrian(dataset, [KAnonymity(k=2)])
    assert result.suppressed == 1 and result.data.loc[1, "job"] == "*" and result.data.loc[1, "sex"] == "*"
    assert result.data["job"].tolist() == ["professional", "*", "professional", "artist", "artist", "professional",
                                           "professional"]
    verify(result.data, dataset, [KAnonymity(k=2)], suppressed="drop")  # blanked, a group of 1 < k (issue #32)


# ----------------------------------------------------------------- errors
def test_infeasible_root():
    dataset = _age_job()
    with pytest.raises(InfeasibleError, match=r"whole table \(8 records\) does not satisfy 9-anonymity"):
        mondrian(dataset, [KAnonymity(k=9)])
    # entropy of the whole table: 9 x a, 1 x b -> exp(H) = 1.38 < 1.9 (l is attainable: 2 values)
    frame = pd.DataFrame({"age": [str(i) for i in range(10)], "s": ["a"] * 9 + ["b"]})
    skewed = Dataset.from_pandas(frame, quasi_identifiers=["age"], sensitive=["s"], kinds={"age": "numeric"})
    with pytest.raises(InfeasibleError, match=r"entropy 1.9-diversity \(s\)"):
        mondrian(skewed, [KAnonymity(k=2), EntropyLDiversity(sensitive="s", l=1.9)], suppression_limit=0.5)
    assert math.exp(-(0.9 * math.log(0.9) + 0.1 * math.log(0.1))) < 1.9


def test_unattainable_l_is_a_parameter_error():
    with pytest.raises(ParameterError, match="only 3 distinct"):
        mondrian(_duplicates(), [DistinctLDiversity(sensitive="s", l=4)])


@pytest.mark.parametrize("model", [AverageRisk(threshold=0.5), LKCPrivacy(L=1, K=2)])
def test_models_not_judged_class_by_class_are_refused(model):
    with pytest.raises(ParameterError, match=f"cannot enforce {re.escape(model.name)}"):
        mondrian(_age_job(), [KAnonymity(k=2), model])
    assert not isinstance(model, CLASS_LOCAL_MODELS)


@pytest.mark.parametrize(
    "kwargs, message",
    [
        ({"strict": "yes"}, "'strict' parameter of mondrian must be a bool. Got 'yes'"),
        ({"categorical": "tree"}, r"'categorical' parameter of mondrian must be one of \{'hierarchy', 'ordered'\}"),
        ({"suppression_limit": 1.5}, r"'suppression_limit' parameter of mondrian must be a float in \[0, 1\]"),
        ({"seed": "x"}, "'seed' parameter of mondrian must be an int or None"),
    ],
)
def test_bad_parameters(kwargs, message):
    with pytest.raises(ParameterError, match=message):
        mondrian(_age_job(), [KAnonymity(k=2)], **kwargs)


def test_bad_models_and_dataset():
    with pytest.raises(ParameterError, match="At least one privacy model"):
        mondrian(_age_job(), [])
    with pytest.raises(ParameterError, match="must hold PrivacyModel instances. Got int"):
        mondrian(_age_job(), [5])
    with pytest.raises(ParameterError, match="'zzz' of distinct 2-diversity \\(zzz\\) is not a column"):
        mondrian(_age_job(), [DistinctLDiversity(sensitive="zzz", l=2)])
    with pytest.raises(ParameterError, match="declares no quasi-identifiers"):
        mondrian(Dataset.from_pandas(pd.DataFrame({"a": ["1"]})), [KAnonymity(k=1)])


def test_verify_catches_a_broken_release():
    """The tests' oracle can fail: a release with a class of 1 is refused by verify."""
    dataset = _age_job()
    result = mondrian(dataset, [KAnonymity(k=2)])
    broken = result.data.copy()
    broken.loc[0, "age"] = "25"
    with pytest.raises(VerificationError):
        verify(broken, dataset, [KAnonymity(k=2)])


def test_large_hierarchy_without_lca_table(monkeypatch):
    """Hierarchies above ``_LCA_TABLE_LIMIT`` leaves compute LCAs level by level
    instead of reading a table: both paths give the same release."""
    import veil.algorithms.mondrian._dimensions as module

    values = [f"{i:05d}" for i in range(1000)]
    hierarchy = Hierarchy.from_rows([[v, v[:3] + "**", v[:2] + "***", "*"] for v in values], name="zip")
    rng = np.random.default_rng(5)
    frame = pd.DataFrame({"zip": rng.choice(values, size=2000), "age": rng.integers(17, 90, size=2000).astype(str)})
    dataset = Dataset.from_pandas(frame, quasi_identifiers=["zip", "age"], kinds={"age": "numeric"},
                                  hierarchies={"zip": hierarchy})
    monkeypatch.setattr(module, "_LCA_TABLE_LIMIT", 1000)
    assert module._HierarchyDimension.build("zip", hierarchy).lca_table is not None
    tabulated = mondrian(dataset, [KAnonymity(k=4)])
    monkeypatch.setattr(module, "_LCA_TABLE_LIMIT", 999)
    assert module._HierarchyDimension.build("zip", hierarchy).lca_table is None
    computed = mondrian(dataset, [KAnonymity(k=4)])
    assert computed.data.equals(tabulated.data) and computed.details == tabulated.details
    assert tabulated.details["splits"]["zip"] > 0
    verify(computed.data, dataset, [KAnonymity(k=4)])
    _assert_covers(dataset, computed.data)


# ----------------------------------------------------------------- suppression
def _skewed():
    # 9 x a then 1 x b: entropy of the whole table exp(H(.9, .1)) = 1.384 < 1.8
    frame = pd.DataFrame({"age": [str(i) for i in range(10)], "s": ["a"] * 9 + ["b"]})
    return Dataset.from_pandas(frame, quasi_identifiers=["age"], sensitive=["s"], kinds={"age": "numeric"})


def test_suppresses_the_fewest_records_that_let_the_rest_satisfy_the_models():
    models = [KAnonymity(k=2), EntropyLDiversity(sensitive="s", l=1.8)]
    # keep c of the a's and the b: c = 2 -> exp(H(2/3, 1/3)) = exp(0.6365) = 1.8899 >= 1.8;
    # c = 3 -> exp(H(3/4, 1/4)) = exp(0.5623) = 1.7548 < 1.8. So 7 of the 9 a's go: 7 of 10 records.
    assert math.exp(-(2 / 3 * math.log(2 / 3) + 1 / 3 * math.log(1 / 3))) >= 1.8
    assert math.exp(-(0.75 * math.log(0.75) + 0.25 * math.log(0.25))) < 1.8
    result = mondrian(_skewed(), models, suppression_limit=0.7)
    assert result.suppressed == 7 and result.details["suppressed_to_satisfy"] == 7
    # the last a's in row order are suppressed: rows 2..8; rows 0, 1 (a) and 9 (b) form one class
    assert result.data["age"].tolist() == ["[0-9]", "[0-9]"] + ["*"] * 7 + ["[0-9]"]
    verify(result.data, _skewed(), models)
    # tight: 0.6 of 10 allows 6 records, one too few
    with pytest.raises(InfeasibleError, match=r"after suppressing 7 records, more than the suppression limit allows \(6"):
        mondrian(_skewed(), models, suppression_limit=0.6)


def test_no_suppression_when_the_whole_table_satisfies_the_models(adult):
    result = mondrian(adult, [KAnonymity(k=5)], suppression_limit=0.5)
    assert result.suppressed == 0 and result.details["suppressed_to_satisfy"] == 0


def test_suppression_does_not_help_k_above_the_records():
    with pytest.raises(InfeasibleError, match="suppressing some of its records does not make it"):
        mondrian(_age_job(), [KAnonymity(k=9)], suppression_limit=1.0)


def test_adult_entropy_l_diversity_with_suppression(adult):
    # salary-class: 22,654 <=50K and 7,508 >50K of 30,162: exp(H(.751, .249)) = 1.754 < 1.9, so the whole
    # table fails. Suppressing c' of the <=50K records leaves c = 22,654 - c' of them beside the 7,508;
    # the fewest suppressed is the largest c with exp(H(c/(c+7508), 7508/(c+7508))) >= 1.9
    models = [KAnonymity(k=5), EntropyLDiversity(sensitive="salary-class", l=1.9)]
    with pytest.raises(InfeasibleError):
        mondrian(adult, models)
    result = mondrian(adult, models, suppression_limit=0.5)
    kept = 30162 - result.suppressed
    c = kept - 7508
    p = c / kept
    assert math.exp(-(p * math.log(p) + (1 - p) * math.log(1 - p))) >= 1.9
    p_more = (c + 1) / (kept + 1)  # one record fewer suppressed fails
    assert math.exp(-(p_more * math.log(p_more) + (1 - p_more) * math.log(1 - p_more))) < 1.9
    verify(result.data, adult, models)


def test_a_sensitive_column_named_like_the_judges_record_column():
    frame = pd.DataFrame({"age": [str(i) for i in range(8)], "__record__": list("abababab")})
    dataset = Dataset.from_pandas(frame, quasi_identifiers=["age"], sensitive=["__record__"], kinds={"age": "numeric"})
    models = [KAnonymity(k=2), DistinctLDiversity(sensitive="__record__", l=2)]
    result = mondrian(dataset, models)
    # ages 0..7 alternate a, b: median splits down to pairs, each pair holds a and b
    assert result.data["age"].tolist() == ["[0-1]", "[0-1]", "[2-3]", "[2-3]", "[4-5]", "[4-5]", "[6-7]", "[6-7]"]
    verify(result.data, dataset, models)
