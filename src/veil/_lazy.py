"""Optional and heavy imports: modules imported on first use, and the extras that provide them.

The base ``pip install veil`` holds what the core needs (describe, scan,
deidentify, risk, check, anonymize with the local engine).  Everything else
comes with an extra, and :func:`require` is the one place that turns a missing
one into an error naming the ``pip install`` to run.
"""

from __future__ import annotations

import importlib
from types import ModuleType
from typing import Any

from veil.errors import MissingExtraError

__all__ = ["lazy_module", "require", "EXTRAS"]

#: Optional top-level package → the veil extra that installs it.
EXTRAS = {
    "opendp": "dp",
    "duckdb": "duckdb",
    "pyspark": "spark",
    "matplotlib": "report",
    "phe": "he",
    "sklearn": "ml",
    "hypothesis": "testing",
    "dp_accounting": "pld",
    "starlette": "web",
    "uvicorn": "web",
    "multipart": "web",
}


class _LazyModule:
    """Stands for a module and imports it on the first attribute access."""

    def __init__(self, name: str) -> None:
        self._name = name
        self._module: ModuleType | None = None

    def __getattr__(self, attribute: str) -> Any:
        if self._module is None:
            self._module = importlib.import_module(self._name)
        return getattr(self._module, attribute)

    def __repr__(self) -> str:
        return f"<lazy module {self._name!r}>"


def lazy_module(name: str) -> Any:
    """A stand-in for module ``name`` that imports it when first used."""
    return _LazyModule(name)


def require(module: str, *, feature: str) -> ModuleType:
    """Import an optional ``module``, or say which extra to install.

    Parameters
    ----------
    module : str
        A module of one of the optional packages of :data:`EXTRAS`.
    feature : str
        What needs it, for the message (``"veil query"``).

    Raises
    ------
    MissingExtraError
        The package is not installed; the message names ``pip install 'veil[extra]'``.

    Examples
    --------
    >>> require("numpy.linalg", feature="anything").__name__  # a module that is there
    'numpy.linalg'
    """
    try:
        return importlib.import_module(module)
    except ImportError as exc:
        package = module.split(".")[0]
        missing = (exc.name or "").split(".")[0]
        if missing and missing != package:
            raise  # the package is there but one of its own dependencies is broken: show it as it is
        extra = EXTRAS.get(package, "all")
        raise MissingExtraError(
            f"The optional package {package!r} is not installed (needed by {feature}); "
            f"install it with: pip install 'veil[{extra}]'"
        ) from None
