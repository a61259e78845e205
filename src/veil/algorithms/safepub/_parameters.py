"""The sampling probability β and the class-size threshold k of SafePub, from (ε, δ).

SafePub (Bild, Kuhn & Prasser, PoPETs 2018, Theorem 1 and Section 4) draws
each record with probability β and suppresses every class with fewer than k
sampled records; the release is then (ε, δ)-differentially private when

.. math::

    \\beta = 1 - e^{-\\varepsilon}, \\qquad
    \\gamma = \\frac{e^{\\varepsilon} - 1 + \\beta}{e^{\\varepsilon}},

and k is the smallest integer for which

.. math::

    \\delta_k = \\max_{n \\ge n_m} a_n < \\delta, \\qquad
    n_m = \\lceil k/\\gamma - 1 \\rceil, \\qquad
    a_n = \\sum_{j > \\lfloor \\gamma n \\rfloor}^{n} \\binom{n}{j} \\beta^j (1-\\beta)^{n-j},

the maximum being taken until it reaches the Chernoff bound
:math:`c_n = e^{-n(\\gamma \\ln(\\gamma/\\beta) - (\\gamma - \\beta))}` that
bounds every later :math:`a_n`.

This module follows ARX's ``org.deidentifier.arx.dp.ParameterCalculation``
step for step, including two of its conventions that a reader of the paper
alone would not guess: β is the lower end of ARX's interval for
:math:`1 - e^{-\\varepsilon}` (each operation widened by one unit in the last
place, so β is bit for bit ARX's), and the k it returns is one more than the first
k whose :math:`\\delta_k` falls below δ (ARX's loop increments k after the
test).  ARX evaluates the tails in interval arithmetic; here they come
from :func:`scipy.stats.binom.sf` in double precision.  The figures agree with
ARX's on every (ε, δ) pair pinned in the tests.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from functools import lru_cache

import numpy as np
from scipy.stats import binom

from veil.errors import ParameterError

__all__ = ["SafePubParameters", "safepub_parameters", "check_privacy_parameters", "anonymization_epsilon",
           "sampling_probability"]


@dataclass(frozen=True)
class SafePubParameters:
    """β and k for an anonymization budget (ε_anon, δ).

    Attributes
    ----------
    epsilon : float
        The ε of the sampling-and-suppression step (the total ε minus the search budget).
    delta : float
    beta : float
        The probability with which each record is sampled.
    k : int
        Classes with fewer sampled records are suppressed.
    """

    epsilon: float
    delta: float
    beta: float
    k: int


def check_privacy_parameters(epsilon: object, delta: object, search_budget: object = 0.1, *,
                             names: tuple[str, str, str] = ("'epsilon' parameter", "'delta' parameter",
                                                            "'search_budget' parameter")) -> tuple[float, float, float]:
    """``(epsilon, delta, search_budget)`` as floats, or a :class:`ParameterError` naming the bad one.

    ε must be a finite number > 0, δ in (0, 1), the search budget (the share of
    ε the exponential mechanism spends on the search) in (0, 1).  ``names``
    are how the message calls them (the CLI passes its flags).
    """
    values = []
    for name, value, high in zip(names, (epsilon, delta, search_budget), (None, 1.0, 1.0)):
        try:
            number = float(value)  # type: ignore[arg-type]
        except (TypeError, ValueError):
            number = math.nan
        if isinstance(value, bool) or not math.isfinite(number) or number <= 0 or (high is not None and number >= high):
            rule = "a number > 0" if high is None else f"a number in (0, {high:g})"
            raise ParameterError(f"The {name} of SafePub must be {rule}. Got {value!r} instead.")
        values.append(number)
    return values[0], values[1], values[2]


def _up(x: float) -> float:
    return math.nextafter(x, math.inf)


def _down(x: float) -> float:
    return math.nextafter(x, -math.inf)


def sampling_probability(epsilon: float) -> float:
    """β: ARX's lower bound of :math:`1 - e^{-\\varepsilon}` (each operation widened by one ulp, as ARX does)."""
    return _down(1.0 - _up(math.exp(_up(-epsilon))))


def anonymization_epsilon(epsilon: float, epsilon_search: float) -> float:
    """ε - ε_search rounded down, as ARX does (the lower end of its interval)."""
    return _down(epsilon - epsilon_search)


def _chernoff(n: np.ndarray, beta: float, gamma: float) -> np.ndarray:
    return np.exp(-n * (gamma * math.log(gamma / beta) - (gamma - beta)))


def _delta_k(k: int, beta: float, gamma: float) -> float:
    """δ_k: the largest tail a_n from n_m on, scanned until it meets the bound c_n."""
    n_m = max(math.ceil(k / gamma - 1.0), 1)
    width = 256
    best = -math.inf
    while True:
        n = np.arange(n_m, n_m + width, dtype=np.float64)
        a = binom.sf(np.floor(n * gamma), n, beta)
        running = np.maximum.accumulate(np.maximum(a, best))
        stop = np.flatnonzero(running >= _chernoff(n, beta, gamma))
        if stop.size:
            return float(running[stop[0]])
        best = float(running[-1])
        n_m += width


@lru_cache(maxsize=256)
def safepub_parameters(epsilon: float, delta: float) -> SafePubParameters:
    """β and k of SafePub for the anonymization budget (ε, δ) (as ARX computes them).

    Parameters
    ----------
    epsilon : float, in (0, inf)
        The ε of the sampling-and-suppression step (SafePub's ε_anon).
    delta : float, in (0, 1)

    Returns
    -------
    SafePubParameters

    Raises
    ------
    ParameterError
        ε ≤ 0 or δ outside (0, 1).

    References
    ----------
    R. Bild, K. A. Kuhn, F. Prasser, "SafePub: A Truthful Data Anonymization
    Algorithm With Strong Privacy Guarantees", PoPETs 2018(1), Theorem 1;
    ARX ``org.deidentifier.arx.dp.ParameterCalculation``.

    Examples
    --------
    >>> p = safepub_parameters(1.0, 1e-5)
    >>> round(p.beta, 6), p.k
    (0.632121, 62)
    """
    epsilon, delta, _ = check_privacy_parameters(epsilon, delta)
    beta = sampling_probability(epsilon)
    gamma = (math.expm1(epsilon) + beta) / math.exp(epsilon)
    k = 1
    while True:  # one pass per candidate k (tens to hundreds), each a vectorised scan over n
        found = _delta_k(k, beta, gamma) < delta
        k += 1
        if found:
            return SafePubParameters(epsilon=epsilon, delta=delta, beta=beta, k=k)
