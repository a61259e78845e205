"""Published figures of statistical disclosure control: sdcMicro's examples and the IHSN practice guide.

Sources:
* sdcMicro's ``francdat`` (data/francdat.rda; Capobianchi, Polettini & Lucarelli) with
  ``freqCalc(francdat, keyVars=c(2,4,5,6), w=8)`` and ``indivRisk``: the figures are
  those of the sdcMicro manual's example (and of issue 34);
* sdcMicro's tests/testthat/test_indivRisk.R (approx and exact, weights 18, 45.5, ...);
* the IHSN/World Bank SDC Practice Guide (Benschop, Machingauta & Welch), the
  individual-risk table (fk, Fk -> risk) and the 10-record SUDA example (scores and
  DIS scores with DisFraction 0.01, sdcMicro's default), also in sdcMicro's
  tests/testthat/test_suda2.R ("suda2 sdc guideline");
* sdcMicro's test_suda2.R "book example" (Templ 2017) and the attribute-contribution example.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from veil.classes import ClassTable
from veil.risk import individual_risk, suda2
from veil.risk._individual import risk_from_frequencies

FRANCDAT = pd.DataFrame({
    "Num1": [0.3, 0.12, 0.18, 1.9, 1.0, 1.0, 0.1, 0.15],
    "Key1": [1, 1, 1, 3, 4, 4, 6, 1],
    "Num2": [0.4, 0.22, 0.8, 9.0, 1.3, 1.4, 0.01, 0.5],
    "Key2": [2, 2, 2, 3, 3, 3, 2, 2],
    "Key3": [5, 1, 1, 1, 1, 1, 1, 5],
    "Key4": [1, 1, 1, 5, 4, 1, 5, 1],
    "Num3": [4, 22, 8, 91, 13, 14, 1, 5],
    "w": [18.0, 45.5, 39.0, 17.0, 541.0, 8.0, 5.0, 92.0],
})
KEYS = ["Key1", "Key2", "Key3", "Key4"]


def test_francdat_fk_Fk_and_risk():
    r = individual_risk(FRANCDAT, quasi_identifiers=KEYS, weight="w")
    assert r.fk.tolist() == [2, 2, 2, 1, 1, 1, 1, 2]
    assert r.Fk.tolist() == [110, 84.5, 84.5, 17, 541, 8, 5, 110]
    published = [0.01714426, 0.02204233, 0.02204233, 0.1770758, 0.01165448, 0.2970631, 0.4023595, 0.01714426]
    np.testing.assert_allclose(r.risk, published, atol=5e-8)
    d = r.to_dict()
    # ER = sum of the risks (sdcMicro's global_risk_ER); the share and the mean are ER / n
    assert d["expected_reidentifications"] == pytest.approx(sum(published), abs=1e-6)
    assert d["mean"] == pytest.approx(sum(published) / 8, abs=1e-7) and d["share"] == d["mean"]
    assert d["max"] == pytest.approx(0.4023595, abs=1e-7) and d["weighted"] is True
    assert sum(d["histogram"]["counts"]) == 8


def test_practice_guide_individual_risk_table():
    # fk 2 / Fk 360; 1 / 215; 2 / 152; 1 / 186 (closed forms for f = 1 and f = 2)
    got = risk_from_frequencies(np.array([2, 1, 2, 1]), np.array([360.0, 215.0, 152.0, 186.0]))
    np.testing.assert_allclose(got, [0.00542452, 0.02509644, 0.01256342, 0.02824728], atol=1e-8)


SAMPLE = pd.DataFrame({"A": [2, 3, 2, 2, 3, 3, 1, 2], "B": [3, 3, 3, 3, 3, 3, 4, 3],
                       "C": [1, 3, 1, 2, 1, 1, 1, 1], "weight": [18.0, 45.5, 39.0, 17.0, 92.0, 8.0, 123.5, 51]})


@pytest.mark.parametrize("method, published", [
    ("approx", [0.01369863, 0.08579129, 0.01369863, 0.17707583, 0.01877883, 0.01877883, 0.03931625, 0.01369863]),
    ("exact", [0.01355297, 0.08579129, 0.01355297, 0.17707583, 0.01877883, 0.01877883, 0.03931625, 0.01355297]),
])
def test_sdcmicro_indivrisk_tests(method, published):
    # class (2, 3, 1) has three records (f = 3 > 2): the only one where approx and exact differ
    r = individual_risk(SAMPLE, quasi_identifiers=["A", "B", "C"], weight="weight", method=method)
    np.testing.assert_allclose(r.risk, published, atol=5e-9)


def test_qual_scales_and_unweighted_is_one_over_fk():
    doubled = individual_risk(SAMPLE, quasi_identifiers=["A", "B", "C"], weight="weight", qual=2.0)
    np.testing.assert_allclose(doubled.risk[:2], [0.02739726, 0.17158258], atol=5e-9)
    plain = individual_risk(SAMPLE, quasi_identifiers=["A", "B", "C"])
    np.testing.assert_allclose(plain.risk, 1.0 / np.array([3, 1, 3, 1, 2, 2, 1, 3]))
    assert plain.to_dict()["weighted"] is False


GUIDE = pd.DataFrame({
    "Residence": ["Urban"] * 4 + ["Rural"] + ["Urban"] * 5,
    "Gender": ["Female", "Female", "Female", "Male", "Female", "Male", "Female", "Male", "Female", "Female"],
    "Education": ["Secondary incomplete", "Secondary incomplete", "Primary incomplete", "Secondary complete",
                  "Secondary complete", "Secondary complete", "Primary complete", "Post-secondary",
                  "Secondary incomplete", "Secondary incomplete"],
    "Labor": ["Employed", "Employed", "Non-LF", "Employed", "Unemployed", "Employed", "Non-LF", "Unemployed",
              "Non-LF", "Non-LF"],
})


def _per_record(frame: pd.DataFrame, **options):
    table = ClassTable.from_pandas(frame, quasi_identifiers=list(frame.columns))
    result = suda2(table, **options)
    rows = table.row_classes()
    return result, result.score[rows], result.dis_score[rows]


def test_practice_guide_suda_example():
    result, score, dis = _per_record(GUIDE)
    assert score.tolist() == [0, 0, 6, 0, 12, 0, 6, 10, 0, 0]
    np.testing.assert_allclose(dis, [0, 0, 0.0049868, 0, 0.011383, 0, 0.0049868, 0.0091667, 0, 0], atol=5e-7)
    d = result.to_dict()
    assert d["special_uniques"] == 4 and d["max_score"] == 12 and d["max_size"] == 4


def test_book_example_scores():
    tab = pd.DataFrame({"age": ["20s"] * 7 + ["60s"], "gender": ["male"] * 4 + ["female"] * 3 + ["male"],
                        "income": ["50k+"] * 2 + ["50k-"] * 6,
                        "education": ["highschool"] * 4 + ["university", "highschool", "middleschool", "university"]})
    _, score, _ = _per_record(tab)
    assert score[4:8].tolist() == [4, 2, 6, 8]


@pytest.mark.parametrize("order", [["a", "b", "c"], ["a", "c", "b"], ["c", "a", "b"], ["c", "b", "a"]])
def test_attribute_contribution_example(order):
    frame = pd.DataFrame({"a": [2, 1, 1], "b": [0, 3, 0], "c": [0, 6, 0]})[order]
    result, _, _ = _per_record(frame)
    assert result.attribute_contribution() == {"a": 50.0, "b": 37.5, "c": 37.5}


def test_ihsn_scores_convention():
    # original_scores=False: w(s) = (2^(M-s) - 1) s! (M-s)! / M!; M = 4: w(1) = 7*6/24 = 1.75, w(2) = 3*4/24 = 0.5
    _, score, _ = _per_record(GUIDE, original_scores=False)
    # record 3: {Education}; record 5: {Residence} and three of size 2 ({Gender, Education},
    # {Gender, Labor}, {Education, Labor}: 6 + 3*2 = 12 in Elliot's scores); record 8: {Education},
    # {Residence, Labor}, {Gender, Labor} (6 + 2 + 2 = 10)
    assert score[[2, 4, 7]].tolist() == [1.75, 3.25, 2.75]
