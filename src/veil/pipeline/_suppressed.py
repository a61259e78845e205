"""Suppressed records are records too: the ``keep`` mode's extra requirement.

When suppressed records are published with their sensitive values
(``suppressed="keep"``), an attacker who knows a target's quasi-identifiers
and does not find the target's class in the release learns that the target is
among the suppressed records, whose sensitive values are in plain view (issue
#13: ``*,*,*,rare-disease``).  So the suppressed group is judged as one more
class by every model that reads a sensitive attribute.

:class:`SuppressedGroup` wraps those models as one table-level model for the
search: it never asks for classes to be suppressed (``violating`` is all
false) and it is not monotone, so the lattice search judges every candidate
node with it after suppression, and a node whose suppressed group fails is not
a solution.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from veil.classes import ClassTable
from veil.models import PrivacyModel

__all__ = ["SuppressedGroup", "sensitive_models", "suppressed_rows", "check_models", "star_valued"]


def suppressed_rows(data: Any, quasi_identifiers: Sequence[str]) -> np.ndarray:
    """The rows of ``data`` (a frame) with ``*`` in every quasi-identifier: the suppressed records."""
    from veil.classes import SUPPRESSED

    star = np.ones(len(data), dtype=np.bool_)
    for name in quasi_identifiers:  # one vectorised comparison per QI
        star &= data[name].astype(str).to_numpy() == SUPPRESSED
    return star


def star_valued(classes: ClassTable) -> list[str]:
    """The sensitive attributes of ``classes`` that some record holds the value ``*`` in: the mark
    ``suppressed: blank`` writes for a suppressed record's value, so the two read alike."""
    from veil.classes import SUPPRESSED

    return [name for name, hist in classes.sensitive.items()
            if bool(((np.asarray(hist.labels, dtype=object) == SUPPRESSED) & (np.asarray(hist.overall) > 0)).any())]


def sensitive_models(models: Sequence[PrivacyModel]) -> list[PrivacyModel]:
    """The models that read a sensitive attribute (those the suppressed group must meet)."""
    return [m for m in models if getattr(m, "needs_sensitive", False)]


@dataclass(frozen=True, eq=False)
class SuppressedGroup(PrivacyModel):
    """The suppressed records, as one class, meet every model in ``models``.

    Parameters
    ----------
    models : tuple of PrivacyModel
        Models that read a sensitive attribute.

    Examples
    --------
    >>> import pandas as pd
    >>> from veil.models import DistinctLDiversity
    >>> frame = pd.DataFrame({"zip": ["1", "1", "2"], "d": ["flu", "hiv", "cancer"]})
    >>> table = ClassTable.from_pandas(frame, quasi_identifiers=["zip"], sensitive=["d"])
    >>> model = SuppressedGroup((DistinctLDiversity(sensitive="d", l=2),))
    >>> model.check(table), model.check(table.suppress(table.counts < 2))
    (True, False)
    """

    models: tuple[PrivacyModel, ...]

    monotone_generalization = False
    monotone_with_suppression = False
    needs_sensitive = True
    reference = "veil release policy (issue #13): suppressed records published with their sensitive values"

    def violating(self, classes: ClassTable) -> np.ndarray:
        return np.zeros(classes.n_classes, dtype=np.bool_)

    def check(self, classes: ClassTable) -> bool:
        group = classes.suppressed_group()
        return group is None or all(m.check(group) for m in self.models)

    def failing(self, classes: ClassTable) -> list[str]:
        """Names of the models the suppressed group fails."""
        group = classes.suppressed_group()
        return [] if group is None else [m.name for m in self.models if not m.check(group)]

    def achieved_level(self, classes: ClassTable) -> Any:
        return self.check(classes)

    @property
    def name(self) -> str:
        return "suppressed group: " + ", ".join(m.name for m in self.models)


def check_models(models: Sequence[PrivacyModel], classes: ClassTable) -> None:
    """Every model re-checked on a class table rebuilt from the release (both verifications).

    Raises
    ------
    VerificationError
        A model fails: a bug in veil, so nothing is written.
    """
    from veil.errors import VerificationError

    failed = [m for m in models if not m.check(classes)]
    if failed:
        raise VerificationError(
            f"The anonymized table fails its own requested model(s): {', '.join(m.name for m in failed)}. "
            "This is a bug in veil; nothing was written. Please report it with the configuration."
        )
