"""Per-group contribution bounds of the privacy unit (L0 = max_groups, L∞ = max_rows_per_group)."""

import json
import math

import numpy as np
import pandas as pd
import pytest

from veil.dp._mechanisms import certified_gaussian_sigma

from veil.dp import (ContributionBounds, PrivacyAccountant, PrivacyBudget, PrivateTable,
                     analytic_gaussian_sigma)
from veil.errors import ColumnNotFoundError, ParameterError

HUGE = 1e4  # geometric scale <= 2 / 1e4: P[noise != 0] ~ 2 e^-5000, the answers are exact


def _table(frame, eps=1e6, delta=1e-3, **kw):
    acc = PrivacyAccountant(budget=PrivacyBudget(epsilon=eps, delta=delta))
    return PrivateTable(frame, accountant=acc, **kw)


@pytest.fixture
def visits():
    # unit A: one row in each of x, y, z; unit B: two rows in x; unit C: one row in y
    return pd.DataFrame({"uid": ["A", "A", "A", "B", "B", "C"],
                         "ward": ["x", "y", "z", "x", "x", "y"]})


def _a_groups(value):
    # B contributes 1 to x (max_rows_per_group=1), C 1 to y: the rest is A's
    return {"x": value["x"] - 1, "y": value["y"] - 1, "z": value["z"]}


def test_unit_in_three_groups_keeps_two(visits):
    t = _table(visits, privacy_unit="uid", max_groups=2, max_rows_per_group=1, selection_seed=3)
    ans = t.histogram("ward", categories=["x", "y", "z"], epsilon=HUGE)
    a = _a_groups(ans.value)
    assert sorted(a.values()) == [0, 1, 1]          # A is counted in exactly 2 of its 3 groups
    assert sum(ans.value.values()) == 4             # A: 2, B: 1 (of 2 rows in x), C: 1


def test_total_bound_alone_keeps_existing_behaviour(visits):
    # max_rows_per_unit=3 only: A keeps 3 rows, B 2, C 1; x = 1 + 2, y = 1 + 1, z = 1
    t = _table(visits, privacy_unit="uid", max_rows_per_unit=3)
    ans = t.histogram("ward", categories=["x", "y", "z"], epsilon=HUGE)
    assert ans.value == {"x": 3, "y": 2, "z": 1}
    assert ans.sensitivity == 3
    assert ans.noise_scale == pytest.approx(3 / HUGE, rel=1e-9)
    # all three bounds: one row per unit in total
    t1 = _table(visits, privacy_unit="uid", max_rows_per_unit=1, max_groups=2, max_rows_per_group=1)
    assert sum(t1.histogram("ward", categories=["x", "y", "z"], epsilon=HUGE).value.values()) == 3


def test_selection_is_random_reproducible_and_stable(visits):
    def chosen(frame, seed):
        t = _table(frame, privacy_unit="uid", max_groups=2, max_rows_per_group=1,
                   selection_seed=seed)
        a = _a_groups(t.histogram("ward", categories=["x", "y", "z", "w"], epsilon=HUGE).value)
        return frozenset(k for k, v in a.items() if v)

    picks = [chosen(visits, s) for s in range(30)]
    # uniform over the 3 pairs: a pair missing from 30 draws has probability (2/3)^30 ~ 5e-6
    assert set(picks) == {frozenset("xy"), frozenset("xz"), frozenset("yz")}
    assert chosen(visits, 11) == chosen(visits, 11)
    # adding another unit and reordering the rows does not change A's choice (stable selection);
    # D has rows in only 2 groups, so it always counts once in w and once in x
    other = pd.DataFrame({"uid": ["D"] * 3, "ward": ["w", "w", "x"]})
    bigger = pd.concat([other, visits.iloc[::-1]], ignore_index=True)
    for s in range(10):
        t = _table(bigger, privacy_unit="uid", max_groups=2, max_rows_per_group=1,
                   selection_seed=s)
        counts = t.histogram("ward", categories=["x", "y", "z", "w"], epsilon=HUGE).value
        assert counts["w"] == 1
        a = {"x": counts["x"] - 2, "y": counts["y"] - 1, "z": counts["z"]}
        assert frozenset(k for k, v in a.items() if v) == picks[s]


def test_rows_per_group_bound(visits):
    # max_rows_per_group=1 with max_groups=3: B's two x rows count once
    t = _table(visits, privacy_unit="uid", max_groups=3, max_rows_per_group=1)
    assert t.histogram("ward", categories=["x", "y", "z"], epsilon=HUGE).value == \
        {"x": 2, "y": 2, "z": 1}


