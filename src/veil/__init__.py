"""veil: privacy-preserving data publishing.

Measure how re-identifiable a table is (:mod:`veil.risk`), check it against
formal privacy models (:mod:`veil.models`), transform it until it meets them
with the least information loss (:func:`anonymize`, :mod:`veil.utility`),
remove direct identifiers (:mod:`veil.sanitize`) and answer statistical
queries under differential privacy (:mod:`veil.dp`).

Heavy submodules are imported on first use, so ``import veil`` stays fast.
"""

import importlib as _importlib
from typing import Any as _Any

__version__ = "0.1.0"

_LAZY = {
    "Dataset": ("veil.dataset", "Dataset"),
    "Schema": ("veil.schema", "Schema"),
    "Hierarchy": ("veil.hierarchy", "Hierarchy"),
    "ClassTable": ("veil.classes", "ClassTable"),
    "anonymize": ("veil.anonymization", "anonymize"),
    "AnonymizationResult": ("veil.anonymization", "AnonymizationResult"),
    "check": ("veil.models", "check"),
    "assess_risk": ("veil.risk", "assess"),
}
_SUBMODULES = {"datasets", "hierarchy", "models", "risk", "utility", "dp", "sanitize", "algorithms", "config", "errors", "report", "testing", "engines", "marginals", "explore", "pipeline"}

__all__ = ["__version__", *_LAZY, *sorted(_SUBMODULES)]


def __getattr__(name: str) -> _Any:
    if name in _LAZY:
        module, attribute = _LAZY[name]
        value = getattr(_importlib.import_module(module), attribute)
        globals()[name] = value
        return value
    if name in _SUBMODULES:
        return _importlib.import_module(f"veil.{name}")
    raise AttributeError(f"module 'veil' has no attribute {name!r}")


def __dir__() -> list[str]:
    """The public API (``__all__``), so that ``dir(veil)`` and tab completion list it before any
    of it is imported; submodules already imported are listed too."""
    return sorted(set(__all__) | {n for n in globals() if not n.startswith("_")})
