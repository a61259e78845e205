"""Local suppression in the one release path: its runner, and k-anonymity as its release is read.

The release of local suppression is k-anonymous under the rule that a blanked
cell (``*``) matches any value, not as a partition into classes of equal
labels.  :class:`BlankMatchingKAnonymity` is k-anonymity judged under that
rule on a class table rebuilt from the released labels (every class's
compatible records, :func:`veil.risk._individual_blanks.blank_matching_frequencies`);
the verification of a local-suppression release checks it in place of
k-anonymity (:func:`blank_matching`), from the released file alone, sharing
nothing with the search.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, ClassVar

import numpy as np

from veil.algorithms._options import LOCAL_SUPPRESSION_OPTIONS, check_options
from veil.algorithms._recoding import SUPPRESSED_LABEL, Recoding
from veil.algorithms.local_suppression._search import local_suppression
from veil.classes import ClassTable
from veil.errors import InfeasibleError, ParameterError
from veil.models import KAnonymity, Param, PrivacyModel
from veil.risk._individual_blanks import smallest_over_combinations

__all__ = ["BlankMatchingKAnonymity", "blank_matching", "run_local_suppression"]


@dataclass(frozen=True)
class BlankMatchingKAnonymity(PrivacyModel):
    """Every record has at least ``k`` compatible records, a blanked cell (``*``) matching any value.

    Notes
    -----
    .. math:: \\min_i |\\{ j : \\forall a \\notin B_i \\cup B_j,\\ x_{ia} = x_{ja} \\}| \\ge k

    (:math:`B_i`: the blanked keys of record :math:`i`); sdcMicro's k-anonymity
    with missing values (``freqCalc``'s rule).  Records with ``*`` in every key
    are suppressed records, counted apart as everywhere in veil.

    References
    ----------
    Templ, Kowarik & Meindl, JSS 67(4), 2015 (sdcMicro's ``localSuppression``).
    """

    k: int
    #: Sizes of key sets each to be k-anonymous (sdcMicro's ``combs``); None: all the keys together.
    combs: tuple[int, ...] | None = None

    reference: ClassVar[str] = "sdcMicro localSuppression: k-anonymity, a missing key matching any value"
    label: ClassVar[str] = "{k}-anonymity (a blank matches any value)"
    parameters: ClassVar[tuple[Param, ...]] = (Param("k", "int", low=1),)

    def frequencies(self, classes: ClassTable) -> np.ndarray:
        """Per class, the records compatible with each of its records."""
        labels = classes.labels()
        blank = np.column_stack([(labels[name].astype(str) == SUPPRESSED_LABEL).to_numpy()
                                 for name in classes.quasi_identifiers])
        return smallest_over_combinations(np.asarray(classes.codes), classes.counts, blank, self.combs)

    def violating(self, classes: ClassTable) -> np.ndarray:
        return self.frequencies(classes) < self.k

    def achieved_level(self, classes: ClassTable) -> int:
        return int(self.frequencies(classes).min()) if classes.n_classes else 0


def k_with_blanks(classes: ClassTable) -> int:
    """The table's k when a blanked cell (``*``) matches any value (``veil check --blanks match-any``)."""
    return BlankMatchingKAnonymity(k=1).achieved_level(classes)


def report_under_blanks(blanks: str, classes: ClassTable | None, report: Any) -> Any:
    """A check report with k counted as ``--blanks`` says: a ``*`` a value of its own (``value``), or
    matching any value (``match-any``, the rule of a local-suppression release)."""
    from dataclasses import replace

    if blanks not in ("value", "match-any"):
        raise ParameterError(f"--blanks takes 'value' or 'match-any'. Got {blanks!r} instead.")
    if blanks == "value" or classes is None:
        return report
    return replace(report, k=k_with_blanks(classes))


def blank_matching(models: Sequence[Any], details: Any = None) -> list[Any]:
    """``models`` with every k-anonymity judged under the blank-matches-any-value rule (on the key sets
    of the release's ``combs``, read from its report's ``details``, when it has them)."""
    combs = (details or {}).get("combs")
    combs = None if combs is None else tuple(int(c) for c in combs)
    return [BlankMatchingKAnonymity(k=m.k, combs=combs) if isinstance(m, KAnonymity) else m for m in models]


def run_local_suppression(problem: Any) -> Recoding:
    """The registry's runner: k-anonymity only; ``options``: ``importance`` (the keys, most important first)
    and ``combs`` (sizes of key sets, each k-anonymous).

    Raises
    ------
    ParameterError
        A model other than k-anonymity, no k, or an unknown option.
    InfeasibleError
        More records need every key blanked than the suppression limit allows.
    """
    other = [m.name for m in problem.models if not isinstance(m, KAnonymity)]
    if other or problem.k is None:
        raise ParameterError("The local-suppression algorithm reaches k-anonymity only; "
                             + (f"{other[0]} cannot be requested with it." if other else "give -k."))
    options = check_options("local-suppression", LOCAL_SUPPRESSION_OPTIONS, problem.options)
    recoding = local_suppression(problem.dataset, k=problem.k, importance=options.get("importance"),
                                 combs=options.get("combs"), quasi_identifiers=problem.base.quasi_identifiers,
                                 base=problem.base)
    base = problem.base
    newly = recoding.suppressed - base.input_suppressed
    limit = np.floor(problem.suppression_limit * (base.n_records - base.input_suppressed) + 1e-9)
    if newly > limit:
        raise InfeasibleError(f"Local suppression must blank every key of {newly} records to reach {problem.k}-"
                              f"anonymity, more than the suppression limit allows ({int(limit)}); raise the limit "
                              "or lower k.")
    return recoding
