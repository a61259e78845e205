"""k-anonymity (Samarati & Sweeney 1998; Sweeney 2002)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

import numpy as np

from veil.classes import ClassTable
from veil.models._base import PrivacyModel
from veil.models._facts import Param, RequirementKey

__all__ = ["KAnonymity", "MinimumClassSize"]


@dataclass(frozen=True)
class MinimumClassSize(PrivacyModel):
    """Every class holds at least ``k`` records: the judgement k-anonymity and
    k-link anonymity (on one marginal) share, with its facts.

    Monotone under generalization (merging classes only grows them) and with
    suppression of the classes smaller than ``k``.
    """

    k: int

    monotone_generalization: ClassVar[bool] = True
    class_local: ClassVar[bool] = True
    monotone_with_suppression: ClassVar[bool] = True
    parameters: ClassVar[tuple[Param, ...]] = (Param("k", "int", low=1),)

    def violating(self, classes: ClassTable) -> np.ndarray:
        return classes.counts < self.k

    @property
    def smallest_class(self) -> int:
        """``k``: every class holds at least ``k`` records."""
        return self.k

    def achieved_level(self, classes: ClassTable) -> int:
        """The smallest class size (0 when every record is suppressed)."""
        return int(classes.counts.min()) if classes.n_classes else 0


@dataclass(frozen=True)
class KAnonymity(MinimumClassSize):
    """Every record is indistinguishable from at least ``k - 1`` others on the QIs.

    A table satisfies k-anonymity when every equivalence class of its
    quasi-identifiers holds at least ``k`` records; the probability of linking
    a known person to their record through the QIs is then at most ``1/k``.

    Parameters
    ----------
    k : int, in [1, inf)
        The smallest allowed class size.

    Notes
    -----
    .. math:: \\min_j |E_j| \\ge k

    Monotone under generalization (merging classes only grows them) and under
    generalization with suppression of the classes smaller than ``k``.
    Suppressed records are not a class: they are reported apart.

    References
    ----------
    L. Sweeney, "k-anonymity: a model for protecting privacy", Int. J. of
    Uncertainty, Fuzziness and Knowledge-Based Systems 10(5), 2002 (Def. 2).

    Examples
    --------
    >>> import pandas as pd
    >>> from veil.classes import ClassTable
    >>> frame = pd.DataFrame({"zip": ["476**"] * 3 + ["4790*"] * 2})
    >>> classes = ClassTable.from_pandas(frame, quasi_identifiers=["zip"])
    >>> KAnonymity(k=2).check(classes), KAnonymity(k=2).achieved_level(classes)
    (True, 2)
    """

    reference: ClassVar[str] = "Sweeney, IJUFKS 10(5), 2002, Definition 2"
    config_key: ClassVar[str] = "k-anonymity"
    label: ClassVar[str] = "{k}-anonymity"
    requirement_keys: ClassVar[tuple[RequirementKey, ...]] = (
        RequirementKey("k", "k", ">=", "smallest class size", report_field="k"),
    )
