"""Requirements such as ``"k>=5, l[diagnosis]>=3, lkc(L=2,K=5,C=0.5)"``: parsed once, judged on a table.

The grammar is the same for ``veil check --require`` and ``veil anonymize
--require``; its keys come from the models' registry
(:mod:`veil.models.registry`), each declared on its model class::

    clauses := clause ("," clause)*
    clause  := KEY ["[" SENSITIVE "]"] ["(" NAME "=" NUMBER ("," NAME "=" NUMBER)* ")"] [OP NUMBER]
    OP      := ">=" | "<=" | ">" | "<" | "=="

``KEY OP NUMBER`` compares the key's level with the number (``k>=5``,
``t_hier[salary]<=0.2``); the bracket names one sensitive attribute (default:
the weakest over all of them); the parentheses give the model's other
parameters (``records_at_risk(threshold=0.1)<=0.05``) or, for a call key such
as ``lkc``, all of them.
"""

from __future__ import annotations

import math
import operator
import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from veil.classes import ClassTable
from veil.errors import ParameterError
from veil.models import registry
from veil.models._report import CheckReport, RequirementResult

__all__ = ["Requirement", "parse_requirements", "REQUIREMENT_KEYS", "requirement_models", "requested_levels"]

_OPS: dict[str, Callable[[float, float], bool]] = {
    ">=": operator.ge, "<=": operator.le, ">": operator.gt, "<": operator.lt, "==": operator.eq,
}
_NUMBER = r"[-+]?(?:\d+\.?\d*|\.\d+)(?:[eE][-+]?\d+)?"
_CLAUSE = re.compile(
    r"^\s*([A-Za-z_][A-Za-z0-9_]*)\s*(?:\[\s*([^\[\]]+?)\s*\])?\s*(?:\(([^()]*)\))?\s*"
    rf"(?:(>=|<=|==|=|>|<)\s*({_NUMBER}))?\s*$"
)
_ARGUMENT = re.compile(rf"^\s*([A-Za-z_][A-Za-z0-9_]*)\s*=\s*({_NUMBER}|[A-Za-z][A-Za-z0-9_-]*)\s*$")
_ORDERED_KINDS = ("numeric", "ordinal", "date")


class _Keys(Mapping):
    """Requirement key -> (model class, RequirementKey), following the registry."""

    def __getitem__(self, key: str) -> Any:
        return registry.requirement_keys()[key]

    def __iter__(self) -> Any:
        return iter(registry.requirement_keys())

    def __len__(self) -> int:
        return len(registry.requirement_keys())


#: Every requirement key, derived from the registry: key -> (model class, RequirementKey).
REQUIREMENT_KEYS: Mapping[str, Any] = _Keys()


def _number(text: str) -> float | int:
    value = float(text)
    return int(value) if value.is_integer() and re.fullmatch(r"[-+]?\d+", text.strip()) else value


