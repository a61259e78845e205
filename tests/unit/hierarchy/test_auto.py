"""What ``auto`` chooses, resolving specs for a table, and the per-level preview."""

import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from veil.dataset import Dataset
from veil.errors import ColumnNotFoundError, HierarchyError
from veil.hierarchy import choose, level_counts, resolve


#: Twelve nominal categories with Fibonacci counts (for the frequency pooling below).
_TWELVE = [f"v{i}" for i in range(12)], [1, 1, 2, 3, 5, 8, 13, 21, 34, 55, 89, 144]


@pytest.mark.parametrize("values, counts, kind, expected", [
    # span 0..90 / 16 = 5.6 -> nearest 1-2-5 width is 5; doubling while below the span 90: 5,10,20,40,80
    ([str(a) for a in range(0, 90)] + ["90+", ""], None, None, "interval:5,10,20,40,80"),
    # span -40..40 = 80 / 16 = 5 -> 5,10,20,40; widths 5 and 10 keep the 5 values apart (a level that
    # changes nothing is dropped); 20: [-40,-20) [-20,0) [0,20) [40,60) = 4 groups; 40: 3 groups
    (["-40", "-3", "0", "12.5", "40"], None, None, "interval:20,40"),
    (["02139", "02142", "10001", "10002", ""], None, None, "mask:1"),
    # months: 2020-01 (2), 2020-03, 2021-07 = 3 groups of 4 dates; years: 2020, 2021 = 2
    (["2020-01-05", "2020-01-20", "2020-03-01", "2021-07-31"], None, None, "date:month,year"),
    # two months, in two years: the year level groups as the month level does, so it is dropped
    (["05-Jan-2020", "17-jan-2020", "07-feb-2021", "09-feb-2021"], None, None, "date:month"),
    # below 2 merges 2 values (12 -> 11 groups), below 4: 4 (9 groups), 8: 5, 16: 7, 32: 8, 64: 9 (4 groups)
    (*_TWELVE, None, "group:2,4,8,16,32,64"),
    (["a", "b", "c"], [9, 3, 1], None, "suppress"),  # three values: straight to *
    (["only"], [10], None, "suppress"),
    (["a", "b"], None, None, "suppress"),
    # declared numeric: not masked; span 20 / 16 = 1.25 -> width 1 (changes nothing on integers:
    # dropped), then 2 (11 groups), 4 (1988, 1992, ..., 2008: 6), 8 (4), 16 (2)
    ([str(y) for y in range(1990, 2011)], None, "numeric", "interval:2,4,8,16"),
])
def test_choose(values, counts, kind, expected):
    assert str(choose(values, counts, kind=kind)) == expected


def test_choose_numeric_width_of_integers_is_at_least_one():
    # span 3 / 16 is below 1; integers never get widths below 1, and width 1 changes nothing on them:
    # width 2 gives [0, 2) [2, 4) [4, 6) (3 groups of the 4 values); 4 >= the span stops
    assert str(choose(["1", "2", "3", "4"])) == "interval:2"


@pytest.fixture
def clinic():
    frame = pd.DataFrame({
        "age": ["23", "25", "91", "90+", None, "23"],
        "zip": ["02139", "02139", "02142", "10001", "10001", "10001"],
        "job": ["Nurse", "nurse", "Chef", "Nurse", "Chef", "Pilot"],
    })
    return Dataset.from_pandas(frame, quasi_identifiers=["age", "zip", "job"])


def test_resolve_auto_and_given(clinic):
    out = resolve(clinic, {"age": "interval:10,20"}, auto=True)
    # zip: 3 values; job: Nurse, nurse, Chef, Pilot: 4 categories without an order (at most 10): both to *
    assert out.sources["age"] == "interval:10,20"
    assert out.sources["zip"] == "auto (suppress) because " + out.reasons["zip"]
    assert out.reasons["zip"].startswith("3 values:")
    assert out.reasons["job"].startswith("4 categories without an order")
    assert set(out.hierarchies) == {"age", "zip", "job"}


def test_resolve_unknown_column(clinic):
    with pytest.raises(ColumnNotFoundError, match="'height'"):
        resolve(clinic, {"height": "interval:10"})


def test_level_counts_by_hand(clinic):
    h = resolve(clinic, {"age": "interval:10,20"}).hierarchies["age"]
    from veil.hierarchy import column_values

    values, counts = column_values(clinic, "age")
    levels = level_counts(h, values, counts, column="age")
    # present records: 23, 25, 91, 90+, 23 (the missing one is not a leaf)
    # level 1 (width 10): [20, 30) has 23, 25, 23 = 3; 91 and 90+ -> ">= 90" = 2
    # level 2 (width 20): [20, 40) = 3; ">= 80" = 2; top: 5
    assert [(s.groups, s.smallest, s.largest) for s in levels] == [(4, 1, 2), (2, 2, 3), (2, 2, 3), (1, 5, 5)]
    assert levels[1].examples == (("[20, 30)", 3), (">= 90", 2))


def test_level_counts_names_an_uncovered_value(clinic):
    h = resolve(clinic, {"age": "interval:10"}).hierarchies["age"]
    with pytest.raises(HierarchyError, match="'77'"):
        level_counts(h, ["77"], [1], column="age")


_CELLS = st.one_of(
    st.integers(-300, 300).map(str),
    st.sampled_from(["90+", ">=250", "<-100", "", "NA", "2020-01-05", "2021-12-31", "Nurse", "nurse ", "NURSE",
                     "Chef", "02139", "10001", "x y", "1.5"]),
)


@settings(max_examples=40, deadline=None)
@given(st.lists(st.tuples(_CELLS, _CELLS, _CELLS), min_size=1, max_size=12))
def test_auto_hierarchies_are_valid_and_cover_any_column(rows):
    """Whatever a column holds, ``auto`` builds a valid hierarchy that covers every present value
    (monotonicity and the single top are checked when the hierarchy is constructed)."""
    frame = pd.DataFrame(rows, columns=["a", "b", "c"]).replace("", None)
    dataset = Dataset.from_pandas(frame, quasi_identifiers=["a", "b", "c"])
    out = resolve(dataset, auto=True)
    from veil.classes import ClassTable

    ClassTable.from_dataset(dataset.with_hierarchies(out.hierarchies))  # binds every value, missing included
    assert all(s.startswith("auto (") for s in out.sources.values())
