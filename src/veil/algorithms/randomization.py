"""Randomizing releases: the αβ algorithm (Rastogi et al. 2007) and PRAM (Gouweleeuw et al. 1998).

Both algorithms perturb a table at random instead of generalizing it, and both
come with an estimator that undoes the perturbation *on average*, so counts
and frequencies stay estimable without bias.

* :func:`alpha_beta` publishes a view ``V`` of the set ``I`` of distinct tuples
  of some columns: each true tuple is kept with probability α + β and each
  tuple of the domain ``D ∖ I`` is inserted with probability β.  Counting
  queries are answered by :func:`alpha_beta_estimate` /
  :func:`alpha_beta_query`; :func:`alpha_beta_parameters` and
  :func:`is_private` turn the (d, γ)-privacy of Theorem 4.3 into (α, β).
* :func:`pram` (post-randomization) replaces each categorical value through a
  public Markov transition matrix; :func:`pram_estimate` recovers the original
  frequencies, and :func:`invariant_transition` builds a matrix whose
  expected output frequencies *are* the original ones.

**Neither is differential privacy.**  αβ protects against d-independent
adversaries (Definition 2.3 of Rastogi et al.), and PRAM's protection is the
plausible deniability its transition matrix gives; neither bounds what an
arbitrary adversary learns, and neither composes over repeated releases.  For
differential privacy use :mod:`veil.dp` (noise from a vetted sampler, budget
accounting).  The randomness here is a :class:`numpy.random.Generator`
(PCG64) seeded from ``seed`` or, when ``seed`` is None, from fresh operating
system entropy.  A seed reproduces a release exactly: keep it secret, since
whoever knows it can replay the draws and tell true tuples (or values) from
randomized ones.  The seed is never written into the result.

References
----------
Rastogi, V., Suciu, D., Hong, S. (2007). The boundary between privacy and
utility in data publishing. VLDB, 531-542.  Section 4: the αβ algorithm, its
estimator, Theorem 4.3 (privacy) and Theorem 4.4 (utility).

Gouweleeuw, J. M., Kooiman, P., Willenborg, L. C. R. J., de Wolf, P.-P. (1998).
Post randomisation for statistical disclosure control: theory and
implementation. Journal of Official Statistics 14(4), 463-478.

Templ, M., Kowarik, A., Meindl, B. (2015). Statistical disclosure control for
micro-data using the R package sdcMicro. Journal of Statistical Software
67(4) (``pram``).
"""

from __future__ import annotations

import math
import numbers
import time
import warnings
from collections.abc import Callable, Collection, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Union

import numpy as np
import pandas as pd

from veil._validation import check_int, check_real
from veil.algorithms._recoding import Recoding
from veil.dataset import MISSING, Dataset
from veil.errors import ColumnNotFoundError, ParameterError

__all__ = [
    "alpha_beta",
    "alpha_beta_estimate",
    "alpha_beta_query",
    "alpha_beta_variance",
    "alpha_beta_usefulness",
    "alpha_beta_posterior",
    "alpha_beta_parameters",
    "AlphaBetaParameters",
    "is_private",
    "pram",
    "pram_transition",
    "pram_estimate",
    "invariant_transition",
]

#: Relative slack when comparing (α, β) with the bounds of Theorem 4.3, so that a
#: pair computed from those bounds in floating point is not rejected by one ulp.
_RTOL = 1e-12
#: The largest domain αβ handles: tuples are packed into int64 keys.
_MAX_DOMAIN = np.iinfo(np.int64).max

Seed = Union[int, np.random.Generator, None]
Selection = Union[Collection[Any], Callable[[np.ndarray], Any]]


# ---------------------------------------------------------------------- shared helpers
def _generator(seed: Seed, owner: str) -> np.random.Generator:
    """A Generator from ``seed`` (None: fresh OS entropy; a Generator is used as is)."""
    if seed is None or isinstance(seed, np.random.Generator):
        return np.random.default_rng(seed)
    if isinstance(seed, bool) or not isinstance(seed, numbers.Integral) or int(seed) < 0:
        raise ParameterError(
            f"The 'seed' parameter of {owner} must be None, an int in [0, inf) or a "
            f"numpy.random.Generator. Got {seed!r} instead."
        )
    return np.random.default_rng(int(seed))


