"""The three population-uniqueness models, each from the sample's frequencies of class sizes.

Zayatz (1991), Pitman (Hoshino 2001) and the slide negative binomial (Chen &
Keller-McNulty 1998), with Haas et al.'s Shlosser-type estimate of the number
of population classes.  :mod:`veil.risk._uniqueness` combines them (Dankar et
al.'s rule) and holds the public entry point.
"""

from __future__ import annotations

import math
import warnings
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from veil._lazy import lazy_module

# scipy.optimize takes about a second to import: load it only when a uniqueness
# model is actually estimated
optimize = lazy_module("scipy.optimize")
special = lazy_module("scipy.special")

__all__ = [
    "UniquenessEstimate",
    "pitman_uniques",
    "zayatz_uniques",
    "snb_uniques",
    "shlosser_population_classes",
]


@dataclass(frozen=True)
class UniquenessEstimate:
    """One model's estimate of the population uniques.

    Attributes
    ----------
    model : {"pitman", "zayatz", "snb", "dankar"}
    uniques : float or None
        Estimated number of population records that are unique; ``None`` when
        the model failed.
    fraction : float or None
        ``uniques / N``.
    valid : bool
    message : str
        Why the model failed (empty when valid).
    parameters : dict
        The fitted parameters (θ, α for Pitman; α, β, K for SNB; the
        conditional probability for Zayatz).
    """

    model: str
    uniques: float | None
    fraction: float | None
    valid: bool
    message: str = ""
    parameters: dict[str, float] = field(default_factory=dict)

    def to_dict(self) -> dict[str, Any]:
        return {
            "model": self.model, "uniques": self.uniques, "fraction": self.fraction,
            "valid": self.valid, "message": self.message, "parameters": dict(self.parameters),
        }


def _estimate(model: str, uniques: float, big_n: int, parameters: dict[str, float]) -> UniquenessEstimate:
    if not math.isfinite(uniques) or uniques < 0 or uniques > big_n * (1 + 1e-9):
        return UniquenessEstimate(model, None, None, False, "the estimate is outside [0, N]", parameters)
    uniques = min(float(uniques), float(big_n))
    return UniquenessEstimate(model, uniques, uniques / big_n, True, "", parameters)


def _failed(model: str, message: str, parameters: dict[str, float] | None = None) -> UniquenessEstimate:
    return UniquenessEstimate(model, None, None, False, message, parameters or {})


