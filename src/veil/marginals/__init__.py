"""Anonymized marginals: publish count tables, check k-link anonymity, measure utility by MaxEnt and KL.

Kifer and Gehrke (SIGMOD 2006) publish, next to (or instead of) one anonymized
table, a collection of *anonymized marginals*: count tables over a few
attributes at some generalization levels.  Privacy: every marginal must be
k-anonymous, i.e. the collection k-link anonymous.  Utility: the
maximum-entropy distribution consistent with the marginals, :math:`\\hat F_2`,
is what an analyst can infer; its KL divergence from the original empirical
distribution :math:`\\hat F_1` measures what the release lost.

========================  ======================================================
:func:`marginal`          a :class:`Marginal` from a class table or dataset
:func:`check_marginals`   k-link anonymity of a collection (Definition 4.1)
:func:`achieved_k_link`   the largest k the collection meets
:func:`k_combinatorial`   k-combinatorial anonymity (Definition 4.2): the most
                          records each combination can hold, the k achieved
:func:`maxent_l_diversity`  MaxEnt l-diversity (Definition 4.3): the l of the
                          MaxEnt estimate (with :func:`check_maxent_l_diversity`)
:func:`maxent_estimate`   :math:`\\hat F_2` by iterative proportional fitting
:func:`kl_to_original`    :math:`KL(\\hat F_1 \\| \\hat F_2)` in bits
:func:`choose_marginals`  greedy choice of k-anonymous 1- and 2-way marginals
========================  ======================================================

Everything runs on class tables and dense arrays over the marginals' joint
domain, never on rows.  See ``docs/marginals.md``.
"""

from veil.marginals._marginal import Marginal, achieved_k_link, check_marginals, marginal
from veil.marginals._maxent import DEFAULT_MAX_CELLS, MaxEntEstimate, kl_to_original, maxent_estimate
from veil.marginals._privacy import (
    CombinatorialAnonymity,
    check_k_combinatorial,
    check_maxent_l_diversity,
    k_combinatorial,
    maxent_l_diversity,
)
from veil.marginals._selection import MarginalSelection, choose_marginals

__all__ = [
    "Marginal",
    "marginal",
    "check_marginals",
    "achieved_k_link",
    "CombinatorialAnonymity",
    "k_combinatorial",
    "check_k_combinatorial",
    "maxent_l_diversity",
    "check_maxent_l_diversity",
    "MaxEntEstimate",
    "maxent_estimate",
    "kl_to_original",
    "DEFAULT_MAX_CELLS",
    "MarginalSelection",
    "choose_marginals",
]
