"""``class_table_from_counts`` equals ``ClassTable.from_dataset`` on the full data."""

from __future__ import annotations

import pandas as pd
import pytest

from veil.classes import ClassTable
from veil.dataset import Dataset
from veil.engines import LocalEngine, class_table_from_counts
from veil.errors import ColumnNotFoundError, HierarchyError, SchemaError
from veil.hierarchy import Hierarchy

from .conftest import KINDS, QIS, SENSITIVE, assert_same_class_table


def test_adult_aggregated_equals_from_dataset(adult, adult_csv):
    """Adult, 8 QIs and salary-class: 19,502 distinct combinations aggregate to the
    18,109 classes of from_dataset, with the same counts and histograms."""
    counts = LocalEngine().group_count(adult_csv, QIS, SENSITIVE)
    assert len(counts) == 19_502 and counts["count"].sum() == 30_162
    built = class_table_from_counts(
        counts, quasi_identifiers=QIS, sensitive=SENSITIVE, hierarchies=adult.hierarchies, kinds=KINDS
    )
    expected = ClassTable.from_dataset(adult)
    assert built.n_classes == expected.n_classes == 18_109
    assert_same_class_table(built, expected)
    # and it behaves the same under generalization and suppression
    node = (1, 2, 1, 1, 2, 1, 1, 1)
    assert_same_class_table(built.generalize(node), expected.generalize(node))


def test_missing_values_input_suppressed_rows_and_flat_hierarchies(tmp_path):
    """Missing values (NA texts), rows that arrived suppressed ('*' in every QI), a QI
    without a hierarchy (flat) and a numeric sensitive attribute (ordered by value)."""
    frame = pd.DataFrame({
        "zip": ["47677", "47678", "47905", "NA", "*", "47677", "", "47905"],
        "age": ["9", "10", "30", "10", "*", "9", "30", "100"],
        "score": ["3", "10", "2", "NA", "1", "3", "2", "10"],
        "name": ["a", "b", "c", "d", "e", "f", "g", "h"],
    })
    path = tmp_path / "t.csv"
    frame.to_csv(path, index=False)
    zips = Hierarchy.from_rows(
        [["47677", "4767*", "*"], ["47678", "4767*", "*"], ["47905", "4790*", "*"]], name="zip"
    )
    dataset = Dataset.read(path, quasi_identifiers=["zip", "age"], sensitive=["score"],
                           kinds={"score": "numeric"})
    expected = ClassTable.from_dataset(dataset, hierarchies={"zip": zips})
    counts = LocalEngine().group_count(path, ["zip", "age"], ["score"])
    built = class_table_from_counts(
        counts, quasi_identifiers=["zip", "age"], sensitive=["score"], hierarchies={"zip": zips},
        kinds={"score": "numeric"},
    )
    assert expected.input_suppressed == 1 and "<missing>" in expected.hierarchies[0].leaves.tolist()
    assert_same_class_table(built, expected)
    assert built.hierarchies[1].leaves.tolist() == ["*", "10", "100", "30", "9"]
    assert built.sensitive["score"].labels.tolist() == ["1", "2", "3", "10", "<missing>"]


def test_domains_order_sensitive_values():
    counts = pd.DataFrame({"q": ["a", "a", "b"], "s": ["low", "high", "low"], "count": [2, 1, 3]})
    built = class_table_from_counts(
        counts, quasi_identifiers=["q"], sensitive=["s"], kinds={"s": "ordinal"},
        domains={"s": ["low", "mid", "high"]},
    )
    hist = built.sensitive["s"]
    assert hist.labels.tolist() == ["low", "mid", "high"]
    assert hist.overall.tolist() == [5, 0, 1]


def test_repeated_combinations_add_up():
    counts = pd.DataFrame({"q": ["a", "a", "b"], "s": ["x", "x", "y"], "count": [2, 3, 0]})
    built = class_table_from_counts(counts, quasi_identifiers=["q"], sensitive=["s"])
    assert built.n_classes == 1 and built.counts.tolist() == [5] and built.n_records == 5


def test_errors_name_the_column_and_value():
    counts = pd.DataFrame({"zip": ["47677", "99999"], "count": [1, 1]})
    zips = Hierarchy.from_rows([["47677", "*"]], name="zip")
    with pytest.raises(HierarchyError, match="column 'zip' does not cover the value '99999'"):
        class_table_from_counts(counts, quasi_identifiers=["zip"], hierarchies={"zip": zips})
    with pytest.raises(ColumnNotFoundError, match="'age' is not in the grouped counts"):
        class_table_from_counts(counts, quasi_identifiers=["age"])
    with pytest.raises(SchemaError, match="both a quasi-identifier and sensitive"):
        class_table_from_counts(counts, quasi_identifiers=["zip"], sensitive=["zip"])
    with pytest.raises(SchemaError, match="no records"):
        class_table_from_counts(counts.assign(count=0), quasi_identifiers=["zip"])
    with pytest.raises(SchemaError, match="non-negative integers"):
        class_table_from_counts(counts.assign(count=[-1, 2]), quasi_identifiers=["zip"])