@dataclass(frozen=True)
class Requirement:
    """One clause judged on a table.

    The clause compares the **reported level** with the value: ``delta<1.5``
    holds exactly when the table is 1.5-disclosure private (strict model),
    ``delta<=1.5`` also accepts a table at the infimum.  An unattainable level
    (``null`` in the report) never meets a clause.  A call clause
    (``lkc(L=2,K=5,C=0.5)``) is met when the model holds.
    """

    key: str
    op: str | None
    value: float | None
    clause: str
    attribute: str | None = None
    arguments: tuple[tuple[str, float], ...] = ()

    @property
    def model(self) -> Any:
        """The model class the key belongs to."""
        return registry.requirement_key(self.key)[0]

    @property
    def spec(self) -> Any:
        """The key's :class:`~veil.models._facts.RequirementKey`."""
        return registry.requirement_key(self.key)[1]

    @property
    def needs_sensitive(self) -> bool:
        return bool(self.model.needs_sensitive)

    @property
    def needs_population(self) -> bool:
        return bool(self.spec.needs_population)

    def _attributes(self, names: Sequence[str]) -> list[str | None]:
        """The sensitive attributes the clause is judged on (``[None]`` for a model without one)."""
        if self.attribute is not None:
            if self.attribute not in names:
                raise ParameterError(
                    f"The requirement {self.clause!r} names {self.attribute!r}, which is not a sensitive "
                    f"attribute (sensitive: {', '.join(names) or 'none'})."
                )
            return [self.attribute]
        if not any(p.name == "sensitive" for p in self.model.parameters):
            return [None]
        if not names:
            if self.needs_sensitive:
                raise ParameterError(
                    f"The requirement {self.clause!r} needs a sensitive attribute; name one (--sensitive)."
                )
            return [None]  # an optional sensitive attribute (LKC-privacy with C = 1)
        return list(names)

    def _report_level(self, report: CheckReport) -> float | None:
        field = self.spec.report_field
        if not self.needs_sensitive:
            value = getattr(report, field)
        else:
            names = self._attributes(list(report.sensitive))
            chosen = [report.sensitive[n] for n in names]  # type: ignore[index]
            if field == "t_hierarchical" and any(s.t_hierarchical is None for s in chosen):
                raise ParameterError(
                    f"The requirement {self.clause!r} needs a hierarchy for every sensitive attribute (--hierarchy)."
                )
            if field == "t_ordered" and any(not s.ordered for s in chosen):
                raise ParameterError(
                    f"The requirement {self.clause!r} needs ordered (numeric, ordinal or date) sensitive attributes."
                )
            values = [getattr(s, field) for s in chosen]
            if any(v is None for v in values):
                return None
            value = min(values) if self.spec.higher_is_stronger else max(values)
        return None if value is None or not math.isfinite(float(value)) else float(value)

    def models(self, sensitive: Sequence[str]) -> list[Any]:
        """The model instances the clause stands for (one per judged sensitive attribute)."""
        cls, spec = self.model, self.spec
        params: dict[str, Any] = {**spec.fixed, **dict(self.arguments)}
        if spec.parameter is not None:
            params[spec.parameter] = self.value
        kinds = {p.name: p.kind for p in cls.parameters}
        params = {k: int(v) if kinds.get(k) == "int" and float(v).is_integer() else v for k, v in params.items()}
        out = []
        for name in self._attributes(sensitive):
            extra = {} if name is None else {"sensitive": name}
            try:
                out.append(cls(**params, **extra))
            except TypeError as exc:
                import re

                missing = re.findall(r"'(\w+)'", str(exc)) if "missing" in str(exc) else []
                if missing:
                    given = ", ".join(f"{m}=..." for m in missing)
                    raise ParameterError(f"The requirement {self.clause!r} needs {given}: write it as a call, "
                                         f"e.g. {self.key}({given}){spec.direction}{self.value!r}.") from None
                raise ParameterError(f"The requirement {self.clause!r}: {exc}") from None
        return out

    def level(self, report: CheckReport, classes: ClassTable | None = None) -> Any:
        """The table's level for this clause (``None``: unattainable; a mapping for a call key)."""
        if self.needs_population:
            raise ParameterError(f"The requirement {self.clause!r} needs a population table; give one (--population FILE).")
        if self.spec.report_field is not None and not self.arguments:
            return self._report_level(report)
        if classes is None:
            raise ParameterError(f"The requirement {self.clause!r} is judged on a class table; none was given.")
        models = self.models(list(report.sensitive))
        levels = [m.achieved_level(classes) for m in models]
        if self.spec.parameter is None or not all(isinstance(v, (int, float)) for v in levels):
            return levels[0] if len(levels) == 1 else {m.sensitive: v for m, v in zip(models, levels)}
        value = min(levels) if self.spec.higher_is_stronger else max(levels)
        return None if not math.isfinite(float(value)) else float(value)

    def actual(self, report: CheckReport, classes: ClassTable | None = None) -> float | None:
        """The clause's level as a number (``None``: unattainable or a call key)."""
        value = self.level(report, classes)
        return float(value) if isinstance(value, (int, float)) else None

    def met(self, report: CheckReport, classes: ClassTable | None = None) -> bool:
        """Whether the table meets the clause."""
        return self.judge(report, classes).met

    def judge(self, report: CheckReport, classes: ClassTable | None = None) -> RequirementResult:
        """The clause, whether it is met, the level and a note when it cannot be met."""
        if self.op is None:  # a call: the model decides
            models = self.models(list(report.sensitive))
            if classes is None:
                raise ParameterError(f"The requirement {self.clause!r} is judged on a class table; none was given.")
            return RequirementResult(self.clause, all(m.check(classes) for m in models), None)
        value = self.actual(report, classes)
        note = ""
        if value is None:
            note = "the level is unattainable (see the report's notes)"
        elif self.spec.report_field in ("distinct_l", "entropy_l") and self.op in (">=", ">"):
            names = self._attributes(list(report.sensitive))
            fewest = min(report.sensitive[n].distinct_values for n in names)  # type: ignore[index]
            if self.value > fewest:  # type: ignore[operator]
                note = f"cannot be met: a sensitive attribute has only {fewest} distinct value(s)"
        met = value is not None and _OPS[self.op](value, self.value)  # type: ignore[arg-type]
        return RequirementResult(self.clause, met, value, note)


