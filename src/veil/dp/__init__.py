"""Differential privacy: answer queries with calibrated noise instead of publishing a table.

Mechanisms draw their noise from OpenDP's samplers (OpenDP's ``contrib``
feature: proofs written, not yet vetted; never numpy.random); an accountant
(basic, advanced, zCDP, privacy-filter or PLD composition), optionally backed by
a file-locked, journaled :class:`BudgetLedger`, refuses queries that would
overspend the budget; a :class:`PrivateTable` bounds each privacy unit's
contributions (in total and per group, :class:`ContributionBounds`) and answers
counts, sums, means, quantiles, histograms, contingency tables, group-by
counts and group-by sums; plus query restriction (not a guarantee), randomized response,
post-processing and stream aggregation.
See ``docs/dp.md``.
"""

from veil.dp._accountant import LedgerEntry, PrivacyAccountant
from veil.dp._budget import (
    COMMON_EPSILONS,
    PrivacyBudget,
    ZCDPBudget,
    bun_steinke_epsilon,
    zcdp_epsilon,
)
from veil.dp._ledger import BudgetLedger, LedgerError, dataset_fingerprint
from veil.dp._mechanisms import (
    GaussianMechanism,
    GeometricMechanism,
    LaplaceMechanism,
    analytic_gaussian_sigma,
    certified_gaussian_sigma,
)
from veil.dp._postprocessing import clamp_nonnegative, consistent_counts, round_counts
from veil.dp._predicate import QuerySpec, parse_predicate, parse_query
from veil.dp._randomized_response import KaryRandomizedResponse, RandomizedResponse
from veil.dp._restriction import QueryAuditor, QueryRefusedError
from veil.dp._selection import ExponentialMechanism, PermuteAndFlip
from veil.dp._sensitivity import (
    clamped_fixed_point_sum,
    count_sensitivity,
    fixed_point_exponent,
    histogram_sensitivity,
    local_sensitivity,
    mean_sensitivity,
    sum_sensitivity,
)
from veil.dp._streams import BinaryTreeMechanism, distributed_laplace_shares, paillier_noisy_total
from veil.dp._table import ContributionBounds, DPAnswer, PrivateTable
from veil.dp.synthesis import synthesize  # noqa: F401  (veil.dp.synthesize)

__all__ = [
    "COMMON_EPSILONS", "PrivacyBudget", "ZCDPBudget", "PrivacyAccountant", "LedgerEntry",
    "zcdp_epsilon", "bun_steinke_epsilon", "BudgetLedger", "LedgerError", "dataset_fingerprint",
    "LaplaceMechanism", "GaussianMechanism", "GeometricMechanism", "ExponentialMechanism",
    "PermuteAndFlip", "analytic_gaussian_sigma", "certified_gaussian_sigma",
    "count_sensitivity", "sum_sensitivity", "mean_sensitivity", "histogram_sensitivity",
    "local_sensitivity", "clamped_fixed_point_sum", "fixed_point_exponent",
    "PrivateTable", "DPAnswer", "ContributionBounds",
    "QueryAuditor", "QueryRefusedError",
    "RandomizedResponse", "KaryRandomizedResponse",
    "round_counts", "clamp_nonnegative", "consistent_counts",
    "BinaryTreeMechanism", "distributed_laplace_shares", "paillier_noisy_total",
    "parse_predicate", "parse_query", "QuerySpec",
]
