"""SafePub (Bild, Kuhn & Prasser, PoPETs 2018): truthful anonymization under (ε, δ)-differential privacy.

Each record is drawn with probability β, the exponential mechanism picks a
full-domain generalization with a share of ε (the search budget: one draw
over every node of the lattice when it has at most 100,000 nodes, else a walk
down the lattice from the top, then a draw among the nodes it scored), and every
class with fewer than k sampled records is suppressed.  With ``--budget-file``
the release's (ε, δ) is charged to the budget ledger once, before the
records are sampled.  Released values are the input's, generalized: nothing is
perturbed or synthesized.  (β, k) follow from the rest of ε and δ exactly as
ARX's ``ParameterCalculation`` derives them (:func:`safepub_parameters`).

See ``docs/algorithms/safepub.md``.
"""

from veil.algorithms.safepub._parameters import (SafePubParameters, anonymization_epsilon, check_privacy_parameters,
                                                 safepub_parameters)

__all__ = ["SafePubParameters", "safepub_parameters", "check_privacy_parameters", "anonymization_epsilon"]
