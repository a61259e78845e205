"""SafePub's (β, k) from (ε, δ): the figures ARX computes.

Reference figures: ARX's own ``org.deidentifier.arx.dp.ParameterCalculation``
(arx-deidentifier/arx at aacd487fb77b, v3.9.2-6), compiled with javac from the
public source (its ``reliability`` package and ``ParameterCalculation`` only)
and run on OpenJDK 17 with a five-line driver printing ``getBeta()`` and
``getK()``.  The output, verbatim::

    2.0 1.0E-5 beta=0.8646647167633871 k=114
    1.8 1.0E-5 beta=0.8347011117784133 k=92
    1.0 1.0E-5 beta=0.6321205588285574 k=62
    1.0 1.0E-6 beta=0.6321205588285574 k=75
    1.5 1.0E-6 beta=0.77686983985157 k=100
    0.6931471805599453 1.0E-7 beta=0.4999999999999997 k=81
    1.0986122886681098 1.0E-8 beta=0.6666666666666664 k=109
    0.9 1.0E-5 beta=0.5934303402594007 k=59
    3.0 1.0E-9 beta=0.9502129316321359 k=470
    0.5 0.001 beta=0.3934693402873664 k=28

(ln 2 and ln 3 with 1e-7 and 1e-8 are pairs of ARX's own SafePub tests,
``TestAnonymizationDifferentialPrivacy``; 1.8 is ε = 2 less a search budget of 0.1·ε.)
By hand, for the first row: β = 1 - e^-2 = 0.86466471676338730..., whose
correctly rounded double is ...873; ARX keeps the lower end of its interval,
two ulps below.
"""

from __future__ import annotations

import math

import pytest

from veil.algorithms.safepub import anonymization_epsilon, check_privacy_parameters, safepub_parameters
from veil.algorithms.safepub._parameters import sampling_probability
from veil.errors import ParameterError
from veil.models.registry import build

ARX = [
    (2.0, 1e-5, 0.8646647167633871, 114),
    (1.8, 1e-5, 0.8347011117784133, 92),
    (1.0, 1e-5, 0.6321205588285574, 62),
    (1.0, 1e-6, 0.6321205588285574, 75),
    (1.5, 1e-6, 0.77686983985157, 100),
    (math.log(2), 1e-7, 0.4999999999999997, 81),
    (math.log(3), 1e-8, 0.6666666666666664, 109),
    (0.9, 1e-5, 0.5934303402594007, 59),
    (0.5, 1e-3, 0.3934693402873664, 28),
]


@pytest.mark.parametrize(("epsilon", "delta", "beta", "k"), ARX)
def test_parameters_equal_arx(epsilon: float, delta: float, beta: float, k: int) -> None:
    params = safepub_parameters(epsilon, delta)
    assert params.k == k
    assert params.beta == beta  # bit for bit: ARX's interval lower bound


@pytest.mark.slow
def test_parameters_equal_arx_large_k() -> None:
    params = safepub_parameters(3.0, 1e-9)
    assert (params.beta, params.k) == (0.9502129316321359, 470)


def test_beta_is_below_the_exact_value() -> None:
    # the lower end of an interval: never more sampling than 1 - e^-ε allows
    for epsilon in (0.1, 0.5, 1.0, 2.0, 5.0):
        assert sampling_probability(epsilon) < -math.expm1(-epsilon)
        assert -math.expm1(-epsilon) - sampling_probability(epsilon) < 1e-15


def test_k_grows_as_delta_shrinks() -> None:
    ks = [safepub_parameters(1.0, d).k for d in (1e-3, 1e-5, 1e-6)]
    assert ks == sorted(ks) and ks[0] < ks[-1]
    assert ks[1:] == [62, 75]


def test_model_splits_epsilon_like_arx_search_budget() -> None:
    # ARX: EDDifferentialPrivacy(2, 1e-5) with setDPSearchBudget(0.2) derives (β, k) from 2 - 0.2, rounded down
    model = build({"type": "dp", "epsilon": 2, "delta": 1e-5})
    assert model.epsilon_search == pytest.approx(0.2)
    assert model.epsilon_anonymization == math.nextafter(1.8, 0)
    assert model.k == 92
    # ARX's ParameterCalculation(1.7999999999999998, 1e-5), run as above: beta=0.8347011117784132 k=92
    assert model.beta == 0.8347011117784132
    assert anonymization_epsilon(2.0, 1.0) == math.nextafter(1.0, 0)


@pytest.mark.parametrize(("epsilon", "delta", "budget", "message"), [
    (0, 1e-5, 0.1, "epsilon"), (-1, 1e-5, 0.1, "epsilon"), (math.inf, 1e-5, 0.1, "epsilon"),
    (math.nan, 1e-5, 0.1, "epsilon"), ("2", 1e-5, 0.1, None), (1, 0, 0.1, "delta"), (1, 1, 0.1, "delta"),
    (1, 1.5, 0.1, "delta"), (1, 1e-5, 0, "search_budget"), (1, 1e-5, 1, "search_budget"), (True, 1e-5, 0.1, "epsilon"),
])
def test_bad_parameters_are_refused(epsilon, delta, budget, message) -> None:
    if message is None:  # a numeric string is a number here (the CLI passes floats)
        assert check_privacy_parameters(epsilon, delta, budget)[0] == 2.0
        return
    with pytest.raises(ParameterError, match=message):
        check_privacy_parameters(epsilon, delta, budget)


@pytest.mark.parametrize("spec", [{"epsilon": 0, "delta": 1e-5}, {"epsilon": 1, "delta": 1},
                                  {"epsilon": 1, "delta": 1e-5, "search_budget": 1.0}])
def test_model_refuses_bad_parameters(spec) -> None:
    with pytest.raises(ParameterError):
        build({"type": "dp", **spec})
