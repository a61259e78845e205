"""Attack simulations (one module per attack): what a real adversary achieves, not only a bound.

* linkage (Sweeney 2002): join the release to an identified external table;
* homogeneity and background knowledge (Machanavajjhala et al. 2007);
* sparse high-dimensional linkage (Narayanan & Shmatikov 2008, the Netflix
  Prize data).

Results give counts and fractions; they never quote record values.
"""

from veil.risk.attacks._homogeneity import (
    BackgroundKnowledgeResult,
    HomogeneityResult,
    background_knowledge_attack,
    homogeneity_attack,
)
from veil.risk.attacks._linkage import LinkageResult, linkage_attack
from veil.risk.attacks._sparse import SparseLinkageResult, sparse_linkage_attack, sparse_linkage_scores

__all__ = [
    "LinkageResult",
    "HomogeneityResult",
    "BackgroundKnowledgeResult",
    "SparseLinkageResult",
    "linkage_attack",
    "homogeneity_attack",
    "background_knowledge_attack",
    "sparse_linkage_scores",
    "sparse_linkage_attack",
]

