"""All models at once: :func:`evaluate` and the :class:`CheckReport` it returns.

The report is what ``veil check`` prints and writes as JSON, and what the
anonymize step stores under ``achieved``.  Every level is computed on the class
table with array operations (one pass per model, no loop over classes).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from veil._validation import check_int
from veil.classes import ClassTable, SensitiveHistogram
from veil.errors import ParameterError
from veil.models._beta_likeness import likeness_levels
from veil.models._delta_disclosure import disclosure_deltas
from veil.models._distributions import exact_ratio
from veil.models._l_diversity import class_entropies, distinct_values, recursive_ratios
from veil.models._t_closeness import equal_distances, hierarchical_distances, ordered_distances

__all__ = ["CheckReport", "SensitiveReport", "RequirementResult", "evaluate", "LOG_BASE"]

#: The logarithm used by entropy l-diversity, δ-disclosure and enhanced β-likeness.
LOG_BASE = "e"

FACTS_STRICT = (
    "recursive (c,l): strict form r_(1) < c * sum_{i>=l} r_(i) (Machanavajjhala et al.); "
    "the reported c is c* = max over classes of r_(1) / sum_{i>=l} r_(i), an infimum: "
    "the table satisfies (c,l)-diversity for every c > c*"
)
FACTS_NON_STRICT = (
    "recursive (c,l): non-strict form r_(1) <= c * sum_{i>=l} r_(i) (seed 003, Defn 2.5); "
    "the reported c is c* = max over classes of r_(1) / sum_{i>=l} r_(i): the table "
    "satisfies (c,l)-diversity for every c >= c*"
)


def _finite(x: float) -> float | None:
    return None if x is None or not math.isfinite(x) else float(x)


@dataclass(frozen=True)
class SensitiveReport:
    """The achieved levels of the sensitive-attribute models for one attribute.

    ``None`` stands for a level no parameter can meet (an infinite bound); the
    reason is in :attr:`notes`.
    """

    name: str
    kind: str
    ordered: bool
    distinct_values: int
    distinct_l: int
    entropy_l: float
    recursive_c: float | None
    recursive_l: int
    strict: bool
    t_equal: float
    t_ordered: float | None
    t_hierarchical: float | None
    delta_disclosure: float | None
    delta_disclosure_present_values: float | None
    alpha: float
    alpha_k: int
    beta_likeness: float
    enhanced_beta_likeness: float | None
    notes: tuple[str, ...] = ()

    @property
    def t(self) -> float:
        """The t of the attribute's natural ground distance (ordered for ordered kinds)."""
        return self.t_ordered if self.ordered and self.t_ordered is not None else self.t_equal

    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {
            "kind": self.kind,
            "distinct_values": self.distinct_values,
            "distinct_l": self.distinct_l,
            "entropy_l": self.entropy_l,
            "recursive_cl": {"c": self.recursive_c, "l": self.recursive_l, "strict": self.strict},
        }
        if self.ordered:
            out["t_ordered"] = self.t_ordered
        else:
            out["t_equal"] = self.t_equal
        if self.t_hierarchical is not None:
            out["t_hierarchical"] = self.t_hierarchical
        out["delta_disclosure"] = self.delta_disclosure
        out["delta_disclosure_present_values"] = self.delta_disclosure_present_values
        out["alpha_k"] = {"alpha": self.alpha, "k": self.alpha_k}
        out["beta_likeness"] = self.beta_likeness
        out["enhanced_beta_likeness"] = self.enhanced_beta_likeness
        out["notes"] = list(self.notes)
        return out


@dataclass(frozen=True)
class RequirementResult:
    """One ``--require`` clause judged on a report."""

    clause: str
    met: bool
    actual: float | None
    note: str = ""

    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {"clause": self.clause, "met": self.met, "actual": _finite(self.actual)}
        if self.note:
            out["note"] = self.note
        return out


@dataclass(frozen=True)
class CheckReport:
    """The achieved level of every applicable model on one table.

    Attributes
    ----------
    records : int
        Records of the table (suppressed ones included).
    classes : int
        Equivalence classes (suppressed records are not a class).
    k : int
        The smallest class size (0 when every record is suppressed).
    suppressed_records, input_suppressed : int
        Records suppressed, and those of them that arrived suppressed
        (``*`` in every QI).
    max_prosecutor_risk, average_risk : float
        ``1/k`` and classes per retained record.
    sensitive : dict of str to SensitiveReport
    requirements : tuple of RequirementResult or None
        Set by :func:`veil.models.check` when requirements are given.
    """

    records: int
    classes: int
    k: int
    suppressed_records: int
    input_suppressed: int
    max_prosecutor_risk: float
    average_risk: float
    quasi_identifiers: tuple[str, ...]
    sensitive: dict[str, SensitiveReport] = field(default_factory=dict)
    strict: bool = True
    notes: tuple[str, ...] = ()
    requirements: tuple[RequirementResult, ...] | None = None

    @property
    def passed(self) -> bool:
        """Whether every requirement is met (True when none was given)."""
        return all(r.met for r in self.requirements or ())

    def to_dict(self) -> dict[str, Any]:
        """The JSON object of ``veil check --json`` (no NaN or infinity: ``null`` plus a note)."""
        out: dict[str, Any] = {
            "records": self.records,
            "classes": self.classes,
            "k": self.k,
            "suppressed_records": self.suppressed_records,
            "input_suppressed": self.input_suppressed,
            "max_prosecutor_risk": self.max_prosecutor_risk,
            "average_risk": self.average_risk,
            "quasi_identifiers": list(self.quasi_identifiers),
            "sensitive": {name: s.to_dict() for name, s in self.sensitive.items()},
            "facts": {
                "log_base": LOG_BASE,
                "recursive_cl": FACTS_STRICT if self.strict else FACTS_NON_STRICT,
                "delta_disclosure": (
                    "Brickell & Shmatikov: |ln(p(E,s)/p(T,s))| < delta for every value s of the "
                    "table; a value absent from a class is a violation (null = no delta works); "
                    "the reported delta is an infimum (strict inequality)"
                ),
                "t_closeness": (
                    "EMD over the declared value domain; ordered distance normalised by m-1; "
                    "distances are exact integer ratios rounded once"
                ),
                "alpha_k": "alpha = max over classes of the most frequent value's share; k = smallest class",
                "distributions": ("the reference distribution is the values the release shows: every released "
                                  "record's, a withheld '*' not counted, a missing value only under "
                                  "missing_sensitive: value (docs/models.md)"),
            },
            "notes": list(self.notes),
        }
        if self.requirements is not None:
            out["requirements"] = [r.to_dict() for r in self.requirements]
        return out


