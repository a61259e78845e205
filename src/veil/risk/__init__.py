"""Re-identification risk analysis: how re-identifiable is a table, before and after anonymization.

Everything here reads the class table (:class:`veil.classes.ClassTable`), never
the rows; functions also accept a :class:`~veil.dataset.Dataset` or a
DataFrame, grouped once.  Results are frozen dataclasses with ``to_dict()``.

* QI discovery: :func:`distinction`, :func:`separation`,
  :func:`quasi_identifier_ranking`, :func:`alpha_distinct`;
* attacker models: :func:`prosecutor_risk`, :func:`journalist_risk`,
  :func:`marketer_risk`;
* population uniqueness: :func:`population_uniqueness` (Pitman, Zayatz, SNB,
  Dankar's rule);
* attacks: :func:`linkage_attack`, :func:`homogeneity_attack`,
  :func:`background_knowledge_attack`, :func:`sparse_linkage_attack`
  (:func:`sparse_linkage_scores`);
* disclosure: :func:`disclosure` (A_diff, A_know, A_acc, δ);
* information: :func:`hypothetical_information`, :func:`perceived_information`,
  :func:`success_rate`;
* statistical disclosure control (sdcMicro): :func:`individual_risk` (sampling
  weights, households), :func:`suda2` (minimal sample uniques, SUDA / DIS-SUDA);
* everything at once: :func:`assess` → :class:`RiskReport` (the ``veil risk --json`` object).

See ``docs/risk.md`` for the definitions and the JSON contract.
"""

from veil.risk._attacker import (
    JournalistRisk,
    MarketerRisk,
    ProsecutorRisk,
    journalist_risk,
    marketer_risk,
    population_class_sizes,
    prosecutor_risk,
)
from veil.risk.attacks import (
    BackgroundKnowledgeResult,
    HomogeneityResult,
    LinkageResult,
    SparseLinkageResult,
    background_knowledge_attack,
    homogeneity_attack,
    linkage_attack,
    sparse_linkage_attack,
    sparse_linkage_scores,
)
from veil.risk._disclosure import DisclosureResult, disclosure
from veil.risk._individual import IndividualRisk, individual_risk
from veil.risk._suda import Suda2Result, suda2
from veil.risk._information import InformationResult, hypothetical_information, perceived_information, success_rate
from veil.risk._qi import (
    QuasiIdentifierScore,
    alpha_distinct,
    distinction,
    quasi_identifier_ranking,
    separation,
)
from veil.risk._report import RiskReport, SensitiveRisk, assess
from veil.risk._uniqueness import MAX_POPULATION_SIZE, PopulationUniqueness, UniquenessEstimate, population_uniqueness

__all__ = [
    "assess",
    "RiskReport",
    "SensitiveRisk",
    "distinction",
    "separation",
    "quasi_identifier_ranking",
    "alpha_distinct",
    "QuasiIdentifierScore",
    "prosecutor_risk",
    "journalist_risk",
    "marketer_risk",
    "population_class_sizes",
    "ProsecutorRisk",
    "JournalistRisk",
    "MarketerRisk",
    "population_uniqueness",
    "MAX_POPULATION_SIZE",
    "PopulationUniqueness",
    "UniquenessEstimate",
    "linkage_attack",
    "homogeneity_attack",
    "background_knowledge_attack",
    "sparse_linkage_attack",
    "sparse_linkage_scores",
    "LinkageResult",
    "HomogeneityResult",
    "BackgroundKnowledgeResult",
    "SparseLinkageResult",
    "disclosure",
    "DisclosureResult",
    "hypothetical_information",
    "perceived_information",
    "success_rate",
    "InformationResult",
    "individual_risk",
    "IndividualRisk",
    "suda2",
    "Suda2Result",
]
