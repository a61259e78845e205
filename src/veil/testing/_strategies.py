"""Hypothesis strategies for veil's inputs (kept for imports of this module's old path).

The strategies live in :mod:`veil.testing._tables` (hierarchies, tables,
datasets) and :mod:`veil.testing._models` (privacy models, anonymization
inputs); import them from :mod:`veil.testing`.
"""

from veil.testing._models import MODEL_FAMILIES, SENSITIVE_FAMILIES, anonymization_inputs, models
from veil.testing._tables import datasets, hierarchies, tables

__all__ = [
    "MODEL_FAMILIES",
    "SENSITIVE_FAMILIES",
    "hierarchies",
    "tables",
    "datasets",
    "models",
    "anonymization_inputs",
]