def _sensitive_report(hist: SensitiveHistogram, recursive_l: int, strict: bool) -> SensitiveReport:
    counts = hist.counts if hist.is_dense else hist.pairs  # the pairs that occur, for many values
    g = hist.n_classes
    notes: list[str] = []
    distinct_values_of_table = int((hist.overall > 0).sum())

    def top(values: np.ndarray) -> float:
        return float(values.max()) if len(values) else 0.0

    distinct = distinct_values(hist)
    entropy = class_entropies(counts)
    ratios = recursive_ratios(counts, recursive_l)
    c_star = top(ratios)
    if not math.isfinite(c_star):
        notes.append(
            f"recursive_cl.c is null: a class has fewer than l={recursive_l} distinct values, "
            "so no c meets recursive (c,l)-diversity"
        )
    ordered = bool(hist.kind.ordered)
    t_equal = top(equal_distances(hist))
    t_ordered = top(ordered_distances(hist)) if ordered else None
    t_hier = top(hierarchical_distances(hist)) if hist.hierarchy is not None else None
    delta = top(disclosure_deltas(hist))
    if not math.isfinite(delta):
        notes.append(
            "delta_disclosure is null: a value of the table is absent from some class "
            "(ln 0 = -inf), so no delta meets delta-disclosure; see delta_disclosure_present_values"
        )
    delta_present = top(disclosure_deltas(hist, present_only=True))
    n = hist.pairs.class_sizes() if not hist.is_dense else hist.counts.sum(axis=1)
    alpha = top(exact_ratio(hist.class_top(), n)) if hist.n_values and g else 0.0
    basic, enhanced = likeness_levels(hist)
    beta = top(basic) if hist.n_values and g else 0.0
    over = bool(np.isinf(enhanced).any())
    if over:
        notes.append("enhanced_beta_likeness is null: a class exceeds the -ln q(s) cap, so no beta meets it")
    return SensitiveReport(
        name=hist.name,
        kind=hist.kind.value,
        ordered=ordered,
        distinct_values=distinct_values_of_table,
        distinct_l=int(distinct.min()) if g else 0,
        entropy_l=float(math.exp(entropy.min())) if g else 0.0,
        recursive_c=_finite(c_star),
        recursive_l=recursive_l,
        strict=strict,
        t_equal=t_equal,
        t_ordered=t_ordered,
        t_hierarchical=t_hier,
        delta_disclosure=_finite(delta),
        delta_disclosure_present_values=_finite(delta_present),
        alpha=alpha,
        alpha_k=int(n.min()) if g else 0,
        beta_likeness=beta,
        enhanced_beta_likeness=None if over else beta,
        notes=tuple(notes),
    )



def evaluate(
    classes: ClassTable,
    *,
    sensitive: Sequence[str] | None = None,
    recursive_l: int = 2,
    strict: bool = True,
) -> CheckReport:
    """The achieved level of every applicable model on ``classes``.

    Parameters
    ----------
    classes : ClassTable
    sensitive : sequence of str, optional
        The sensitive attributes to report; default: all of the class table's.
    recursive_l : int, default 2
        The ``l`` at which the smallest ``c`` of recursive (c,l)-diversity is reported.
    strict : bool, default True
        The form of recursive (c,l)-diversity (``<``, the paper; or ``<=``).

    Returns
    -------
    CheckReport
    """
    recursive_l = check_int("recursive_l", recursive_l, "evaluate", low=1)
    notes: list[str] = []
    names = list(classes.sensitive) if sensitive is None else list(sensitive)
    for name in names:
        if name not in classes.sensitive:
            raise ParameterError(f"evaluate: {name!r} is not a sensitive attribute of this class table.")
    g = classes.n_classes
    if classes.input_suppressed:
        notes.append(
            f"{classes.input_suppressed} record(s) arrived suppressed ('*' in every quasi-identifier); "
            "they are not a class and count only in the table distribution"
        )
    if g == 0:
        notes.append("every record is suppressed: there is no class, levels are reported as 0")
    k = int(classes.counts.min()) if g else 0
    return CheckReport(
        records=classes.n_records,
        classes=g,
        k=k,
        suppressed_records=classes.suppressed,
        input_suppressed=classes.input_suppressed,
        max_prosecutor_risk=1.0 / k if k else 0.0,
        average_risk=float(exact_ratio(np.int64(g), np.int64(classes.n_retained))) if g else 0.0,
        quasi_identifiers=tuple(classes.quasi_identifiers),
        sensitive={name: _sensitive_report(classes.sensitive[name], recursive_l, strict) for name in names},
        strict=strict,
        notes=tuple(notes),
    )