def _frequencies(counts: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    sizes, classes = np.unique(np.asarray(counts, dtype=np.int64), return_counts=True)
    keep = sizes > 0
    return sizes[keep], classes[keep].astype(np.float64)


# ---------------------------------------------------------------------- Zayatz
def _log_hypergeom_one(sizes: np.ndarray, n: int, big_n: int) -> np.ndarray:
    """log h(1; N, i, n) per class size i: one of a class of i records in a sample of n out of N.

    h = i n (N-i)! (N-n)! / (N! (N-i-n+1)!), each factorial ratio by
    :func:`_log_gamma_ratio` in float64: exact to about 1e-12 for any N up to
    2**53 (scipy's ``hypergeom.logpmf`` drifts by 1e-4 around N = 1e10 and
    fails on an N beyond int64).  ``-inf`` where the class cannot show exactly
    one record (i > N - n + 1).
    """
    big = float(big_n)
    out = np.full(len(sizes), -math.inf)
    for j, i in enumerate(np.asarray(sizes, dtype=np.float64)):
        if 1 <= i <= big - n + 1:
            out[j] = (math.log(i * n) + _log_gamma_ratio(big, 1 - i, 1)
                      + _log_gamma_ratio(big, 1 - n, 2 - i - n))
    return out


def zayatz_uniques(sizes: np.ndarray, freq: np.ndarray, n: int, big_n: int) -> UniquenessEstimate:
    """Zayatz (1991): sample uniques that are population uniques, scaled up.

    Notes
    -----
    Taking the sample's class-size distribution :math:`f_i/|K|` as the
    population's, the probability that a sample unique comes from a
    population unique is

    .. math:: P = \\frac{f_1\\, h(1; N, 1, n)}{\\sum_i f_i\\, h(1; N, i, n)},

    with :math:`h(1; N, i, n)` the hypergeometric probability of drawing
    exactly one of a class of :math:`i` records in a sample of :math:`n` out
    of :math:`N`; the population uniques are :math:`f_1 P / \\pi`.

    References
    ----------
    L. Zayatz, "Estimation of the percent of unique population elements on a
    microdata file using the sample", Statistical Research Division Report
    RR-91/08, U.S. Bureau of the Census, 1991.
    """
    f1 = float(freq[sizes == 1].sum())
    h = np.exp(_log_hypergeom_one(sizes, n, big_n))
    denominator = float(np.dot(freq, h))
    if not denominator > 0 or not math.isfinite(denominator):
        return _failed("zayatz", "the hypergeometric weights vanish")
    p = f1 * float(h[sizes == 1].sum()) / denominator
    return _estimate("zayatz", f1 * p / (n / big_n), big_n, {"conditional_probability": p})


# ---------------------------------------------------------------------- Pitman
def _pitman_terms(theta: float, alpha: float, u: int) -> tuple[float, float, float]:
    """A = Σ_{k=1}^{u-1} log(θ + kα) and its partial derivatives in θ and α."""
    m = u - 1
    if m <= 0:
        return 0.0, 0.0, 0.0
    x = theta / alpha if alpha > 0 else math.inf
    if x <= 1e7:
        a = m * math.log(alpha) + special.gammaln(x + u) - special.gammaln(x + 1)
        d_theta = (special.digamma(x + u) - special.digamma(x + 1)) / alpha
        d_alpha = (m - theta * d_theta) / alpha
        return float(a), float(d_theta), float(d_alpha)
    k = np.arange(1, u, dtype=np.float64)
    r = k * (alpha / theta)
    a = m * math.log(theta) + float(np.log1p(r).sum())
    inv = 1.0 / (theta + k * alpha)
    return a, float(inv.sum()), float((k * inv).sum())


def _pitman_nll(params: np.ndarray, sizes: np.ndarray, freq: np.ndarray, n: int, u: int) -> tuple[float, np.ndarray]:
    log_theta, alpha = float(params[0]), float(params[1])
    theta = math.exp(log_theta)
    a, da_t, da_a = _pitman_terms(theta, alpha, u)
    big = sizes > 1
    s, w = sizes[big].astype(np.float64), freq[big]
    ll = (
        a
        - (special.gammaln(theta + n) - special.gammaln(theta + 1))
        + float(np.dot(w, special.gammaln(s - alpha) - special.gammaln(1 - alpha)))
    )
    dl_t = da_t - (special.digamma(theta + n) - special.digamma(theta + 1))
    dl_a = da_a - float(np.dot(w, special.digamma(s - alpha) - special.digamma(1 - alpha)))
    return -float(ll), -np.array([dl_t * theta, dl_a])


def _stirling_tail(y: float) -> float:
    """log Γ(y) - ((y - 1/2) log y - y + log(2π)/2): the Stirling series' first terms (for y >= 10)."""
    inv = 1.0 / y
    inv2 = inv * inv
    return inv * (1 / 12 - inv2 * (1 / 360 - inv2 * (1 / 1260 - inv2 / 1680)))


def _log_gamma_ratio(x: float, a: float, b: float) -> float:
    """log Γ(x + a) - log Γ(x + b), without the cancellation of two huge log Γ at a large ``x``.

    ``gammaln(x + a) - gammaln(x + b)`` loses about ``x log x * 2**-53`` in
    absolute terms: a factor of e at x = 1e14, nothing left at 1e16.  For
    ``x + a``, ``x + b >= 1e4`` the Stirling series of the difference is used,
    written with ``log1p`` so that no large terms cancel (relative error
    about 1e-15).
    """
    if min(x + a, x + b) < 1e4:
        return float(special.gammaln(x + a) - special.gammaln(x + b))
    d = a - b
    return (
        (x + b - 0.5) * math.log1p(d / (x + b)) + d * math.log(x + a) - d
        + _stirling_tail(x + a) - _stirling_tail(x + b)
    )


def _pitman_expected_singletons(theta: float, alpha: float, big_n: int) -> float:
    """E[S_1(N)] = N Γ(θ+1) Γ(θ+α+N-1) / (Γ(θ+α) Γ(θ+N)) (≈ Γ(θ+1)/Γ(θ+α) N^α)."""
    big = float(big_n)
    log_value = (
        math.log(big) + special.gammaln(theta + 1) - special.gammaln(theta + alpha)
        + _log_gamma_ratio(big, theta + alpha - 1, theta)
    )
    return math.exp(log_value) if log_value < 700 else math.inf


def _pitman_starts(sizes: np.ndarray, freq: np.ndarray, n: int, u: int) -> list[tuple[float, float]]:
    """Starting points ``(log theta, alpha)``: Hoshino's moment-type guess when it is in the domain, then others."""
    f1 = float(freq[sizes == 1].sum())
    f2 = float(freq[sizes == 2].sum())
    starts = []
    # moment-type initial guess (Hoshino 2001, sec. 4), when it lies in the domain
    c = f1 * (f1 - 1) / (f2 if f2 else 1.0)
    denom = 2 * f1 * u + f1 * c - n * c
    if denom:
        t0 = (n * u * c - f1 * (n - 1) * (2 * u + c)) / denom
        a0 = (t0 * (f1 - n) + (n - 1) * f1) / (n * u)
        if t0 > 0 and 0 <= a0 < 1:
            starts.append((math.log(t0), a0))
    return starts + [(math.log(max(u, 2) / 2.0), 0.5), (0.0, 0.9), (math.log(max(u, 2)), 0.1)]


def pitman_uniques(sizes: np.ndarray, freq: np.ndarray, n: int, big_n: int) -> UniquenessEstimate:
    """Pitman (Hoshino 2001): fit the Pitman sampling formula, extrapolate to N.

    Notes
    -----
    The sample partition into :math:`u = |K|` classes is modelled by the
    Pitman sampling formula with parameters :math:`\\theta > 0`,
    :math:`0 \\le \\alpha < 1`, whose log-likelihood given the frequencies
    :math:`f_i` is

    .. math:: \\ell(\\theta, \\alpha) = \\sum_{k=1}^{u-1}\\log(\\theta + k\\alpha)
              - \\sum_{k=1}^{n-1}\\log(\\theta + k)
              + \\sum_{i \\ge 2} f_i \\sum_{k=1}^{i-1}\\log(k - \\alpha),

    (the inner sums in closed form with :math:`\\log\\Gamma`).  The maximum
    likelihood estimate is found with L-BFGS-B, from Hoshino's moment-type
    guess first and other starting points when that fails.
    The partition is consistent under sampling, so the population has the same
    parameters, and its expected number of singletons is

    .. math:: E[S_1(N)] = N \\frac{\\Gamma(\\theta+1)\\,\\Gamma(\\theta+\\alpha+N-1)}
              {\\Gamma(\\theta+\\alpha)\\,\\Gamma(\\theta+N)}
              \\approx \\frac{\\Gamma(\\theta+1)}{\\Gamma(\\theta+\\alpha)} N^{\\alpha}.

    References
    ----------
    N. Hoshino, "Applying Pitman's sampling formula to microdata disclosure
    risk assessment", Journal of Official Statistics 17(4), 499-520, 2001.
    J. Pitman, "The two-parameter generalization of Ewens' random partition
    structure", Technical Report 345, UC Berkeley, 1992.
    """
    u = int(freq.sum())
    starts = _pitman_starts(sizes, freq, n, u)
    bounds = [(-20.0, 40.0), (0.0, 1.0 - 1e-7)]
    best = None
    with warnings.catch_warnings(), np.errstate(all="ignore"):
        warnings.simplefilter("ignore")
        for start in starts:
            try:
                res = optimize.minimize(
                    _pitman_nll, np.array(start), args=(sizes, freq, n, u), jac=True,
                    method="L-BFGS-B", bounds=bounds, options={"maxiter": 500, "gtol": 1e-9},
                )
            except (ValueError, FloatingPointError, OverflowError):
                continue
            if np.all(np.isfinite(res.x)) and math.isfinite(res.fun) and (best is None or res.fun < best.fun):
                best = res
            if best is not None and best.success:
                break
    if best is None:
        return _failed("pitman", "the likelihood could not be maximised")
    theta, alpha = math.exp(float(best.x[0])), float(best.x[1])
    params = {"theta": theta, "alpha": alpha}
    if alpha >= 1.0 - 1e-6:
        return _failed("pitman", "the fitted alpha reached 1 (no finite estimate)", params)
    if not -20.0 + 1e-6 < best.x[0] < 40.0 - 1e-6:
        return _failed("pitman", "the fitted theta ran to the edge of its domain", params)
    return _estimate("pitman", _pitman_expected_singletons(theta, alpha, big_n), big_n, params)


# ------------------------------------------------------------------------- SNB
def shlosser_population_classes(sizes: np.ndarray, freq: np.ndarray, sampling_fraction: float) -> float:
    """Haas et al.'s Shlosser-type estimate of the number of non-empty population classes K.

    Parameters
    ----------
    sizes, freq : numpy.ndarray
        The sample's class sizes :math:`i` and how many classes have each
        (:math:`f_i`).
    sampling_fraction : float in (0, 1]
        :math:`q = n/N`.

    Returns
    -------
    float
        :math:`\\hat K \\ge u`, the number of sample classes.

    Notes
    -----
    .. math:: \\hat K = u + f_1
              \\frac{\\sum_i i q^2 (1-q^2)^{i-1} f_i}{\\sum_i \\big((1-q^2)^i - (1-q)^i\\big) f_i}
              \\Big(\\frac{\\sum_i (1-q)^i f_i}{\\sum_i i q (1-q)^{i-1} f_i}\\Big)^2,

    the first denominator being :math:`\\sum_i (1-q)^i((1+q)^i - 1) f_i`
    rewritten so that no power exceeds 1: every power is
    :math:`\\exp(i \\log(1 - x))` with :math:`x \\in \\{q, q^2\\}`, which
    underflows harmlessly to 0 for large classes instead of overflowing
    (:math:`(1+q)^{2000}` at :math:`q = 0.5` is :math:`10^{352}`).

    References
    ----------
    P. J. Haas, J. F. Naughton, S. Seshadri and L. Stokes, "Sampling-based
    estimation of the number of distinct values of an attribute", VLDB 1995,
    eq. (Shlosser).

    Examples
    --------
    >>> round(shlosser_population_classes(np.array([1, 2, 3, 2000]), np.ones(4), 0.5), 6)
    4.493313
    """
    i = np.asarray(sizes, dtype=np.float64)
    freq = np.asarray(freq, dtype=np.float64)
    q = float(sampling_fraction)
    u = float(freq.sum())
    f1 = float(freq[i == 1].sum())
    if q >= 1.0:
        return u
    log_q, log_q2 = math.log1p(-q), math.log1p(-q * q)
    num1 = float(np.dot(freq, i * q * q * np.exp((i - 1) * log_q2)))
    # (1-q²)^i - (1-q)^i as (1 - (1-q)^i) - (1 - (1-q²)^i): both near 1 at a small q, their
    # difference (about i q) would keep only log10(i q) + 16 digits
    den1 = float(np.dot(freq, np.expm1(i * log_q2) - np.expm1(i * log_q)))
    num2 = float(np.dot(freq, np.exp(i * log_q)))
    den2 = float(np.dot(freq, i * q * np.exp((i - 1) * log_q)))
    if den1 <= 0 or den2 <= 0:
        return u
    return u + f1 * (num1 / den1) * (num2 / den2) ** 2


def _snb_equations(params: np.ndarray, k: float, q: float, c1: float, c2: float) -> np.ndarray:
    alpha = math.exp(float(params[0]))
    logit = float(params[1])
    beta, one_minus_beta = float(special.expit(logit)), float(special.expit(-logit))
    d = (1 - q) * one_minus_beta
    # 1 - d = q + β(1 - q), without the cancellation of 1 - d at a small q and β (both near 1e-12
    # at a fraction of 1e-12: 1 - d would keep 4 digits and the equations no solution)
    one_minus_d = q + beta * (1 - q)
    log_beta, log_one_minus_d = float(special.log_expit(logit)), math.log(one_minus_d)
    e1 = math.log(k * q) + alpha * log_beta - alpha * log_one_minus_d + math.log1p(alpha * d / one_minus_d)
    e2 = (
        math.log(k) + math.log(alpha) + alpha * log_beta + 2 * math.log(q) + float(special.log_expit(-logit))
        - math.log(2.0) - (alpha + 2) * log_one_minus_d + math.log(2 - (1 - alpha) * d)
    )
    return np.array([e1 - math.log(c1), e2 - math.log(c2)])


def _snb_solve(k: float, q: float, c1: float, c2: float) -> tuple[float, np.ndarray] | None:
    """Solve the two moment equations from a grid of starts: ``(largest residual, (log alpha, logit beta))``."""
    best = None
    with warnings.catch_warnings(), np.errstate(all="ignore"):
        warnings.simplefilter("ignore")
        for log_alpha in (0.0, -2.0, 2.0, -5.0):
            for logit_beta in (0.0, -3.0, 3.0, -7.0):
                try:
                    res = optimize.root(_snb_equations, np.array([log_alpha, logit_beta]),
                                        args=(k, q, c1, c2), method="hybr")
                except (ValueError, OverflowError, ZeroDivisionError):
                    continue
                if not np.all(np.isfinite(res.fun)):
                    continue
                err = float(np.max(np.abs(res.fun)))
                if best is None or err < best[0]:
                    best = (err, res.x)
            if best is not None and best[0] < 1e-10:
                break
    return best


def snb_uniques(sizes: np.ndarray, freq: np.ndarray, n: int, big_n: int, *,
                population_classes: float | None = None) -> UniquenessEstimate:
    """Slide negative binomial model (Chen & Keller-McNulty 1998).

    ``population_classes`` gives :math:`K` instead of estimating it (used to
    show what another estimate of :math:`K` does to the model; see
    ``docs/risk.md`` on ARX).

    Notes
    -----
    The :math:`K` non-empty population classes have sizes :math:`F` with
    :math:`F - 1` negative binomial (shape :math:`\\alpha`, probability
    :math:`\\beta`), and each record is sampled with probability
    :math:`\\pi`.  From the probability generating function, with
    :math:`d = (1-\\pi)(1-\\beta)`, the expected numbers of sample classes of
    sizes 1 and 2 are

    .. math:: E f_1 = K\\pi\\Big(\\frac{\\beta}{1-d}\\Big)^{\\alpha}\\Big(1 + \\frac{\\alpha d}{1-d}\\Big),
              \\qquad
              E f_2 = \\frac{K\\alpha\\beta^{\\alpha}\\pi^2(1-\\beta)}{2(1-d)^{\\alpha+2}}\\,(2 - (1-\\alpha)d).

    :math:`K` is estimated first (:func:`shlosser_population_classes`), the
    two equations are solved for :math:`(\\alpha, \\beta)` (moment matching,
    as in ARX), and the population uniques are :math:`K\\beta^{\\alpha}`.
    The model needs at least one class of size 2.

    References
    ----------
    G. Chen and S. Keller-McNulty, "Estimation of identification disclosure
    risk in microdata", Journal of Official Statistics 14(1), 79-95, 1998.
    P. J. Haas, J. F. Naughton, S. Seshadri and L. Stokes, "Sampling-based
    estimation of the number of distinct values of an attribute", VLDB 1995.
    """
    c1 = float(freq[sizes == 1].sum())
    c2 = float(freq[sizes == 2].sum())
    q = n / big_n
    if c2 == 0:
        return _failed("snb", "the model needs at least one class of size 2")
    k = shlosser_population_classes(sizes, freq, q) if population_classes is None else float(population_classes)
    if not math.isfinite(k) or k <= 0:
        return _failed("snb", "the number of population classes could not be estimated")
    best = _snb_solve(k, q, c1, c2)
    if best is None or best[0] > 1e-7:
        return _failed("snb", "the moment equations have no solution", {"K": k})
    alpha, beta = math.exp(float(best[1][0])), float(special.expit(best[1][1]))
    params = {"alpha": alpha, "beta": beta, "K": k}
    # β^α through log β: at a small fraction β underflows to 0 while α log β stays moderate
    return _estimate("snb", k * math.exp(alpha * float(special.log_expit(best[1][1]))), big_n, params)
