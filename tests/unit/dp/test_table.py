import math

import numpy as np
import pandas as pd
import pytest

from veil.dp import PrivacyAccountant, PrivacyBudget, PrivateTable, clamped_fixed_point_sum
from veil.errors import BudgetExceededError, ColumnNotFoundError, ParameterError, SchemaError


def _table(frame, eps=1000.0, delta=1e-3, **kw):
    return PrivateTable(frame, accountant=PrivacyAccountant(budget=PrivacyBudget(epsilon=eps, delta=delta)), **kw)


@pytest.fixture
def people():
    rng = np.random.default_rng(7)  # data only, not noise
    n = 2000
    return pd.DataFrame({"age": rng.integers(18, 90, n), "sex": rng.choice(["F", "M"], n),
                         "income": rng.uniform(0, 1000, n), "uid": np.arange(n) // 4})


def test_count_answer_carries_cost_and_scale(people):
    t = _table(people)
    ans = t.count("age > 40", epsilon=0.5)
    true = int((people.age > 40).sum())
    assert ans.epsilon == 0.5 and ans.delta == 0.0 and ans.mechanism == "geometric"
    assert ans.noise_scale == pytest.approx(2.0)
    assert ans.privacy_unit == "row"
    assert abs(ans.value - true) < 40  # P[|Z| > 40] ~ e^{-20}
    assert ans.budget_remaining.epsilon == pytest.approx(999.5)


def test_sum_clamps_and_refuses_missing_bounds(people):
    t = _table(people)
    with pytest.raises(ParameterError, match="clamping bounds"):
        t.sum("income", epsilon=1.0)
    with pytest.raises(ParameterError, match="clamping bounds"):
        t.mean("income", upper=10, epsilon=1.0)
    ans = t.sum("income", lower=0, upper=100, epsilon=1.0)
    true = float(np.clip(people.income, 0, 100).sum())
    assert ans.noise_scale == pytest.approx(100.0, rel=1e-6)
    assert abs(ans.value - true) < 100 * 25
    assert t.accountant.spent.epsilon == pytest.approx(1.0)  # refused queries spent nothing


def test_mean_and_quantile_are_close_with_large_epsilon(people):
    t = _table(people)
    m = t.mean("income", lower=0, upper=1000, epsilon=20.0)
    assert abs(m.value - people.income.mean()) < 10
    q = t.quantile("age", 0.5, lower=0, upper=100, epsilon=20.0)
    assert abs(q.value - people.age.median()) <= 3
    assert q.mechanism == "permute_and_flip"


def test_histogram_public_keys_include_absent_ones(people):
    t = _table(people)
    h = t.histogram("sex", categories=["F", "M", "X"], epsilon=50.0)
    assert set(h.value) == {"F", "M", "X"}
    assert abs(h.value["X"]) <= 2
    assert abs(h.value["F"] - (people.sex == "F").sum()) <= 2
    ct = t.contingency_table(["sex", "age"], categories={"sex": ["F", "M"], "age": [20, 30]},
                             epsilon=50.0)
    assert set(ct.value) == {("F", 20), ("F", 30), ("M", 20), ("M", 30)}
    true = int(((people.sex == "M") & (people.age == 30)).sum())
    assert abs(ct.value[("M", 30)] - true) <= 2
    b = t.histogram("income", bins=[0, 500, 1000], epsilon=50.0)
    assert abs(b.value[(0.0, 500.0)] - (people.income < 500).sum()) <= 2


def test_keys_from_data_need_public_keys_or_delta(people):
    t = _table(people)
    with pytest.raises(ParameterError, match="public keys"):
        t.contingency_table(["sex"], categories={}, epsilon=1.0)
    with pytest.raises(ParameterError, match="delta"):
        t.group_by_count("sex", epsilon=1.0)
    g = t.group_by_count("sex", epsilon=1.0, delta=1e-6)
    assert g.delta == 1e-6 and g.mechanism == "laplace_threshold"
    assert set(g.value) == {"F", "M"}  # ~1000 rows each, far above the threshold
    assert g.details["threshold"] > 1


def test_privacy_unit_bounds_contributions(people):
    t = _table(people, privacy_unit="uid", max_rows_per_unit=2)
    ans = t.count(epsilon=1.0)
    assert ans.privacy_unit == "uid"
    assert ans.noise_scale == pytest.approx(2.0)   # sensitivity = 2 rows per unit
    assert abs(ans.value - 1000) < 60               # 500 units x 2 rows kept
    s = t.sum("income", lower=0, upper=10, epsilon=1.0)
    assert s.noise_scale == pytest.approx(20.0, rel=1e-6)


def test_budget_exhaustion_and_bad_columns(people):
    t = _table(people, eps=1.0)
    t.count(epsilon=0.6)
    with pytest.raises(BudgetExceededError):
        t.count(epsilon=0.6)
    with pytest.raises(ColumnNotFoundError, match="'salary'"):
        t.count("salary > 3", epsilon=0.1)
    with pytest.raises(ColumnNotFoundError):
        t.sum("salary", lower=0, upper=1, epsilon=0.1)
    with pytest.raises(SchemaError, match="not numeric"):
        t.sum("sex", lower=0, upper=1, epsilon=0.1)
    with pytest.raises(ParameterError, match="epsilon"):
        t.count(epsilon=0)
    assert t.accountant.spent.epsilon == pytest.approx(0.6)


def test_fixed_point_sum_is_exact_for_adversarial_floats():
    # Casacuberta et al. 2022: a float sum's rounding depends on order; ours does not
    vals = np.array([1e6, 1e-6, -1e6, 1e-6] * 1000)
    total, sens = clamped_fixed_point_sum(vals, -1e6, 1e6, 1)
    total_rev, _ = clamped_fixed_point_sum(vals[::-1].copy(), -1e6, 1e6, 1)
    assert total == total_rev
    assert sens >= 1e6 and sens <= 1e6 * (1 + 1e-9)


def test_accepts_dataset_like_object(people):
    class DS:
        frame = people
    assert _table(DS()).columns == list(people.columns)
