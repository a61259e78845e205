"""Suppressed records are records too, and a node is judged as its release will show it.

A released group of records with ``*`` in every quasi-identifier is a class
of the release like any other (:mod:`veil.models._shown`).  When suppressed
records are published (``suppressed="blank"`` or ``"keep"``), they are such a
group: an attacker who does not find a target's class among the generalized
ones learns that the target is among them, and with ``keep`` reads their
sensitive values (issue #13: ``*,*,*,rare-disease``; issue #32: a kept group
of one record under 5-anonymity).  So the group must meet every requested
model as a class: k-anonymity and every model that reads class sizes in any
mode that publishes it, and with ``keep`` the sensitive-attribute models as
well (their values are shown; with ``blank`` they are withheld).

:class:`SuppressedGroup` wraps those models as one table-level model for the
search: it never asks for classes to be suppressed (``violating`` is all
false) and it is not monotone, so the lattice search judges every candidate
node with it after suppression, and a node whose suppressed group fails is not
a solution.  :class:`AsShown` judges one sensitive-attribute model on a node
as the release will show it, where that differs from the node's class table:
a withheld ``*`` or (``missing_sensitive: ignore``) a missing value is not a
value, and with ``blank`` or ``drop`` the reference distribution is the
released classes' (the suppressed records' values are not shown).
:func:`search_models` says which models the search judges.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from veil.classes import ClassTable
from veil.models import PrivacyModel
from veil.dataset import MISSING
from veil.models._shown import SHOWN, WITHHELD, failing_models, holds, judged, judged_table, shown

__all__ = ["SuppressedGroup", "AsShown", "search_models", "sensitive_models", "suppressed_rows", "check_models",
           "star_valued"]


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
    return [name for name, hist in classes.sensitive.items() if _holds(hist, WITHHELD)]


def _holds(hist: Any, label: str) -> bool:
    """Whether some record holds ``label`` in the histogram ``hist``."""
    return bool(((np.asarray(hist.labels, dtype=object) == label) & (np.asarray(hist.overall) > 0)).any())


def sensitive_models(models: Sequence[PrivacyModel]) -> list[PrivacyModel]:
    """The models that read a sensitive attribute."""
    return [m for m in models if getattr(m, "needs_sensitive", False)]


@dataclass(frozen=True, eq=False)
class SuppressedGroup(PrivacyModel):
    """The suppressed records, as one class, meet every model in ``models``.

    Parameters
    ----------
    models : tuple of PrivacyModel
        The requested models.
    shows_values : bool, default True
        Whether the group's sensitive values are published (``keep``); if not
        (``blank``), only the models that read no sensitive attribute judge it.
    missing : {"value", "ignore"}, default "value"
        ``missing_sensitive``: whether a missing sensitive value is a value.

    Examples
    --------
    >>> import pandas as pd
    >>> from veil.models import DistinctLDiversity, KAnonymity
    >>> frame = pd.DataFrame({"zip": ["1", "1", "2"], "d": ["flu", "hiv", "cancer"]})
    >>> table = ClassTable.from_pandas(frame, quasi_identifiers=["zip"], sensitive=["d"])
    >>> model = SuppressedGroup((DistinctLDiversity(sensitive="d", l=2),))
    >>> model.check(table), model.check(table.suppress(table.counts < 2))
    (True, False)
    >>> SuppressedGroup((KAnonymity(k=2),), shows_values=False).check(table.suppress(table.counts < 2))
    False
    """

    models: tuple[PrivacyModel, ...]
    shows_values: bool = True
    missing: str = "value"

    monotone_generalization = False
    monotone_with_suppression = False
    needs_sensitive = True
    judges_suppressed_group = True
    reference = "veil release policy (issues #13, #32): published suppressed records are one class of the release"

    def judging(self) -> list[PrivacyModel]:
        """The models that judge the group."""
        return [m for m in self.models if self.shows_values or not m.needs_sensitive]

    def violating(self, classes: ClassTable) -> np.ndarray:
        return np.zeros(classes.n_classes, dtype=np.bool_)

    def check(self, classes: ClassTable) -> bool:
        return not self.failing(classes)

    def failing(self, classes: ClassTable) -> list[str]:
        """Names of the models the suppressed group fails."""
        group = classes.suppressed_group()
        if group is None:
            return []
        view = shown(group, missing=self.missing, reference="all")
        return [m.name for m in self.judging() if not holds(m, view, group)]

    def achieved_level(self, classes: ClassTable) -> Any:
        return self.check(classes)

    @property
    def name(self) -> str:
        return "suppressed group: " + ", ".join(m.name for m in self.judging())


@dataclass(frozen=True, eq=False)
class AsShown(PrivacyModel):
    """``model`` (one sensitive attribute's) judged on a node as the release will show it
    (:func:`veil.models._shown.shown`): only the classes that show a value of its attribute,
    against the reference distribution ``reference`` (``"classes"``: the node's released
    classes, ``blank`` and ``drop``; ``"all"``: every record, ``keep``).

    Examples
    --------
    >>> import pandas as pd
    >>> from veil.models import DistinctLDiversity
    >>> frame = pd.DataFrame({"zip": ["1", "1", "2", "2"], "d": ["flu", None, "flu", "hiv"]})
    >>> table = ClassTable.from_pandas(frame, quasi_identifiers=["zip"], sensitive=["d"])
    >>> l2 = DistinctLDiversity(sensitive="d", l=2)
    >>> l2.check(table), AsShown(l2, missing="ignore").violating(table).tolist()
    (True, [True, False])
    """

    model: PrivacyModel
    missing: str = "value"
    reference: str = "classes"

    monotone_generalization = False
    monotone_with_suppression = False
    needs_sensitive = True

    def _view(self, classes: ClassTable) -> ClassTable:
        return shown(classes, missing=self.missing, reference=self.reference)

    def violating(self, classes: ClassTable) -> np.ndarray:
        view = self._view(classes)
        mask = judged(view, self.model.sensitive)  # type: ignore[attr-defined]
        out = np.zeros(classes.n_classes, dtype=np.bool_)
        if mask.any():  # the judged classes, in their order
            out[mask] = self.model.violating(judged_table(view, self.model.sensitive))  # type: ignore[attr-defined]
        return out

    def check(self, classes: ClassTable) -> bool:
        return holds(self.model, self._view(classes))

    def achieved_level(self, classes: ClassTable) -> Any:
        return self.model.achieved_level(judged_table(self._view(classes), self.model.sensitive))  # type: ignore[attr-defined]

    @property
    def name(self) -> str:
        return self.model.name


def _differs(model: PrivacyModel, base: ClassTable, *, mode: str, missing: str, suppresses: bool) -> bool:
    """Whether ``model`` judges a node of ``base`` otherwise than the release will show it."""
    name = getattr(model, "sensitive", None)
    if not model.needs_sensitive or not isinstance(name, str) or name not in base.sensitive:
        return False
    hist = base.sensitive[name]
    if _holds(hist, WITHHELD) or (missing == "ignore" and _holds(hist, MISSING)):
        return True
    if getattr(model, "compared_with", "") != SHOWN:
        return False
    # a declared value no record holds is not in the domain the release shows (the ordered distance's m)
    return (mode != "keep" and suppresses) or bool((np.asarray(hist.overall) == 0).any())


def search_models(models: Sequence[PrivacyModel], base: ClassTable, *, mode: str, missing: str = "value",
                  suppression_limit: float = 0.0, full_domain: bool = True) -> tuple[PrivacyModel, ...]:
    """The models a search judges so that its result, released in ``mode``, meets ``models``
    as the release shows them (:mod:`veil.models._shown`).

    A model whose judgement of a node differs from the release's is judged as
    :class:`AsShown`; when records may be suppressed (a suppression limit, or
    records that arrive suppressed) and the release publishes them (``blank``,
    ``keep``), :class:`SuppressedGroup` judges their group.  A local recoding
    (``full_domain`` false) decides its classes itself: it gets the requested
    models, and with ``keep`` the group's sensitive-attribute models, which the
    pipeline checks on its result.
    """
    models = tuple(models)
    if not full_domain:
        sensitive = sensitive_models(models)
        return (*models, SuppressedGroup(tuple(sensitive), missing=missing)) if mode == "keep" and sensitive else models
    suppresses = suppression_limit > 0 or base.input_suppressed > 0
    reference = "all" if mode == "keep" else "classes"
    out: list[PrivacyModel] = [
        AsShown(m, missing=missing, reference=reference)
        if _differs(m, base, mode=mode, missing=missing, suppresses=suppresses) else m
        for m in models
    ]
    group = SuppressedGroup(models, shows_values=mode == "keep", missing=missing)
    if mode in ("keep", "blank") and suppresses and group.judging():
        out.append(group)
    return tuple(out)


def check_models(models: Sequence[PrivacyModel], classes: ClassTable, *, missing: str = "value") -> None:
    """Every model re-checked on a class table rebuilt from the release (both verifications),
    as the release shows it (:func:`veil.models._shown.failing_models`).

    Raises
    ------
    VerificationError
        A model fails: a bug in veil, so nothing is written.
    """
    from veil.errors import VerificationError

    failed = failing_models(models, classes, missing=missing)
    if failed:
        raise VerificationError(
            f"The anonymized table fails its own requested model(s): {', '.join(m.name for m in failed)}. "
            "This is a bug in veil; nothing was written. Please report it with the configuration."
        )
