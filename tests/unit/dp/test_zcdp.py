"""zCDP accounting (Bun & Steinke 2016): totals checked against the theorems by hand.

The rho -> (eps, delta) conversion is OpenDP's (Canonne, Kamath & Steinke 2020): the expected
values are computed here independently, by minimising their bound
eps(a) = a rho + (ln(1/delta) + (a - 1) ln(1 - 1/a) - ln a) / (a - 1) over a grid of orders a.
"""

import math

import numpy as np
import pandas as pd
import pytest

from veil.dp import PrivacyAccountant, PrivacyBudget, PrivateTable, ZCDPBudget
from veil.errors import BudgetExceededError, ParameterError

LN_1E6 = math.log(1e6)  # ln(1/delta') for delta' = 1e-6: 13.815510557964274


def cks(rho, delta):
    """min over orders a of the CKS20 conversion bound (grid of 4e6 orders in (1, 2000])."""
    a = np.linspace(1.0001, 2000.0, 4_000_000)
    return float(np.min(a * rho + (math.log(1 / delta) + (a - 1) * np.log1p(-1 / a) - np.log(a))
                        / (a - 1)))


def _zcdp(eps=1.0, delta=1e-5, slack=1e-6, composition="filter"):
    return PrivacyAccountant(budget=PrivacyBudget(epsilon=eps, delta=delta),
                             composition=composition, delta_slack=slack)


def test_pure_epsilon_costs_add_as_rho_and_convert_once():
    # Prop. 1.4: eps-DP => eps^2/2-zCDP; three eps = 0.1 queries: rho = 3 * 0.005 = 0.015.
    # converted by OpenDP: 0.77173 at delta' = 1e-6 (Bun & Steinke's Prop. 1.3 would give
    # 0.015 + 2 sqrt(0.015 * 13.8155) = 0.92546)
    acc = _zcdp()
    for _ in range(3):
        acc.spend(PrivacyBudget(epsilon=0.1))
    assert acc.spent_rho == pytest.approx(0.015, rel=1e-12)
    assert acc.spent.epsilon == pytest.approx(cks(0.015, 1e-6), rel=1e-8)
    assert acc.spent.epsilon < 0.015 + 2 * math.sqrt(0.015 * LN_1E6)
    assert acc.spent.delta == pytest.approx(1e-6)  # the conversion's delta' only
    assert [e.rho for e in acc.ledger] == pytest.approx([0.005] * 3)


def test_gaussian_rho_and_conversion():
    # Prop. 1.6: Gaussian with L2 sensitivity 3 and sigma 6: rho = 9 / (2 * 36) = 0.125
    g = ZCDPBudget.from_gaussian(sensitivity=3.0, sigma=6.0)
    assert g.rho == pytest.approx(0.125, rel=1e-15)
    # OpenDP's conversion (Bun & Steinke: 0.125 + 2 sqrt(0.125 * 13.8155) = 2.75326); delta = 1e-7 + 1e-6
    dp = ZCDPBudget(rho=0.125, delta=1e-7).to_dp(delta_slack=1e-6)
    assert dp.epsilon == pytest.approx(cks(0.125, 1e-6), rel=1e-8)
    assert dp.epsilon < 2.75326
    assert dp.delta == pytest.approx(1.1e-6)
    assert ZCDPBudget.from_pure_dp(0.5).rho == pytest.approx(0.125)


def test_rho_and_delta_compose_additively():
    acc = _zcdp(eps=10.0, delta=1e-5)
    acc.spend(ZCDPBudget(rho=0.01, delta=1e-7))
    acc.spend(ZCDPBudget.from_gaussian(sensitivity=1.0, sigma=10.0))  # 1/200 = 0.005
    acc.spend(PrivacyBudget(epsilon=0.2))                              # 0.04 / 2 = 0.02
    assert acc.spent_rho == pytest.approx(0.035, rel=1e-12)
    assert acc.spent.delta == pytest.approx(1e-7 + 1e-6)
    assert acc.spent.epsilon == pytest.approx(cks(0.035, 1e-6), rel=1e-8)


def test_refuses_overspend_and_shows_remaining_rho():
    # rho_max: the largest rho that OpenDP converts to eps <= 1 at delta' = 1e-6; it is above
    # Bun & Steinke's closed form (sqrt(L + 1) - sqrt(L))^2 = 0.0174689 and cks(rho_max) = 1
    acc = _zcdp(eps=1.0)
    rho_max = acc.remaining_rho
    assert rho_max > (math.sqrt(LN_1E6 + 1.0) - math.sqrt(LN_1E6)) ** 2
    assert cks(rho_max, 1e-6) == pytest.approx(1.0, rel=1e-8)
    acc.spend(ZCDPBudget(rho=0.01))
    assert acc.remaining_rho == pytest.approx(rho_max - 0.01, rel=1e-9)
    with pytest.raises(BudgetExceededError, match="rho="):
        acc.spend(ZCDPBudget(rho=(rho_max - 0.01) * (1 + 1e-6)))   # just past: refused
    assert acc.spent_rho == pytest.approx(0.01)                     # nothing recorded
    acc.spend(ZCDPBudget(rho=rho_max - 0.01))                       # exactly the rest: allowed
    assert acc.spent.epsilon == pytest.approx(1.0, rel=1e-9)
    assert acc.remaining_rho == pytest.approx(0.0, abs=1e-11)
    with pytest.raises(BudgetExceededError):
        acc.spend(PrivacyBudget(epsilon=1e-3))
    assert len(acc.ledger) == 2


