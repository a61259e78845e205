"""Brickell & Shmatikov's workload utility and A_acc (seed 003), on a table checkable by hand.

Seed 003 ("The Cost of Privacy", Brickell KDD '08) defines U_base (the
workload's utility on the trivially sanitized table: QIs removed), U_san (on
the sanitized table), U_max (on the original) and
A_acc = (1/|T|) sum_<t> |<t>| p(<t>, s_max(<t>)) - p(T, s_max(T)),
but gives no numbers; this 30-record table has numbers that follow from the
definitions alone.

Table: ``zip`` (the QI) is "A" for 18 records, all with y = "a", and "B" for
12 records, all with y = "b".  The hierarchy generalizes both zips to "AB".
Stratified split with test_size = 1/3: 10 test records (6 "a", 4 "b") and 20
training records (12 "a", 8 "b").
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from veil.dataset import Dataset
from veil.hierarchy import Hierarchy
from veil.utility import CLASSIFIERS, workload

FRAME = pd.DataFrame({"zip": ["A"] * 18 + ["B"] * 12, "y": ["a"] * 18 + ["b"] * 12})
ZIP = Hierarchy.from_rows([["A", "AB"], ["B", "AB"]], name="zip")


def original() -> Dataset:
    return Dataset.from_pandas(FRAME, quasi_identifiers=["zip"], sensitive=["y"], hierarchies={"zip": ZIP})


def released(level: int) -> pd.DataFrame:
    frame = FRAME.copy()
    if level == 1:
        frame["zip"] = "AB"
    return frame.sample(frac=1.0, random_state=7).reset_index(drop=True)  # shuffled, as veil releases


@pytest.mark.parametrize("name", CLASSIFIERS)
def test_fully_generalized_release_is_worth_the_trivial_sanitization(name):
    result = workload(original(), released(1), target="y", classifiers=[name])
    scores = result.classifiers[name]
    # U_max: zip determines y, every classifier learns it: 10/10 test records right
    assert scores.u_max == 1.0
    # U_base: no feature left, the training majority "a" (12 of 20): 6 of the 10 test records
    assert scores.u_base == pytest.approx(6 / 10)
    # U_san: the release's zip is "AB" everywhere, no information: the same 6/10
    assert scores.u_san == pytest.approx(6 / 10)
    assert scores.gap == pytest.approx(1.0 - 0.6)
    assert scores.ratio == pytest.approx(0.6 / 1.0)
    # one class of 30 records, majority 18: A_acc = 18/30 - 18/30 = 0
    assert result.a_acc == pytest.approx(0.0)
    assert result.a_base == pytest.approx(18 / 30)


@pytest.mark.parametrize("name", CLASSIFIERS)
def test_ungeneralized_release_keeps_the_original_utility_and_leaks(name):
    result = workload(original(), released(0), target="y", classifiers=[name])
    scores = result.classifiers[name]
    # the release is the original: U_san = U_max = 10/10; U_base still 6/10
    assert (scores.u_base, scores.u_san, scores.u_max) == pytest.approx((0.6, 1.0, 1.0))
    assert scores.gain == pytest.approx(0.4)
    # classes A (18, all "a") and B (12, all "b"): A_acc = (18 + 12)/30 - 18/30 = 0.4
    assert result.a_acc == pytest.approx(0.4)


def test_the_test_records_are_the_same_in_the_three_tables():
    result = workload(original(), released(1), target="y")
    assert (result.n_train, result.n_test) == (20, 10)
    assert np.isclose(result.a_base, 0.6)