@pytest.mark.parametrize("m,l0,linf,l1,l2", [
    (None, 2, 3, 6, math.sqrt(2) * 3),      # sqrt(L0) * Linf = sqrt(18)
    (4, 2, 3, 4, math.sqrt(9 + 1)),         # one full group (3) + remainder 1
    (10, 2, 3, 6, math.sqrt(18)),           # m does not bind
    (7, None, 3, 7, math.sqrt(9 + 9 + 1)),  # groups limited by m: 3 + 3 + 1
    (5, None, None, 5, 5.0),                # total bound only: everything is m
    (5, 3, None, 5, 5.0),                   # all of m may sit in one group
])
def test_sensitivities_follow_from_bounds(m, l0, linf, l1, l2):
    b = ContributionBounds(max_rows_per_unit=m, max_groups=l0, max_rows_per_group=linf)
    assert b.l1_sensitivity == l1
    assert b.l2_sensitivity == pytest.approx(l2, rel=1e-15)


def test_answers_carry_unit_bounds_and_sensitivity(visits):
    t = _table(visits, privacy_unit="uid", max_groups=2, max_rows_per_group=3)
    geo = t.histogram("ward", categories=["x", "y", "z"], epsilon=0.5)
    assert geo.privacy_unit == "uid"
    assert geo.contribution_bounds == ContributionBounds(max_groups=2, max_rows_per_group=3)
    assert geo.sensitivity == 6                               # L1 = 2 * 3
    assert geo.noise_scale == pytest.approx(12.0, rel=1e-9)   # 6 / 0.5
    gau = t.contingency_table(["ward"], categories={"ward": ["x", "y"]}, epsilon=0.5,
                              delta=1e-6, mechanism="gaussian")
    assert gau.sensitivity == pytest.approx(math.sqrt(18))    # L2 = sqrt(2) * 3
    # sigma certified by OpenDP's zCDP -> (eps, delta) map of its discrete Gaussian; the
    # continuous analytic curve (Balle & Wang 2018) is a lower bound it may not use
    assert gau.noise_scale == pytest.approx(
        certified_gaussian_sigma(0.5, 1e-6, math.sqrt(18)), rel=1e-12)
    assert gau.noise_scale > analytic_gaussian_sigma(epsilon=0.5, delta=1e-6,
                                                     sensitivity=math.sqrt(18))
    assert gau.details["sensitivity_norm"] == "l2" and gau.delta == 1e-6
    d = json.loads(json.dumps(geo.to_dict(), allow_nan=False))
    assert {"query", "value", "epsilon", "delta", "mechanism", "noise_scale", "privacy_unit",
            "budget_remaining"} <= set(d)                     # the existing keys stay
    assert d["privacy_unit"] == "uid" and d["sensitivity"] == 6
    assert d["contribution_bounds"] == {"max_rows_per_unit": None, "max_groups": 2,
                                        "max_rows_per_group": 3}
    rows = _table(visits).count(epsilon=1.0)
    assert rows.privacy_unit == "row" and rows.sensitivity == 1
    assert rows.to_dict()["contribution_bounds"]["max_rows_per_unit"] == 1


def test_bins_are_bounded_per_group_too():
    frame = pd.DataFrame({"uid": [1] * 4 + [2], "v": [1.0, 2.0, 15.0, 25.0, 5.0]})
    t = _table(frame, privacy_unit="uid", max_groups=1, max_rows_per_group=1)
    h = t.histogram("v", bins=[0, 10, 20, 30], epsilon=HUGE)
    assert sum(h.value.values()) == 2           # unit 1 in one bin, one row; unit 2 one row
    assert h.sensitivity == 1


def test_where_filter_applies_before_the_bounds(visits):
    t = _table(visits, privacy_unit="uid", max_groups=1, max_rows_per_group=2)
    # without x rows, A keeps one of y/z, C keeps y
    h = t.histogram("ward", categories=["y", "z"], epsilon=HUGE, where="ward != 'x'")
    assert sum(h.value.values()) == 2


def test_noise_scale_matches_bound_derived_sensitivity():
    # 3000 public categories nobody has: every released count is pure noise.
    rng = np.random.default_rng(0)  # data only
    frame = pd.DataFrame({"uid": rng.integers(0, 50, 400), "g": "a"})
    cats = ["a"] + [f"c{i}" for i in range(3000)]
    t = _table(frame, privacy_unit="uid", max_groups=2, max_rows_per_group=3)
    noise = np.array([v for k, v in t.histogram("g", categories=cats, epsilon=1.0).value.items()
                      if k != "a"], dtype=float)
    # discrete Laplace of scale b = L1 / eps = 6: E|Z| = 2a / (1 - a^2), a = e^(-1/6) -> 5.9723;
    # sd of |Z| ~ 6, so the mean of 3000 has se ~ 0.11 (a scale of 3 would give ~2.9)
    a = math.exp(-1 / 6)
    assert np.mean(np.abs(noise)) == pytest.approx(2 * a / (1 - a * a), abs=0.6)
    gauss = np.array([v for k, v in t.histogram("g", categories=cats, epsilon=1.0, delta=1e-5,
                                                mechanism="gaussian").value.items() if k != "a"],
                     dtype=float)
    sigma = certified_gaussian_sigma(1.0, 1e-5, math.sqrt(2) * 3)
    # sample sd of 3000 normals: relative se ~ 1/sqrt(6000) = 1.3%; 6% is > 4 se
    assert np.std(gauss) == pytest.approx(sigma, rel=0.06)