def _split(text: str) -> list[str]:
    """Split on the commas outside brackets and parentheses."""
    parts, depth, start = [], 0, 0
    for i, ch in enumerate(text):
        if ch in "([":
            depth += 1
        elif ch in ")]":
            depth -= 1
        elif ch == "," and depth == 0:
            parts.append(text[start:i])
            start = i + 1
    parts.append(text[start:])
    return parts


def _clause(clause: str) -> Requirement:
    match = _CLAUSE.match(clause)
    if match is None:
        raise ParameterError(
            f"Malformed requirement clause {clause!r}; expected KEY OP NUMBER such as 'k>=5', "
            "'l[diagnosis]>=3' or a call such as 'lkc(L=2,K=5,C=0.5)'."
        )
    key, attribute, args, op, number = match.groups()
    key = key.lower()
    keys = registry.requirement_keys()
    if key not in keys:
        raise ParameterError(f"Unknown requirement {key!r} in clause {clause!r}; known keys: {', '.join(keys)}.")
    cls, spec = keys[key]
    names = {p.name for p in cls.parameters} - {"sensitive"}
    arguments = []
    for raw in [] if args is None else args.split(","):
        arg = _ARGUMENT.match(raw)
        words = {p.name for p in cls.parameters if p.kind == "str"}  # a word only for a str parameter
        if arg is not None and arg.group(1) not in words and not re.fullmatch(_NUMBER, arg.group(2)):
            arg = None
        if arg is None:
            raise ParameterError(f"Malformed argument {raw.strip()!r} in clause {clause!r}; expected NAME=NUMBER.")
        if arg.group(1) not in names:
            raise ParameterError(
                f"{cls.__name__} has no parameter {arg.group(1)!r} (clause {clause!r}); "
                f"its parameters: {', '.join(sorted(names))}."
            )
        value = arg.group(2)  # a number, or a word (an estimator's name: pop_uniques(estimator=pitman))
        arguments.append((arg.group(1), _number(value) if re.fullmatch(_NUMBER, value) else value))
    if spec.parameter is None and (op is not None or args is None):
        raise ParameterError(f"The requirement {key!r} is a call with every parameter, such as "
                             f"{key}({', '.join(sorted(names))}=...); got {clause!r}.")
    if spec.parameter is not None and op is None:
        raise ParameterError(
            f"Malformed requirement clause {clause!r}; expected KEY OP NUMBER such as '{key}{spec.direction}...'."
        )
    if attribute is not None and "sensitive" not in {p.name for p in cls.parameters}:
        raise ParameterError(f"The requirement {key!r} takes no sensitive attribute; got {clause!r}.")
    return Requirement(
        key=key, op=None if op is None else ("==" if op == "=" else op),
        value=None if number is None else float(number), clause=clause, attribute=attribute,
        arguments=tuple(arguments),
    )


