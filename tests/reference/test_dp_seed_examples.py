"""The seeds' differential-privacy worked examples (shared/seeds/001_*.txt, section 4)."""

import math

import numpy as np
import pandas as pd
import pytest

from veil.dp import (LaplaceMechanism, PrivacyAccountant, PrivacyBudget, RandomizedResponse,
                     consistent_counts, local_sensitivity, round_counts, sum_sensitivity)

# Seed table: ID / Name / # sold real estates
SOLD = pd.DataFrame({"ID": [1, 2, 3, 4], "Name": ["Roney", "André", "Leo", "Bruno"],
                     "# sold real estates": [4, 2, 7, 1]})


def _f(d):
    return d["# sold real estates"].sum()


def test_sum_of_sold_real_estates_has_sensitivity_7():
    # f(D) = 4+2+7+1 = 14; remove-one neighbours: f(D_1) = 10 (no Roney), f(D_2) = 12,
    # f(D_3) = 7 (no Leo), f(D_4) = 13; max |14 - f(D_i)| = |14 - 7| = 7.
    assert _f(SOLD) == 14
    assert [_f(SOLD.drop(index=i)) for i in range(4)] == [10, 12, 7, 13]
    assert local_sensitivity(_f, SOLD) == 7.0
    # the global bound with public clamping bounds [0, 7] agrees: max(|0|, |7|) = 7
    assert sum_sensitivity(lower=0, upper=7) == 7.0
    # Laplace M(D) = f(D) + Lap(0, 7/eps): scale 7 at eps = 1
    assert LaplaceMechanism(epsilon=1.0, sensitivity=7.0).scale == pytest.approx(7.0)


def test_composition_eps1_then_eps2():
    # "composition: eps1 then eps2 gives eps1 + eps2"
    acc = PrivacyAccountant(budget=PrivacyBudget(epsilon=math.log(3)))
    acc.spend(PrivacyBudget(epsilon=0.2))
    acc.spend(PrivacyBudget(epsilon=math.log(2)))
    assert acc.spent.epsilon == pytest.approx(0.2 + math.log(2))


def test_post_processing_exam_example():
    # true 170 passed / 82 failed; noise -2.3 / +1.4 gives 167.7 / 83.4; rounding gives 168 / 83
    noisy = np.array([170 - 2.3, 82 + 1.4])
    assert noisy.tolist() == pytest.approx([167.7, 83.4])
    assert round_counts(noisy).tolist() == [168, 83]
    # consistent with a noisy total of 251.1 (= 167.7 + 83.4) nothing moves: still 168 / 83
    assert round_counts(consistent_counts(noisy, 251.1)).tolist() == [168, 83]
    # with the exact total 252 the least-squares projection adds (252 - 251.1)/2 = 0.45 to each
    assert consistent_counts(noisy, 252, total_variance_ratio=0).tolist() == pytest.approx([168.15, 83.85])
    # consistent-then-round: 168.15 -> 168, 83.85 -> 84, which add up to 252 (rounding the raw
    # noisy counts, the seed's 168 / 83, adds up to 251)
    assert round_counts(consistent_counts(noisy, 252, total_variance_ratio=0)).tolist() == [168, 84]


def test_randomized_response_formula():
    # Y = p RY + (1 - p)(1 - RY); RY = (Y + p - 1) / (2p - 1).  With p = 0.75, RY = 0.6:
    # Y = 0.45 + 0.1 = 0.55 and (0.55 + 0.75 - 1) / 0.5 = 0.6.
    # (The seed's numeric example uses p = 0.5, where 2p - 1 = 0: veil refuses p = 0.5.)
    rr = RandomizedResponse(p=0.75)
    assert rr.estimate([1] * 55 + [0] * 45) == pytest.approx(0.6)
    assert rr.epsilon == pytest.approx(math.log(3))  # p = 3/4 gives eps = ln 3