def _columns(dataset: Dataset, columns: Sequence[str] | None, owner: str) -> list[str]:
    if columns is None:
        columns = list(dataset.quasi_identifiers)
        if not columns:
            raise ParameterError(
                f"{owner} needs columns: pass 'columns', or declare quasi-identifiers in the dataset."
            )
    elif isinstance(columns, str):
        columns = [columns]
    columns = [str(c) for c in columns]
    if not columns:
        raise ParameterError(f"The 'columns' parameter of {owner} must name at least one column. Got [] instead.")
    seen: set[str] = set()
    for column in columns:
        if column in seen:
            raise ParameterError(f"The 'columns' parameter of {owner} lists {column!r} twice.")
        seen.add(column)
        if column not in dataset.columns:
            raise ColumnNotFoundError(
                f"Column {column!r} (in 'columns' of {owner}) is not in the table; "
                f"its columns are: {', '.join(dataset.columns)}."
            )
    return columns


# ============================================================================ αβ
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


def _domain(dataset: Dataset, column: str, domains: Mapping[str, Sequence[Any]]) -> tuple[np.ndarray, str]:
    """The public domain of ``column`` (labels) and where it came from."""
    encoded = dataset.encode(column)
    has_missing = encoded.missing_code >= 0
    if column in domains:
        labels = [str(v) for v in domains[column]]
        source = "domains"
    elif column in dataset.hierarchies:
        labels = [str(v) for v in dataset.hierarchies[column].leaves]
        source = "hierarchy"
    elif column in dataset.schema and dataset.schema[column].domain is not None:
        labels = list(dataset.schema[column].domain)
        source = "schema"
    else:
        labels = [str(v) for v in encoded.labels if v != MISSING]
        source = "data"
    if len(set(labels)) != len(labels):
        raise ParameterError(f"The domain of column {column!r} lists a value twice; each value must appear once.")
    if has_missing and MISSING not in labels:
        labels.append(MISSING)  # a missing value is a value of its own, as everywhere in veil
    if not labels:
        raise ParameterError(f"The domain of column {column!r} is empty; give at least one value.")
    return np.array(labels, dtype=object), source


