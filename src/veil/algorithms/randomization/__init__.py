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
  expected output frequencies *are* the original ones.  Its matrices are
  dense (K x K): a column of more than :data:`PRAM_MAX_CATEGORIES` categories
  is refused before anything is allocated (:func:`check_pram_categories`).

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

The package: ``_common`` (seeds and column choices), ``_alpha_beta_theory``
(the (d, γ) region of Theorem 4.3, posterior, estimator, variance,
usefulness), ``_alpha_beta`` (the release and its query estimator) and
``_pram`` (PRAM, its matrices and estimator).  Every public name is imported
from here, as it was from the single module this package replaces.
"""

from veil.algorithms.randomization._alpha_beta import alpha_beta, alpha_beta_query
from veil.algorithms.randomization._alpha_beta_theory import (
    AlphaBetaParameters,
    alpha_beta_estimate,
    alpha_beta_parameters,
    alpha_beta_posterior,
    alpha_beta_usefulness,
    alpha_beta_variance,
    is_private,
)
from veil.algorithms.randomization._common import Seed, Selection
from veil.algorithms.randomization._pram import (
    PRAM_MAX_CATEGORIES,
    check_pram_categories,
    invariant_transition,
    pram,
    pram_estimate,
    pram_transition,
)

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
    "PRAM_MAX_CATEGORIES",
    "check_pram_categories",
]
