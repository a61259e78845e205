import itertools

import numpy as np
import pandas as pd
import pytest

from veil.classes import SUPPRESSED, ClassTable, _group
from veil.dataset import Dataset
from veil.errors import HierarchyError, ParameterError, SchemaError
from veil.hierarchy import Hierarchy, masking


def brute_force(frame, qis):
    """Class sizes by a plain pandas groupby, for comparison."""
    return sorted(frame.groupby(qis, dropna=False).size().tolist())


def test_build_counts_and_histograms():
    frame = pd.DataFrame(
        {"zip": ["476**"] * 3 + ["4790*"] * 3, "disease": ["c", "c", "c", "f", "h", "c"]}
    )
    ct = ClassTable.from_pandas(frame, quasi_identifiers=["zip"], sensitive=["disease"])
    assert ct.n_classes == 2 and ct.n_records == 6
    hist = ct.sensitive["disease"]
    assert hist.labels.tolist() == ["c", "f", "h"]
    labels = ct.labels()
    by_zip = dict(zip(labels["zip"], hist.counts.tolist()))
    assert by_zip == {"476**": [3, 0, 0], "4790*": [1, 1, 1]}
    assert hist.overall.tolist() == [4, 1, 1]


def test_generalize_matches_brute_force(adult):
    base = ClassTable.from_dataset(adult)
    frame = adult.frame
    node = (1, 2, 1, 1, 2, 1, 1, 1)
    g = base.generalize(node)
    generalized = frame.copy()
    for name, h, level in zip(base.quasi_identifiers, base.hierarchies, node):
        generalized[name] = h.labels[level][h.maps[level][h.leaf_index(frame[name].to_numpy())]]
    assert sorted(g.counts.tolist()) == brute_force(generalized, list(base.quasi_identifiers))
    hist = g.sensitive["salary-class"]
    assert hist.counts.sum() == len(frame)
    np.testing.assert_array_equal(hist.counts.sum(axis=1), g.counts)


def test_rollup_equals_generalize_from_base(adult):
    base = ClassTable.from_dataset(adult)
    finer = base.generalize((0, 1, 0, 1, 1, 0, 1, 0))
    coarse = (1, 2, 1, 1, 2, 1, 1, 1)
    a, b = finer.generalize(coarse), base.generalize(coarse)
    pd.testing.assert_frame_equal(
        a.labels().sort_values(list(base.quasi_identifiers)).reset_index(drop=True),
        b.labels().sort_values(list(base.quasi_identifiers)).reset_index(drop=True),
    )
    np.testing.assert_array_equal(
        np.sort(a.sensitive["salary-class"].counts, axis=0), np.sort(b.sensitive["salary-class"].counts, axis=0)
    )
    # going back to finer levels starts from the base again
    assert a.generalize((0,) * 8).n_classes == base.n_classes


def test_generalization_never_lowers_min_class_size(adult):
    base = ClassTable.from_dataset(adult)
    previous = base.counts.min()
    for level in range(1, 3):
        node = tuple(min(level, h.height) for h in base.hierarchies)
        current = base.generalize(node).counts.min()
        assert current >= previous
        previous = current


def test_project_matches_brute_force(adult):
    base = ClassTable.from_dataset(adult)
    for subset in [("sex",), ("age", "race"), ("education", "occupation", "sex")]:
        p = base.project(subset)
        assert sorted(p.counts.tolist()) == brute_force(adult.frame, list(subset))
    # projection of a projection shares the work and agrees
    pp = base.project(("education", "occupation", "sex")).project(("sex", "education"))
    assert sorted(pp.counts.tolist()) == brute_force(adult.frame, ["sex", "education"])
    # a projection can still be generalized
    g = base.project(("age", "sex")).generalize((2, 1))
    h = base.hierarchy("age")
    decades = h.labels[2][h.maps[2][h.leaf_index(adult.frame["age"].to_numpy())]]
    assert sorted(g.counts.tolist()) == sorted(pd.Series(decades).value_counts().tolist())


