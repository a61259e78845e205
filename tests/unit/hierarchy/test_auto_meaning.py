"""``auto`` reads what a column is (issue 33, item 4): each case the issue reports, on a generated column."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from typer.testing import CliRunner

from veil.cli import app
from veil.hierarchy import build, category_order, choose


def _levels(values, counts, **kw):
    """The chosen spec, and each level of its hierarchy as {value: label}."""
    spec = choose(values, counts, **kw)
    frame = build(spec, values, counts=counts).to_frame()
    return spec, [dict(zip(frame["level_0"], frame[c])) for c in frame.columns]


def _groups(level: dict) -> int:
    return len(set(level.values()))


def _assert_every_level_changes_the_groups(levels):
    sizes = [_groups(level) for level in levels]
    assert sizes[-1] == 1
    if sizes == [1, 1]:  # a column of one value: the value, then the top
        return
    assert all(a > b for a, b in zip(sizes, sizes[1:])), sizes  # each level merges something
    assert all(s > 1 for s in sizes[:-1]), sizes  # no level below the top is already one group


def test_two_values_go_straight_to_the_top_whatever_their_counts():
    # the case: gender=auto (group:32768) turned Male into "(other)" and kept Female
    spec, levels = _levels(["Male", "Female"], [32_767, 28_930])
    assert str(spec) == "suppress" and len(levels) == 2
    assert spec.reason.startswith("2 values:")


@pytest.mark.parametrize("values", [["yes", "no"], ["0", "1"], ["F", "M", "X"], ["1. Yes", "2. No"]])
def test_two_or_three_values_get_no_level_between(values):
    spec, levels = _levels(values, [10] * len(values))
    assert str(spec) == "suppress" and len(levels) == 2


def _assert_neighbours_only(levels, order):
    """Every group of every level below the top is a run of consecutive values in ``order``."""
    position = {v: i for i, v in enumerate(order)}
    for level in levels[1:-1]:
        members: dict[str, list[int]] = {}
        for value, label in level.items():
            members.setdefault(label, []).append(position[value])
        for run in members.values():
            assert sorted(run) == list(range(min(run), max(run) + 1)), (level, run)


EDUCATION = ["Less than HS", "High School", "Some College", "Bachelor", "Graduate"]
PREFIXED = ["1. < HS Grad", "2. HS Grad", "3. Some College", "4. College Grad", "5. Advanced Degree"]


def test_education_words_merge_only_neighbours():
    # the case: "High School" and "(other)", less than high school lumped with Bachelor and Graduate;
    # counts as in a wage survey, the smallest group the lowest level
    counts = [3_000, 20_000, 15_000, 14_000, 9_000]
    spec, levels = _levels(list(reversed(EDUCATION)), list(reversed(counts)))
    assert str(spec) == "ordered:2,4" and spec.reason.startswith("ordered categories (education levels")
    _assert_neighbours_only(levels, EDUCATION)
    assert levels[1]["Less than HS"] == levels[1]["High School"] != levels[1]["Graduate"]
    _assert_every_level_changes_the_groups(levels)


def test_number_prefixes_merge_only_neighbours():
    # the case: "1. < HS Grad" and "5. Advanced Degree" pooled into one "(other)"
    spec, levels = _levels(PREFIXED[::-1], [268, 971, 650, 685, 426])
    assert str(spec) == "ordered:2,4" and "number prefixes 1 to 5" in spec.reason
    _assert_neighbours_only(levels, PREFIXED)
    # 1-2 | 3-4 | 5, then 1-4 | 5: the extremes meet only at the top
    assert [_groups(level) for level in levels] == [5, 3, 2, 1]
    assert all(level["1. < HS Grad"] != level["5. Advanced Degree"] for level in levels[:-1])


@pytest.mark.parametrize("values, how", [
    (["10-19", "<10", "20-29", "30-39", "40-49", "70+", "50-59", "60-69"], "ranges such as"),
    (["Strongly disagree", "Disagree", "Neither agree nor disagree", "Agree", "Strongly agree"], "Likert scale"),
    (["a) Never", "b) Rarely", "c) Sometimes", "d) Often", "e) Always"], "letter prefixes a to e"),
    (["Preschool", "1st-4th", "5th-6th", "7th-8th", "9th", "10th", "11th", "12th", "HS-grad", "Some-college",
      "Assoc-voc", "Assoc-acdm", "Bachelors", "Masters", "Prof-school", "Doctorate"], "education levels"),
])
def test_ordered_categories_are_recognised(values, how):
    order = category_order(values)
    assert order is not None and how in order.description
    ranked = [v for _, v in sorted(zip(order.rank, values))]
    spec, levels = _levels(values, [5] * len(values))
    assert spec.builder == "ordered"
    _assert_neighbours_only(levels, ranked)
    _assert_every_level_changes_the_groups(levels)


def test_ranges_merge_into_ranges():
    _, levels = _levels(["10-19", "20-29", "30-39", "40-49"], [5, 5, 5, 5])
    assert levels[1]["10-19"] == "10-29" and levels[1]["40-49"] == "30-49"


def test_years_are_numbers_not_codes_to_mask():
    # the case: year got mask:1, whose levels are each one group
    years = [str(y) for y in range(2003, 2010)]
    spec, levels = _levels(years, [9_000] * len(years))
    assert spec.builder == "interval" and spec.reason.startswith("years (2003 to 2009)")
    _assert_every_level_changes_the_groups(levels)


def test_counts_written_as_text_get_no_level_that_changes_nothing():
    # the case: childs read as "0.0", "3.0" got interval:1,2,4, whose first level changes nothing;
    # span 8 / 16 = 0.5 -> width 1 (integers), 1 keeps the 9 values apart: dropped; 2: 5 groups; 4: 3
    children = [f"{c}.0" for c in range(9)]
    spec, levels = _levels(children, [100] * 9)
    assert str(spec) == "interval:2,4" and spec.reason.startswith("numbers written as text")
    assert [_groups(level) for level in levels] == [9, 5, 3, 1]


def test_few_nominal_categories_go_to_the_top_and_many_are_pooled():
    races = ["White", "Black", "Asian", "Other", "Native"]
    assert str(choose(races, [800, 100, 50, 30, 20])) == "suppress"
    countries = [f"country {i}" for i in range(40)]
    counts = [2 ** (i // 4) for i in range(40)]
    spec, levels = _levels(countries, counts)
    assert spec.builder == "group" and spec.reason.startswith("40 categories without an order")
    _assert_every_level_changes_the_groups(levels)


_COLUMNS = st.one_of(
    st.lists(st.integers(0, 12).map(lambda c: f"{c}.0"), min_size=1, max_size=30),
    st.lists(st.integers(1990, 2020).map(str), min_size=1, max_size=30),
    st.lists(st.sampled_from(PREFIXED), min_size=1, max_size=30),
    st.lists(st.sampled_from(EDUCATION), min_size=1, max_size=30),
    st.lists(st.integers(0, 60).map(lambda i: f"c{i}"), min_size=1, max_size=80),
    st.lists(st.sampled_from(["Male", "Female"]), min_size=1, max_size=30),
)


@settings(max_examples=60, deadline=None)
@given(_COLUMNS)
def test_no_chosen_level_leaves_the_groups_unchanged(column):
    counts = pd.Series(column).value_counts()
    spec, levels = _levels(list(counts.index), counts.to_numpy())
    _assert_every_level_changes_the_groups(levels)


def test_the_cli_prints_the_reason_of_each_choice(tmp_path):
    rng = np.random.default_rng(3)
    frame = pd.DataFrame({
        "gender": rng.choice(["Male", "Female"], 300), "year": rng.integers(2003, 2010, 300).astype(str),
        "education": rng.choice(PREFIXED, 300), "childs": rng.integers(0, 6, 300).astype(float).astype(str),
    })
    data = tmp_path / "wage.csv"
    frame.to_csv(data, index=False)
    result = CliRunner().invoke(app, ["anonymize", str(data), "--qi", "gender,year,education,childs",
                                      "--auto-hierarchies", "-k", "2", "-o", str(tmp_path / "out.csv"),
                                      "--json", str(tmp_path / "report.json")])
    assert result.exit_code == 0, result.output
    line = next(line for line in result.output.splitlines() if line.startswith("hierarchies: "))
    assert "gender=auto (suppress) because 2 values" in line
    assert "year=auto (interval:" in line and "because years (2003 to 2009)" in line
    assert "education=auto (ordered:2,4) because ordered categories (number prefixes 1 to 5" in line
    assert "childs=auto (interval:" in line and "because numbers written as text" in line
    import json

    report = json.loads((tmp_path / "report.json").read_text())
    assert report["hierarchies"]["gender"].startswith("auto (suppress) because 2 values")
    assert "because ordered categories" in report["hierarchies"]["education"]
