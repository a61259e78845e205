"""Attack any release and measure what it leaks beyond a control set (Anonymeter's frame).

:func:`evaluate` runs the singling-out, linkability and inference attacks of
Anonymeter (Giomi et al., "A Unified Framework for Quantifying Privacy Risk in
Synthetic Data", PETS 2023) and veil's own linkage, homogeneity and
distance-based record linkage on a release of any kind (generalized,
suppressed, perturbed, randomized, synthetic, or made by another tool), each
against a control set of records that were not used, and a random-guess
baseline.  :func:`split` holds out the control.  See ``docs/evaluate.md``.
"""

from veil.evaluate._evaluate import ATTACKS, evaluate
from veil.evaluate._holdout import Holdout
from veil.evaluate._rates import AttackResult, SuccessRate, attack_result, bound_risk, residual_success, success_rate
from veil.evaluate._split import split

__all__ = ["evaluate", "split", "Holdout", "ATTACKS", "AttackResult", "SuccessRate", "success_rate", "residual_success",
           "bound_risk", "attack_result"]
