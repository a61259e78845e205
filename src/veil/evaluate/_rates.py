"""Success rates and risks of an attack, as Anonymeter defines them (Giomi et al., PETS 2023).

An attack is a series of Bernoulli trials: ``n_success`` of ``n_total`` attempts
succeed.  Its success rate is the centre of the Wilson score interval, its error
the interval's half-width at the stated confidence (Wilson 1927):

.. math::

    \\hat p = \\frac{n_s + z^2/2}{n + z^2}, \\qquad
    \\epsilon = \\frac{z}{n + z^2} \\sqrt{\\frac{n_s (n - n_s)}{n} + \\frac{z^2}{4}},
    \\qquad z = \\Phi^{-1}\\left(\\tfrac{1 + c}{2}\\right).

The risk is the attack's success on the records behind the release beyond its
success on control records that were not used, normalised by the room for
improvement:

.. math::

    R = \\frac{p_{main} - p_{control}}{1 - p_{control}},

its error propagated from both rates to first order, and the value and its
interval clipped to ``[0, 1]``.  Without a control, the risk is the main rate.
"""

from __future__ import annotations

from dataclasses import dataclass
from math import sqrt
from typing import Any

from veil._validation import check_real
from veil.errors import ParameterError

__all__ = ["SuccessRate", "AttackResult", "success_rate", "residual_success", "bound_risk", "attack_result"]


@dataclass(frozen=True)
class SuccessRate:
    """A success rate and the half-width of its confidence interval."""

    value: float
    error: float


def _probit(confidence: float) -> float:
    from statistics import NormalDist

    return NormalDist().inv_cdf(0.5 * (1.0 + confidence))


def success_rate(n_total: int, n_success: float, confidence: float = 0.95) -> SuccessRate:
    """The Wilson score estimate of a success rate: ``n_success`` successes in ``n_total`` trials.

    Examples
    --------
    >>> r = success_rate(1000, 850, 0.95)
    >>> round(r.value, 3), round(r.error, 3)
    (0.849, 0.022)
    """
    confidence = check_real("confidence", confidence, "success_rate", low=0.0, high=1.0)
    if n_total <= 0:
        raise ParameterError(f"A success rate needs at least one trial. Got {n_total} instead.")
    z = _probit(confidence)
    z2 = z * z
    spread = n_success * (n_total - n_success) / n_total
    denominator = n_total + z2
    return SuccessRate((n_success + 0.5 * z2) / denominator, (z / denominator) * sqrt(max(spread, 0.0) + 0.25 * z2))


def residual_success(main: SuccessRate, control: SuccessRate) -> SuccessRate:
    """The main rate's excess over the control rate, normalised by ``1 - control``; the error propagated.

    Examples
    --------
    >>> round(residual_success(SuccessRate(0.9, 0.0), SuccessRate(0.8, 0.0)).value, 12)
    0.5
    """
    room = 1.0 - control.value
    if room <= 0.0:
        return SuccessRate(0.0, 1.0)  # every control attack succeeds: nothing left to measure
    value = (main.value - control.value) / room
    d_main, d_control = 1.0 / abs(room), (main.value - 1.0) / room ** 2
    return SuccessRate(value, sqrt((main.error * d_main) ** 2 + (control.error * d_control) ** 2))


def bound_risk(rate: SuccessRate) -> tuple[float, tuple[float, float]]:
    """The value and its interval ``value ± error``, each clipped to ``[0, 1]``."""
    def clip(x: float) -> float:
        return min(max(x, 0.0), 1.0)

    return clip(rate.value), (clip(rate.value - rate.error), clip(rate.value + rate.error))


@dataclass(frozen=True)
class AttackResult:
    """What an attack achieved: its risk with an interval, and the three success rates behind it.

    ``meaningful`` is false when the attack did no better than the random-guess baseline: then
    its risk says nothing about the release (Anonymeter warns in that case).
    """

    risk: float
    ci: tuple[float, float]
    main: float
    control: float | None
    baseline: float
    n_attacks: int
    meaningful: bool

    def to_dict(self) -> dict[str, Any]:
        return {"risk": self.risk, "ci": list(self.ci), "main": self.main, "control": self.control,
                "baseline": self.baseline, "n_attacks": self.n_attacks, "meaningful": self.meaningful}


def attack_result(n_attacks: int, n_main: float, n_baseline: float, n_control: float | None,
                  confidence: float, *, n_control_attacks: int | None = None) -> AttackResult:
    """Combine the counts of successes into an :class:`AttackResult` (Anonymeter's ``EvaluationResults``)."""
    main = success_rate(n_attacks, n_main, confidence)
    baseline = success_rate(n_attacks, n_baseline, confidence)
    if n_control is None:
        control, rate = None, main
    else:
        control = success_rate(n_control_attacks or n_attacks, n_control, confidence)
        rate = residual_success(main, control)
    risk, ci = bound_risk(rate)
    return AttackResult(risk, ci, main.value, None if control is None else control.value, baseline.value,
                        n_attacks, meaningful=main.value > baseline.value)
