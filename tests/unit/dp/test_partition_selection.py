"""Private partition selection with per-group bounds: the threshold and its δ."""

import math

import numpy as np
import pandas as pd
import pytest

from veil.dp import PrivacyAccountant, PrivacyBudget, PrivateTable


def _table(frame, eps=1e6, delta=0.5, **kw):
    acc = PrivacyAccountant(budget=PrivacyBudget(epsilon=eps, delta=delta))
    return PrivateTable(frame, accountant=acc, **kw)


def _unit_only_leak(tau, linf, l0, b):
    """P[some key held by one unit alone is released]: a unit-only key has count <= linf and
    is released iff linf + Z >= tau, Z discrete Laplace of scale b:
    P[Z >= k] = e^(-k/b) / (1 + e^(-1/b)) for k >= 1; the unit holds <= l0 such keys."""
    p = math.exp(-(tau - linf) / b) / (1 + math.exp(-1 / b))
    return 1 - (1 - p) ** l0


def test_threshold_is_the_smallest_meeting_delta():
    # L0 = 2, Linf = 3, eps = 1: b = L1 / eps = 6; delta = 1e-5 -> delta_1 = 1 - (1 - 1e-5)^(1/2)
    # = 5.0000125e-6; tau = 3 + ceil(6 ln(1 / ((1 + e^(-1/6)) delta_1))) = 3 + ceil(69.557) = 73
    frame = pd.DataFrame({"uid": np.arange(400) // 2, "g": np.where(np.arange(400) < 300, "a", "b")})
    t = _table(frame, privacy_unit="uid", max_groups=2, max_rows_per_group=3)
    ans = t.group_by_count("g", epsilon=1.0, delta=1e-5)
    tau, b = ans.details["threshold"], ans.noise_scale
    assert b == pytest.approx(6.0, rel=1e-9) and ans.sensitivity == 6
    assert tau == 73
    assert _unit_only_leak(tau, 3, 2, b) <= 1e-5 < _unit_only_leak(tau - 1, 3, 2, b)
    assert ans.details["keys"] == "private partition selection"
    assert ans.contribution_bounds.max_groups == 2


def test_empirical_release_probability_of_unit_only_keys():
    # 20000 units, each alone in 3 keys with 4 rows each; bounded to 2 keys x 3 rows.
    # eps = 6 -> b = 6 / 6 = 1; delta = 0.05 -> tau = 3 + ceil(ln(1/(1.3679 * 0.02532))) = 7,
    # per key p = e^-4 / (1 + e^-1) = 0.01339, per unit 1 - (1 - p)^2 = 0.02660 <= 0.05.
    # (Trusting OpenDP 0.16's own integer map would pick tau = 6: per unit 0.0715 > delta.)
    n = 20_000
    unit = np.repeat(np.arange(n), 12)
    key = np.char.add(np.char.add(unit.astype(str), "-"), (np.arange(unit.size) // 4 % 3).astype(str))
    t = _table(pd.DataFrame({"uid": unit, "g": key}), privacy_unit="uid", max_groups=2,
               max_rows_per_group=3, selection_seed=1)
    ans = t.group_by_count("g", epsilon=6.0, delta=0.05)
    tau = ans.details["threshold"]
    assert tau == 7
    expected = _unit_only_leak(tau, 3, 2, ans.noise_scale)
    assert expected <= 0.05
    released_units = pd.Series([k.split("-")[0] for k in ans.value]).value_counts()
    assert released_units.max() <= 2                       # never more than max_groups keys
    rate = released_units.size / n
    se = math.sqrt(expected * (1 - expected) / n)          # ~0.00114
    assert rate == pytest.approx(expected, abs=5 * se)
    assert rate <= 0.05


def test_keys_emptied_by_the_bounds_or_filter_are_not_candidates(record_selection):
    # A key whose only rows were dropped (by max_groups or by the filter) is not in the bounded
    # data: passing it to the threshold with count 0 would let one unit reveal more than
    # max_groups keys.  Record what the selection is asked to threshold.
    import veil.dp._grouped as table_module

    seen = record_selection(table_module)
    # unit 99 alone holds "rare" and "solo"; with max_groups=1 it keeps exactly one of them
    frame = pd.DataFrame({"uid": [99, 99] + list(range(20)), "g": ["rare", "solo"] + ["big"] * 20})
    kept = set()
    for seed in range(12):
        t = _table(frame, privacy_unit="uid", max_groups=1, max_rows_per_group=1,
                   selection_seed=seed)
        t.group_by_count("g", epsilon=1.0, delta=1e-6)
        candidates = seen[-1]
        assert candidates["big"] == 20
        assert len({"rare", "solo"} & set(candidates)) == 1        # never a zero count
        assert all(v > 0 for v in candidates.values())
        kept |= {"rare", "solo"} & set(candidates)
        t.group_by_count("g", epsilon=1.0, delta=1e-6, where="g == 'big'")
        assert set(seen[-1]) == {"big"}
    assert kept == {"rare", "solo"}   # both choices occur over the seeds (2^-11 chance otherwise)


def test_public_keys_use_the_per_group_bounds():
    frame = pd.DataFrame({"uid": [1, 1, 1, 2], "g": ["a", "b", "c", "a"]})
    t = _table(frame, privacy_unit="uid", max_groups=2, max_rows_per_group=1)
    ans = t.group_by_count("g", keys={"g": ["a", "b", "c"]}, epsilon=1e4)
    assert ans.details["keys"] == "public" and ans.delta == 0.0
    assert sum(ans.value.values()) == 3                    # unit 1 in 2 of its 3 groups, unit 2 once
    assert ans.sensitivity == 2


def test_missing_keys_are_not_groups():
    frame = pd.DataFrame({"uid": np.arange(300) // 3,
                          "g": ["a"] * 150 + [None] * 150})
    t = _table(frame, privacy_unit="uid", max_groups=1, max_rows_per_group=3)
    ans = t.group_by_count("g", epsilon=50.0, delta=1e-6)
    assert set(ans.value) == {"a"} and ans.value["a"] == pytest.approx(150, abs=2)
