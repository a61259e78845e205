"""The interface every privacy model implements."""

from __future__ import annotations

from abc import ABC, abstractmethod
from typing import Any, ClassVar

import numpy as np

from veil.classes import ClassTable
from veil.models._facts import Param, RequirementKey, validate

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
    * ``compared_with``: what a class's sensitive distribution is compared
      with, ``"shown"`` for the distribution of the values the release shows
      (t-closeness, δ-disclosure, β-likeness; the one definition is
      :mod:`veil.models._shown`), ``""`` for a model that reads each class alone;
    * ``reference``: the paper and definition the model implements;
    * ``config_key``: its ``type`` in a release configuration
      (``k-anonymity``); ``label``: the report's name, a format string over
      the parameters (``{k}-anonymity``);
    * ``parameters``: each parameter's constraint, as data (:class:`Param`),
      checked by ``__post_init__`` with one message shape;
    * ``requirement_keys``: its keys in the requirement grammar
      (:class:`RequirementKey`: ``k>=5``, ``lkc(L=2,K=5,C=0.5)``);
    * ``needs_population``: it needs a population table;
    * ``class_local``: it judges each class on its own (its size and its
      sensitive histogram against the whole table's), never other classes nor
      the released labels, so an algorithm that decides one partition at a
      time (Mondrian) can enforce it;
    * ``judges_suppressed_group``: it judges only the group of suppressed
      records (published as one class), so an algorithm that partitions the
      kept records judges it once, on the records it suppresses.

    A model is available to the configuration, ``--require`` (``veil check``
    and ``veil anonymize``), the CLI help and the report once its class is in
    :mod:`veil.models.registry`.

    The three questions a model answers must agree:
    :meth:`violating` (which classes fail: suppressing them makes
    :meth:`check` true), :meth:`check` (is the required level met?) and
    :meth:`achieved_level` (the strongest parameter the table meets).
    """

    monotone_generalization: ClassVar[bool] = False
    monotone_with_suppression: ClassVar[bool] = False
    needs_sensitive: ClassVar[bool] = False
    compared_with: ClassVar[str] = ""
    reference: ClassVar[str] = ""
    config_key: ClassVar[str] = ""
    label: ClassVar[str] = ""
    parameters: ClassVar[tuple[Param, ...]] = ()
    requirement_keys: ClassVar[tuple[RequirementKey, ...]] = ()
    needs_population: ClassVar[bool] = False
    class_local: ClassVar[bool] = False
    judges_suppressed_group: ClassVar[bool] = False

    def __post_init__(self) -> None:
        validate(self)

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
    def smallest_class(self) -> int:
        """The fewest records a class can hold and meet this model (1: the model sets no such floor).

        A lattice search with no suppression refutes a node whose attribute pairs' marginals have
        a cell smaller than this (:mod:`veil.algorithms._pairs`), without building its table.
        """
        return 1

    @property
    def name(self) -> str:
        """A short human-readable name with the parameters, e.g. ``5-anonymity``.

        Formatted from the class's ``label`` (its class name when it has none).
        """
        if not self.label:
            return type(self).__name__
        values = {p.name: getattr(self, p.name) for p in self.parameters}
        return self.label.format(**values)
