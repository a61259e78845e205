"""The shortcuts of the information metrics: hand values where a wrong shortcut would differ.

``kl_divergence`` reads the covering classes from ``ClassTable.base_map`` for a table derived
from its own base; ``leaf_counts`` counts each base table's leaves once and shares them.
"""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest

from veil.classes import ClassTable
from veil.hierarchy import masking
from veil.utility import kl_divergence, non_uniform_entropy
from veil.utility._inputs import leaf_counts


@pytest.fixture
def sexes():
    return ClassTable.from_pandas(pd.DataFrame({"sex": ["F", "F", "F", "M"]}), quasi_identifiers=["sex"])


@pytest.fixture
def zips():
    frame = pd.DataFrame({"zip": ["47677", "47602", "47678", "47905", "47677"], "sex": ["F", "F", "M", "M", "F"]})
    return ClassTable.from_pandas(frame, quasi_identifiers=["zip", "sex"], hierarchies={"zip": masking(frame["zip"])})


def test_base_map_gives_each_base_class_its_class_or_minus_one(zips):
    def classes_of_base(table):  # base class (zip, sex) -> its class's labels here, None when suppressed
        labels = table.labels()
        base = zips.labels()[["zip", "sex"]].itertuples(index=False)
        return {(z, s): None if c < 0 else tuple(labels.iloc[c][["zip", "sex"]])
                for (z, s), c in zip(base, table.base_map.tolist())}

    assert zips.base_map.tolist() == [0, 1, 2, 3]
    node = zips.generalize((2, 1))  # masking: level 2 keeps three digits
    assert classes_of_base(node) == {("47677", "F"): ("476**", "*"), ("47602", "F"): ("476**", "*"),
                                     ("47678", "M"): ("476**", "*"), ("47905", "M"): ("479**", "*")}
    suppressed = node.suppress(node.counts < 2)  # 479**/* holds one record
    assert classes_of_base(suppressed) == {("47677", "F"): ("476**", "*"), ("47602", "F"): ("476**", "*"),
                                           ("47678", "M"): ("476**", "*"), ("47905", "M"): None}
    assert suppressed.base_map is suppressed.base_map  # built once, then kept


def test_kl_of_a_record_suppressed_then_rolled_up_into_a_retained_box(sexes):
    # M is suppressed at level 0, then both are generalized to *: the class * (3 records, 2 leaves)
    # covers M's box too, so F2(F) = F2(M) = 3/2 / 4 + 1/2 / 4 (the suppressed record spread over
    # both leaves) = 1/2, as at the top without suppression; the base map alone would leave M
    # uncovered (F2(M) = 1/8) and give 3/4 log2(3/2) + 1/4 log2(2)
    table = sexes.suppress(sexes.counts < 2).generalize((1,))
    assert table.base_map.tolist() == [0, -1]
    expected = 0.75 * math.log2(1.5) + 0.25 * math.log2(0.5)
    assert kl_divergence(None, table) == pytest.approx(expected, abs=1e-15)
    assert kl_divergence(sexes, table) == kl_divergence(None, table)


def test_kl_with_the_table_s_base_or_an_equal_original_is_the_same_float(zips):
    node = zips.generalize((2, 0))
    table = node.suppress(node.counts < 2)
    rebuilt = ClassTable.from_pandas(pd.DataFrame({"zip": ["47677", "47602", "47678", "47905", "47677"],
                                                   "sex": ["F", "F", "M", "M", "F"]}),
                                     quasi_identifiers=["zip", "sex"], hierarchies={"zip": zips.hierarchies[0]})
    assert rebuilt is not zips.base
    for t in (node, table, table.generalize((3, 1))):
        assert kl_divergence(None, t) == kl_divergence(zips, t) == kl_divergence(rebuilt, t)


def test_leaf_frequencies_are_counted_once_per_base_table(zips):
    def leaf_frequencies(table):
        return [leaf_counts(table, i) for i in range(len(table.quasi_identifiers))]

    zip_counts, sex_counts = leaf_frequencies(zips.generalize((2, 1)))
    zip_leaves, sex_leaves = (h.labels[0] for h in zips.hierarchies)
    assert dict(zip(zip_leaves, zip_counts.tolist())) == {"47677": 2.0, "47602": 1.0, "47678": 1.0, "47905": 1.0}
    assert dict(zip(sex_leaves, sex_counts.tolist())) == {"F": 3.0, "M": 2.0}
    assert zip_counts.dtype == np.float64
    again = leaf_frequencies(zips.generalize((1, 0)).suppress(np.array([True, False, False, False])))
    assert again[0] is zip_counts and again[1] is sex_counts  # records suppressed by the table still count
    projected = leaf_frequencies(zips.project(["sex"]))
    assert len(projected) == 1 and projected[0] is sex_counts
    with pytest.raises(ValueError, match="read-only"):
        zip_counts[0] = 5.0
    other = ClassTable.from_pandas(pd.DataFrame({"sex": ["F", "M", "M"]}), quasi_identifiers=["sex"])
    assert dict(zip(other.hierarchies[0].labels[0], leaf_frequencies(other)[0].tolist())) == {"F": 1.0, "M": 2.0}


def test_non_uniform_entropy_is_the_same_float_on_the_first_and_later_calls(zips):
    node = zips.generalize((2, 1))
    table = node.suppress(node.counts < 2)
    fresh = ClassTable.from_pandas(zips.labels().loc[np.repeat(np.arange(4), zips.counts), ["zip", "sex"]],
                                   quasi_identifiers=["zip", "sex"], hierarchies={"zip": zips.hierarchies[0]})
    first = non_uniform_entropy(fresh.generalize((2, 1)).suppress(node.counts < 2))
    assert non_uniform_entropy(table) == first == non_uniform_entropy(table)
    assert non_uniform_entropy(table, normalized=True) == non_uniform_entropy(table, normalized=True)
    # zip 476** (4 of 5 records: 47602, 47677 x2, 47678) and sex * (F x3, M x2); the 47905/M record is
    # suppressed (class of 1) and costs -log2 of its leaf shares among all: log2(5/1) + log2(5/2)
    expected = (math.log2(4) + 2 * math.log2(2) + math.log2(4)) + (3 * math.log2(5 / 3) + math.log2(5 / 2)) \
        + math.log2(5) + math.log2(5 / 2)
    assert first == pytest.approx(expected, abs=1e-12)
