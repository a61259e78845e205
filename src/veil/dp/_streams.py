"""Private aggregation of streams (smart metering).

Three pieces:

* :class:`BinaryTreeMechanism` — continual release of running sums with
  error O(log^{1.5} T / ε) instead of O(√T/ε) or O(T/ε) (Chan, Shi & Song
  2011; Dwork, Naor, Pitassi & Rothblum 2010).
* :func:`distributed_laplace_shares` — decentralised noising: each of n
  households adds G₁ − G₂ with G ~ Gamma(1/n, b); the shares sum to exactly
  Laplace(0, b) (infinite divisibility; Ács & Castelluccia 2011, after Shi et
  al. 2011 / Rastogi & Nath 2010).
* :func:`paillier_noisy_total` — the untrusted aggregator sums the encrypted,
  self-noised readings under Paillier's additively homomorphic encryption and
  learns only the noisy total (Paillier 1999).

.. warning::
   OpenDP has no Gamma sampler.  The household noise shares are drawn with an
   explicit :class:`numpy.random.Generator` that the caller passes in.  That is
   a **protocol simulation**, not a hardened release path: numpy's float
   sampler is exposed to the floating-point attacks of Mironov (2012).  Use it
   to study the protocol; use :class:`BinaryTreeMechanism` or
   :class:`PrivateTable` (OpenDP samplers) for real releases.

What each party learns in :func:`paillier_noisy_total`: the aggregator sees
n ciphertexts under semantic security (their exponents are all 0 and their sizes are those of random
elements of :math:`\\mathbb{Z}_{N^2}^*`), hence nothing about any reading;
the key holder decrypts only the aggregate, the total plus Laplace(Δ/ε)
noise (ε-DP for each household's clamped reading); a household learns
nothing but its own share.  Collusion of the key holder with the
aggregator reveals every noised reading :math:`x_i + s_i`, each of which
carries only its own small share of the noise.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any, Sequence

import numpy as np

from veil._validation import check_int, check_real
from veil.dp._accountant import PrivacyBudget
from veil.dp._mechanisms import LaplaceMechanism, check_epsilon, set_fields
from veil.dp._sampler import opendp
from veil.errors import ParameterError

__all__ = ["BinaryTreeMechanism", "distributed_laplace_shares", "paillier_noisy_total",
           "PAILLIER_SCALE"]

#: The public fixed-point scale of :func:`paillier_noisy_total`: readings are sent
#: as integers in units of 2^-32.
PAILLIER_SCALE = 2**32


@dataclass(frozen=True, kw_only=True)
class BinaryTreeMechanism:
    """Continual release of running sums with the binary-tree (p-sum) mechanism.

    Parameters
    ----------
    epsilon : float in (0, inf)
        ε for the whole stream (every prefix sum released, for all T steps).
    sensitivity : float in (0, inf)
        The most one person changes one step's value (e.g. a household's
        clamped reading).  Each person is assumed to appear in one step
        (event-level privacy, as in Chan et al. 2011).
    horizon : int in [1, inf)
        T, the number of time steps.

    Notes
    -----
    Each dyadic interval of [0, T) (a tree node) gets Laplace noise of scale
    :math:`L\\Delta/\\varepsilon` with :math:`L = \\lceil\\log_2 T\\rceil + 1`
    levels, because each step is in L nodes.  The prefix sum at t is the sum
    of the popcount(t) ≤ L nodes of t's binary decomposition, so its error is
    :math:`O(\\log^{1.5} T/\\varepsilon)`.

    References
    ----------
    Chan, T.-H. H., Shi, E., Song, D. (2011). Private and continual release of
    statistics. ACM TISSEC 14(3).  Dwork, C., Naor, M., Pitassi, T.,
    Rothblum, G. (2010). Differential privacy under continual observation. STOC.
    """

    epsilon: float
    sensitivity: float = 1.0
    horizon: int = 1
    levels: int = field(init=False)
    node_scale: float = field(init=False)
    certified_epsilon: float = field(init=False)

    def __post_init__(self) -> None:
        eps = check_epsilon(self.epsilon, "BinaryTreeMechanism")
        sens = check_real("sensitivity", self.sensitivity, "BinaryTreeMechanism", low=0.0,
                          closed="neither")
        T = check_int("horizon", self.horizon, "BinaryTreeMechanism", low=1)
        levels = max(1, math.ceil(math.log2(T))) + 1 if T > 1 else 1
        set_fields(
            self,
            epsilon=eps,
            sensitivity=sens,
            horizon=T,
            levels=levels,
            node_scale=levels * sens / eps,
        )
        lap = LaplaceMechanism(epsilon=eps, sensitivity=levels * sens)
        dp = opendp()
        vector = dp.m.make_laplace(dp.vector_domain(dp.atom_domain(T=float, nan=False)),
                                   dp.l1_distance(T=float), scale=lap.scale)
        # the vector of node sums changes by at most levels * sensitivity in L1 (one step is in
        # one node per level); OpenDP's map of the measurement run certifies epsilon
        object.__setattr__(self, "certified_epsilon", float(vector.map(levels * sens)))

    @property
    def budget(self) -> PrivacyBudget:
        return PrivacyBudget(epsilon=self.epsilon)

    def release(self, stream: Sequence[float]) -> np.ndarray:
        """Noisy running sums :math:`\\sum_{s \\le t} x_s` for t = 1..len(stream).

        Values are clamped to [−sensitivity, sensitivity] first.
        """
        x = np.asarray(stream, dtype=float)
        if x.ndim != 1 or not np.all(np.isfinite(x)):
            raise ParameterError("The stream must be a 1-d sequence of finite numbers.")
        if x.size > self.horizon:
            raise ParameterError(
                f"The stream has {x.size} steps, more than the horizon {self.horizon}."
            )
        x = np.clip(x, -self.sensitivity, self.sensitivity)
        size = 1 << (self.levels - 1)
        padded = np.zeros(size)
        padded[: x.size] = x
        # node sums for every level, concatenated, noised in one OpenDP call (L1 sensitivity
        # of the whole vector = levels * sensitivity)
        nodes = [padded.reshape(-1, 1 << lvl).sum(axis=1) for lvl in range(self.levels)]
        offsets = np.cumsum([0] + [len(n) for n in nodes])
        lap = LaplaceMechanism(epsilon=self.epsilon, sensitivity=self.levels * self.sensitivity)
        noisy = lap.release(np.concatenate(nodes))
        t = np.arange(1, x.size + 1)
        out = np.zeros(x.size)
        for lvl in range(self.levels):  # loop over log T levels, vectorised over time
            has = ((t >> lvl) & 1).astype(bool)
            idx = (t >> lvl) - 1
            out[has] += noisy[offsets[lvl] + idx[has]]
        return out


def distributed_laplace_shares(n: int, *, scale: float, rng: np.random.Generator) -> np.ndarray:
    """n noise shares whose sum is Laplace(0, ``scale``): G₁ − G₂, G ~ Gamma(1/n, scale).

    **Simulation only** (numpy sampler, see the module warning).  ``rng`` must
    be given explicitly; veil keeps no global generator.
    """
    k = check_int("n", n, "distributed_laplace_shares", low=1)
    b = check_real("scale", scale, "distributed_laplace_shares", low=0.0, closed="neither")
    if not isinstance(rng, np.random.Generator):
        raise ParameterError("distributed_laplace_shares needs an explicit numpy.random.Generator 'rng'.")
    return rng.gamma(1.0 / k, b, size=k) - rng.gamma(1.0 / k, b, size=k)


def paillier_noisy_total(readings: Sequence[float], *, epsilon: float, sensitivity: float,
                         rng: np.random.Generator, public_key: Any = None, private_key: Any = None,
                         key_length: int = 2048) -> dict[str, Any]:
    """Simulate the untrusted-aggregator protocol and return the noisy total.

    1. Each household clamps its reading to [0, sensitivity], adds its noise
       share (:func:`distributed_laplace_shares` with scale Δ/ε) and encrypts
       the result with the public key.
    2. The aggregator multiplies the ciphertexts (Paillier: adds the
       plaintexts) without seeing any reading.
    3. The key holder decrypts only the aggregate: reading total + Laplace(Δ/ε).

    Returns a dict with ``value`` (the decrypted noisy total), ``noise_scale``,
    ``epsilon``, ``ciphertext`` (the aggregate the aggregator held) and
    ``ciphertexts`` (what each household sent).

    Every household encodes its noised reading as the integer
    :math:`\\mathrm{round}((x_i + s_i) \\cdot 2^{32})` (:data:`PAILLIER_SCALE`,
    public), so every ciphertext carries the same exponent (0).  python-paillier
    otherwise keeps a float's exponent in the clear, and it tracks the
    plaintext's magnitude: from it alone an aggregator could tell a reading of
    0.02 from one of 9.0.

    What each party learns (aggregator, key holder, households, collusion): see the module docstring.

    References
    ----------
    Paillier, P. (1999). Public-key cryptosystems based on composite degree
    residuosity classes. EUROCRYPT.  Shi, E. et al. (2011). Privacy-preserving
    aggregation of time-series data. NDSS.
    """
    from veil._lazy import require

    require("phe", feature="homomorphic aggregation (Paillier)")
    from phe import paillier

    eps = check_epsilon(epsilon, "paillier_noisy_total")
    sens = check_real("sensitivity", sensitivity, "paillier_noisy_total", low=0.0, closed="neither")
    x = np.clip(np.asarray(readings, dtype=float), 0.0, sens)
    if x.ndim != 1 or x.size == 0:
        raise ParameterError("paillier_noisy_total needs a non-empty 1-d sequence of readings.")
    if public_key is None or private_key is None:
        public_key, private_key = paillier.generate_paillier_keypair(n_length=key_length)
    shares = distributed_laplace_shares(x.size, scale=sens / eps, rng=rng)
    # fixed public precision: every household sends the integer round((x + share) * 2^32), so
    # every ciphertext has exponent 0 and its size does not depend on the reading
    fixed = np.rint((x + shares) * PAILLIER_SCALE).astype(np.int64)
    ciphertexts = [public_key.encrypt(int(v)) for v in fixed]  # one per household
    aggregate = ciphertexts[0]
    for c in ciphertexts[1:]:
        aggregate = aggregate + c
    return {"value": int(private_key.decrypt(aggregate)) / PAILLIER_SCALE,
            "noise_scale": sens / eps, "epsilon": eps, "ciphertext": aggregate,
            "ciphertexts": ciphertexts}
