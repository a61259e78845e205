"""Mondrian's ranges of labels, ``"[first-last]"``, through the one release path.

An ordered QI that is not a number (a date, an ordinal, a categorical QI split
with ``categorical="ordered"``) is released by Mondrian as the range of its
partition's labels in the column's order.  The written release's check
(:mod:`veil.pipeline._verify`) reads such a range at a dash where both sides
are labels of the column (:func:`veil.pipeline._ranges.in_label_range`), so a
release whose labels hold their records is published and one whose labels do
not is refused.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from veil.anonymization import anonymize
from veil.dataset import Dataset
from veil.errors import VerificationError
from veil.hierarchy import taxonomy
from veil.models import KAnonymity
from veil.pipeline._ranges import in_label_range
from veil.pipeline._verify import verify_release_table

#: Adult's race labels: four of five hold a dash, so "[first-last]" has several dashes.
RACES = ["Amer-Indian-Eskimo", "Asian-Pac-Islander", "Black", "Other", "White"]
RACE_TREE = {"*": {"Non-White": RACES[:4], "White": ["White"]}}


def _races(values: list[str]) -> Dataset:
    frame = pd.DataFrame({"race": values, "s": ["x"] * len(values)})
    return Dataset.from_pandas(frame, quasi_identifiers=["race"], sensitive=["s"],
                               hierarchies={"race": taxonomy(RACE_TREE, name="race")})


def _published(dataset: Dataset, k: int, **options):
    """Mondrian's release of ``dataset`` (k-anonymity), checked as the written file is."""
    result = anonymize(dataset, [KAnonymity(k=k)], algorithm="mondrian", options=options, shuffle=False)
    verify_release_table(result.data, result, dataset, [KAnonymity(k=k)])
    return result


def test_a_range_of_labels_with_dashes_is_read_at_the_dash_where_both_sides_are_labels():
    """Label order: Amer-Indian-Eskimo < Asian-Pac-Islander < Black < Other < White (codes 0..4).
    "[Amer-Indian-Eskimo-Black]" has four dashes; only the third cuts it into two labels (0, 2):
    it holds codes 0, 1, 2 and not 3, 4."""
    dataset = _races(RACES)
    released = np.array(["[Amer-Indian-Eskimo-Black]"] * 5, dtype=object)
    assert in_label_range(dataset, "race", released, np.arange(5)).tolist() == [True, True, True, False, False]


def test_what_is_not_a_range_of_two_labels_holds_nothing():
    dataset = _races(RACES)
    released = np.array(["Black", "[Black-Amer-Indian-Eskimo]", "[Black-Whit]", "[Asian-White", "[*-White]"],
                        dtype=object)
    # a single label, ends in the wrong order, an end that is no label, no closing bracket, '*'
    assert not in_label_range(dataset, "race", released, np.array([2, 2, 2, 4, 4])).any()


def test_a_label_read_two_ways_holds_what_either_reading_holds():
    """Labels a < a-b < b < c: "[a-b-c]" reads as [a, b-c]? no (b-c is no label); as [a-b, c]: codes 1..3."""
    frame = pd.DataFrame({"q": ["a", "a-b", "b", "c"]})
    dataset = Dataset.from_pandas(frame, quasi_identifiers=["q"])
    released = np.array(["[a-b-c]"] * 4, dtype=object)
    assert in_label_range(dataset, "q", released, np.arange(4)).tolist() == [False, True, True, True]


def test_ordered_categories_with_dashes_are_published_and_a_wrong_range_is_refused():
    """The reproduction: categorical="ordered" on a hierarchical QI whose labels hold dashes,
    relaxed or strict, was refused by the written release's check ("a released value of 'race'
    is not its record's generalization")."""
    values = [RACES[i % 5] for i in range(40)]
    frame = pd.DataFrame({"race": values, "age": [str(20 + i % 7) for i in range(40)], "s": ["x", "y"] * 20})
    dataset = Dataset.from_pandas(frame, quasi_identifiers=["race", "age"], sensitive=["s"],
                                  kinds={"age": "numeric"}, hierarchies={"race": taxonomy(RACE_TREE, name="race")})
    for strict in (True, False):
        result = _published(dataset, 7, strict=strict, categorical="ordered")
        released = result.data["race"]
        ranges = released[released.str.startswith("[")]
        assert ranges.str.count("-").max() >= 2  # ranges were released, with ends that hold dashes themselves
    broken = result.data.copy()
    assert (broken["race"] == "[Amer-Indian-Eskimo-Black]").any()
    # the same classes, but a range that leaves out the first race
    broken["race"] = broken["race"].replace("[Amer-Indian-Eskimo-Black]", "[Asian-Pac-Islander-Black]")
    with pytest.raises(VerificationError, match="'race' is not its record's generalization"):
        verify_release_table(broken, result, dataset, [KAnonymity(k=7)])


def test_a_date_quasi_identifier_is_published_as_ranges_of_dates():
    """Dates were refused the same way: "[2020-01-01-2020-01-09]" is no numeric interval."""
    days = [f"2020-0{1 + i % 3}-{10 + i % 9:02d}" for i in range(30)]
    dataset = Dataset.from_pandas(pd.DataFrame({"day": days, "s": ["x", "y", "z"] * 10}), quasi_identifiers=["day"],
                                  sensitive=["s"], kinds={"day": "date"})
    result = _published(dataset, 5)
    released = result.data["day"]
    ranged = released[released.str.startswith("[")]
    assert len(ranged) > 0
    for label, day in zip(ranged, pd.Series(days)[ranged.index]):
        first, last = label[1:11], label[12:22]
        assert first <= day <= last


@settings(max_examples=25, deadline=None)
@given(st.lists(st.sampled_from(RACES), min_size=12, max_size=60), st.booleans(), st.integers(2, 4))
def test_every_ordered_release_of_dashed_labels_is_published_with_ranges_that_hold_their_records(
        values, strict, k):
    frame = pd.DataFrame({"race": values, "s": ["x"] * len(values)})
    dataset = Dataset.from_pandas(frame, quasi_identifiers=["race"], sensitive=["s"],
                                  hierarchies={"race": taxonomy(RACE_TREE, name="race")})
    result = _published(dataset, k, strict=strict, categorical="ordered")
    rank = {label: i for i, label in enumerate(RACES)}
    for label, value in zip(result.data["race"], values):
        if label.startswith("["):
            cuts = [i for i, c in enumerate(label) if c == "-" and label[1:i] in rank and label[i + 1:-1] in rank]
            assert len(cuts) == 1
            first, last = label[1:cuts[0]], label[cuts[0] + 1:-1]
            assert rank[first] <= rank[value] <= rank[last]
        else:
            assert label == value


@settings(max_examples=50, deadline=None)
@given(st.lists(st.tuples(st.sampled_from(RACES + ["Black-Other", "*"]), st.sampled_from(RACES),
                          st.integers(0, 4), st.booleans()), min_size=1, max_size=20))
def test_a_range_holds_a_value_exactly_when_its_ends_surround_it(cases):
    """The oracle: the ends of "[first-last]" are read by hand from the pair that made the label."""
    dataset = _races(RACES)
    rank = {label: i for i, label in enumerate(RACES)}
    released = np.array([f"[{a}-{b}]" if ranged else a for a, b, _, ranged in cases], dtype=object)
    codes = np.array([c for _, _, c, _ in cases])
    expected = [ranged and a in rank and rank[a] <= c <= rank[b] for a, b, c, ranged in cases]
    assert in_label_range(dataset, "race", released, codes).tolist() == expected
