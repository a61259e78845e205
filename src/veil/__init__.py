"""veil: privacy-preserving data publishing.

Measure how re-identifiable a table is, transform it until it meets formal
privacy models, measure what that cost in utility, and answer statistical
queries under differential privacy.
"""

from __future__ import annotations

__version__ = "0.1.0"