def parse_requirements(text: str) -> list[Requirement]:
    """Parse ``"k>=5, l[diagnosis]>=2, t<=0.2, lkc(L=2,K=5,C=0.5)"`` into requirements.

    Keys: see :func:`veil.models.registry.requirement_help`.

    Raises
    ------
    ParameterError
        An empty text, a malformed clause, an unknown key or parameter (naming the clause).

    Examples
    --------
    >>> [(r.key, r.op, r.value) for r in parse_requirements("k>=5, t<=0.2")]
    [('k', '>=', 5.0), ('t', '<=', 0.2)]
    >>> r = parse_requirements("lkc(L=2,K=5,C=0.5), l[diagnosis]>=3")
    >>> r[0].arguments, r[1].attribute
    ((('L', 2), ('K', 5), ('C', 0.5)), 'diagnosis')
    """
    if not isinstance(text, str) or not text.strip():
        raise ParameterError(f"Expected requirements such as 'k>=5, l>=2'. Got {text!r} instead.")
    out = []
    for raw in _split(text):
        clause = raw.strip()
        if not clause:
            raise ParameterError(f"Empty requirement clause in {text!r}; separate clauses with single commas.")
        out.append(_clause(clause))
    return out


def requested_levels(
    requirements: Sequence[Requirement], report: CheckReport, classes: ClassTable, present: Sequence[str] = (),
) -> dict[str, Any]:
    """The levels asked for that the report does not already hold (``lkc``, ``records_at_risk``,
    ``highest_risk``...), keyed by requirement key, for ``veil check --json``.

    ``present`` lists the JSON keys already written; keys of a sensitive
    attribute's report (``l``, ``t``) are never repeated.
    """
    out: dict[str, Any] = {}
    for r in requirements:
        if r.key in present or r.key in out or r.needs_population:
            continue
        if r.spec.report_field is not None and r.needs_sensitive:
            continue
        level = r.level(report, classes)
        if r.arguments or r.spec.fixed:
            models = r.models(list(report.sensitive))
            level = {"parameters": {p.name: getattr(models[0], p.name) for p in r.model.parameters
                                    if p.name != r.spec.parameter}, "level": level}
        out[r.key] = level
    return out


def requirement_models(
    requirements: Sequence[Requirement], *, sensitive: Sequence[str], kinds: Mapping[str, str] | None = None,
) -> list[dict[str, Any]]:
    """The release-configuration ``models`` entries that ``veil anonymize --require`` asks for.

    Each clause becomes its model with the clause's number as the parameter
    (``k>=5`` -> 5-anonymity), once per sensitive attribute it names (all of
    them without a bracket).  ``t`` takes the ordered distance on an ordered
    attribute.

    Raises
    ------
    ParameterError
        A clause whose comparison is not the model's (``k<=5``), an equality,
        a population key, or a sensitive model without a sensitive attribute.

    Examples
    --------
    >>> requirement_models(parse_requirements("k>=5, l[s]>=2"), sensitive=["s"])
    [{'type': 'k-anonymity', 'k': 5}, {'type': 'distinct-l-diversity', 'l': 2, 'sensitive': 's'}]
    """
    kinds = dict(kinds or {})
    out: list[dict[str, Any]] = []
    for r in requirements:
        spec = r.spec
        if r.needs_population:
            raise ParameterError(f"The requirement {r.clause!r} needs a population table; veil anonymize cannot ask for it.")
        if r.op is not None and r.op not in (spec.direction, spec.direction[0]):
            raise ParameterError(
                f"The requirement {r.clause!r} cannot be asked of veil anonymize: the model holds for "
                f"{r.key}{spec.direction}N."
            )
        for model in r.models(list(sensitive)):
            entry = {"type": type(model).config_key}
            entry.update({p.name: getattr(model, p.name) for p in type(model).parameters
                          if p.name != "sensitive" and getattr(model, p.name) is not None})
            if r.op is not None and r.op == spec.direction[0] and isinstance(entry[spec.parameter], int):
                entry[spec.parameter] += 1 if spec.higher_is_stronger else -1  # k>5 asks for k=6
            name = getattr(model, "sensitive", None)
            if name is not None:
                entry["sensitive"] = name
                if spec.ordered_variant and kinds.get(name) in _ORDERED_KINDS:
                    entry["type"] = spec.ordered_variant
            out.append(entry)
    return out
