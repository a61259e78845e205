"""αβ in theory: the (d, γ) region of Theorem 4.3, the posterior, the estimator and its error.

Rastogi, V., Suciu, D., Hong, S. (2007). The boundary between privacy and
utility in data publishing. VLDB, 531-542, Section 4.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

import numpy as np

from veil._validation import check_int, check_real
from veil.errors import ParameterError

#: Relative slack when comparing (α, β) with the bounds of Theorem 4.3, so that a
#: pair computed from those bounds in floating point is not rejected by one ulp.
_RTOL = 1e-12


def _check_alpha_beta(alpha: Any, beta: Any, owner: str) -> tuple[float, float]:
    alpha = check_real("alpha", alpha, owner, low=0.0, high=1.0, closed="right")
    beta = check_real("beta", beta, owner, low=0.0, high=1.0, closed="left")
    if alpha + beta > 1.0 + _RTOL:
        raise ParameterError(
            f"The 'alpha' and 'beta' parameters of {owner} must satisfy alpha + beta <= 1 "
            f"(a true tuple is kept with probability alpha + beta). Got alpha + beta = "
            f"{alpha + beta!r} instead."
        )
    return alpha, beta


def _check_d_gamma(d: Any, gamma: Any, owner: str) -> tuple[float, float]:
    d = check_real("d", d, owner, low=0.0, high=1.0, closed="left")
    gamma = check_real("gamma", gamma, owner, low=0.0, high=1.0, closed="right")
    if d >= gamma:
        raise ParameterError(
            f"The 'd' parameter of {owner} must be smaller than 'gamma' (the prior bound must be "
            f"below the posterior bound, else no alpha > 0 is private). Got d={d!r}, gamma={gamma!r} instead."
        )
    return d, gamma


@dataclass(frozen=True)
class AlphaBetaParameters:
    """The (α, β) region of Theorem 4.3 for (d, γ), and the recommended pair.

    Theorem 4.3 (Rastogi et al. 2007) makes the αβ algorithm (d, γ)-private
    when the share of inserted tuples among all published tuples with a given
    chance, :math:`\\beta/(\\alpha+\\beta)`, is at least ``min_beta_share`` and
    the retention probability :math:`\\alpha+\\beta` at most ``max_retention``:

    .. math::

        \\frac{\\beta}{\\alpha+\\beta} \\ge \\frac{d(1-\\gamma)}{\\gamma(1-d)}, \\qquad
        \\alpha+\\beta \\le 1 - \\frac{d}{\\gamma}.

    Attributes
    ----------
    d, gamma : float
        The prior bound of the d-independent adversary and the posterior bound.
    min_beta_share : float
        :math:`r = d(1-\\gamma)/(\\gamma(1-d))`.
    max_retention : float
        :math:`s = 1 - d/\\gamma`.
    alpha, beta : float
        The recommended pair, the corner :math:`\\alpha = s(1-r)`,
        :math:`\\beta = s r` of the region.  It minimises the variance of
        :func:`alpha_beta_estimate` for *every* query and instance over the
        whole region (the variance decreases in :math:`\\alpha+\\beta` and
        increases in :math:`\\beta/(\\alpha+\\beta)`; see
        ``docs/algorithms/randomization.md``), so it is the most useful
        private choice.
    """

    d: float
    gamma: float
    min_beta_share: float
    max_retention: float
    alpha: float
    beta: float

    def contains(self, alpha: float, beta: float) -> bool:
        """Whether (alpha, beta) lies in the region (same test as :func:`is_private`)."""
        return is_private(alpha, beta, d=self.d, gamma=self.gamma)


def alpha_beta_parameters(d: float, gamma: float) -> AlphaBetaParameters:
    """The feasible (α, β) region of Theorem 4.3 and its most useful pair.

    Parameters
    ----------
    d : float in [0, 1)
        Every tuple's prior probability (for a d-independent adversary) is at
        most ``d`` or exactly 1.  The paper's natural choice is
        :math:`d = k\\,n/m` for a small constant k, n = |I| and m = |D|.
    gamma : float in (0, 1], with d < gamma
        The largest allowed posterior probability that a tuple is in I.

    Returns
    -------
    AlphaBetaParameters

    Raises
    ------
    ParameterError
        ``d`` or ``gamma`` out of range, or ``d >= gamma``.

    Examples
    --------
    >>> p = alpha_beta_parameters(d=0.01, gamma=0.5)
    >>> round(p.min_beta_share, 6), round(p.max_retention, 6)   # 0.01*0.5/(0.5*0.99), 1 - 0.02
    (0.010101, 0.98)
    >>> round(p.alpha, 6), round(p.beta, 6)                      # 0.98*(1 - 1/99), 0.98/99
    (0.970101, 0.009899)
    """
    d, gamma = _check_d_gamma(d, gamma, "alpha_beta_parameters")
    r = d * (1.0 - gamma) / (gamma * (1.0 - d))
    s = 1.0 - d / gamma
    return AlphaBetaParameters(d=d, gamma=gamma, min_beta_share=r, max_retention=s,
                               alpha=s * (1.0 - r), beta=s * r)


def is_private(alpha: float, beta: float, d: float, gamma: float) -> bool:
    """Whether (α, β) meets the sufficient conditions of Theorem 4.3 for (d, γ)-privacy.

    Parameters
    ----------
    alpha : float in (0, 1]
    beta : float in [0, 1), with alpha + beta <= 1
    d : float in [0, 1)
    gamma : float in (0, 1], with d < gamma

    Returns
    -------
    bool
        :math:`\\beta/(\\alpha+\\beta) \\ge d(1-\\gamma)/(\\gamma(1-d))` and
        :math:`\\alpha+\\beta \\le 1 - d/\\gamma` (each up to a relative
        1e-12, so the pair :func:`alpha_beta_parameters` computes passes).

    Notes
    -----
    The conditions are exactly the worst cases of Bayes' rule over priors
    :math:`p \\le d` (see :func:`alpha_beta_posterior`): a published tuple
    has posterior :math:`p(\\alpha+\\beta)/(p(\\alpha+\\beta)+(1-p)\\beta) \\le \\gamma`
    iff the first holds at p = d; an unpublished one has
    :math:`\\Pr[t|V]/\\Pr[t] = (1-\\alpha-\\beta)/(1-p\\alpha-\\beta) \\ge 1-\\alpha-\\beta`,
    which is at least d/γ under the second.
    """
    alpha, beta = _check_alpha_beta(alpha, beta, "is_private")
    d, gamma = _check_d_gamma(d, gamma, "is_private")
    share = beta / (alpha + beta)
    need_share = d * (1.0 - gamma) / (gamma * (1.0 - d))
    max_keep = 1.0 - d / gamma
    return bool(share >= need_share * (1.0 - _RTOL) and alpha + beta <= max_keep * (1.0 + _RTOL))


def alpha_beta_posterior(alpha: float, beta: float, prior: Any) -> tuple[np.ndarray, np.ndarray]:
    """Bayes' posterior that a tuple is in I, after seeing whether it is in V.

    For a tuple-independent adversary with prior ``p = Pr[t ∈ I]``:

    .. math::

        \\Pr[t \\in I \\mid t \\in V] = \\frac{p(\\alpha+\\beta)}{p(\\alpha+\\beta)+(1-p)\\beta},
        \\qquad
        \\Pr[t \\in I \\mid t \\notin V] = \\frac{p(1-\\alpha-\\beta)}{p(1-\\alpha-\\beta)+(1-p)(1-\\beta)}.

    Parameters
    ----------
    alpha : float in (0, 1]
    beta : float in [0, 1), with alpha + beta <= 1
    prior : float or array of floats in [0, 1]

    Returns
    -------
    (posterior_if_published, posterior_if_not_published) : tuple of numpy.ndarray
        Same shape as ``prior``.
    """
    alpha, beta = _check_alpha_beta(alpha, beta, "alpha_beta_posterior")
    p = np.asarray(prior, dtype=float)
    if np.isnan(p).any() or (p < 0).any() or (p > 1).any():
        raise ParameterError("The 'prior' parameter of alpha_beta_posterior must be in [0, 1].")
    keep = alpha + beta
    with np.errstate(invalid="ignore", divide="ignore"):
        seen = p * keep / (p * keep + (1 - p) * beta)
        unseen = p * (1 - keep) / (p * (1 - keep) + (1 - p) * (1 - beta))
    # 0/0 cases: the event has probability 0; the posterior then equals the prior
    seen = np.where(np.isnan(seen), p, seen)
    unseen = np.where(np.isnan(unseen), p, unseen)
    return seen, unseen


def alpha_beta_estimate(count_in_V: Any, count_in_D: Any, alpha: float, beta: float) -> Any:
    """The unbiased estimate of a counting query from the αβ view.

    .. math:: \\widetilde{Q}(V) = \\frac{n_V - \\beta\\,n_D}{\\alpha}

    Parameters
    ----------
    count_in_V : int or array
        :math:`n_V = Q(V)`, the tuples of the published view that satisfy Q.
    count_in_D : int or array
        :math:`n_D = Q(D)`, the tuples of the whole domain that satisfy Q
        (computable without the data: a product of per-column counts for a
        conjunctive selection).
    alpha : float in (0, 1]
    beta : float in [0, 1), with alpha + beta <= 1

    Returns
    -------
    float or numpy.ndarray
        The estimate of Q(I), the number of *distinct* tuples of I satisfying
        Q (:func:`alpha_beta` treats I as a set).

    Notes
    -----
    :math:`n_V` is the sum of :math:`\\mathrm{Bin}(Q(I), \\alpha+\\beta)` and
    :math:`\\mathrm{Bin}(n_D - Q(I), \\beta)`, whose mean is
    :math:`\\alpha Q(I) + \\beta n_D`; the estimate is therefore unbiased, with
    the variance of :func:`alpha_beta_variance`.
    """
    alpha, beta = _check_alpha_beta(alpha, beta, "alpha_beta_estimate")
    n_v = np.asarray(count_in_V, dtype=float)
    n_d = np.asarray(count_in_D, dtype=float)
    out = (n_v - beta * n_d) / alpha
    return float(out) if out.ndim == 0 else out


def alpha_beta_variance(true_count: Any, count_in_D: Any, alpha: float, beta: float) -> Any:
    """The variance of :func:`alpha_beta_estimate` for a query with Q(I) = ``true_count``.

    .. math::

        \\operatorname{Var}\\widetilde{Q} =
        \\frac{Q(I)(\\alpha+\\beta)(1-\\alpha-\\beta) + (n_D - Q(I))\\,\\beta(1-\\beta)}{\\alpha^2}

    Parameters
    ----------
    true_count : int or array
        Q(I), distinct tuples of I that satisfy Q.
    count_in_D : int or array
        n_D = Q(D) (at least ``true_count``).
    alpha, beta : float
        As in :func:`alpha_beta`.
    """
    alpha, beta = _check_alpha_beta(alpha, beta, "alpha_beta_variance")
    q = np.asarray(true_count, dtype=float)
    n_d = np.asarray(count_in_D, dtype=float)
    if (q < 0).any() or (n_d < q).any():
        raise ParameterError(
            "alpha_beta_variance needs 0 <= true_count <= count_in_D (a query cannot select more "
            "true tuples than domain tuples)."
        )
    keep = alpha + beta
    out = (q * keep * (1 - keep) + (n_d - q) * beta * (1 - beta)) / alpha**2
    return float(out) if out.ndim == 0 else out


def alpha_beta_usefulness(alpha: float, beta: float, *, n: int, m: int, epsilon: float) -> float:
    """The ρ for which the αβ algorithm is (ρ, ε)-useful on instances of n tuples over |D| = m.

    (ρ, ε)-usefulness (Rastogi et al., Definition 2.5):
    :math:`\\Pr[|Q(I) - \\widetilde{Q}(V)| \\ge \\rho\\sqrt{n}] \\le \\epsilon` for every
    query Q and every instance I with n tuples.

    Parameters
    ----------
    alpha : float in (0, 1]
    beta : float in [0, 1), with alpha + beta <= 1
    n : int in [1, m]
        |I|, the number of distinct tuples.
    m : int in [1, inf)
        |D|.
    epsilon : float in (0, 1]

    Returns
    -------
    float
        :math:`\\rho = \\sqrt{V_{\\max}/(n\\,\\epsilon)}` with
        :math:`V_{\\max} = \\max(n(\\alpha+\\beta)(1-\\alpha-\\beta) + (m-n)\\beta(1-\\beta),\\;
        m\\beta(1-\\beta))/\\alpha^2`.

    Notes
    -----
    This is derived here, not copied from the paper's Theorem 4.4 (whose
    constants differ): :math:`V_{\\max}` is the largest value of
    :func:`alpha_beta_variance` over :math:`0 \\le Q(I) \\le n`,
    :math:`Q(I) \\le n_D \\le m` (it is linear in Q(I) and increasing in
    :math:`n_D`), and Chebyshev's inequality gives
    :math:`\\Pr[|\\widetilde{Q} - Q(I)| \\ge \\rho\\sqrt n] \\le V_{\\max}/(\\rho^2 n) = \\epsilon`.
    It holds for every n, m with no approximation; a normal approximation
    would give a smaller ρ for large counts.  With the paper's
    :math:`d = k n/m` and the recommended pair, :math:`\\beta m \\approx
    (\\alpha+\\beta) k n (1-\\gamma)/\\gamma`, so ρ is of order :math:`\\sqrt{k/\\gamma}`
    (up to the 1/α and 1/√ε factors), the trade-off the paper proves.
    """
    alpha, beta = _check_alpha_beta(alpha, beta, "alpha_beta_usefulness")
    m = check_int("m", m, "alpha_beta_usefulness", low=1)
    n = check_int("n", n, "alpha_beta_usefulness", low=1, high=m)
    epsilon = check_real("epsilon", epsilon, "alpha_beta_usefulness", low=0.0, high=1.0, closed="right")
    keep = alpha + beta
    v_max = max(n * keep * (1 - keep) + (m - n) * beta * (1 - beta), m * beta * (1 - beta)) / alpha**2
    return math.sqrt(v_max / (n * epsilon))
