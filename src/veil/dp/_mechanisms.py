"""Additive-noise mechanisms on OpenDP's samplers (its ``contrib`` feature).

Each mechanism is a small frozen dataclass holding its parameters (validated
in ``__post_init__``), the noise ``scale`` it derived from them, its privacy
``budget`` (the cost of one release) and a ``release`` method.  The noise is
always drawn by OpenDP (see :mod:`veil.dp._sampler`); numpy only shapes arrays.
"""

from __future__ import annotations

import functools
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
    "PermuteAndFlip",
    "analytic_gaussian_sigma",
    "EPSILON_RANGE",
]

#: The ε veil accepts: below it the noise scale Δ/ε leaves the range of
#: doubles OpenDP can sample at; above it the noise is below the float grid
#: and the guarantee is void in practice.
EPSILON_RANGE = (1e-9, 1e4)


def _check_epsilon(value: Any, owner: str) -> float:
    eps = check_real("epsilon", value, owner, low=0.0, closed="neither")
    lo, hi = EPSILON_RANGE
    if not lo <= eps <= hi:
        raise ParameterError(
            f"The 'epsilon' parameter of {owner} must be a float in [{lo:g}, {hi:g}] (outside it "
            f"the noise cannot be calibrated on OpenDP's samplers). Got {value!r} instead."
        )
    return eps


def check_epsilon(value: Any, owner: str) -> float:
    """Validate an ε for a mechanism: a float in :data:`EPSILON_RANGE`; return it as float."""
    return _check_epsilon(value, owner)


def check_sensitivity(value: Any, owner: str) -> float:
    """Validate a sensitivity: a finite float > 0; return it as float."""
    return _check_sensitivity(value, owner)


def calibrated(build: Any, sensitivity: Any, target: Any, scale: float) -> tuple[Any, float]:
    """The measurement ``build(scale')`` with the smallest ``scale' >= scale`` (by ulps) whose
    OpenDP map certifies ``target`` at ``sensitivity``, and that scale."""
    return _calibrated(build, sensitivity, target, scale)


def set_fields(obj: Any, **values: Any) -> None:
    """Set validated or derived fields on a frozen (slotted) dataclass from its ``__post_init__``."""
    for name, value in values.items():
        object.__setattr__(obj, name, value)


def _additive_noise(mechanism: Any, sensitivity: Any, kind: Any, maker: str) -> None:
    """Validate ``mechanism``'s ε, calibrate OpenDP's ``maker`` (Laplace or geometric noise over
    values of ``kind``) to ε at ``sensitivity`` and set the mechanism's fields."""
    eps = _check_epsilon(mechanism.epsilon, type(mechanism).__name__)
    dp = opendp()
    atom = dp.atom_domain(T=kind, nan=False) if kind is float else dp.atom_domain(T=kind)
    space = (atom, dp.absolute_distance(T=kind))
    build = getattr(dp.m, maker)
    meas, scale = _calibrated(lambda b: build(*space, scale=b), sensitivity, eps, sensitivity / eps)
    set_fields(mechanism, epsilon=eps, sensitivity=sensitivity, scale=scale, _scalar=meas, _vector=None)


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
    from opendp.mod import OpenDPException

    for _ in range(64):
        try:
            meas = build(scale)
            if meas.check(sensitivity, target):
                return meas, scale
        except OpenDPException:
            raise ParameterError(
                f"OpenDP cannot calibrate noise of scale {scale!r} for sensitivity "
                f"{sensitivity!r}; choose epsilon and the bounds so that sensitivity/epsilon is "
                "a moderate number."
            ) from None
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
class _AdditiveNoise:
    """The fields and the cost the Laplace and geometric mechanisms share: ε, the
    sensitivity, the noise ``scale`` calibrated from them (set by
    :func:`_additive_noise`) and OpenDP's scalar and (built on first use)
    vector measurements."""

    epsilon: float
    sensitivity: float = 1.0
    scale: float = field(init=False)
    _scalar: Any = field(init=False, repr=False, compare=False)
    _vector: Any = field(init=False, repr=False, compare=False)

    @property
    def budget(self) -> PrivacyBudget:
        """The cost of one release."""
        return PrivacyBudget(epsilon=self.epsilon)


@dataclass(frozen=True, slots=True, kw_only=True)
class LaplaceMechanism(_AdditiveNoise):
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

    def __post_init__(self) -> None:
        sens = _check_sensitivity(self.sensitivity, type(self).__name__)
        _additive_noise(self, sens, float, "make_laplace")

    def release(self, value: Any) -> Any:
        """Return ``value`` plus fresh Laplace noise (a float, or an array for an array)."""
        return _release_floats(self, value, "l1_distance", "make_laplace")


@dataclass(frozen=True, slots=True, kw_only=True)
class GeometricMechanism(_AdditiveNoise):
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

    sensitivity: int = 1

    def __post_init__(self) -> None:
        sens = check_int("sensitivity", self.sensitivity, type(self).__name__, low=1)
        _additive_noise(self, sens, "i64", "make_geometric")

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


