"""Additive-noise and selection mechanisms on OpenDP's vetted samplers.

Each mechanism is a small frozen dataclass holding its parameters (validated
in ``__post_init__``), the noise ``scale`` it derived from them, its privacy
``budget`` (the cost of one release) and a ``release`` method.  The noise is
always drawn by OpenDP (see :mod:`veil.dp._sampler`); numpy only shapes arrays.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any, Sequence

import numpy as np
from scipy.special import log_ndtr

from veil._validation import check_int, check_real
from veil.dp._accountant import PrivacyBudget
from veil.dp._sampler import opendp
from veil.errors import ParameterError

__all__ = [
    "LaplaceMechanism",
    "GaussianMechanism",
    "GeometricMechanism",
    "ExponentialMechanism",
    "analytic_gaussian_sigma",
]


def _check_epsilon(value: Any, owner: str) -> float:
    eps = check_real("epsilon", value, owner, low=0.0, closed="neither")
    if math.isinf(eps):
        raise ParameterError(
            f"The 'epsilon' parameter of {owner} must be a float in (0, inf). Got {value!r} instead."
        )
    return eps


def _check_sensitivity(value: Any, owner: str) -> float:
    s = check_real("sensitivity", value, owner, low=0.0, closed="neither")
    if math.isinf(s):
        raise ParameterError(
            f"The 'sensitivity' parameter of {owner} must be a float in (0, inf). "
            f"Got {value!r} instead."
        )
    return s


def _calibrated(build, sensitivity: Any, target: Any, scale: float) -> tuple[Any, float]:
    """Build ``build(scale)``; widen ``scale`` by ulps until OpenDP's map certifies ``target``.

    OpenDP rounds its privacy maps conservatively, so Δ/ε may map to ε plus an
    ulp; the few extra ulps of noise make the stated ε exactly true.
    """
    for _ in range(64):
        meas = build(scale)
        if meas.check(sensitivity, target):
            return meas, scale
        scale = math.nextafter(scale, math.inf) * (1 + 1e-15)
    raise ParameterError(  # pragma: no cover - OpenDP's rounding is a few ulps
        f"OpenDP could not certify the requested privacy level {target!r} at scale {scale!r}."
    )


def _as_release(values: Any) -> tuple[np.ndarray, bool]:
    arr = np.asarray(values, dtype=float)
    if not np.all(np.isfinite(arr)):
        raise ParameterError("The value to release must be finite (no NaN or infinity).")
    return arr, arr.ndim == 0


def _release_floats(mechanism: Any, value: Any, distance: str, constructor: str) -> Any:
    """Release a float or an array of floats through ``mechanism``'s OpenDP measurement:
    the scalar one built up front, the vector one (``constructor`` over ``distance``,
    same scale) built on first use."""
    arr, scalar = _as_release(value)
    if scalar:
        return float(mechanism._scalar(float(arr)))
    if mechanism._vector is None:
        dp = opendp()
        space = (dp.vector_domain(dp.atom_domain(T=float, nan=False)), getattr(dp, distance)(T=float))
        object.__setattr__(mechanism, "_vector", getattr(dp.m, constructor)(*space, scale=mechanism.scale))
    return np.asarray(mechanism._vector(arr.ravel().tolist()), dtype=float).reshape(arr.shape)


@dataclass(frozen=True, slots=True, kw_only=True)
class LaplaceMechanism:
    """The Laplace mechanism: add Laplace(Δf/ε) noise to a real-valued answer.

    Parameters
    ----------
    epsilon : float in (0, inf)
        The privacy-loss bound ε of one release.
    sensitivity : float in (0, inf)
        The L1 sensitivity Δf of the query over neighbouring tables (for a
        vector answer, of the whole vector).

    Attributes
    ----------
    scale : float
        The Laplace scale :math:`b = \\Delta f / \\varepsilon` (standard
        deviation :math:`\\sqrt{2} b`; mean absolute error :math:`b`).

    Notes
    -----
    :math:`M(D) = f(D) + \\mathrm{Lap}(0, \\Delta f/\\varepsilon)` is ε-DP
    (Dwork et al. 2006): :math:`\\Pr[M(D_1) \\in S] \\le e^{\\varepsilon}
    \\Pr[M(D_2) \\in S]` for neighbours :math:`D_1, D_2`.  The noise is OpenDP's
    ``make_laplace``, which samples a discrete Laplace on a power-of-two grid
    with exact arithmetic, so it does not leak through float rounding
    (Mironov 2012).

    References
    ----------
    Dwork, C., McSherry, F., Nissim, K., Smith, A. (2006). Calibrating noise to
    sensitivity in private data analysis. TCC.
    Mironov, I. (2012). On significance of the least significant bits for
    differential privacy. CCS.

    Examples
    --------
    >>> LaplaceMechanism(epsilon=0.5, sensitivity=7.0).scale
    14.0
    """

    epsilon: float
    sensitivity: float = 1.0
    scale: float = field(init=False)
    _scalar: Any = field(init=False, repr=False, compare=False)
    _vector: Any = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        owner = type(self).__name__
        eps = _check_epsilon(self.epsilon, owner)
        sens = _check_sensitivity(self.sensitivity, owner)
        dp = opendp()
        space = (dp.atom_domain(T=float, nan=False), dp.absolute_distance(T=float))
        meas, scale = _calibrated(lambda b: dp.m.make_laplace(*space, scale=b), sens, eps, sens / eps)
        object.__setattr__(self, "epsilon", eps)
        object.__setattr__(self, "sensitivity", sens)
        object.__setattr__(self, "scale", scale)
        object.__setattr__(self, "_scalar", meas)
        object.__setattr__(self, "_vector", None)

    @property
    def budget(self) -> PrivacyBudget:
        """The cost of one release."""
        return PrivacyBudget(epsilon=self.epsilon)

    def release(self, value: Any) -> Any:
        """Return ``value`` plus fresh Laplace noise (a float, or an array for an array)."""
        return _release_floats(self, value, "l1_distance", "make_laplace")


@dataclass(frozen=True, slots=True, kw_only=True)
class GeometricMechanism:
    """The geometric (discrete Laplace) mechanism for integer answers such as counts.

    Parameters
    ----------
    epsilon : float in (0, inf)
        The privacy-loss bound ε of one release.
    sensitivity : int in [1, inf)
        The L1 sensitivity of the integer query (1 for a count under add/remove
        neighbours).

    Attributes
    ----------
    scale : float
        :math:`b = \\Delta f/\\varepsilon`; the noise :math:`Z` has
        :math:`\\Pr[Z = z] \\propto e^{-|z|/b}` on the integers.

    Notes
    -----
    Integer in, integer out: no floating point touches the release.  The
    sampler is OpenDP's ``make_geometric`` (Ghosh, Roughgarden & Sundararajan
    2012), which is ε-DP for :math:`\\varepsilon = \\Delta f / b`.

    References
    ----------
    Ghosh, A., Roughgarden, T., Sundararajan, M. (2012). Universally
    utility-maximizing privacy mechanisms. SIAM J. Comput.

    Examples
    --------
    >>> GeometricMechanism(epsilon=1.0, sensitivity=1).scale
    1.0
    """

    epsilon: float
    sensitivity: int = 1
    scale: float = field(init=False)
    _scalar: Any = field(init=False, repr=False, compare=False)
    _vector: Any = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        owner = type(self).__name__
        eps = _check_epsilon(self.epsilon, owner)
        sens = check_int("sensitivity", self.sensitivity, owner, low=1)
        dp = opendp()
        space = (dp.atom_domain(T="i64"), dp.absolute_distance(T="i64"))
        meas, scale = _calibrated(lambda b: dp.m.make_geometric(*space, scale=b), sens, eps, sens / eps)
        object.__setattr__(self, "epsilon", eps)
        object.__setattr__(self, "sensitivity", sens)
        object.__setattr__(self, "scale", scale)
        object.__setattr__(self, "_scalar", meas)
        object.__setattr__(self, "_vector", None)

    @property
    def budget(self) -> PrivacyBudget:
        """The cost of one release."""
        return PrivacyBudget(epsilon=self.epsilon)

    def release(self, value: Any) -> Any:
        """Return the integer ``value`` (or int array) plus discrete Laplace noise."""
        arr = np.asarray(value)
        if arr.dtype.kind not in "iub":
            if arr.dtype.kind == "f" and np.all(np.isfinite(arr)) and np.all(arr == np.round(arr)):
                arr = arr.astype(np.int64)
            else:
                raise ParameterError(
                    "GeometricMechanism releases integers only; round or use LaplaceMechanism."
                )
        if arr.ndim == 0:
            return int(self._scalar(int(arr)))
        if self._vector is None:
            dp = opendp()
            space = (dp.vector_domain(dp.atom_domain(T="i64")), dp.l1_distance(T="i64"))
            object.__setattr__(self, "_vector", dp.m.make_geometric(*space, scale=self.scale))
        flat = arr.astype(np.int64).ravel()
        return np.asarray(self._vector(flat.tolist()), dtype=np.int64).reshape(arr.shape)


def _gaussian_delta(sigma: float, epsilon: float, sensitivity: float) -> float:
    """δ achieved by N(0, σ²) at (ε, Δ): Balle & Wang (2018), Theorem 8."""
    a = sensitivity / (2.0 * sigma)
    b = epsilon * sigma / sensitivity
    first = math.exp(log_ndtr(a - b))
    second = math.exp(epsilon + log_ndtr(-a - b))
    return max(first - second, 0.0)


def analytic_gaussian_sigma(*, epsilon: float, delta: float, sensitivity: float) -> float:
    """The smallest σ for which Gaussian noise is (ε, δ)-DP (analytic calibration).

    Parameters
    ----------
    epsilon : float in (0, inf)
    delta : float in (0, 1)
    sensitivity : float in (0, inf)
        The L2 sensitivity Δ₂.

    Returns
    -------
    float
        σ with :math:`\\Phi(\\frac{\\Delta}{2\\sigma} - \\frac{\\varepsilon\\sigma}{\\Delta})
        - e^{\\varepsilon}\\Phi(-\\frac{\\Delta}{2\\sigma} - \\frac{\\varepsilon\\sigma}{\\Delta})
        \\le \\delta`, found by bisection and rounded up (never below the exact value
        by more than 1e-12 relative).

    Notes
    -----
    Unlike the classical :math:`\\sigma = \\Delta\\sqrt{2\\ln(1.25/\\delta)}/\\varepsilon`
    it is exact and valid for every ε > 0, not only ε < 1.

    References
    ----------
    Balle, B., Wang, Y.-X. (2018). Improving the Gaussian mechanism for
    differential privacy: analytical calibration and optimal denoising. ICML.
    Theorem 8 / Algorithm 1.
    """
    owner = "analytic_gaussian_sigma"
    eps = _check_epsilon(epsilon, owner)
    dlt = check_real("delta", delta, owner, low=0.0, high=1.0, closed="neither")
    sens = _check_sensitivity(sensitivity, owner)
    lo, hi = 1e-12 * sens, sens
    while _gaussian_delta(hi, eps, sens) > dlt:
        hi *= 2.0
    for _ in range(200):
        mid = 0.5 * (lo + hi)
        if _gaussian_delta(mid, eps, sens) > dlt:
            lo = mid
        else:
            hi = mid
        if hi - lo <= 1e-13 * hi:
            break
    return hi


@dataclass(frozen=True, slots=True, kw_only=True)
class GaussianMechanism:
    """The Gaussian mechanism for (ε, δ)-DP with analytic calibration.

    Parameters
    ----------
    epsilon : float in (0, inf)
    delta : float in (0, 1)
    sensitivity : float in (0, inf)
        The L2 sensitivity Δ₂ of the query.

    Attributes
    ----------
    scale : float
        The standard deviation σ from :func:`analytic_gaussian_sigma`.

    Notes
    -----
    :math:`M(D) = f(D) + \\mathcal{N}(0, \\sigma^2)`.  σ is calibrated with the
    exact (ε, δ) curve of Balle & Wang (2018); the noise is drawn by OpenDP's
    ``make_gaussian`` (a discrete Gaussian on a fine grid, Canonne, Kamath &
    Steinke 2020), which OpenDP itself accounts in zCDP with
    :math:`\\rho = \\Delta^2 / (2\\sigma^2)`.

    References
    ----------
    Balle, B., Wang, Y.-X. (2018). Improving the Gaussian mechanism for
    differential privacy: analytical calibration and optimal denoising. ICML.
    Canonne, C., Kamath, G., Steinke, T. (2020). The discrete Gaussian for
    differential privacy. NeurIPS.
    """

    epsilon: float
    delta: float
    sensitivity: float = 1.0
    scale: float = field(init=False)
    _scalar: Any = field(init=False, repr=False, compare=False)
    _vector: Any = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        owner = type(self).__name__
        eps = _check_epsilon(self.epsilon, owner)
        dlt = check_real("delta", self.delta, owner, low=0.0, high=1.0, closed="neither")
        sens = _check_sensitivity(self.sensitivity, owner)
        sigma = analytic_gaussian_sigma(epsilon=eps, delta=dlt, sensitivity=sens)
        dp = opendp()
        space = (dp.atom_domain(T=float, nan=False), dp.absolute_distance(T=float))
        object.__setattr__(self, "epsilon", eps)
        object.__setattr__(self, "delta", dlt)
        object.__setattr__(self, "sensitivity", sens)
        object.__setattr__(self, "scale", sigma)
        object.__setattr__(self, "_scalar", dp.m.make_gaussian(*space, scale=sigma))
        object.__setattr__(self, "_vector", None)

    @property
    def budget(self) -> PrivacyBudget:
        """The cost of one release."""
        return PrivacyBudget(epsilon=self.epsilon, delta=self.delta)

    def release(self, value: Any) -> Any:
        """Return ``value`` plus fresh N(0, σ²) noise (float or array)."""
        return _release_floats(self, value, "l2_distance", "make_gaussian")


@dataclass(frozen=True, slots=True, kw_only=True)
class ExponentialMechanism:
    """The exponential mechanism: pick a candidate with probability ∝ exp(ε u / (2Δu)).

    Parameters
    ----------
    epsilon : float in (0, inf)
    sensitivity : float in (0, inf)
        Δu, the most one person can change any candidate's utility score.

    Notes
    -----
    :math:`\\Pr[M(D) = r] \\propto \\exp\\big(\\varepsilon\\, u(D, r) / (2\\Delta u)\\big)`
    (McSherry & Talwar 2007).  Implemented as report-noisy-max with Gumbel
    noise of scale :math:`2\\Delta u/\\varepsilon`, which has exactly this
    distribution; the sampler is OpenDP's ``make_noisy_max``.

    References
    ----------
    McSherry, F., Talwar, K. (2007). Mechanism design via differential privacy.
    FOCS.
    """

    epsilon: float
    sensitivity: float = 1.0
    scale: float = field(init=False)
    _meas: Any = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        owner = type(self).__name__
        eps = _check_epsilon(self.epsilon, owner)
        sens = _check_sensitivity(self.sensitivity, owner)
        dp = opendp()
        space = (dp.vector_domain(dp.atom_domain(T=float, nan=False)), dp.linf_distance(T=float))

        def build(b: float) -> Any:
            return dp.m.make_noisy_max(*space, dp.max_divergence(), scale=b)

        meas, scale = _calibrated(build, sens, eps, 2.0 * sens / eps)
        object.__setattr__(self, "epsilon", eps)
        object.__setattr__(self, "sensitivity", sens)
        object.__setattr__(self, "scale", scale)
        object.__setattr__(self, "_meas", meas)

    @property
    def budget(self) -> PrivacyBudget:
        """The cost of one selection."""
        return PrivacyBudget(epsilon=self.epsilon)

    def select(self, scores: Sequence[float]) -> int:
        """Return the index of the privately selected candidate (higher score = better)."""
        arr, _ = _as_release(scores)
        if arr.ndim != 1 or arr.size == 0:
            raise ParameterError("ExponentialMechanism.select needs a non-empty 1-d list of scores.")
        return int(self._meas(arr.tolist()))