def test_delta_budget_is_enforced_too():
    acc = _zcdp(eps=100.0, delta=2e-6, slack=1e-6)
    acc.spend(ZCDPBudget(rho=0.1, delta=5e-7))
    with pytest.raises(BudgetExceededError):
        acc.spend(ZCDPBudget(rho=0.1, delta=6e-7))   # 1e-6 + 5e-7 + 6e-7 > 2e-6


def test_zcdp_beats_basic_for_many_small_queries():
    # 100 queries of eps = 0.01: basic 1.0; zCDP rho = 100 * 5e-5 = 0.005, converted by OpenDP
    # to 0.42994 (Bun & Steinke: 0.53065; advanced composition: 0.53570)
    z, b = _zcdp(eps=2.0, composition="zcdp"), PrivacyAccountant(
        budget=PrivacyBudget(epsilon=2.0, delta=1e-5))
    for _ in range(100):
        z.spend(PrivacyBudget(epsilon=0.01))
        b.spend(PrivacyBudget(epsilon=0.01))
    assert z.spent.epsilon == pytest.approx(cks(0.005, 1e-6), rel=1e-8)
    assert z.spent.epsilon == pytest.approx(0.42994, abs=1e-5)
    assert b.spent.epsilon == pytest.approx(1.0)


def test_zcdp_falls_back_to_basic_when_smaller():
    # finding 9: 10 x eps = 0.1: basic gives 1.0, zCDP rho = 0.05 gives cks(0.05, 1e-6) = 1.44
    # (Bun & Steinke: 1.71); the accountant reports the smaller, basic (1.0, 0)
    z = _zcdp(eps=2.0, composition="zcdp")
    for _ in range(10):
        z.spend(PrivacyBudget(epsilon=0.1))
    assert cks(0.05, 1e-6) > 1.0
    assert z.spent == PrivacyBudget(epsilon=1.0, delta=0.0)


def test_opendp_conversion_is_tighter_than_bun_steinke():
    # finding 9: rho = 0.5 at delta = 1e-6: Bun & Steinke 0.5 + 2 sqrt(0.5 * 13.8155) = 5.7565;
    # OpenDP (CKS20) 5.2215
    from veil.dp import bun_steinke_epsilon, zcdp_epsilon
    assert bun_steinke_epsilon(0.5, 1e-6) == pytest.approx(0.5 + 2 * math.sqrt(0.5 * LN_1E6))
    assert zcdp_epsilon(0.5, 1e-6) == pytest.approx(cks(0.5, 1e-6), rel=1e-8)
    assert zcdp_epsilon(0.5, 1e-6) == pytest.approx(5.2215, abs=1e-4)


def test_zcdp_misuse_is_refused():
    with pytest.raises(ParameterError, match="'delta_slack'.*zcdp"):
        PrivacyAccountant(budget=PrivacyBudget(epsilon=1.0, delta=1e-5), composition="zcdp")
    with pytest.raises(ParameterError, match="only an accountant with composition='zcdp' or 'filter'"):
        PrivacyAccountant(budget=PrivacyBudget(epsilon=1.0)).spend(ZCDPBudget(rho=0.1))
    with pytest.raises(ParameterError, match="no zCDP equivalent"):
        _zcdp().spend(PrivacyBudget(epsilon=0.1, delta=1e-7))
    with pytest.raises(ParameterError, match="'rho' parameter of ZCDPBudget"):
        ZCDPBudget(rho=-0.1)
    with pytest.raises(ParameterError, match="'rho' parameter of ZCDPBudget"):
        ZCDPBudget(rho=float("inf"))
    with pytest.raises(ParameterError, match="'delta_slack' parameter of ZCDPBudget.to_dp"):
        ZCDPBudget(rho=0.1).to_dp(delta_slack=0.0)
    with pytest.raises(ParameterError, match="'cost' parameter"):
        _zcdp().spend(0.1)
    basic = PrivacyAccountant(budget=PrivacyBudget(epsilon=1.0))
    assert basic.spent_rho is None and basic.remaining_rho is None


def test_private_table_charges_rho_under_zcdp():
    frame = pd.DataFrame({"uid": [1, 1, 2, 3], "g": ["a", "b", "a", "b"]})
    acc = _zcdp(eps=50.0, delta=1e-3)
    t = PrivateTable(frame, accountant=acc, privacy_unit="uid", max_groups=2,
                     max_rows_per_group=3)
    h = t.histogram("g", categories=["a", "b"], epsilon=0.2)
    assert h.rho == pytest.approx(0.02)                                  # 0.2^2 / 2
    gs = t.histogram("g", categories=["a", "b"], epsilon=1.0, delta=1e-6, mechanism="gaussian")
    # L2 sensitivity sqrt(2) * 3, so rho = 18 / (2 sigma^2)
    assert gs.rho == pytest.approx(18.0 / (2.0 * gs.noise_scale ** 2), rel=1e-12)
    sel = t.group_by_count("g", epsilon=0.5, delta=1e-6)
    assert sel.rho == pytest.approx(0.125)                               # 0.5^2 / 2
    assert acc.spent_rho == pytest.approx(0.02 + gs.rho + 0.125)
    assert acc.spent.delta == pytest.approx(1e-6 + 1e-6)                 # slack + selection
    assert h.to_dict()["rho"] == pytest.approx(0.02)
