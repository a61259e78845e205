"""Unit tests of veil.utility: hand-computed values, edge cases and parameter errors."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest

from veil.classes import ClassTable
from veil.errors import ColumnNotFoundError, ParameterError
from veil.hierarchy import Hierarchy, masking
from veil.utility import (
    average_class_size,
    classification_metric,
    conditional_entropy,
    discernibility,
    height,
    iloss,
    info_gain,
    kl_divergence,
    label_entropy,
    non_uniform_entropy,
    precision,
    precision_loss,
    specialization_info_gain,
)


@pytest.fixture
def zips():
    frame = pd.DataFrame({"zip": ["47677", "47602", "47678", "47905"], "sex": ["F", "F", "M", "M"],
                          "y": ["a", "a", "b", "b"]})
    return ClassTable.from_pandas(frame, quasi_identifiers=["zip", "sex"], sensitive=["y"],
                                  hierarchies={"zip": masking(frame["zip"])})


# ---------------------------------------------------------------- height / precision
def test_height_sums_levels_and_normalises(zips):
    # masking of 5-digit ZIPs has height 5, the flat sex hierarchy height 1
    node = zips.generalize((3, 1))
    assert height(node) == 4.0
    assert height(node, normalized=True) == 4 / 6
    assert height(zips) == 0.0


def test_precision_charges_suppressed_records_the_full_height(zips):
    node = zips.generalize((2, 0))  # classes 476**/F (2), 476**/M (1), 479**/M (1)
    # 4 records x (2/5 + 0/1) / (4 x 2) = 0.2 -> Prec 0.8
    assert precision(node) == pytest.approx(0.8)
    suppressed = node.suppress(node.counts < 2)  # the two classes of one record
    # 2 x (2/5 + 0) + 2 x (5/5 + 1/1) = 4.8; 4.8 / 8 = 0.6 -> Prec 0.4
    assert precision(suppressed) == pytest.approx(0.4)
    assert precision_loss(suppressed) == pytest.approx(0.6)


def test_records_suppressed_on_input_count_as_suppressed():
    frame = pd.DataFrame({"zip": ["47677", "47602", "47678", "*"]})
    classes = ClassTable.from_pandas(frame, quasi_identifiers=["zip"])
    assert classes.input_suppressed == 1
    # precision: 1 record at full height out of 4 -> 1 - 1/4
    assert precision(classes) == 0.75
    # discernibility: three classes of 1, plus |D| = 4 for the suppressed record -> 3 + 4
    assert discernibility(classes) == 7
    # the transformation lost nothing on the known values
    assert non_uniform_entropy(classes) == 0.0
    assert kl_divergence(None, classes) == 0.0


# ---------------------------------------------------------------- ILoss
def test_iloss_weights_by_name_and_sequence(zips):
    node = zips.generalize((5, 0))  # zip fully generalized
    leaves = node.hierarchies[0].n_values(0)
    assert leaves == 4
    # zip: 4 records x (4 - 1)/4 = 3, sex: 0; unit weights: 3 / (4 x 2) = 0.375
    assert iloss(node) == pytest.approx(0.375)
    # weight 2 on zip: 6 / 8
    assert iloss(node, weights={"zip": 2.0}) == pytest.approx(0.75)
    assert iloss(node, weights=[0.5, 1.0]) == pytest.approx(1.5 / 8)


@pytest.mark.parametrize(
    "weights, error, message",
    [
        ([1.0], ParameterError, r"^The 'weights' parameter of iloss must have one weight per quasi-identifier \(2\)\. Got 1 instead\.$"),
        ([1.0, -1.0], ParameterError, r"^The 'weights' parameter of iloss must hold floats in \[0, inf\)\. Got -1\.0 instead\.$"),
        ([1.0, float("nan")], ParameterError, r"must hold floats in \[0, inf\)\. Got nan instead\.$"),
        ({"age": 1.0}, ColumnNotFoundError, r"names 'age', which is not a quasi-identifier"),
    ],
)
def test_iloss_rejects_bad_weights(zips, weights, error, message):
    with pytest.raises(error, match=message):
        iloss(zips, weights=weights)


# ---------------------------------------------------------------- discernibility / C_AVG
def test_discernibility_adds_table_size_per_suppressed_record(zips):
    node = zips.generalize((2, 1))  # 476**: 3 records, 479**: 1
    assert discernibility(node) == 3**2 + 1**2
    # suppress the class of 1: 3^2 + |D| x 1 = 9 + 4
    assert discernibility(node.suppress(node.counts < 2)) == 13


def test_average_class_size(zips):
    node = zips.generalize((2, 1))
    # 4 retained records / 2 classes / k=2
    assert average_class_size(node, k=2) == 1.0
    # suppressing the class of 1: 3 records / 1 class / 2
    assert average_class_size(node.suppress(node.counts < 2), k=2) == 1.5
    assert average_class_size(node.suppress(np.ones(2, bool)), k=2) is None


@pytest.mark.parametrize("k", [0, 1.5, True, None])
def test_average_class_size_rejects_bad_k(zips, k):
    with pytest.raises(ParameterError, match=r"^The 'k' parameter of average_class_size must be an int in \[1, inf\)\. Got .* instead\.$"):
        average_class_size(zips, k=k)


# ---------------------------------------------------------------- classification metric
def test_classification_metric(zips):
    node = zips.generalize((5, 0))  # classes F: a, a ; M: b, b -> no error
    assert classification_metric(node, "y") == 0.0
    top = zips.generalize((5, 1))  # one class a, a, b, b: 2 records outside the majority
    assert classification_metric(top, "y") == 0.5
    # suppress everything: 4 penalties / 4
    assert classification_metric(top.suppress(np.ones(1, bool)), "y") == 1.0


def test_unknown_label_names_the_known_ones(zips):
    with pytest.raises(ColumnNotFoundError, match=r"^The label 'salary' of classification_metric has no histogram .*'y'"):
        classification_metric(zips, "salary")
    with pytest.raises(ParameterError, match="'label' parameter of conditional_entropy"):
        conditional_entropy(zips, 3)


# ---------------------------------------------------------------- entropy and InfoGain
def test_label_entropy_values():
    assert label_entropy([10, 0]) == 0.0
    assert label_entropy([5, 5]) == 1.0
    assert label_entropy([0, 0]) == 0.0
    # -(1/4 log2 1/4 + 3/4 log2 3/4) = 0.8112781244591328
    np.testing.assert_allclose(label_entropy([[1, 3], [2, 2]]), [0.8112781244591328, 1.0])
    with pytest.raises(ParameterError, match="non-negative finite counts"):
        label_entropy([1, -1])


def test_info_gain_checks_the_partition():
    # E([15, 5]) - (10/20 E([10, 0]) + 10/20 E([5, 5])) = 0.811278... - 0.5
    assert info_gain([15, 5], [[10, 0], [5, 5]]) == pytest.approx(0.8112781244591328 - 0.5)
    assert info_gain([0, 0], [[0, 0]]) == 0.0
    with pytest.raises(ParameterError, match="must partition the parent"):
        info_gain([15, 5], [[10, 0], [5, 4]])
    with pytest.raises(ParameterError, match=r"one column per label \(2\)\. Got 3 instead"):
        info_gain([15, 5], [[10, 0, 0], [5, 5, 0]])


def test_specialization_info_gain_of_every_value():
    # sex: F has 10 "cancer"; M has 5 "cancer" and 5 "none".  Specializing * into F, M:
    # E([15, 5]) - (10/20 x 0 + 10/20 x 1) = 0.811278... - 0.5
    frame = pd.DataFrame({"sex": ["F"] * 10 + ["M"] * 10, "y": ["cancer"] * 15 + ["none"] * 5})
    classes = ClassTable.from_pandas(frame, quasi_identifiers=["sex"], sensitive=["y"])
    gain = specialization_info_gain(classes.generalize((1,)), "sex", label="y")
    assert gain.shape == (1,)
    assert gain[0] == pytest.approx(0.8112781244591328 - 0.5)
    with pytest.raises(ParameterError, match="is at level 0"):
        specialization_info_gain(classes, "sex", label="y")


def test_specialization_info_gain_values_at_a_middle_level(zips):
    # zip at level 3 (47***): one value covering all 4 records, children 476** (a, a, b) and 479** (b)
    node = zips.generalize((3, 0))
    gain = specialization_info_gain(node, "zip", label="y")
    # E([2, 2]) - (3/4 E([2, 1]) + 1/4 E([0, 1])) = 1 - 3/4 x 0.918295...
    assert gain.tolist() == pytest.approx([1 - 0.75 * 0.9182958340544896])


def test_conditional_entropy_groups_suppressed_records_together(zips):
    node = zips.generalize((2, 1))  # 476**: a, a, b; 479**: b
    # 3/4 x E([2, 1]) + 1/4 x 0
    assert conditional_entropy(node, "y") == pytest.approx(0.75 * 0.9182958340544896)
    # all suppressed: one group a, a, b, b -> 1 bit
    assert conditional_entropy(node.suppress(np.ones(2, bool)), "y") == pytest.approx(1.0)


def test_non_uniform_entropy_hand_value():
    # sex F x3, M x1 generalized to *: 3 x -log2(3/4) + 1 x -log2(1/4) = 3.2451124978365313
    frame = pd.DataFrame({"sex": ["F", "F", "F", "M"]})
    classes = ClassTable.from_pandas(frame, quasi_identifiers=["sex"])
    top = classes.generalize((1,))
    assert non_uniform_entropy(top) == pytest.approx(3.2451124978365313)
    assert non_uniform_entropy(top, normalized=True) == pytest.approx(1.0)
    # suppressing the M record at level 0 costs it -log2(1/4) = 2 bits
    assert non_uniform_entropy(classes.suppress(classes.counts < 2)) == pytest.approx(2.0)
    assert non_uniform_entropy(classes) == 0.0


# ---------------------------------------------------------------- KL
def test_kl_hand_value_and_zero_at_the_original():
    frame = pd.DataFrame({"sex": ["F", "F", "F", "M"]})
    classes = ClassTable.from_pandas(frame, quasi_identifiers=["sex"])
    # F1 = (3/4, 1/4), F2 = (1/2, 1/2): 3/4 log2(3/2) + 1/4 log2(1/2)
    expected = 0.75 * math.log2(1.5) + 0.25 * math.log2(0.5)
    assert kl_divergence(classes, classes.generalize((1,))) == pytest.approx(expected)
    assert kl_divergence(classes, classes) == 0.0
    # suppressing M at level 0: F2(M) = 1/4 x 1/2 (spread over the 2 values), F2(F) = 3/4 + 1/8
    assert kl_divergence(None, classes.suppress(classes.counts < 2)) == pytest.approx(
        0.75 * math.log2(0.75 / 0.875) + 0.25 * math.log2(0.25 / 0.125)
    )


def test_kl_rejects_a_foreign_original(zips):
    node = zips.generalize((2, 1))
    with pytest.raises(ParameterError, match=r"must be a class table at level 0\. Got levels \(2, 1\) instead"):
        kl_divergence(node, node)
    other = ClassTable.from_pandas(pd.DataFrame({"zip": ["47677"], "sex": ["F"]}), quasi_identifiers=["zip", "sex"])
    with pytest.raises(ParameterError, match="must hold the records of the anonymized table"):
        kl_divergence(other, node)
    lone = ClassTable.from_pandas(pd.DataFrame({"sex": ["F"] * 4}), quasi_identifiers=["sex"])
    with pytest.raises(ParameterError, match="lacks the quasi-identifier 'zip'"):
        kl_divergence(lone, node)


def test_taxonomy_padding_counts_the_level_not_the_label():
    # a padded leaf keeps its label at level 1 but is charged the level (full-domain semantics)
    h = Hierarchy.from_rows([["a", "a", "*"], ["b", "B", "*"], ["c", "B", "*"]])
    frame = pd.DataFrame({"x": ["a", "b", "c"]})
    classes = ClassTable.from_pandas(frame, quasi_identifiers=["x"], hierarchies={"x": h}).generalize((1,))
    # precision: every record h = 1 of HGV 2 -> 1 - 1/2; ILoss: a covers 1 leaf, B covers 2: (0 + 1/3 + 1/3) / 3
    assert precision(classes) == 0.5
    assert iloss(classes) == pytest.approx((2 / 3) / 3)


def test_row_matching_agrees_between_packed_keys_and_the_wide_fallback():
    from veil.utility._inputs import match_rows

    table = np.array([[0, 1], [2, 0], [1, 1]], dtype=np.int32)
    queries = np.array([[1, 1], [0, 0], [2, 0], [0, 1]], dtype=np.int32)
    expected = [2, -1, 1, 0]
    assert match_rows(queries, table, [3, 2]).tolist() == expected
    # radices whose product passes 2**62 take the np.unique path
    assert match_rows(queries, table, [2**31, 2**31]).tolist() == expected
