"""Kept for the old import path: the attacks live in :mod:`veil.risk.attacks`, one module per attack."""

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
from veil.risk.attacks._homogeneity import _histogram

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

