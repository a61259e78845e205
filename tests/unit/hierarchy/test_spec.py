"""The hierarchy spec grammar and its builders, on values real tables carry."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from veil.errors import HierarchyError
from veil.hierarchy import BuilderSpec, build, parse_spec


def rows(h):
    """{leaf: [label at level 1, 2, ...]} of a hierarchy."""
    frame = h.to_frame()
    return {r[0]: list(r[1:]) for r in frame.itertuples(index=False)}


@pytest.mark.parametrize("text, expected", [
    ("interval:5,10,20", BuilderSpec("interval", numbers=(5.0, 10.0, 20.0))),
    ("Interval: 5, 10", BuilderSpec("interval", numbers=(5.0, 10.0))),
    ("interval:quantiles=4,2", BuilderSpec("interval", numbers=(4.0, 2.0), quantiles=True)),
    ("mask:2", BuilderSpec("mask", numbers=(2.0,))),
    ("MASK", BuilderSpec("mask", numbers=(1.0,))),
    ("date:Month,YEAR", BuilderSpec("date", words=("month", "year"))),
    ("date", BuilderSpec("date", words=("month", "year"))),
    ("round:0.5,10", BuilderSpec("round", numbers=(0.5, 10.0))),
    ("group:2,10", BuilderSpec("group", numbers=(2.0, 10.0))),
    ("suppress", BuilderSpec("suppress")),
    ("auto", BuilderSpec("auto")),
    ("taxonomy:tree.csv", BuilderSpec("taxonomy", path="tree.csv")),
    ("hier/age.csv", BuilderSpec("file", path="hier/age.csv")),
    ("file:C:odd.csv", BuilderSpec("file", path="C:odd.csv")),
])
def test_parse(text, expected):
    assert parse_spec(text) == expected


@pytest.mark.parametrize("text", ["interval:5,10", "interval:quantiles=4,2", "mask:1", "date:month,year",
                                  "round:10,100", "group:2,10", "suppress", "auto", "taxonomy:t.csv", "a.csv"])
def test_text_round_trips(text):
    assert str(parse_spec(text)) == text


@pytest.mark.parametrize("text, fragment", [
    ("", "empty"),
    ("intervals:5", "Unknown hierarchy builder 'intervals'"),
    ("interval:", "needs numbers"),
    ("interval:5,x", "got 'x'"),
    ("interval:-5", "above 0"),
    ("interval:quantiles=1", "above 1"),
    ("mask:1.5", "integers"),
    ("date:week", "Unknown date level 'week'"),
    ("suppress:2", "takes no arguments"),
    ("taxonomy:", "needs a file"),
    ("round:0", "above 0"),
])
def test_parse_errors(text, fragment):
    with pytest.raises(HierarchyError, match=fragment):
        parse_spec(text)


def test_interval_top_code_joins_the_interval_of_its_threshold():
    # 90+ stands for 90..inf: at width 5 it is [90, 95) and up -> ">= 90"; at width 20 the
    # interval holding 90 is [80, 100), so 85 and 87 join it as ">= 80" (85 // 20 * 20 = 80).
    h = build("interval:5,20", ["85", "87", "90+", "23", "-3"])
    assert rows(h) == {
        "-3": ["[-5, 0)", "[-20, 0)", "*"],
        "23": ["[20, 25)", "[20, 40)", "*"],
        "85": ["[85, 90)", ">= 80", "*"],
        "87": ["[85, 90)", ">= 80", "*"],
        "90+": [">= 90", ">= 80", "*"],
    }


def test_interval_bottom_code_and_other_top_spellings():
    # "<18" is below 18: at width 10 the interval holding 17.99 is [10, 20), merged as "< 20";
    # ">=60" and ">60" are top codes (60 // 10 * 10 = 60).
    h = build("interval:10", ["<18", "15", "25", ">=60", ">60", "65"])
    assert rows(h) == {"<18": ["< 20", "*"], "15": ["< 20", "*"], "25": ["[20, 30)", "*"],
                       ">=60": [">= 60", "*"], ">60": [">= 60", "*"], "65": [">= 60", "*"]}


def test_missing_values_are_left_out():
    h = build("interval:10", ["15", "", None, float("nan"), "<missing>", "25"])
    assert list(h.leaves) == ["15", "25"]


def test_a_column_with_only_missing_values_is_only_suppressed():
    h = build("interval:10", ["", None])
    assert h.to_frame().values.tolist() == [["<missing>", "*"]]


def test_text_na_that_survived_the_reader_is_a_value():
    assert "NA" in build("suppress", ["NA", "b"]).leaves.tolist()


def test_interval_widths_must_nest():
    with pytest.raises(HierarchyError, match="15 is not a multiple of 10"):
        build("interval:10,15", ["1", "2"])


def test_interval_rejects_text_naming_it():
    with pytest.raises(HierarchyError, match="got 'unknown'"):
        build("interval:10", ["1", "unknown"], name="age")


def test_quantiles_of_records():
    # values 1..4 with 1, 1, 1, 5 records (8 in all): the median of the records is the
    # 4th-5th record, i.e. value 4, so the 2-bin cut is 4: {1, 2, 3} | {4}.
    h = build("interval:quantiles=2", ["1", "2", "3", "4"], counts=[1, 1, 1, 5])
    assert rows(h) == {"1": ["< 4", "*"], "2": ["< 4", "*"], "3": ["< 4", "*"], "4": [">= 4", "*"]}


def test_quantile_levels_nest():
    values = [str(v) for v in range(1, 21)]
    h = build("interval:quantiles=4,2", values)
    # quartile cuts of 20 equally weighted values: 6, 11, 16; the median cut 11 is one of them
    assert rows(h)["5"] == ["< 6", "< 11", "*"] and rows(h)["11"] == ["[11, 16)", ">= 11", "*"]
    with pytest.raises(HierarchyError, match="3 does not divide 4"):
        build("interval:quantiles=4,3", values)


def test_round_levels_nest_and_codes_stay_true():
    # 149 -> 150 (step 10) -> 200 (150 rounded to 100); 93+ rounds down (90+), <14 up (< 20).
    h = build("round:10,100", ["149", "151", "93+", "<14", "-46"])
    assert rows(h) == {"-46": ["-50", "-100", "*"], "<14": ["< 20", "< 100", "*"], "93+": ["90+", "0+", "*"],
                       "149": ["150", "200", "*"], "151": ["150", "200", "*"]}


def test_mask_steps_from_the_right():
    # 5 characters, 2 per level: keep 3, 1, then 0 characters; the fully masked level has two
    # values (lengths 5 and 4), so a single top * closes the hierarchy.
    h = build("mask:2", ["02139", "02142", "1000"])
    assert rows(h)["02139"] == ["021**", "0****", "*****", "*"]
    assert rows(h)["1000"] == ["100*", "1***", "****", "*"]
    assert rows(build("mask:1", ["123", "456"]))["123"] == ["12*", "1**", "***"]


def test_date_levels_and_missing():
    h = build("date:month,year", ["2020-01-05", "2021-12-31", ""])
    assert rows(h) == {"2020-01-05": ["2020-01", "2020", "*"], "2021-12-31": ["2021-12", "2021", "*"]}


def test_group_merges_case_then_rare_values():
    # Male+male+MALE = 5+1+1 = 7 records; Other 3; x 1.  Thresholds 2 and 4:
    # below 2 records -> x; below 4 -> x and Other.
    h = build("group:2,4", ["Male", "male", "MALE ", "Other", "x"], counts=[5, 1, 1, 3, 1])
    assert rows(h) == {"Male": ["Male", "Male", "Male", "*"], "male": ["Male", "Male", "Male", "*"],
                       "MALE ": ["Male", "Male", "Male", "*"], "Other": ["Other", "Other", "(other)", "*"],
                       "x": ["x", "(other)", "(other)", "*"]}


def test_group_needs_counts():
    with pytest.raises(HierarchyError, match="record counts"):
        build("group:2", ["a", "b"])


def test_suppress():
    assert rows(build("suppress", ["a", "b"])) == {"a": ["*"], "b": ["*"]}


@settings(max_examples=60, deadline=None)
@given(
    st.lists(st.one_of(st.integers(-200, 200).map(str), st.sampled_from(["90+", ">=150", "<-50", "", "<=0"])),
             min_size=1, max_size=30),
    st.sampled_from(["interval:5,10,20", "interval:3,6", "interval:quantiles=4,2", "round:1,10,100", "round:7"]),
)
def test_numeric_builders_are_valid_and_cover_every_value(values, spec):
    present = [v for v in values if v]
    if not present:
        return
    h = build(spec, values, counts=np.ones(len(values), dtype=int))  # validated on construction: monotone, one top
    h.leaf_index(list(dict.fromkeys(present)))  # covers every present value
