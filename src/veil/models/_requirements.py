"""Requirements such as ``"k>=5, l>=2, t<=0.2"``: parsed once, judged on a :class:`CheckReport`."""

from __future__ import annotations

import math
import operator
import re
from collections.abc import Callable
from dataclasses import dataclass
from typing import ClassVar

from veil.errors import ParameterError
from veil.models._report import CheckReport, RequirementResult, SensitiveReport

__all__ = ["Requirement", "parse_requirements", "REQUIREMENT_KEYS"]

_OPS: dict[str, Callable[[float, float], bool]] = {
    ">=": operator.ge, "<=": operator.le, ">": operator.gt, "<": operator.lt, "==": operator.eq, "=": operator.eq,
}

_CLAUSE = re.compile(r"^\s*([A-Za-z_]+)\s*(>=|<=|==|=|>|<)\s*([-+]?(?:\d+\.?\d*|\.\d+)(?:[eE][-+]?\d+)?)\s*$")


def _worst(values: list[float | None], *, higher_is_better: bool) -> float | None:
    """The weakest level over the sensitive attributes (``None`` = unattainable = worst)."""
    if any(v is None for v in values):
        return None
    return min(values) if higher_is_better else max(values)  # type: ignore[type-var]


def _per_sensitive(get: Callable[[SensitiveReport], float | None], higher: bool) -> Callable[[CheckReport], float | None]:
    def read(report: CheckReport) -> float | None:
        return _worst([get(s) for s in report.sensitive.values()], higher_is_better=higher)

    return read


#: Requirement keys: (reader, needs a sensitive attribute, description).
REQUIREMENT_KEYS: dict[str, tuple[Callable[[CheckReport], float | None], bool, str]] = {
    "k": (lambda r: r.k, False, "smallest class size"),
    "risk": (lambda r: r.max_prosecutor_risk, False, "maximum prosecutor risk"),
    "average_risk": (lambda r: r.average_risk, False, "average prosecutor risk"),
    "l": (_per_sensitive(lambda s: s.distinct_l, True), True, "distinct l-diversity"),
    "distinct_l": (_per_sensitive(lambda s: s.distinct_l, True), True, "distinct l-diversity"),
    "entropy_l": (_per_sensitive(lambda s: s.entropy_l, True), True, "entropy l-diversity (real)"),
    "c": (_per_sensitive(lambda s: s.recursive_c, False), True, "recursive (c,l): smallest c at --recursive-l"),
    "t": (_per_sensitive(lambda s: s.t, False), True, "t-closeness, ordered distance for ordered kinds else equal"),
    "t_equal": (_per_sensitive(lambda s: s.t_equal, False), True, "t-closeness, equal distance"),
    "t_ordered": (_per_sensitive(lambda s: s.t_ordered, False), True, "t-closeness, ordered distance"),
    "t_hierarchical": (_per_sensitive(lambda s: s.t_hierarchical, False), True, "t-closeness, hierarchical"),
    "delta": (_per_sensitive(lambda s: s.delta_disclosure, False), True, "delta-disclosure (all values)"),
    "delta_present": (
        _per_sensitive(lambda s: s.delta_disclosure_present_values, False), True, "delta-disclosure (present values)",
    ),
    "alpha": (_per_sensitive(lambda s: s.alpha, False), True, "(alpha,k): largest value share"),
    "beta": (_per_sensitive(lambda s: s.beta_likeness, False), True, "basic beta-likeness"),
    "enhanced_beta": (_per_sensitive(lambda s: s.enhanced_beta_likeness, False), True, "enhanced beta-likeness"),
}


