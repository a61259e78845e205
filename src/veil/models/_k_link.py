"""k-link anonymity of a collection of anonymized marginals (seed 003, Definition 4.1).

Extension point: k-combinatorial anonymity (Definition 4.2) needs the
integer solutions consistent with all marginals and belongs with the marginals
work (``veil.marginals``); it would implement the same interface, taking the
collection in :meth:`KLinkAnonymity.check_marginals`-style methods.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import ClassVar

from veil.classes import ClassTable
from veil.errors import ParameterError
from veil.models._k_anonymity import MinimumClassSize

__all__ = ["KLinkAnonymity"]


@dataclass(frozen=True)
class KLinkAnonymity(MinimumClassSize):
    """Every non-zero cell of every released marginal counts at least ``k`` records.

    A marginal is the class table of the table projected on the marginal's
    non-sensitive attributes (``classes.project([...])``); its classes are its
    non-zero cells.  On one class table the model is k-anonymity; on a
    collection use :meth:`check_marginals` / :meth:`achieved_level_marginals`.

    Parameters
    ----------
    k : int, in [1, inf)

    Notes
    -----
    .. math:: \\forall i, \\forall t:\\ M_i(t) = 0 \\ \\vee\\ M_i(t) \\ge k

    Monotone under generalization and with suppression on each marginal, as
    k-anonymity.

    References
    ----------
    D. Kifer, J. Gehrke, 'Injecting utility into anonymized datasets', SIGMOD
    2006, Definition 4.1 (seed 003, Defn 4.1).

    Examples
    --------
    >>> import pandas as pd
    >>> from veil.classes import ClassTable
    >>> frame = pd.DataFrame({"a": list("xxyy"), "b": list("ppqr")})
    >>> classes = ClassTable.from_pandas(frame, quasi_identifiers=["a", "b"])
    >>> model = KLinkAnonymity(k=2)
    >>> model.check_marginals([classes.project(["a"]), classes.project(["b"])])
    False
    >>> model.achieved_level_marginals([classes.project(["a"])])
    2
    """

    reference: ClassVar[str] = "Kifer & Gehrke, SIGMOD 2006, Definition 4.1 (k-link anonymity)"
    config_key: ClassVar[str] = "k-link-anonymity"
    label: ClassVar[str] = "{k}-link anonymity"

    @staticmethod
    def _marginals(marginals: Sequence[ClassTable]) -> list[ClassTable]:
        items = list(marginals)
        if not items:
            raise ParameterError("KLinkAnonymity needs at least one marginal (a ClassTable). Got none.")
        return items

    def check_marginals(self, marginals: Sequence[ClassTable]) -> bool:
        """Whether every marginal's non-zero cells hold at least ``k`` records."""
        return all(self.check(m) for m in self._marginals(marginals))

    def achieved_level_marginals(self, marginals: Sequence[ClassTable]) -> int:
        """The smallest non-zero cell over all marginals."""
        return min(self.achieved_level(m) for m in self._marginals(marginals))
