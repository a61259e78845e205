"""Synthetic tables under differential privacy from noisy marginals (MST, AIM).

See ``docs/synthesize.md``.
"""

from veil.dp.synthesis._api import SynthesisResult, marginal_errors, synthesize
from veil.dp.synthesis._domain import ColumnDomain, parse_bins, parse_domain
from veil.dp.synthesis._evaluation import evaluate_synthesis, split_holdout
from veil.dp.synthesis._evaluation_report import public_report

__all__ = ["synthesize", "SynthesisResult", "marginal_errors", "ColumnDomain", "parse_domain", "parse_bins",
           "evaluate_synthesis", "split_holdout", "public_report"]
