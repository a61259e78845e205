"""veil.dp.synthesize: the budget plan, the one ledger charge, the report contract and utility."""

import numpy as np
import pandas as pd
import pytest

from veil.dp import BudgetLedger, PrivacyAccountant, PrivacyBudget, synthesize
from veil.dp.synthesis._api import plan_budget
from veil.dp.synthesis._mst import cdp_rho
from veil.errors import BudgetExceededError, ParameterError

DOMAIN = {"a": ["0", "1", "2"], "b": ["x", "y"], "c": {"min": 0, "max": 10, "bins": 5}}


def _frame(n=4000, seed=0):
    rng = np.random.default_rng(seed)
    a = rng.integers(0, 3, n)
    b = np.where(rng.random(n) < 0.9, a % 2, 1 - a % 2)  # b strongly follows a
    return pd.DataFrame({"a": a.astype(str), "b": np.array(["x", "y"])[b], "c": rng.uniform(0, 10, n)})


def test_plan_is_the_reference_split_when_every_domain_is_given():
    plan = plan_budget(1.0, 1e-9)
    assert plan.rho == pytest.approx(cdp_rho(1.0, 1e-9), rel=1e-9)
    assert plan.rho_domain == 0.0 and plan.delta_selection == 0.0
    assert plan.certified_epsilon <= 1.0 + 1e-12


def test_plan_with_learned_columns_spends_half_delta_and_a_tenth_of_rho_on_them():
    plan = plan_budget(1.0, 1e-6, learned=2)
    assert plan.delta_selection == 5e-7
    assert plan.rho == pytest.approx(cdp_rho(1.0, 5e-7), rel=1e-9)
    assert plan.rho_domain == pytest.approx(0.1 * plan.rho)


def test_report_contract_and_utility():
    result = synthesize(_frame(), epsilon=1.0, domain=DOMAIN, seed=0)
    rep = result.report
    assert {"algorithm", "epsilon", "delta", "rho", "rows", "domain_source", "marginal_error",
            "workload_error", "ledger", "evaluation"} <= set(rep)
    assert rep["algorithm"] == "mst" and rep["delta"] == 1e-9 and rep["epsilon"] <= 1.0 + 1e-12
    assert all(0.0 <= rep["marginal_error"][k] <= 1.0 for k in ("1way", "2way", "3way"))
    assert rep["marginal_error"]["2way"] < 0.1
    assert abs(rep["rows"] - 4000) < 400 and len(result.frame) == rep["rows"]
    assert list(result.frame.columns) == ["a", "b", "c"]
    # the strong a-b dependence survives: b == a % 2 in about 90% of the synthetic rows
    agree = (result.frame["a"].astype(int) % 2 == (result.frame["b"] == "y")).mean()
    assert agree > 0.75


def test_identifiers_are_never_synthesized():
    frame = _frame().assign(name=[f"person{i}" for i in range(4000)])
    result = synthesize(frame, epsilon=1.0, domain=DOMAIN, identifiers=("name",), seed=0)
    assert "name" not in result.frame.columns and "person" not in result.frame.to_csv()


def test_the_synthesis_is_charged_once_to_the_accountant():
    acc = PrivacyAccountant(budget=PrivacyBudget(epsilon=3.0, delta=1e-6))
    rep = synthesize(_frame(), epsilon=1.0, domain=DOMAIN, accountant=acc).report
    assert len(acc.ledger) == 1 and acc.spent == PrivacyBudget(epsilon=1.0, delta=1e-9)
    assert rep["ledger"]["remaining"]["epsilon"] == pytest.approx(2.0)


def test_a_zcdp_accountant_is_charged_rho():
    acc = PrivacyAccountant(budget=PrivacyBudget(epsilon=3.0, delta=1e-6), composition="zcdp", delta_slack=1e-7)
    rep = synthesize(_frame(), epsilon=1.0, domain=DOMAIN, accountant=acc).report
    assert acc.spent_rho == pytest.approx(rep["rho"])


def test_the_ledger_refuses_a_synthesis_that_does_not_fit(tmp_path, monkeypatch):
    path = tmp_path / "ledger.json"
    acc = PrivacyAccountant.from_ledger(BudgetLedger(path), "d", budget=PrivacyBudget(epsilon=1.5, delta=1e-6))
    synthesize(_frame(), epsilon=1.0, domain=DOMAIN, accountant=acc)
    import veil.dp.synthesis._api as api

    def no_noise(*args, **kwargs):  # pragma: no cover - must not be reached
        raise AssertionError("noise drawn after a refused charge")

    monkeypatch.setattr(api, "measure_one_way", no_noise)
    with pytest.raises(BudgetExceededError):
        synthesize(_frame(), epsilon=1.0, domain=DOMAIN, accountant=acc)
    assert len(PrivacyAccountant.from_ledger(BudgetLedger(path), "d").ledger) == 1


@pytest.mark.parametrize("kwargs", [{"epsilon": 0.0}, {"epsilon": -1.0}, {"epsilon": float("nan")},
                                    {"delta": 0.0}, {"delta": 1.0}, {"algorithm": "privbayes"}])
def test_bad_privacy_parameters_are_refused(kwargs):
    with pytest.raises(ParameterError):
        synthesize(_frame(), domain=DOMAIN, **kwargs)
