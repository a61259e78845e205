"""Hypothetical and perceived information: how much an observation tells about who it is.

Users :math:`u \\in U` with prior :math:`\\Pr[u]` produce observations
:math:`o`; :math:`H[U] = -\\sum_u \\Pr[u]\\log_2\\Pr[u]`.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from veil._validation import check_real
from veil.classes import ClassTable
from veil.errors import ParameterError

__all__ = ["InformationResult", "hypothetical_information", "perceived_information"]


@dataclass(frozen=True)
class InformationResult:
    """Information (in bits) an observation carries about the user's identity.

    Attributes
    ----------
    bits : float
        HI or PI.
    entropy : float
        :math:`H[U]`, the most there is to learn.
    fraction : float
        ``bits / entropy`` (0 when there is one user): 1 means an observation
        identifies its user.
    kind : {"hypothetical", "perceived"}
    """

    bits: float
    entropy: float
    kind: str

    @property
    def fraction(self) -> float:
        return self.bits / self.entropy if self.entropy > 0 else 0.0

    def to_dict(self) -> dict[str, Any]:
        return {"kind": self.kind, "bits": self.bits, "entropy": self.entropy, "fraction": self.fraction}


def _xlog2(p: np.ndarray) -> np.ndarray:
    out = np.zeros_like(p, dtype=np.float64)
    np.log2(p, out=out, where=p > 0)
    return out


def _prior(prior: Any, users: int) -> np.ndarray:
    if prior is None:
        return np.full(users, 1.0 / users)
    p = np.asarray(prior, dtype=np.float64).reshape(-1)
    if p.shape != (users,) or not np.all(np.isfinite(p)) or (p < 0).any() or not p.sum() > 0:
        raise ParameterError(
            f"The prior must be {users} finite non-negative weights, one per user, not all zero."
        )
    return p / p.sum()


def hypothetical_information(source: Any, *, prior: Any = None) -> InformationResult:
    """Hypothetical information HI(U; O): what one observation reveals if the model is right.

    Parameters
    ----------
    source : ClassTable or 2-D array
        Either a probabilistic database, ``source[u, o] = Pr[o | u]`` (rows
        are users, summing to 1), or a class table, where each record is a
        user whose one observation is its QI combination.
    prior : array of float, optional
        :math:`\\Pr[u]`; default uniform.

    Returns
    -------
    InformationResult

    Notes
    -----
    .. math:: HI(U; O) = H[U] + \\sum_u \\Pr[u] \\sum_o \\Pr[o\\mid u]\\log_2 \\Pr[u\\mid o],
              \\qquad \\Pr[u\\mid o] = \\frac{\\Pr[o\\mid u]\\Pr[u]}{\\sum_{u'}\\Pr[o\\mid u']\\Pr[u']},

    i.e. the mutual information :math:`I(U;O)`.  For a class table
    (deterministic observations, uniform users) it is
    :math:`\\log_2 n - \\frac1n\\sum_j f_j\\log_2 f_j`: :math:`\\log_2 n` bits
    when every record is unique, 0 when all share one class.

    References
    ----------
    Seed 002 ("hypothetical information" and "perceived information").
    F.-X. Standaert, T. Malkin and M. Yung, "A unified framework for the
    analysis of side-channel key recovery attacks", EUROCRYPT 2009 (the
    information-theoretic metric these definitions follow).

    Examples
    --------
    >>> hypothetical_information([[1.0, 0.0], [0.0, 1.0]]).bits
    1.0
    """
    if isinstance(source, ClassTable):
        counts = source.counts.astype(np.float64)
        n = float(counts.sum())
        if prior is not None:
            raise ParameterError("A class table's users are its records, uniformly; do not pass a prior.")
        if n == 0:
            return InformationResult(0.0, 0.0, "hypothetical")
        entropy = float(np.log2(n))
        bits = entropy - float(np.dot(counts, np.log2(counts))) / n
        return InformationResult(max(bits, 0.0), entropy, "hypothetical")
    likelihood = np.asarray(source, dtype=np.float64)
    if likelihood.ndim != 2 or likelihood.shape[0] == 0:
        raise ParameterError("hypothetical_information needs a 2-D array of Pr[o | u] (users × observations).")
    if not np.all(np.isfinite(likelihood)) or (likelihood < 0).any():
        raise ParameterError("Pr[o | u] must be finite and non-negative.")
    rows = likelihood.sum(axis=1)
    if not np.allclose(rows, 1.0, atol=1e-9):
        raise ParameterError("Each row of Pr[o | u] must sum to 1 (a distribution over observations).")
    pu = _prior(prior, likelihood.shape[0])
    joint = likelihood * pu[:, None]
    po = joint.sum(axis=0)
    posterior = np.divide(joint, po[None, :], out=np.zeros_like(joint), where=po[None, :] > 0)
    entropy = float(-(pu * _xlog2(pu)).sum())
    bits = entropy + float((joint * _xlog2(posterior)).sum())
    return InformationResult(bits, entropy, "hypothetical")


def perceived_information(
    users: Any,
    observations: Any,
    *,
    test: Any = None,
    test_fraction: float = 0.5,
    smoothing: float = 0.0,
    seed: int | np.random.Generator | None = None,
) -> InformationResult:
    """Perceived information PI(U; O): what an adversary's learned model extracts from fresh data.

    Parameters
    ----------
    users, observations : 1-D arrays of equal length
        One row per observation: who produced it and what was observed
        (any hashable labels).
    test : 1-D bool array, optional
        Which rows form the testing set :math:`DB_t`; the others profile.
        Default: a random split with ``test_fraction`` of each user's rows.
    test_fraction : float in (0, 1)
    smoothing : float in [0, inf)
        Additive (Laplace) smoothing of the profiled :math:`\\Pr_p[o\\mid u]`.
        With 0, a test observation never seen for any user in profiling makes
        PI :math:`-\\infty`.
    seed : int or numpy.random.Generator, optional

    Returns
    -------
    InformationResult

    Notes
    -----
    Profile :math:`\\Pr_p[o\\mid u]` on :math:`DB_p`; then, with
    :math:`DB_t(u)` the test observations of user :math:`u`,

    .. math:: PI(U;O) = H[U] + \\sum_u \\Pr[u]\\,\\frac{1}{|DB_t(u)|}\\sum_{o \\in DB_t(u)} \\log_2 \\Pr_p[u\\mid o].

    PI ≤ HI when the profiled model is wrong, and can be negative: the
    adversary then believes wrongly.  :math:`\\Pr[u]` is uniform over users
    with test rows.

    References
    ----------
    Seed 002 (perceived information with a profiling / testing split).
    S. Renauld, F.-X. Standaert, N. Veyrat-Charvillon, D. Kamel and D. Flandre,
    "A formal study of power variability issues and side-channel attacks for
    nanoscale devices", EUROCRYPT 2011 (perceived information).

    Examples
    --------
    >>> users = ["a", "a", "b", "b"]; obs = ["x", "x", "y", "y"]
    >>> perceived_information(users, obs, test=[False, True, False, True]).bits
    1.0
    """
    users = np.asarray(users, dtype=object).reshape(-1)
    observations = np.asarray(observations, dtype=object).reshape(-1)
    if users.shape != observations.shape or len(users) == 0:
        raise ParameterError("users and observations must be non-empty 1-D arrays of equal length.")
    smoothing = check_real("smoothing", smoothing, "perceived_information", low=0.0)
    u_labels, u_codes = np.unique(users.astype(str), return_inverse=True)
    o_labels, o_codes = np.unique(observations.astype(str), return_inverse=True)
    nu, no = len(u_labels), len(o_labels)
    if test is None:
        fraction = check_real("test_fraction", test_fraction, "perceived_information", low=0.0, high=1.0,
                              closed="neither")
        rng = seed if isinstance(seed, np.random.Generator) else np.random.default_rng(seed)
        test_mask = rng.random(len(users)) < fraction
    else:
        test_mask = np.asarray(test, dtype=bool).reshape(-1)
        if test_mask.shape != users.shape:
            raise ParameterError("test must have one entry per observation.")
    profile = np.bincount(u_codes[~test_mask] * no + o_codes[~test_mask], minlength=nu * no).reshape(nu, no)
    profile = profile.astype(np.float64) + smoothing
    rows = profile.sum(axis=1)
    if (rows <= 0).any():
        raise ParameterError("Every user needs profiling observations (or a positive smoothing).")
    likelihood = profile / rows[:, None]
    tested = np.bincount(u_codes[test_mask], minlength=nu)
    if not tested.any():
        raise ParameterError("The testing set is empty.")
    users_t = tested > 0
    pu = users_t / users_t.sum()
    joint = likelihood * pu[:, None]
    po = joint.sum(axis=0)
    with np.errstate(divide="ignore", invalid="ignore"):
        log_post = np.log2(joint) - np.log2(po)[None, :]
    log_post = np.where(np.isnan(log_post), -np.inf, log_post)
    t_u, t_o = u_codes[test_mask], o_codes[test_mask]
    per_row = log_post[t_u, t_o]
    per_user = np.bincount(t_u, weights=per_row, minlength=nu)
    per_user = np.divide(per_user, tested, out=np.zeros(nu), where=tested > 0)
    entropy = float(np.log2(users_t.sum()))
    bits = entropy + float(np.dot(pu, per_user))
    return InformationResult(bits, entropy, "perceived")