@dataclass(frozen=True)
class Requirement:
    """One clause ``KEY OP VALUE`` judged on a :class:`CheckReport`.

    The clause compares the **reported level** with the value: ``delta<1.5``
    holds exactly when the table is 1.5-disclosure private (strict model),
    ``delta<=1.5`` also accepts a table at the infimum.  An unattainable level
    (``null`` in the report) never meets a clause.
    """

    key: str
    op: str
    value: float
    clause: str

    keys: ClassVar[tuple[str, ...]] = tuple(REQUIREMENT_KEYS)

    def __post_init__(self) -> None:
        if self.key not in REQUIREMENT_KEYS:
            raise ParameterError(
                f"Unknown requirement {self.key!r} in clause {self.clause!r}; "
                f"known keys: {', '.join(REQUIREMENT_KEYS)}."
            )
        if self.op not in _OPS:
            raise ParameterError(f"Unknown comparison {self.op!r} in clause {self.clause!r}; use >=, <=, >, < or ==.")

    @property
    def needs_sensitive(self) -> bool:
        return REQUIREMENT_KEYS[self.key][1]

    def actual(self, report: CheckReport) -> float | None:
        """The report's level for this key (``None``: unattainable)."""
        if self.needs_sensitive and not report.sensitive:
            raise ParameterError(
                f"The requirement {self.clause!r} needs a sensitive attribute; name one (--sensitive)."
            )
        if self.key == "t_hierarchical" and any(s.t_hierarchical is None for s in report.sensitive.values()):
            raise ParameterError(
                f"The requirement {self.clause!r} needs a hierarchy for every sensitive attribute (--hierarchy)."
            )
        if self.key == "t_ordered" and any(not s.ordered for s in report.sensitive.values()):
            raise ParameterError(
                f"The requirement {self.clause!r} needs ordered (numeric, ordinal or date) sensitive attributes."
            )
        value = REQUIREMENT_KEYS[self.key][0](report)
        return None if value is None or not math.isfinite(float(value)) else float(value)

    def met(self, report: CheckReport) -> bool:
        """Whether the report meets the clause."""
        value = self.actual(report)
        return value is not None and _OPS[self.op](value, self.value)

    def judge(self, report: CheckReport) -> RequirementResult:
        """The clause, whether it is met, the level and a note when it cannot be met."""
        value = self.actual(report)
        note = ""
        if value is None:
            note = "the level is unattainable (see the report's notes)"
        elif self.key in ("l", "distinct_l", "entropy_l") and self.op in (">=", ">"):
            fewest = min(s.distinct_values for s in report.sensitive.values())
            if self.value > fewest:
                note = f"cannot be met: a sensitive attribute has only {fewest} distinct value(s)"
        met = value is not None and _OPS[self.op](value, self.value)
        return RequirementResult(self.clause, met, value, note)


def parse_requirements(text: str) -> list[Requirement]:
    """Parse ``"k>=5, l>=2, t<=0.2, delta<=1.5, c<=3"`` into requirements.

    Clauses are separated by commas; each is ``KEY OP NUMBER`` with ``OP`` one
    of ``>= <= > < ==``.  Keys: see :data:`REQUIREMENT_KEYS`.

    Raises
    ------
    ParameterError
        An empty text, a malformed clause or an unknown key (naming the clause).

    Examples
    --------
    >>> [(r.key, r.op, r.value) for r in parse_requirements("k>=5, t<=0.2")]
    [('k', '>=', 5.0), ('t', '<=', 0.2)]
    """
    if not isinstance(text, str) or not text.strip():
        raise ParameterError(f"Expected requirements such as 'k>=5, l>=2'. Got {text!r} instead.")
    out = []
    for raw in text.split(","):
        clause = raw.strip()
        if not clause:
            raise ParameterError(f"Empty requirement clause in {text!r}; separate clauses with single commas.")
        match = _CLAUSE.match(clause)
        if match is None:
            raise ParameterError(
                f"Malformed requirement clause {clause!r}; expected KEY OP NUMBER such as 'k>=5' or 't<=0.2'."
            )
        key, op, number = match.groups()
        out.append(Requirement(key=key.lower(), op="==" if op == "=" else op, value=float(number), clause=clause))
    return out
