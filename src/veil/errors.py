"""The exceptions veil raises.

Every error veil raises on purpose derives from :class:`VeilError`, so a caller
can catch them all at once; each also derives from the built-in exception a
Python caller would expect (``ValueError``, ``KeyError``, ...)::

    VeilError
    ├── SchemaError (ValueError)          columns, roles, kinds, missing values
    │   └── ColumnNotFoundError (KeyError)
    ├── DataFormatError (ValueError)      malformed input files (ragged CSV, ...)
    ├── HierarchyError (ValueError)       coverage, monotone levels, single top
    ├── ParameterError (ValueError)       a model/mechanism parameter out of range
    ├── ConfigError (ValueError)          the release configuration
    ├── InfeasibleError (ValueError)      no transformation meets the models
    ├── VerificationError (RuntimeError)  an output failed its own re-check
    ├── OutputError (OSError)             output path unwritable or equal to input
    ├── BudgetExceededError (ValueError)  a DP query would overspend the budget
    ├── EngineError (RuntimeError)        an engine's runtime (PySpark, Java) is missing
    └── MissingExtraError (ImportError)   an optional package is not installed (names the pip extra)

Message shape: what input or parameter, what rule, what was received, and the
remedy where there is one.  Messages never quote record values of QI or
sensitive columns, except the single value a hierarchy misses (the user needs it
to fix the hierarchy); a quoted value is cut to a bounded length.
"""

from __future__ import annotations

__all__ = [
    "VeilError",
    "SchemaError",
    "ColumnNotFoundError",
    "DataFormatError",
    "HierarchyError",
    "ParameterError",
    "ConfigError",
    "InfeasibleError",
    "VerificationError",
    "OutputError",
    "BudgetExceededError",
    "EngineError",
    "MissingExtraError",
]


class VeilError(Exception):
    """Base class of every error veil raises on purpose.

    Its text quotes no value at length: a quoted value of more than a few
    hundred characters is cut (:func:`veil._text.bounded`).
    """

    def __str__(self) -> str:
        from veil._text import bounded

        return bounded(super().__str__())


class SchemaError(VeilError, ValueError):
    """A table does not fit its declared schema (roles, kinds, missing values)."""


class ColumnNotFoundError(SchemaError, KeyError):
    """A named column is not in the table."""

    def __str__(self) -> str:  # KeyError would otherwise quote the message
        from veil._text import bounded

        return bounded(str(self.args[0])) if self.args else ""


class DataFormatError(VeilError, ValueError):
    """An input file is malformed (ragged CSV rows, unreadable encoding, ...)."""


class HierarchyError(VeilError, ValueError):
    """A generalization hierarchy is invalid or does not cover the data."""


class ParameterError(VeilError, ValueError):
    """A parameter of a model, mechanism or algorithm is outside its range."""


class ConfigError(VeilError, ValueError):
    """The release configuration is invalid or contradictory."""


class InfeasibleError(VeilError, ValueError):
    """No transformation satisfies the privacy models within the suppression limit.

    Attributes
    ----------
    best : object or None
        The best transformation found (the one needing the fewest suppressed
        records), when there is one, for the message and the report.
    """

    def __init__(self, message: str, *, best: object | None = None) -> None:
        super().__init__(message)
        self.best = best


class VerificationError(VeilError, RuntimeError):
    """An anonymized output failed the re-check of its own requested models."""


class OutputError(VeilError, OSError):
    """An output cannot be written (unwritable, or it would overwrite the input)."""


class BudgetExceededError(VeilError, ValueError):
    """A differentially private query would spend more than the remaining budget."""


class EngineError(VeilError, RuntimeError):
    """An engine cannot run: its library or runtime (PySpark, Java) is missing, or
    it produced something it should not have (a bug to report)."""


class MissingExtraError(VeilError, ImportError):
    """A feature needs an optional package that is not installed; the message names
    the ``pip install 'veil[extra]'`` to run (see :func:`veil._lazy.require`)."""
