"""Anonymeter's own test vectors (tests/test_confidence.py of statice/anonymeter) hold for veil's rates."""

from __future__ import annotations

import pytest

from veil.errors import ParameterError
from veil.evaluate import SuccessRate, attack_result, bound_risk, residual_success, success_rate


@pytest.mark.parametrize(("n_success", "rate", "error"), [(850, 0.849, 0.022), (0, 0.002, 0.002), (1000, 0.998, 0.002)])
def test_wilson_rate_of_1000_trials(n_success, rate, error):
    r = success_rate(1000, n_success, 0.95)
    assert round(r.value, 3) == rate
    assert round(r.error, 3) == error


@pytest.mark.parametrize(("main", "control", "expected"), [
    (SuccessRate(0.9, 0.0), SuccessRate(0.8, 0.0), (0.5, 0.0)),
    (SuccessRate(0.9, 0.02), SuccessRate(0.85, 0.02), (0.333, 0.16)),
])
def test_residual_success(main, control, expected):
    r = residual_success(main, control)
    assert (round(r.value, 3), round(r.error, 3)) == expected


@pytest.mark.parametrize(("point", "error", "expected"), [
    (0.1, 0.3, (0.1, 0.0, 0.4)), (1.1, 0.5, (1.0, 0.6, 1.0)), (-0.1, 0.2, (0.0, 0.0, 0.1)),
])
def test_bound_risk(point, error, expected):
    value, (low, high) = bound_risk(SuccessRate(point, error))
    assert (value, low, high) == pytest.approx(expected)


@pytest.mark.parametrize(("n", "success", "baseline", "confidence", "rate", "base"), [
    (100, 100, 0, 0.95, (0.9815032508965071, 0.01849674910349284), (0.01849674910349284, 0.01849674910349284)),
    (100, 100, 0, 0.68, (0.9951036894831882, 0.004896310516811869), (0.0048963105168118685, 0.004896310516811869)),
    (100, 23, 11, 0.95, (0.23998824451588613, 0.08155558571285167), (0.1244274643007244, 0.06188550073007873)),
])
def test_results_at_a_confidence(n, success, baseline, confidence, rate, base):
    main = success_rate(n, success, confidence)
    assert (main.value, main.error) == pytest.approx(rate, rel=1e-12)
    random = success_rate(n, baseline, confidence)
    assert (random.value, random.error) == pytest.approx(base, rel=1e-12)
    result = attack_result(n, success, baseline, None, confidence)
    assert result.risk == pytest.approx(min(rate[0], 1.0))
    assert result.baseline == pytest.approx(base[0])


@pytest.mark.parametrize(("n", "success", "baseline"), [(100, 100, 0), (100, 23, 11), (111, 84, 42), (100, 0, 100)])
def test_at_confidence_zero_the_rate_is_the_share(n, success, baseline):
    result = attack_result(n, success, baseline, None, 0.0)
    assert result.main == success / n
    assert result.baseline == baseline / n
    assert result.ci == (result.risk, result.risk)


def test_an_attack_no_better_than_guessing_is_flagged():
    assert not attack_result(100, 49, 50, None, 0.95).meaningful
    assert attack_result(100, 60, 50, None, 0.95).meaningful


def test_a_control_that_always_succeeds_leaves_no_risk_to_measure():
    result = attack_result(100, 49, 0, 100, 0.0)
    assert result.risk == 0.0


@pytest.mark.parametrize("confidence", [-0.1, 1.2])
def test_a_confidence_outside_0_1_is_refused(confidence):
    with pytest.raises(ParameterError, match="confidence"):
        success_rate(100, 49, confidence)
