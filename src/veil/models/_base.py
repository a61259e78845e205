"""The interface every privacy model implements."""

from __future__ import annotations

from abc import ABC, abstractmethod
from typing import Any, ClassVar

import numpy as np

from veil.classes import ClassTable

__all__ = ["PrivacyModel"]


class PrivacyModel(ABC):
    """A privacy model judged on a class table.

    Subclasses are small frozen dataclasses holding only their parameters
    (keyword-only, validated in ``__post_init__``), with class-level facts:

    * ``monotone_generalization``: if a table satisfies the model, every
      generalization of it does too (no suppression involved);
    * ``monotone_with_suppression``: the same still holds when the classes
      that violate the model are suppressed at each node (what a search with a
      suppression limit does).  Only models with this fact may be used to prune
      a lattice search that allows suppression;
    * ``needs_sensitive``: whether the model reads a sensitive attribute;
    * ``reference``: the paper and definition the model implements.

    The three questions a model answers must agree:
    :meth:`violating` (which classes fail: suppressing them makes
    :meth:`check` true), :meth:`check` (is the required level met?) and
    :meth:`achieved_level` (the strongest parameter the table meets).
    """

    monotone_generalization: ClassVar[bool] = False
    monotone_with_suppression: ClassVar[bool] = False
    needs_sensitive: ClassVar[bool] = False
    reference: ClassVar[str] = ""

    @abstractmethod
    def violating(self, classes: ClassTable) -> np.ndarray:
        """Boolean mask over classes: ``True`` where a class fails the model."""

    def check(self, classes: ClassTable) -> bool:
        """Whether the table meets the model at the required level."""
        return not bool(self.violating(classes).any())

    @abstractmethod
    def achieved_level(self, classes: ClassTable) -> Any:
        """The strongest parameter value the table meets."""

    @property
    def name(self) -> str:
        """A short human-readable name with the parameters, e.g. ``5-anonymity``."""
        return type(self).__name__
