"""A released value covers the original values it generalizes, and only those."""

from __future__ import annotations

import numpy as np

from veil.evaluate._coverage import coverage


def covered(values, labels, mapped=None):
    c = coverage(np.array(values, dtype=object), np.array(labels, dtype=object), mapped)
    return c.covers(np.arange(len(values)), np.arange(len(labels)))


def test_plain_values_cover_themselves():
    assert covered(["a", "b"], ["b", "a", "c"]).tolist() == [[False, True, False], [True, False, False]]


def test_star_covers_everything():
    assert covered(["a", "b"], ["*", "a"]).tolist() == [[True, True], [True, False]]


def test_intervals_cover_their_numbers_half_open():
    got = covered(["19", "20", "29.5", "30", "x"], ["[20, 30)", "[30, 40]"])
    assert got.tolist() == [[False, False], [True, False], [True, False], [False, True], [False, False]]


def test_masks_cover_values_of_their_length_that_agree():
    got = covered(["12345", "12399", "54321", "1234"], ["123**", "5****"])
    assert got.tolist() == [[True, False], [True, False], [False, True], [False, False]]


def test_dates_cut_to_month_or_year_cover_their_days():
    got = covered(["2020-05-17", "2020-06-01", "2021-05-17"], ["2020-05", "2020"])
    assert got.tolist() == [[True, True], [False, True], [False, False]]


def test_a_hierarchy_decides_where_it_is_given():
    # "(other)" is opaque without the hierarchy; with it, exactly the mapped values are covered
    values = ["Doctorate", "Masters", "HS-grad"]
    labels = ["(other)", "HS-grad"]
    assert covered(values, labels)[:, 0].tolist() == [False, False, False]
    with_h = covered(values, labels, mapped=np.array(["(other)", "(other)", "HS-grad"], dtype=object))
    assert with_h.tolist() == [[True, False], [True, False], [False, True]]
