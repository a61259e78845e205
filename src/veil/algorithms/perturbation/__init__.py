"""Perturbation of numeric attributes (sdcMicro): noise, correlated noise, rank swapping, and MDAV
microaggregation through the same call; information loss (IL1s, eigenvalues) and disclosure risk
(record linkage, interval disclosure).  Not differential privacy."""

from veil.algorithms.perturbation._measures import disclosure_risk, information_loss
from veil.algorithms.perturbation._perturb import (
    METHODS,
    NOT_DIFFERENTIAL_PRIVACY,
    Perturbation,
    numeric_values,
    perturb,
)

__all__ = ["perturb", "Perturbation", "METHODS", "NOT_DIFFERENTIAL_PRIVACY", "numeric_values",
           "information_loss", "disclosure_risk"]
