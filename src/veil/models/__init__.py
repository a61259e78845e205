"""Privacy models, each a small class judged on a :class:`~veil.classes.ClassTable`.

Every model answers three questions that agree: which classes violate it
(:meth:`~PrivacyModel.violating`, for suppression), whether the table meets it
(:meth:`~PrivacyModel.check`) and the strongest level the table achieves
(:meth:`~PrivacyModel.achieved_level`); its class facts say whether it is
monotone under generalization (with and without suppression).
:func:`evaluate` reports every level at once; :func:`check` does it for a
dataset and judges requirements such as ``"k>=5, l>=2"``.

:mod:`veil.models.registry` lists the models; each declares its facts once
(configuration key, parameters and their constraints, requirement keys,
monotonicity, citation, report label) and the configuration schema, the
requirement grammar, the CLI help and the report are derived from them.
"""

from veil.models._alpha_k import AlphaKAnonymity
from veil.models._base import PrivacyModel
from veil.models._beta_likeness import BasicBetaLikeness, EnhancedBetaLikeness
from veil.models._check import check
from veil.models._delta_disclosure import DeltaDisclosure, PresentValuesDeltaDisclosure
from veil.models._delta_presence import DeltaPresence
from veil.models._facts import Param, RequirementKey
from veil.models._k_anonymity import KAnonymity
from veil.models._k_link import KLinkAnonymity
from veil.models._k_map import KMap
from veil.models._l_diversity import DistinctLDiversity, EntropyLDiversity, RecursiveCLDiversity
from veil.models._lkc import LKCPrivacy
from veil.models._differential_privacy import DifferentialPrivacy
from veil.models._report import LOG_BASE, CheckReport, RequirementResult, SensitiveReport, evaluate
from veil.models import registry
from veil.models._requirements import (
    REQUIREMENT_KEYS,
    Requirement,
    parse_requirements,
    requested_levels,
    requirement_models,
)
from veil.models._risk_thresholds import AverageRisk, MaxProsecutorRisk, RecordsAtRiskShare
from veil.models._t_closeness import EqualDistanceTCloseness, HierarchicalTCloseness, OrderedDistanceTCloseness

__all__ = [
    "PrivacyModel",
    "Param",
    "RequirementKey",
    "KAnonymity",
    "DistinctLDiversity",
    "EntropyLDiversity",
    "RecursiveCLDiversity",
    "EqualDistanceTCloseness",
    "OrderedDistanceTCloseness",
    "HierarchicalTCloseness",
    "DeltaDisclosure",
    "PresentValuesDeltaDisclosure",
    "DeltaPresence",
    "AlphaKAnonymity",
    "BasicBetaLikeness",
    "EnhancedBetaLikeness",
    "KMap",
    "LKCPrivacy",
    "DifferentialPrivacy",
    "MaxProsecutorRisk",
    "AverageRisk",
    "RecordsAtRiskShare",
    "KLinkAnonymity",
    "CheckReport",
    "SensitiveReport",
    "RequirementResult",
    "Requirement",
    "REQUIREMENT_KEYS",
    "LOG_BASE",
    "evaluate",
    "check",
    "parse_requirements",
    "requirement_models",
    "requested_levels",
    "registry",
]
