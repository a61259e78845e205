"""Hypothetical and perceived information: how much an observation tells about who it is.

Users :math:`u \\in U` with prior :math:`\\Pr[u]` produce observations
:math:`o`; :math:`H[U] = -\\sum_u \\Pr[u]\\log_2\\Pr[u]`.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import math

import numpy as np
import pandas as pd

from veil._validation import check_int, check_real
from veil.classes import ClassTable
from veil.dataset import Dataset
from veil.errors import ParameterError, SchemaError
from veil.risk._common import as_classes

__all__ = ["InformationResult", "hypothetical_information", "perceived_information", "success_rate"]


def success_rate(per_attempt: float, attempts: int) -> float:
    """Re-identification success rate after ``attempts`` independent attempts: :math:`1 - (1 - H)^n`.

    Parameters
    ----------
    per_attempt : float in [0, 1]
        :math:`H`, the success probability of one attempt (for an
        :class:`InformationResult`, its ``fraction``: the share of the
        identity's entropy one observation reveals).
    attempts : int in [0, inf)
        :math:`n`.

    Returns
    -------
    float in [0, 1]

    Notes
    -----
    .. math:: S(n) = 1 - (1 - H)^n = -\\operatorname{expm1}(n \\log(1 - H)),

    computed in the second form, exact for small :math:`H` and large
    :math:`n`.  It grows with :math:`n` towards 1 unless :math:`H = 0`.

    References
    ----------
    Seed 002 ("Re-Identification Success Rate: :math:`1 - (1 - H)^n`").

    Examples
    --------
    >>> success_rate(0.5, 2)
    0.75
    """
    p = check_real("per_attempt", per_attempt, "success_rate", low=0.0, high=1.0)
    n = check_int("attempts", attempts, "success_rate", low=0)
    if n == 0:
        return 0.0
    return 1.0 if p == 1.0 else float(-math.expm1(n * math.log1p(-p)))


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

    def success_rate(self, attempts: int) -> float:
        """:math:`1 - (1 - H)^n` with :math:`H` = ``fraction`` (clipped to [0, 1]); see :func:`success_rate`."""
        return success_rate(min(max(self.fraction, 0.0), 1.0), attempts)

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


def _table_information(source: Any, prior: Any, quasi_identifiers: Any) -> InformationResult:
    """HI of a table: each record a user (uniform) whose one observation is its class."""
    table = as_classes(source, quasi_identifiers=quasi_identifiers, owner="hypothetical_information")
    counts = table.counts.astype(np.float64)
    n = float(counts.sum())
    if prior is not None:
        raise ParameterError("A class table's users are its records, uniformly; do not pass a prior.")
    if n == 0:
        return InformationResult(0.0, 0.0, "hypothetical")
    entropy = float(np.log2(n))
    bits = entropy - float(np.dot(counts, np.log2(counts))) / n
    return InformationResult(max(bits, 0.0), entropy, "hypothetical")


def _likelihood(source: Any) -> np.ndarray:
    """``Pr[o | u]`` as a checked 2-D float array (rows are distributions)."""
    likelihood = np.asarray(source, dtype=np.float64)
    if likelihood.ndim != 2 or likelihood.shape[0] == 0:
        raise ParameterError("hypothetical_information needs a 2-D array of Pr[o | u] (users × observations).")
    if not np.all(np.isfinite(likelihood)) or (likelihood < 0).any():
        raise ParameterError("Pr[o | u] must be finite and non-negative.")
    rows = likelihood.sum(axis=1)
    if not np.allclose(rows, 1.0, atol=1e-9):
        raise ParameterError("Each row of Pr[o | u] must sum to 1 (a distribution over observations).")
    return likelihood


def hypothetical_information(source: Any, *, prior: Any = None,
                             quasi_identifiers: Any = None) -> InformationResult:
    """Hypothetical information HI(U; O): what one observation reveals if the model is right.

    Parameters
    ----------
    source : ClassTable, Dataset, DataFrame or 2-D array
        Either a probabilistic database, ``source[u, o] = Pr[o | u]`` (rows
        are users, summing to 1), or a table (class table, dataset, or
        DataFrame with ``quasi_identifiers``), where each record is a user
        whose one observation is its QI combination.
    prior : array of float, optional
        :math:`\\Pr[u]`; default uniform.  Not with a table.
    quasi_identifiers : sequence of str, optional
        The observation's columns, for a DataFrame (a Dataset uses its
        schema unless given).

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
    if isinstance(source, (ClassTable, Dataset, pd.DataFrame)):
        return _table_information(source, prior, quasi_identifiers)
    likelihood = _likelihood(source)
    pu = _prior(prior, likelihood.shape[0])
    joint = likelihood * pu[:, None]
    po = joint.sum(axis=0)
    posterior = np.divide(joint, po[None, :], out=np.zeros_like(joint), where=po[None, :] > 0)
    entropy = float(-(pu * _xlog2(pu)).sum())
    bits = entropy + float((joint * _xlog2(posterior)).sum())
    return InformationResult(bits, entropy, "hypothetical")