def alpha_beta(
    dataset: Dataset,
    columns: Sequence[str] | None = None,
    *,
    alpha: float,
    beta: float,
    domains: Mapping[str, Sequence[Any]] | None = None,
    seed: Seed = None,
    max_inserted: int = 10_000_000,
) -> Recoding:
    """Publish a randomized view of the table's tuples by the αβ algorithm.

    Over the domain :math:`D = D_1 \\times \\dots \\times D_l` of the chosen
    columns, the view V keeps each tuple of the instance I (the distinct
    tuples of the table) with probability α + β, and inserts each tuple of
    :math:`D \\setminus I` with probability β, all independently.  V, α, β
    and D are published.

    Parameters
    ----------
    dataset : Dataset
    columns : sequence of str, optional
        The columns whose tuples are released (default: the quasi-identifiers).
        Only these columns are published: an inserted tuple has no values
        for the others.
    alpha : float in (0, 1]
        α + β is the probability that a true tuple is kept.  α = 0 would make
        V independent of I (nothing is estimable).
    beta : float in [0, 1), with alpha + beta <= 1
        The probability that each tuple of D ∖ I is inserted.  Choose (α, β)
        with :func:`alpha_beta_parameters`; check a pair with :func:`is_private`.
    domains : mapping of str to sequence, optional
        The public domain :math:`D_j` of a column.  Otherwise a column's
        domain is its hierarchy's leaves, else its schema domain, else (with
        a ``UserWarning``) the values present in the data, which discloses
        which values occur and breaks the assumption that D is public.  A
        column with missing values gets :data:`~veil.dataset.MISSING` added.
    seed : int, numpy.random.Generator or None
        Seed of the randomness (None: fresh OS entropy).  Keep it secret.
    max_inserted : int in [0, inf), default 10,000,000
        Refuse to run when the expected number of inserted tuples
        :math:`\\beta(|D| - |I|)` exceeds this (the output must fit in memory).

    Returns
    -------
    Recoding
        ``data`` is V: one row per published tuple, only ``columns``, labels as
        text (missing values as NaN), rows in random order.  It is **not
        row-aligned** with the input (``details["row_aligned"]`` is False):
        true tuples are dropped and inserted ones are added.  ``details``
        holds ``alpha``, ``beta``, ``domain_size`` (|D|), ``domain_sizes``,
        ``domains`` (the labels, needed by :func:`alpha_beta_query`),
        ``domain_sources``, ``semantics`` ("set"), ``records_in`` and
        ``tuples_out``.  It never holds the seed nor how many tuples are true.

    Raises
    ------
    ColumnNotFoundError
        A column is not in the table.
    ParameterError
        Bad α, β (α + β > 1, α = 0, negative, ...), a value of the table
        missing from its column's domain, a domain above :math:`2^{63}-1`
        tuples, or too many expected insertions.

    Notes
    -----
    **Set semantics.**  The paper's I is a set, and so is V here: duplicate
    records collapse to one tuple of I, which is kept or dropped as a whole.
    The estimator then estimates the number of *distinct* tuples satisfying a
    query.  Bag semantics (keeping each record independently) would break the
    privacy guarantee: an inserted tuple appears at most once, so a tuple
    seen twice in V is certainly in I, a posterior of 1 > γ.

    **No enumeration of D.**  |D| is usually astronomically larger than the
    table, so D is never materialised.  Tuples are packed into int64
    mixed-radix keys; the number of inserted tuples is drawn from
    :math:`\\mathrm{Bin}(|D|-|I|, \\beta)` (given that number, the inserted
    set is a uniform subset of :math:`D \\setminus I`); that many distinct
    ranks are drawn uniformly from :math:`[0, |D|-|I|)` and the j-th rank is
    mapped to the j-th key *not* in I by
    :math:`j + \\#\\{i : t_{(i)} - i \\le j\\}` over the sorted true keys
    :math:`t_{(0)} < t_{(1)} < \\dots`.  This is exact (no rejection loop,
    no retries) and costs :math:`O((|I| + |V|)\\log|I|)`.

    The privacy guarantee (Theorem 4.3) is against d-independent
    adversaries only; this is not differential privacy (see :mod:`veil.dp`).

    References
    ----------
    Rastogi, Suciu, Hong (2007), Section 4, "the αβ algorithm".

    Examples
    --------
    >>> import pandas as pd
    >>> from veil import Dataset
    >>> ds = Dataset.from_pandas(pd.DataFrame({"a": ["x", "y", "y"], "b": ["1", "2", "2"]}),
    ...                          quasi_identifiers=["a", "b"])
    >>> v = alpha_beta(ds, alpha=0.6, beta=0.2, seed=1,
    ...                domains={"a": ["x", "y", "z"], "b": ["1", "2"]})
    >>> v.details["domain_size"], v.details["row_aligned"]
    (6, False)
    """
    start = time.perf_counter()
    owner = "alpha_beta"
    alpha, beta = _check_alpha_beta(alpha, beta, owner)
    max_inserted = check_int("max_inserted", max_inserted, owner, low=0)
    columns = _columns(dataset, columns, owner)
    domains = dict(domains or {})
    for name in domains:
        if name not in columns:
            raise ParameterError(
                f"The 'domains' parameter of {owner} gives a domain for {name!r}, which is not one of "
                f"the released columns ({', '.join(map(repr, columns))})."
            )
    rng = _generator(seed, owner)

    labels: list[np.ndarray] = []
    sources: dict[str, str] = {}
    codes = np.empty((dataset.n_records, len(columns)), dtype=np.int64)
    for j, column in enumerate(columns):
        domain, source = _domain(dataset, column, domains)
        sources[column] = source
        encoded = dataset.encode(column)
        position = pd.Index(domain).get_indexer(encoded.labels.astype(object))
        used = np.bincount(encoded.codes, minlength=encoded.n_values) > 0
        outside = used & (position < 0)
        if outside.any():
            bad = encoded.labels[np.flatnonzero(outside)]
            raise ParameterError(
                f"Column {column!r} has the value {bad[0]!r}"
                + (f" (and {len(bad) - 1} other value(s))" if len(bad) > 1 else "")
                + f", which is not in its domain (from {source}); every value of the table must be "
                "in the domain D."
            )
        codes[:, j] = position[encoded.codes]
        labels.append(domain)
    inferred = [c for c, s in sources.items() if s == "data"]
    if inferred:
        warnings.warn(
            f"alpha_beta took the domain of {', '.join(map(repr, inferred))} from the values present "
            "in the data; publishing it discloses which values occur. Pass public domains "
            "(the 'domains' parameter, a hierarchy, or a schema domain).",
            UserWarning,
            stacklevel=2,
        )

    sizes = [len(d) for d in labels]
    domain_size = math.prod(sizes)
    if domain_size > _MAX_DOMAIN:
        raise ParameterError(
            f"The domain of {', '.join(map(repr, columns))} has {domain_size:.3e} tuples, more than "
            f"alpha_beta handles (2^63 - 1, int64 keys); release fewer columns or coarser domains."
        )
    strides = np.ones(len(sizes), dtype=np.int64)
    for j in range(len(sizes) - 2, -1, -1):
        strides[j] = strides[j + 1] * sizes[j + 1]
    true_keys = np.unique(codes @ strides) if len(codes) else np.empty(0, dtype=np.int64)
    n_true = len(true_keys)
    n_free = domain_size - n_true
    expected = beta * n_free
    if expected > max_inserted:
        raise ParameterError(
            f"alpha_beta would insert about {expected:.3e} tuples (beta x |D \\ I| = {beta!r} x "
            f"{n_free}), more than max_inserted={max_inserted}; lower beta, release fewer columns "
            "or coarser domains, or raise max_inserted."
        )

    kept = true_keys[rng.random(n_true) < alpha + beta]
    n_insert = int(rng.binomial(n_free, beta)) if n_free > 0 and beta > 0 else 0
    if n_insert:
        ranks = np.sort(rng.choice(n_free, size=n_insert, replace=False).astype(np.int64))
        shifted = true_keys - np.arange(n_true, dtype=np.int64)  # non-decreasing
        inserted = ranks + np.searchsorted(shifted, ranks, side="right")
    else:
        inserted = np.empty(0, dtype=np.int64)
    keys = np.concatenate([kept, inserted])
    keys = keys[rng.permutation(len(keys))]

    out: dict[str, Any] = {}
    for j, column in enumerate(columns):
        values = labels[j][(keys // strides[j]) % sizes[j]]
        values = np.where(values == MISSING, np.nan, values) if MISSING in set(labels[j]) else values
        out[column] = pd.Series(values, dtype=object)
    data = pd.DataFrame(out, columns=columns)
    details = {
        "row_aligned": False,
        "semantics": "set",
        "columns": columns,
        "alpha": alpha,
        "beta": beta,
        "domain_size": int(domain_size),
        "domain_sizes": dict(zip(columns, sizes)),
        "domains": {c: [str(v) for v in d] for c, d in zip(columns, labels)},
        "domain_sources": sources,
        "records_in": int(dataset.n_records),
        "tuples_out": int(len(data)),
        "differential_privacy": False,
    }
    return Recoding(data=data, algorithm="alpha-beta", suppressed=0, groups=0,
                    seconds=time.perf_counter() - start, details=details)


def alpha_beta_query(release: Recoding, where: Mapping[str, Selection] | None = None) -> float:
    """Estimate a conjunctive counting query from an αβ release.

    ``SELECT count(DISTINCT tuple) FROM I WHERE c1 IN S1 AND c2 IN S2 ...``:
    counts :math:`n_V` in the published view, computes :math:`n_D` from the
    published domains (a product of per-column counts, never enumerating D)
    and returns :func:`alpha_beta_estimate`.

    Parameters
    ----------
    release : Recoding
        The result of :func:`alpha_beta`.
    where : mapping of str to (collection of labels or callable), optional
        Per column, the selected labels, or a function from an array of
        domain labels (str) to a boolean mask.  Columns not named are
        unrestricted; ``None`` counts every tuple.  Missing values are
        selected by the label :data:`~veil.dataset.MISSING`.

    Returns
    -------
    float
        The unbiased estimate of the number of distinct true tuples selected.
        Disjunctions follow by linearity: split them into disjoint
        conjunctions and add the estimates.

    Raises
    ------
    ParameterError
        ``release`` is not an αβ release, or a selection function returns a
        mask of the wrong shape.
    ColumnNotFoundError
        ``where`` names a column that was not released.
    """
    if release.algorithm != "alpha-beta" or "domains" not in release.details:
        raise ParameterError(
            f"alpha_beta_query needs the result of alpha_beta. Got a {release.algorithm!r} release instead."
        )
    details = release.details
    domains = details["domains"]
    where = dict(where or {})
    unknown = [c for c in where if c not in domains]
    if unknown:
        raise ColumnNotFoundError(
            f"Column {unknown[0]!r} (in 'where') was not released; the released columns are: "
            f"{', '.join(domains)}."
        )
    n_d = 1
    selected = np.ones(len(release.data), dtype=bool)
    for column, domain in domains.items():
        if column not in where:
            n_d *= len(domain)
            continue
        domain_arr = np.asarray(domain, dtype=object)
        choice = where[column]
        if callable(choice):
            mask = np.asarray(choice(domain_arr.astype(str)), dtype=bool)
            if mask.shape != domain_arr.shape:
                raise ParameterError(
                    f"The selection function for column {column!r} must return one boolean per domain "
                    f"value ({len(domain_arr)}). Got shape {mask.shape} instead."
                )
        else:
            if isinstance(choice, str):
                choice = [choice]
            wanted = {str(v) for v in choice}
            mask = np.array([v in wanted for v in domain_arr], dtype=bool)
        n_d *= int(mask.sum())
        chosen = set(domain_arr[mask].tolist())
        values = release.data[column].astype(object).where(release.data[column].notna(), MISSING)
        selected &= values.isin(chosen).to_numpy()
    return alpha_beta_estimate(int(selected.sum()), n_d, details["alpha"], details["beta"])


# ============================================================================ PRAM
def pram_transition(n_categories: int, p: float) -> np.ndarray:
    """The default PRAM matrix: keep with probability p, else move uniformly to another category.

    .. math:: P_{kk} = p, \\qquad P_{kl} = \\frac{1-p}{K-1}\\ (l \\ne k)

    Parameters
    ----------
    n_categories : int in [1, inf)
        K.  With K = 1 the matrix is [[1]] whatever p.
    p : float in [0, 1]

    Returns
    -------
    numpy.ndarray of float, shape (K, K)
        Row-stochastic.  Singular when p = 1/K (every row equal).
    """
    k = check_int("n_categories", n_categories, "pram_transition", low=1)
    p = check_real("p", p, "pram_transition", low=0.0, high=1.0)
    if k == 1:
        return np.ones((1, 1))
    matrix = np.full((k, k), (1.0 - p) / (k - 1))
    np.fill_diagonal(matrix, p)
    return matrix


def _check_transition(matrix: Any, n: int, where: str) -> np.ndarray:
    try:
        matrix = np.asarray(matrix, dtype=float)
    except (TypeError, ValueError):
        raise ParameterError(f"The transition matrix {where} must be a square array of floats.") from None
    if matrix.ndim != 2 or matrix.shape[0] != matrix.shape[1]:
        raise ParameterError(f"The transition matrix {where} must be square. Got shape {matrix.shape} instead.")
    if n >= 0 and matrix.shape[0] != n:
        raise ParameterError(
            f"The transition matrix {where} must be {n} x {n} (one row and column per category). "
            f"Got shape {matrix.shape} instead."
        )
    if not np.isfinite(matrix).all() or (matrix < 0).any():
        raise ParameterError(f"The transition matrix {where} must have finite nonnegative entries.")
    sums = matrix.sum(axis=1)
    if not np.allclose(sums, 1.0, rtol=0, atol=1e-9):
        row = int(np.flatnonzero(~np.isclose(sums, 1.0, rtol=0, atol=1e-9))[0])
        raise ParameterError(
            f"Each row of the transition matrix {where} must sum to 1. Row {row} sums to {float(sums[row])!r}."
        )
    return matrix / sums[:, None]


def pram_estimate(observed_counts: Any, transition: Any) -> np.ndarray:
    """The unbiased estimate of the original category counts after PRAM.

    Each original value k becomes l with probability :math:`P_{kl}`, so the
    expected observed counts are :math:`E[\\mathbf{o}] = P^\\top \\mathbf{t}`;
    the estimator solves :math:`P^\\top \\hat{\\mathbf{t}} = \\mathbf{o}`
    (Gouweleeuw et al. 1998; Kooiman et al.'s moment estimator).

    Parameters
    ----------
    observed_counts : array of K numbers
        Counts of each category in the released column, in the matrix's order.
    transition : array (K, K) or pandas.DataFrame
        The PRAM matrix used (row = original, column = released).

    Returns
    -------
    numpy.ndarray of float, shape (K,)
        May contain negative values (an unbiased estimator is not constrained
        to the simplex); clip and rescale as a post-processing step if needed.

    Raises
    ------
    ParameterError
        The matrix is not a valid transition matrix, the sizes differ, or the
        matrix is singular or numerically so (condition number above 1e12;
        e.g. p = 1/K makes every row equal): the counts are not recoverable.
    """
    observed = np.asarray(observed_counts, dtype=float)
    if observed.ndim != 1:
        raise ParameterError(f"observed_counts must be one-dimensional. Got shape {observed.shape} instead.")
    matrix = _check_transition(transition, len(observed), "of pram_estimate")
    cond = np.linalg.cond(matrix)
    if not np.isfinite(cond) or cond > 1e12:
        raise ParameterError(
            "The transition matrix of pram_estimate is singular (condition number "
            f"{cond:.3g}): distinct original distributions give the same expected output, so the "
            "original counts cannot be recovered. Use a matrix with a dominant diagonal (e.g. p > 1/K)."
        )
    return np.linalg.solve(matrix.T, observed)


def invariant_transition(counts: Any, p: float) -> np.ndarray:
    """An invariant PRAM matrix: the original frequencies are its fixed point.

    For the K⁺ categories with positive counts :math:`T_k`, and
    :math:`T_{\\min}` the smallest of them:

    .. math::

        P_{kk} = 1 - (1-p)\\frac{T_{\\min}}{T_k}, \\qquad
        P_{kl} = \\frac{(1-p)\\,T_{\\min}}{(K^+ - 1)\\,T_k}\\ (l \\ne k).

    Then :math:`\\sum_k T_k P_{kl} = T_l - (1-p)T_{\\min} + (1-p)T_{\\min} = T_l`,
    so the expected released frequencies equal the original ones and users
    need no estimator.  The rarest category is kept with probability p;
    commoner ones with higher probability (they need less protection and
    send the same expected number of records away).  Categories with count 0
    get an identity row and receive nothing (their count stays 0).

    Parameters
    ----------
    counts : array of K nonnegative numbers
        The original frequencies, at least one positive.
    p : float in [0, 1]
        The smallest diagonal entry (the rarest category's keep probability);
        the θ of Gouweleeuw et al. is 1 − p.

    Returns
    -------
    numpy.ndarray of float, shape (K, K)

    Notes
    -----
    The matrix depends on the data: its ratios :math:`T_{\\min}/T_k` disclose
    the original frequencies.  Publish it only if those frequencies may be
    published (they are what the release preserves in expectation anyway).
    The other classic construction, :math:`R = PQ` with the "backward"
    matrix :math:`Q_{lk} = P_{kl}T_k/\\sum_j P_{jl}T_j` (used by sdcMicro), is
    also invariant; this one is explicit and keeps the diagonal as large as
    possible for common categories.

    References
    ----------
    Gouweleeuw, Kooiman, Willenborg, de Wolf (1998), the invariant PRAM
    construction.
    """
    t = np.asarray(counts, dtype=float)
    if t.ndim != 1 or len(t) == 0:
        raise ParameterError("The 'counts' parameter of invariant_transition must be a non-empty 1-D array.")
    if not np.isfinite(t).all() or (t < 0).any() or not (t > 0).any():
        raise ParameterError(
            "The 'counts' parameter of invariant_transition must be finite and nonnegative, with at "
            "least one positive count."
        )
    p = check_real("p", p, "invariant_transition", low=0.0, high=1.0)
    k = len(t)
    matrix = np.eye(k)
    positive = np.flatnonzero(t > 0)
    k_pos = len(positive)
    if k_pos == 1:
        return matrix
    ratio = t[positive].min() / t[positive]  # T_min / T_k, in (0, 1]
    block = np.repeat(((1.0 - p) * ratio / (k_pos - 1))[:, None], k_pos, axis=1)
    np.fill_diagonal(block, 1.0 - (1.0 - p) * ratio)
    matrix[np.ix_(positive, positive)] = block
    return matrix


def _pram_matrix(
    column: str,
    categories: np.ndarray,
    p: float | Mapping[str, float] | None,
    transition: Mapping[str, Any] | None,
    counts: np.ndarray,
    invariant: bool,
) -> np.ndarray:
    k = len(categories)
    where = f"for column {column!r}"
    if transition is not None:
        matrix = transition.get(column)
        if matrix is None:
            raise ParameterError(
                f"The 'transition' parameter of pram has no matrix for column {column!r}; give one "
                "per column."
            )
        if isinstance(matrix, pd.DataFrame):
            rows = [str(v) for v in matrix.index]
            cols = [str(v) for v in matrix.columns]
            wanted = [str(v) for v in categories]
            if set(rows) != set(wanted) or set(cols) != set(wanted) or len(rows) != k or len(cols) != k:
                raise ParameterError(
                    f"The transition matrix {where} must be labelled, rows and columns, with exactly the "
                    f"column's {k} categories (its index and columns differ from them)."
                )
            frame = matrix.copy()
            frame.index, frame.columns = rows, cols
            matrix = frame.loc[wanted, wanted].to_numpy(dtype=float)
        return _check_transition(matrix, k, where)
    p_col = p.get(column) if isinstance(p, Mapping) else p
    if p_col is None:
        raise ParameterError(f"The 'p' parameter of pram has no value for column {column!r}.")
    p_col = check_real("p", p_col, "pram", low=0.0, high=1.0)
    if invariant:
        return invariant_transition(counts, p_col)
    return pram_transition(k, p_col)


def pram(
    dataset: Dataset,
    columns: Sequence[str] | None = None,
    *,
    p: float | Mapping[str, float] | None = None,
    transition: Mapping[str, Any] | None = None,
    invariant: bool = False,
    seed: Seed = None,
) -> Recoding:
    """Post-randomize categorical columns through Markov transition matrices (PRAM).

    Each value of each chosen column is replaced, independently, by a value
    drawn from the row of its category in the column's transition matrix:
    :math:`\\Pr[\\text{released} = l \\mid \\text{original} = k] = P_{kl}`.

    Parameters
    ----------
    dataset : Dataset
    columns : sequence of str, optional
        The columns to randomize (default: the quasi-identifiers), each
        independently.
    p : float in [0, 1], or mapping of column to float
        The keep probability: :func:`pram_transition` (keep with probability
        p, else move uniformly to another category), or with ``invariant=True``
        :func:`invariant_transition` over the column's counts.  p = 1 leaves
        the data unchanged.
    transition : mapping of column to array (K, K) or pandas.DataFrame
        Explicit matrices instead of ``p``: square, nonnegative, rows summing
        to 1, rows and columns in the order of the column's categories
        (``dataset.encode(column).labels`` without the missing label: the
        values present plus any declared schema domain, in the attribute's
        order), or a DataFrame labelled with those categories.
    invariant : bool, default False
        With ``p``: use the invariant matrix, whose expected output
        frequencies equal the input's (it is built from, and so discloses,
        the input frequencies; see :func:`invariant_transition`).
    seed : int, numpy.random.Generator or None
        Seed of the randomness (None: fresh OS entropy).  Keep it secret.

    Returns
    -------
    Recoding
        ``data`` is row-aligned with the input (``details["row_aligned"]``):
        every input column, the randomized ones as text labels; missing
        values stay missing and are never produced (they are not a category).
        ``details["transitions"]`` holds each column's ``categories`` and
        ``matrix`` (what users need for :func:`pram_estimate`).

    Raises
    ------
    ColumnNotFoundError
        A column is not in the table.
    ParameterError
        Neither or both of ``p`` and ``transition``, ``p`` outside [0, 1], a
        matrix that is not square, has negative entries, rows not summing to
        1, or the wrong size or labels for its column; ``invariant`` with
        ``transition``.

    Notes
    -----
    Sampling is vectorised by inverse CDF: with :math:`C = \\mathrm{cumsum}(P)`
    per row and one uniform u per record, the released code is
    :math:`\\#\\{l : C_{kl} \\le u\\}` for a record of category k, found by a
    single ``searchsorted`` over the rows laid end to end (row k shifted by
    k).  Zero-probability categories are never drawn.

    PRAM is not differential privacy (see :mod:`veil.dp`); with
    :func:`pram_transition` on K categories, each record's released value
    satisfies local ε-DP with :math:`\\varepsilon = \\ln(p(K-1)/(1-p))` for p ≥ 1/K
    (k-ary randomized response), but the release as a whole is judged here
    by its transition matrix only.

    References
    ----------
    Gouweleeuw et al. (1998); sdcMicro ``pram`` (Templ, Kowarik, Meindl 2015).

    Examples
    --------
    >>> import pandas as pd
    >>> from veil import Dataset
    >>> ds = Dataset.from_pandas(pd.DataFrame({"c": ["a", "b", "a", "c"]}), quasi_identifiers=["c"])
    >>> out = pram(ds, p=1.0, seed=0)
    >>> out.data["c"].tolist()
    ['a', 'b', 'a', 'c']
    """
    start = time.perf_counter()
    owner = "pram"
    if (p is None) == (transition is None):
        raise ParameterError(
            "pram needs exactly one of 'p' (keep probability) and 'transition' (explicit matrices). "
            f"Got {'neither' if p is None else 'both'} instead."
        )
    if invariant and transition is not None:
        raise ParameterError("The 'invariant' parameter of pram applies to 'p' only; "
                             "pass an invariant matrix through 'transition' instead.")
    columns = _columns(dataset, columns, owner)
    for mapping, name in ((transition, "transition"), (p if isinstance(p, Mapping) else None, "p")):
        for key in mapping or {}:
            if key not in columns:
                raise ParameterError(
                    f"The {name!r} parameter of pram names {key!r}, which is not one of the randomized "
                    f"columns ({', '.join(map(repr, columns))})."
                )
    rng = _generator(seed, owner)
    data = dataset.frame.copy()
    transitions: dict[str, Any] = {}
    for column in columns:
        encoded = dataset.encode(column)
        keep = np.arange(encoded.n_values) != encoded.missing_code
        categories = encoded.labels[keep]
        present = encoded.codes != encoded.missing_code
        codes = encoded.codes[present]  # the missing code is the last, so codes index categories
        counts = np.bincount(codes, minlength=len(categories)).astype(float)
        if len(categories) == 0:  # every value missing: nothing to randomize
            transitions[column] = {"categories": [], "matrix": []}
            continue
        matrix = _pram_matrix(column, categories, p, transition, counts, invariant)
        k = len(categories)
        cdf = np.cumsum(matrix, axis=1)
        cdf[:, -1] = 1.0
        flat = (cdf + np.arange(k)[:, None]).ravel()
        u = rng.random(len(codes))
        drawn = np.searchsorted(flat, u + codes, side="right") - codes * k
        drawn = np.clip(drawn, 0, k - 1)  # u + k rounding up to k + 1 (probability ~2^-53)
        released = np.full(dataset.n_records, np.nan, dtype=object)
        released[present] = categories[drawn]
        data[column] = pd.Series(released, dtype=object)
        transitions[column] = {"categories": [str(c) for c in categories], "matrix": matrix.tolist()}
    details = {
        "row_aligned": True,
        "columns": columns,
        "invariant": bool(invariant),
        "transitions": transitions,
        "differential_privacy": False,
    }
    return Recoding(data=data, algorithm="pram", suppressed=0, groups=0,
                    seconds=time.perf_counter() - start, details=details)