@functools.lru_cache(maxsize=256)
def certified_gaussian_sigma(epsilon: float, delta: float, sensitivity: float) -> float:
    """The smallest σ (to 1e-9 relative) at which OpenDP certifies (ε, δ) for its Gaussian.

    The measurement is OpenDP's ``make_gaussian`` (a discrete Gaussian on a
    fine grid, Canonne, Kamath & Steinke 2020), whose privacy map is ρ-zCDP
    with :math:`\\rho = \\Delta^2/(2\\sigma^2)`; the (ε, δ) is OpenDP's
    ``make_fix_delta(make_zCDP_to_approxDP(...), δ)`` map of it.  Bisection
    from the analytic σ of the continuous Gaussian (a lower bound).
    """
    lo = analytic_gaussian_sigma(epsilon=epsilon, delta=delta, sensitivity=sensitivity)
    if _gaussian_certified_epsilon(lo, delta, sensitivity) <= epsilon:
        return lo
    hi = lo * 2.0
    while _gaussian_certified_epsilon(hi, delta, sensitivity) > epsilon:
        lo, hi = hi, hi * 2.0
    while hi - lo > 1e-9 * hi:
        mid = 0.5 * (lo + hi)
        if _gaussian_certified_epsilon(mid, delta, sensitivity) > epsilon:
            lo = mid
        else:
            hi = mid
    return hi


def _gaussian_measurements(sigma: float) -> tuple[Any, Any]:
    dp = opendp()
    meas = dp.m.make_gaussian(dp.atom_domain(T=float, nan=False), dp.absolute_distance(T=float),
                              scale=sigma)
    return meas, dp.c.make_zCDP_to_approxDP(meas)


def _gaussian_certified_epsilon(sigma: float, delta: float, sensitivity: float) -> float:
    """ε OpenDP certifies at δ for its Gaussian of scale σ at sensitivity Δ."""
    return float(_gaussian_measurements(sigma)[1].map(sensitivity).epsilon(delta))


@dataclass(frozen=True, slots=True, kw_only=True)
class GaussianMechanism:
    """The Gaussian mechanism for (ε, δ)-DP, certified at the sampler actually run.

    Parameters
    ----------
    epsilon : float in [1e-9, 1e4]
    delta : float in (0, 1)
    sensitivity : float in (0, inf)
        The L2 sensitivity Δ₂ of the query.

    Attributes
    ----------
    scale : float
        The standard deviation σ from :func:`certified_gaussian_sigma`.
    rho : float
        The zCDP cost from OpenDP's privacy map of the measurement,
        :math:`\\Delta^2/(2\\sigma^2)`.
    certified_epsilon : float
        The ε OpenDP's conversion certifies at δ (at most ``epsilon``).

    Notes
    -----
    :math:`M(D) = f(D) + Z` with Z drawn by OpenDP's ``make_gaussian``, a
    discrete Gaussian on a fine grid (Canonne, Kamath & Steinke 2020).  Its
    privacy map is ρ-zCDP; (ε, δ) comes from OpenDP's ``make_zCDP_to_approxDP``
    and ``make_fix_delta`` of that same measurement.  The analytic curve of the
    continuous Gaussian (Balle & Wang 2018, :func:`analytic_gaussian_sigma`)
    gives a smaller σ, which OpenDP does not certify for its discrete sampler
    (σ = 3.7306 at ε = 1, δ = 1e-5 maps to ε = 1.092); veil uses it only as
    the start of the search.

    References
    ----------
    Canonne, C., Kamath, G., Steinke, T. (2020). The discrete Gaussian for
    differential privacy. NeurIPS.
    Balle, B., Wang, Y.-X. (2018). Improving the Gaussian mechanism for
    differential privacy: analytical calibration and optimal denoising. ICML.
    """

    epsilon: float
    delta: float
    sensitivity: float = 1.0
    scale: float = field(init=False)
    rho: float = field(init=False)
    certified_epsilon: float = field(init=False)
    _scalar: Any = field(init=False, repr=False, compare=False)
    _vector: Any = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        owner = type(self).__name__
        eps = _check_epsilon(self.epsilon, owner)
        dlt = check_real("delta", self.delta, owner, low=0.0, high=1.0, closed="neither")
        sens = _check_sensitivity(self.sensitivity, owner)
        sigma = certified_gaussian_sigma(eps, dlt, sens)
        meas, approx = _gaussian_measurements(sigma)
        set_fields(
            self,
            epsilon=eps,
            delta=dlt,
            sensitivity=sens,
            scale=sigma,
            rho=float(meas.map(sens)),
            certified_epsilon=float(approx.map(sens).epsilon(dlt)),
            _scalar=meas,
            _vector=None,
        )

    @property
    def budget(self) -> PrivacyBudget:
        """The cost of one release."""
        return PrivacyBudget(epsilon=self.epsilon, delta=self.delta)

    def release(self, value: Any) -> Any:
        """Return ``value`` plus fresh Gaussian noise of scale σ (float or array)."""
        return _release_floats(self, value, "l2_distance", "make_gaussian")