def _users_and_observations(source: Any, observations: Any, user: str | None) -> tuple[np.ndarray, np.ndarray]:
    """User and observation codes per row, from two label arrays or from a Dataset."""
    if isinstance(source, Dataset):
        if observations is not None:
            raise ParameterError("perceived_information takes a Dataset alone: its QIs are the observations.")
        if user is None:
            if len(source.schema.identifiers) != 1:
                raise SchemaError(
                    "perceived_information needs the column that names each record's user: pass "
                    f"user=..., or declare exactly one identifier column (the table has "
                    f"{len(source.schema.identifiers)})."
                )
            user = source.schema.identifiers[0]
        if not source.quasi_identifiers:
            raise SchemaError("perceived_information needs quasi-identifiers: they are the observations.")
        users = source.encode(user).codes
        stacked = np.stack([source.encode(q).codes for q in source.quasi_identifiers], axis=1)
        _, obs = np.unique(stacked, axis=0, return_inverse=True)
        return np.unique(users, return_inverse=True)[1], obs.reshape(-1)
    users = np.asarray(source, dtype=object).reshape(-1)
    observations = np.asarray(observations, dtype=object).reshape(-1)
    if users.shape != observations.shape or len(users) == 0:
        raise ParameterError("users and observations must be non-empty 1-D arrays of equal length.")
    return (np.unique(users.astype(str), return_inverse=True)[1],
            np.unique(observations.astype(str), return_inverse=True)[1])


def perceived_information(
    users: Any, observations: Any = None, *, user: str | None = None, test: Any = None,
    test_fraction: float = 0.5, smoothing: float = 0.0, seed: int | np.random.Generator | None = None,
) -> InformationResult:
    """Perceived information PI(U; O): what an adversary's learned model extracts from fresh data.

    Parameters
    ----------
    users : 1-D array or Dataset
        One row per observation: who produced it (any hashable labels).  Or a :class:`~veil.Dataset`
        whose records are observations: the user is the ``user`` column (default: the one
        identifier column), the observation the record's QI combination.
    observations : 1-D array, optional
        What each row observed (with label arrays; not with a Dataset).
    user : str, optional
        A Dataset's column naming each record's user.
    test : 1-D bool array, optional
        The rows of the testing set :math:`DB_t` (the others profile); default a random ``test_fraction``.
    test_fraction : float in (0, 1)
    smoothing : float in [0, inf)
        Additive (Laplace) smoothing of the profiled :math:`\\Pr_p[o\\mid u]`; with 0, a test
        observation never seen for any user in profiling makes PI :math:`-\\infty`.
    seed : int or numpy.random.Generator, optional

    Returns
    -------
    InformationResult

    Raises
    ------
    ParameterError
        Arrays of different lengths, a bad split, users without profiling rows.
    SchemaError
        A Dataset without quasi-identifiers, or without ``user`` and not exactly one identifier column.

    Notes
    -----
    Profile :math:`\\Pr_p[o\\mid u]` on :math:`DB_p`; then, with
    :math:`DB_t(u)` the test observations of user :math:`u`,

    .. math:: PI(U;O) = H[U] + \\sum_u \\Pr[u]\\,\\frac{1}{|DB_t(u)|}\\sum_{o \\in DB_t(u)} \\log_2 \\Pr_p[u\\mid o].

    PI ≤ HI when the profiled model is wrong, and can be negative: the adversary then believes
    wrongly.  :math:`\\Pr[u]` is uniform over users with test rows.

    References
    ----------
    Seed 002 (perceived information with a profiling / testing split).
    S. Renauld, F.-X. Standaert, N. Veyrat-Charvillon, D. Kamel and D. Flandre, "A formal study of
    power variability issues and side-channel attacks for nanoscale devices", EUROCRYPT 2011.

    Examples
    --------
    >>> users = ["a", "a", "b", "b"]; obs = ["x", "x", "y", "y"]
    >>> perceived_information(users, obs, test=[False, True, False, True]).bits
    1.0
    """
    u_codes, o_codes = _users_and_observations(users, observations, user)
    smoothing = check_real("smoothing", smoothing, "perceived_information", low=0.0)
    return _perceived(u_codes, o_codes, _test_mask(test, test_fraction, seed, len(u_codes)), smoothing)


def _test_mask(test: Any, test_fraction: float, seed: Any, n: int) -> np.ndarray:
    """The testing rows: ``test`` as given, or a random ``test_fraction`` of the ``n`` rows."""
    if test is None:
        fraction = check_real("test_fraction", test_fraction, "perceived_information", low=0.0, high=1.0,
                              closed="neither")
        rng = seed if isinstance(seed, np.random.Generator) else np.random.default_rng(seed)
        return rng.random(n) < fraction
    test_mask = np.asarray(test, dtype=bool).reshape(-1)
    if test_mask.shape != (n,):
        raise ParameterError("test must have one entry per observation.")
    return test_mask


def _perceived(u_codes: np.ndarray, o_codes: np.ndarray, test_mask: np.ndarray, smoothing: float) -> InformationResult:
    nu, no = int(u_codes.max()) + 1, int(o_codes.max()) + 1
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