def test_suppress_counts_records_and_apply():
    frame = pd.DataFrame({"zip": ["47677", "47678", "47602", "47905"], "d": ["a", "b", "a", "c"]})
    h = masking(frame["zip"])
    ds = Dataset.from_pandas(frame, quasi_identifiers=["zip"], sensitive=["d"], hierarchies={"zip": h})
    ct = ClassTable.from_dataset(ds).generalize([2])  # 476** ×3, 479** ×1
    small = ct.counts < 2
    s = ct.suppress(small)
    assert s.suppressed == 1 and s.n_retained == 3 and s.n_records == 4
    assert s.sensitive["d"].counts.sum() == 3
    out = s.apply(ds)
    assert out["zip"].tolist() == ["476**", "476**", "476**", SUPPRESSED]
    assert out["d"].tolist() == frame["d"].tolist()
    assert len(s.apply(ds, drop_suppressed=True)) == 3
    with pytest.raises(ParameterError, match="suppressed class table to finer"):
        s.generalize([0])


def test_input_suppressed_rows_counted_apart():
    frame = pd.DataFrame({"a": ["x", "*", "x", "y"], "b": ["1", "*", "1", "*"]})
    ct = ClassTable.from_pandas(frame, quasi_identifiers=["a", "b"])
    assert ct.input_suppressed == 1 and ct.suppressed == 1
    assert sorted(ct.counts.tolist()) == [1, 2]  # (x,1)×2, (y,*)×1 — '*' alone is a value


def test_missing_values_form_their_own_class():
    frame = pd.DataFrame({"a": ["x", None, None, "x"]})
    ct = ClassTable.from_pandas(frame, quasi_identifiers=["a"])
    assert sorted(ct.counts.tolist()) == [2, 2]
    with pytest.raises(SchemaError, match="missing value"):
        ClassTable.from_pandas(frame, quasi_identifiers=["a"], missing="error")


def test_uncovered_value_names_column_and_value():
    frame = pd.DataFrame({"sex": ["F", "M", "X"]})
    h = Hierarchy.from_rows([["F", "*"], ["M", "*"]])
    with pytest.raises(HierarchyError, match="column 'sex' does not cover the value 'X'"):
        ClassTable.from_pandas(frame, quasi_identifiers=["sex"], hierarchies={"sex": h})


def test_empty_table_rejected():
    with pytest.raises(SchemaError, match="no records"):
        ClassTable.from_pandas(pd.DataFrame({"a": pd.Series([], dtype=str)}), quasi_identifiers=["a"])


def test_qi_and_sensitive_overlap_rejected():
    frame = pd.DataFrame({"a": ["x"], "b": ["y"]})
    ds = Dataset.from_pandas(frame, quasi_identifiers=["a"])
    with pytest.raises(SchemaError, match="both a quasi-identifier and sensitive"):
        ClassTable.from_dataset(ds, quasi_identifiers=["a"], sensitive=["a"])


def test_bad_levels():
    ct = ClassTable.from_pandas(pd.DataFrame({"a": ["x", "y"]}), quasi_identifiers=["a"])
    with pytest.raises(ParameterError, match=r"level of 'a' must be an int in \[0, 1\]. Got 2"):
        ct.generalize([2])
    with pytest.raises(ParameterError, match="Expected 1 levels"):
        ct.generalize([0, 1])


def test_row_order_does_not_matter(adult):
    shuffled = adult.frame.sample(frac=1.0, random_state=7)
    ds = Dataset.from_pandas(shuffled, quasi_identifiers=adult.quasi_identifiers,
                             sensitive=adult.sensitive, hierarchies=adult.hierarchies)
    a = ClassTable.from_dataset(adult).generalize((1,) * 8)
    b = ClassTable.from_dataset(ds).generalize((1,) * 8)
    key = list(a.quasi_identifiers)
    pd.testing.assert_frame_equal(
        a.labels().sort_values(key).reset_index(drop=True), b.labels().sort_values(key).reset_index(drop=True)
    )


def test_group_fallback_for_huge_key_space():
    rng = np.random.default_rng(0)
    codes = rng.integers(0, 3, size=(50, 3)).astype(np.int32)
    small_u, small_inv = _group(codes, [3, 3, 3])
    huge_u, huge_inv = _group(codes, [2**30, 2**30, 2**30])  # does not fit in 64 bits
    assert len(small_u) == len(huge_u)
    np.testing.assert_array_equal(small_u[small_inv], codes)
    np.testing.assert_array_equal(huge_u[huge_inv], codes)


def test_apply_full_table_levels(adult):
    ct = ClassTable.from_dataset(adult).generalize((1, 1, 1, 1, 1, 1, 1, 1))
    out = ct.apply(adult)
    assert len(out) == adult.n_records
    assert set(out["sex"]) == {"*"}
    assert out["salary-class"].tolist() == adult.frame["salary-class"].tolist()
    assert out.groupby(list(ct.quasi_identifiers)).size().min() == ct.counts.min()
