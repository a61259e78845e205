"""Anonymization algorithms.

* :mod:`~veil.algorithms.lattice`: the optimal full-domain lattice search (and
  its exhaustive reference);
* :mod:`~veil.algorithms.datafly`: Sweeney's greedy full-domain heuristic;
* :mod:`~veil.algorithms.mondrian`: multidimensional partitioning;
* :mod:`~veil.algorithms.tds`: top-down specialization (HDTDS);
* :mod:`~veil.algorithms.microaggregation`: MDAV;
* :mod:`~veil.algorithms.randomization`: the αβ algorithm and PRAM (randomized
  publishing; not differential privacy, see :mod:`veil.dp`).

:func:`veil.anonymize` runs the first five by name through the registry
:data:`ALGORITHMS` (:func:`register_algorithm` adds one) and verifies their output.
The functions ``datafly.datafly`` and ``mondrian.mondrian`` are not re-exported
here: their names are their modules' names.
"""

from veil.algorithms._recoding import Recoding
from veil.algorithms.lattice import Lattice, SearchResult, exhaustive_search, search
from veil.algorithms.microaggregation import mdav
from veil.algorithms.randomization import (
    alpha_beta, alpha_beta_estimate, alpha_beta_parameters, alpha_beta_query, invariant_transition, pram,
    pram_estimate, pram_transition,
)
from veil.algorithms.tds import top_down_specialization
from veil.algorithms._registry import (  # noqa: E402  (after the algorithms it registers)
    ALGORITHMS, AlgorithmSpec, Outcome, Problem, get_algorithm, register_algorithm,
)

__all__ = [
    "ALGORITHMS", "AlgorithmSpec", "Problem", "Outcome", "register_algorithm", "get_algorithm",
    "Lattice", "SearchResult", "search", "exhaustive_search", "Recoding",
    "top_down_specialization", "mdav", "alpha_beta", "alpha_beta_estimate", "alpha_beta_parameters",
    "alpha_beta_query", "pram", "pram_estimate", "pram_transition", "invariant_transition",
]
