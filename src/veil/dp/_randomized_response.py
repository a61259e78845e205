"""Randomized response (Warner 1965) for yes/no and categorical columns."""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any, Sequence

import numpy as np

from veil._validation import check_real
from veil.dp._mechanisms import set_fields
from veil.dp._sampler import opendp
from veil.errors import ParameterError

__all__ = ["RandomizedResponse", "KaryRandomizedResponse"]


def _certified_epsilon(p: float) -> float:
    """ε of one respondent's yes/no randomized response, from OpenDP's privacy map."""
    dp = opendp()
    return float(dp.m.make_randomized_response_bool(p).map(1))


@dataclass(frozen=True, kw_only=True)
class RandomizedResponse:
    """Warner's randomized response: keep each yes/no answer with probability p, else flip it.

    Parameters
    ----------
    p : float in (0.5, 1)
        The probability of reporting the truth.  p = 0.5 carries no
        information (the estimator divides by 2p − 1 = 0) and p = 1 no privacy;
        for p < 0.5 use 1 − p and invert the answers.

    Attributes
    ----------
    epsilon : float
        The local ε each respondent gets, :math:`\\ln(p / (1-p))`, from
        OpenDP's privacy map of ``make_randomized_response_bool(p)`` at
        distance 1 (one respondent's answer changes).

    Notes
    -----
    The observed proportion of "yes" is :math:`Y = p\\,RY + (1-p)(1-RY)`, so the
    unbiased estimator of the true proportion is
    :math:`\\widehat{RY} = (Y + p - 1)/(2p - 1)`, with variance
    :math:`\\pi(1-\\pi)/n + p(1-p)/(n(2p-1)^2)` (Warner 1965, eq. 7).
    The flips are drawn by OpenDP's ``make_randomized_response_bitvec``
    (RAPPOR's per-bit randomizer with f = 2(1 − p)), one independent flip per
    respondent: each bit is kept with probability p, the same per-bit law as
    ``make_randomized_response_bool(p)``, whose map certifies ε (the bitvec
    map itself is for a whole vector per person, 2ε at max_weight 1).

    References
    ----------
    Warner, S. L. (1965). Randomized response: a survey technique for
    eliminating evasive answer bias. JASA 60(309).
    """

    p: float
    epsilon: float = field(init=False)

    def __post_init__(self) -> None:
        p = check_real("p", self.p, "RandomizedResponse", low=0.5, high=1.0, closed="neither")
        set_fields(self, p=p, epsilon=_certified_epsilon(p))

    def randomize(self, answers: Any) -> np.ndarray:
        """Return the randomized boolean answers (each kept with probability p)."""
        x = np.asarray(answers)
        if x.dtype != bool:
            if not np.isin(x, [0, 1]).all():
                raise ParameterError("RandomizedResponse.randomize needs yes/no answers (bool or 0/1).")
            x = x.astype(bool)
        n = x.size
        if n == 0:
            return x.copy()
        dp = opendp()
        meas = dp.m.make_randomized_response_bitvec(
            dp.bitvector_domain(max_weight=n), dp.discrete_distance(), f=2.0 * (1.0 - self.p))
        out = np.frombuffer(meas(np.packbits(x.ravel()).tobytes()), dtype=np.uint8)
        return np.unpackbits(out)[:n].astype(bool).reshape(x.shape)

    def estimate(self, randomized: Any, *, project: bool = False) -> float:
        """The unbiased estimate :math:`(Y + p - 1)/(2p - 1)` of the true "yes" proportion.

        Parameters
        ----------
        project : bool
            Clip the estimate to [0, 1] (post-processing: free, biased, never
            farther from the truth).  Unprojected, about half the estimates of
            a proportion near 0 or 1 fall outside [0, 1] at small n.
        """
        y = float(np.mean(np.asarray(randomized, dtype=float)))
        est = (y + self.p - 1) / (2 * self.p - 1)
        return min(max(est, 0.0), 1.0) if project else est

    def variance(self, pi: float, n: int) -> float:
        """Var of the estimator for true proportion ``pi`` and ``n`` respondents."""
        p = self.p
        return pi * (1 - pi) / n + p * (1 - p) / (n * (2 * p - 1) ** 2)

    def estimated_variance(self, randomized: Any) -> float:
        """Plug-in variance :math:`Y(1-Y) / (n(2p-1)^2)` from the randomized answers."""
        r = np.asarray(randomized, dtype=float)
        y = float(r.mean())
        return y * (1 - y) / (r.size * (2 * self.p - 1) ** 2)


@dataclass(frozen=True, kw_only=True)
class KaryRandomizedResponse:
    """k-ary randomized response: keep the category with probability p, else report another uniformly.

    Parameters
    ----------
    categories : sequence
        The k ≥ 2 public categories.
    p : float in (1/k, 1)
        The probability of reporting the true category.

    Notes
    -----
    :math:`\\varepsilon = \\ln\\frac{p (k-1)}{1-p}`.  With
    :math:`q = (1-p)/(k-1)` and observed frequencies :math:`\\lambda_j`, the
    unbiased estimate is :math:`\\hat\\pi_j = (\\lambda_j - q)/(p - q)`.  Each
    answer goes through OpenDP's ``make_randomized_response`` (one call per
    respondent, about 0.1 ms each).

    References
    ----------
    Warner (1965); Kairouz, Oh, Viswanath (2016). Extremal mechanisms for local
    differential privacy. JMLR.
    """

    categories: Sequence[Any]
    p: float
    epsilon: float = field(init=False)

    def __post_init__(self) -> None:
        cats = list(dict.fromkeys(self.categories))
        if len(cats) < 2:
            raise ParameterError("KaryRandomizedResponse needs at least 2 distinct categories.")
        k = len(cats)
        p = check_real("p", self.p, "KaryRandomizedResponse", low=1.0 / k, high=1.0, closed="neither")
        set_fields(self, categories=tuple(cats), p=p)
        # ε = ln(p(k - 1)/(1 - p)), from OpenDP's map of the measurement randomize() runs
        meas = opendp().m.make_randomized_response(list(range(k)), p, T="i64")
        object.__setattr__(self, "epsilon", float(meas.map(1)))

    def randomize(self, answers: Sequence[Any]) -> np.ndarray:
        """Randomize each answer (each must be one of the categories)."""
        k = len(self.categories)
        index = {c: i for i, c in enumerate(self.categories)}
        try:
            codes = [index[a] for a in answers]
        except KeyError as exc:
            raise ParameterError(f"An answer is not among the categories: {exc.args[0]!r}.") from None
        dp = opendp()
        meas = dp.m.make_randomized_response(list(range(k)), self.p, T="i64")
        out = [meas(c) for c in codes]
        return np.array([self.categories[i] for i in out], dtype=object)

    def estimate(self, randomized: Sequence[Any], *, project: bool = False) -> dict[Any, float]:
        """Unbiased estimates of the true proportion of each category.

        ``project=True`` clips each estimate to [0, 1] (post-processing).
        """
        k = len(self.categories)
        index = {c: i for i, c in enumerate(self.categories)}
        codes = np.array([index[a] for a in randomized], dtype=np.int64)
        lam = np.bincount(codes, minlength=k) / max(codes.size, 1)
        q = (1 - self.p) / (k - 1)
        est = (lam - q) / (self.p - q)
        if project:
            est = np.clip(est, 0.0, 1.0)
        return dict(zip(self.categories, est.tolist()))
