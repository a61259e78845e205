import math

import pytest

from veil.dp import PrivacyAccountant, PrivacyBudget
from veil.errors import BudgetExceededError, ParameterError


def test_sequential_composition_adds_and_refuses_overspend():
    acc = PrivacyAccountant(budget=PrivacyBudget(epsilon=1.0, delta=1e-5))
    acc.spend(PrivacyBudget(epsilon=0.1), label="a")
    acc.spend(PrivacyBudget(epsilon=0.2, delta=4e-6), label="b")
    acc.spend(PrivacyBudget(epsilon=0.7, delta=6e-6), label="c")  # exactly 1.0 / 1e-5: allowed
    assert acc.spent.epsilon == pytest.approx(1.0)
    assert acc.remaining.epsilon == pytest.approx(0.0, abs=1e-12)
    with pytest.raises(BudgetExceededError, match="remains"):
        acc.spend(PrivacyBudget(epsilon=1e-3), label="d")
    assert len(acc.ledger) == 3  # the refused query recorded nothing


def test_delta_overspend_is_refused():
    acc = PrivacyAccountant(budget=PrivacyBudget(epsilon=5.0, delta=1e-6))
    with pytest.raises(BudgetExceededError):
        acc.spend(PrivacyBudget(epsilon=0.1, delta=2e-6))


def test_advanced_composition_matches_theorem():
    # k = 100 queries of eps0 = 0.01, delta' = 1e-6:
    # eps = sqrt(2 k ln(1/delta')) eps0 + k eps0 (e^eps0 - 1)  (Dwork, Rothblum, Vadhan 2010)
    k, e0, dp_ = 100, 0.01, 1e-6
    expected = math.sqrt(2 * k * math.log(1 / dp_)) * e0 + k * e0 * math.expm1(e0)
    acc = PrivacyAccountant(budget=PrivacyBudget(epsilon=10.0, delta=1e-5),
                            composition="advanced", delta_slack=dp_)
    for _ in range(k):
        acc.spend(PrivacyBudget(epsilon=e0))
    assert acc.spent.epsilon == pytest.approx(expected, rel=1e-12)
    assert acc.spent.delta == pytest.approx(dp_)
    # for a single query the basic bound is smaller and is used
    one = PrivacyAccountant(budget=PrivacyBudget(epsilon=10.0, delta=1e-5),
                            composition="advanced", delta_slack=dp_)
    one.spend(PrivacyBudget(epsilon=0.5))
    assert one.spent == PrivacyBudget(epsilon=0.5, delta=0.0)


@pytest.mark.parametrize("eps", [0, -1, float("nan"), float("inf"), "1"])
def test_bad_epsilon(eps):
    if eps == 0:
        PrivacyBudget(epsilon=0)  # a zero cost is a valid budget value
        return
    with pytest.raises(ParameterError, match="'epsilon' parameter of PrivacyBudget"):
        PrivacyBudget(epsilon=eps)


@pytest.mark.parametrize("delta", [-0.1, 1.0, 2.0])
def test_bad_delta(delta):
    with pytest.raises(ParameterError, match=r"must be a float in \[0, 1\)"):
        PrivacyBudget(epsilon=1.0, delta=delta)


def test_advanced_needs_slack():
    with pytest.raises(ParameterError, match="delta_slack"):
        PrivacyAccountant(budget=PrivacyBudget(epsilon=1.0, delta=1e-5), composition="advanced")
    with pytest.raises(ParameterError, match="composition"):
        PrivacyAccountant(budget=PrivacyBudget(epsilon=1.0), composition="renyi")