@pytest.mark.parametrize("kw,exc,message", [
    ({"privacy_unit": "uid", "max_groups": 0, "max_rows_per_group": 1}, ParameterError,
     r"The 'max_groups' parameter of PrivateTable must be an int in \[1, inf\)\. Got 0 instead\."),
    ({"privacy_unit": "uid", "max_groups": 2, "max_rows_per_group": -1}, ParameterError,
     r"'max_rows_per_group' parameter of PrivateTable must be an int in \[1, inf\)"),
    ({"privacy_unit": "uid", "max_rows_per_unit": 0}, ParameterError,
     r"'max_rows_per_unit' parameter of PrivateTable must be an int in \[1, inf\)"),
    ({"privacy_unit": "uid", "max_groups": 1.5, "max_rows_per_group": 1}, ParameterError,
     r"'max_groups' parameter of PrivateTable must be an int"),
    ({"max_groups": 2}, ParameterError, r"'max_groups' parameter of PrivateTable needs a "
                                        r"'privacy_unit' column"),
    ({"max_rows_per_group": 2}, ParameterError, r"'max_rows_per_group' parameter of "
                                                r"PrivateTable needs a 'privacy_unit'"),
    ({"privacy_unit": "patient", "max_groups": 2, "max_rows_per_group": 1}, ColumnNotFoundError,
     r"'patient' is not in the table"),
    ({"privacy_unit": "uid", "max_groups": 2}, ParameterError, r"'max_rows_per_group'"),
    ({"privacy_unit": "uid", "max_rows_per_group": 2}, ParameterError, r"'max_groups'"),
    ({"privacy_unit": "uid", "selection_seed": "x"}, ParameterError, r"'selection_seed'"),
])
def test_bad_bounds_give_clear_errors(visits, kw, exc, message):
    with pytest.raises(exc, match=message):
        _table(visits, **kw)


def test_queries_needing_a_total_bound_are_refused(visits):
    t = _table(visits, privacy_unit="uid", max_groups=2, max_rows_per_group=1)
    with pytest.raises(ParameterError, match="'max_rows_per_unit'"):
        t.count(epsilon=1.0)
    with pytest.raises(ParameterError, match="PrivateTable.sum needs a total contribution bound"):
        t.sum("uid", lower=0, upper=1, epsilon=1.0)
    with pytest.raises(ParameterError, match="'max_rows_per_unit'"):
        t.quantile("uid", 0.5, lower=0, upper=1, epsilon=1.0)
    assert t.accountant.spent.epsilon == 0.0


def test_bad_mechanism_or_delta(visits):
    t = _table(visits, privacy_unit="uid", max_groups=2, max_rows_per_group=1)
    with pytest.raises(ParameterError, match="'delta' parameter of PrivateTable.histogram"):
        t.histogram("ward", categories=["x"], epsilon=1.0, mechanism="gaussian")
    with pytest.raises(ParameterError, match="'mechanism' parameter"):
        t.histogram("ward", categories=["x"], epsilon=1.0, mechanism="laplace")
    with pytest.raises(ParameterError, match="only used with mechanism='gaussian'"):
        t.histogram("ward", categories=["x"], epsilon=1.0, delta=1e-6)
    with pytest.raises(ParameterError, match="'mechanism' parameter of PrivateTable.group_by"):
        t.group_by_count("ward", epsilon=1.0, delta=1e-6, mechanism="gaussian")
    with pytest.raises(ParameterError, match="'max_rows_per_group' parameter of Contribution"):
        ContributionBounds(max_groups=2)
    assert t.accountant.spent.epsilon == 0.0


def test_histogram_sensitivity_follows_the_bounds():
    """Δ1 of a histogram: the total bound m, the per-group product L0·L∞, or the smaller of the
    two; doubled under replace-one neighbours; and the same figure ContributionBounds gives."""
    from veil.dp import ContributionBounds
    from veil.dp._sensitivity import histogram_sensitivity

    assert histogram_sensitivity(max_rows=10) == 10
    assert histogram_sensitivity(max_rows=10, neighbours="replace_one") == 20
    assert histogram_sensitivity(max_rows=10, max_groups=2, max_rows_per_group=3) == 6
    assert histogram_sensitivity(max_rows=4, max_groups=2, max_rows_per_group=3) == 4
    assert histogram_sensitivity(max_rows=None, max_groups=3, max_rows_per_group=2) == 6
    for m, l0, linf in [(4, 2, 3), (10, 2, 3), (None, 3, 2)]:
        bounds = ContributionBounds(max_rows_per_unit=m, max_groups=l0, max_rows_per_group=linf)
        assert histogram_sensitivity(max_rows=m, max_groups=l0, max_rows_per_group=linf) == bounds.l1_sensitivity
    with pytest.raises(ParameterError, match="both max_groups and max_rows_per_group"):
        histogram_sensitivity(max_groups=2)
    with pytest.raises(ParameterError, match="needs max_rows, or max_groups"):
        histogram_sensitivity(max_rows=None)
