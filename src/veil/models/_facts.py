"""The facts a privacy model declares once, on its class, as data.

* :class:`Param`: one constructor parameter and its constraint (an int or a
  float in an interval, a bool, a str), checked by :func:`validate` with the
  one message shape of :mod:`veil._validation` (scikit-learn's:
  ``The 'k' parameter of KAnonymity must be an int in [1, inf). Got 0 instead.``);
  :func:`invalid_values` generates values that break it, for the meta-test.
  An algorithm declares its options with the same class
  (:attr:`veil.algorithms.AlgorithmSpec.options`), which adds the kinds an
  option may need: one of fixed ``choices``, a ``list`` (of str or int items,
  also written comma-separated), a ``mapping``, and an ``object`` given from
  Python only.
* :class:`RequirementKey`: one key of the requirement grammar
  (``k>=5``, ``l_entropy[diagnosis]>=2``, ``lkc(L=2,K=5,C=0.5)``): which
  parameter the number sets, the direction in which the model holds, and the
  field of :class:`~veil.models.CheckReport` that reports the level.

The registry (:mod:`veil.models.registry`) reads these facts to derive the
configuration schema, the requirement parser, the CLI help and the report.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from types import MappingProxyType
from typing import Any

from veil._validation import check_int, check_real, interval
from veil.errors import ParameterError

__all__ = ["Param", "RequirementKey", "validate", "invalid_values"]

_KINDS = ("int", "float", "bool", "str", "choice", "list", "mapping", "object")


@dataclass(frozen=True)
class Param:
    """One parameter of a model and its constraint.

    Parameters
    ----------
    name : str
        The keyword (the paper's symbol: ``k``, ``l``, ``t``, ``delta``...).
    kind : {"int", "float", "bool", "str", "choice", "list", "mapping", "object"}
        ``"float"`` accepts any real number (ints too) and stores a float;
        ``"choice"`` one of ``choices``; ``"list"`` a list of ``item`` values
        (or one text of them separated by commas: ``4,3``); ``"mapping"`` a
        mapping with str keys (its values are the owner's to check);
        ``"object"`` anything (a Python object, never written in a
        configuration: the owner checks it).
    low, high : float, optional
        Interval bounds (``None``: unbounded); for int and float, and for the
        items of an int list.
    closed : {"both", "left", "right", "neither"}, default "both"
    optional : bool, default False
        ``None`` is accepted (the parameter has a ``None`` default).
    choices : tuple, default ()
        The values of a ``"choice"``.
    item : {"str", "int"}, default "str"
        The kind of a ``"list"``'s items.
    default : any, default None
        The value used when the parameter is not given (an algorithm's option;
        a model's default is its dataclass field's).
    help : str, default ""
        One line for the CLI help, the docs and the web form.
    """

    name: str
    kind: str
    low: float | None = None
    high: float | None = None
    closed: str = "both"
    optional: bool = False
    choices: tuple[Any, ...] = ()
    item: str = "str"
    default: Any = None
    help: str = ""

    def __post_init__(self) -> None:
        if self.kind not in _KINDS:
            raise ValueError(f"Param.kind must be one of {_KINDS}. Got {self.kind!r} instead.")
        if (self.kind == "choice") != bool(self.choices) or self.item not in ("str", "int"):
            raise ValueError(f"Param {self.name!r}: choices go with kind 'choice' (and only there), item is str or int.")
        object.__setattr__(self, "choices", tuple(self.choices))

    @property
    def rule(self) -> str:
        """The constraint in words, e.g. ``an int in [1, inf)``."""
        if self.kind in ("int", "float"):
            return f"a{'n' if self.kind == 'int' else ''} {self.kind} in {interval(self.low, self.high, self.closed)}"
        if self.kind == "choice":
            return "one of {" + ", ".join(repr(c) for c in self.choices) + "}"
        if self.kind == "list":
            items = "str" if self.item == "str" else f"int in {interval(self.low, self.high, self.closed)}"
            return f"a list of {items} (or one text, comma-separated)"
        return {"bool": "a bool", "str": "a str", "mapping": "a mapping of names", "object": "a Python object"}[self.kind]

    def check(self, value: Any, owner: str, noun: str = "parameter") -> Any:
        """``value`` converted to the parameter's type, or a :class:`ParameterError`.

        ``noun`` is what the message calls it (``parameter``; an algorithm's ``option``).
        """
        if value is None and self.optional:
            return None
        if self.kind in ("int", "float"):
            check = check_int if self.kind == "int" else check_real
            try:
                return check(self.name, value, owner, low=self.low, high=self.high, closed=self.closed)  # type: ignore[arg-type]
            except ParameterError:
                pass
        elif self.kind == "list":
            items = _list_items(value, self.item)
            if items is not None and all(self.item == "str" or check_int_quietly(v, self) for v in items):
                return items
        elif self.kind == "choice":
            if value in self.choices and type(value) is not bool:
                return value
        elif self.kind == "mapping":  # a key read as a number from YAML (a column named 1990) is its text
            if isinstance(value, Mapping) and all(isinstance(k, (str, int)) and not isinstance(k, bool) for k in value):
                return {str(k): v for k, v in value.items()}
        elif self.kind == "object":
            return value
        else:
            expected = bool if self.kind == "bool" else str
            if isinstance(value, expected) and (expected is not str or value):
                return value
        raise ParameterError(f"The {self.name!r} {noun} of {owner} must be {self.rule}. Got {value!r} instead.")


def _list_items(value: Any, item: str) -> list[Any] | None:
    """A list's items as ``item`` values (a text split at commas, an int list's text items read as
    ints), or ``None`` when ``value`` is no list of them."""
    if isinstance(value, str):
        value = [part.strip() for part in value.split(",")]
    elif item == "int" and isinstance(value, int) and not isinstance(value, bool):
        value = [value]
    if not isinstance(value, (list, tuple)):
        return None
    if item == "str":
        return list(value) if all(isinstance(v, str) and v for v in value) else None
    out = []
    for v in value:
        if isinstance(v, str) and v.strip().lstrip("-").isdigit():
            v = int(v.strip())
        if isinstance(v, bool) or not isinstance(v, int):
            return None
        out.append(int(v))
    return out


def check_int_quietly(value: int, param: Param) -> bool:
    """Whether the int ``value`` lies in ``param``'s interval."""
    try:
        check_int(param.name, value, "", low=param.low, high=param.high, closed=param.closed)  # type: ignore[arg-type]
    except ParameterError:
        return False
    return True


def validate(model: Any) -> None:
    """Check (and normalise in place) every declared parameter of a frozen model."""
    owner = type(model).__name__
    for param in type(model).parameters:
        object.__setattr__(model, param.name, param.check(getattr(model, param.name), owner))


def invalid_values(param: Param) -> list[Any]:
    """Values that break ``param``'s constraint (a wrong type and each side of the interval).

    Examples
    --------
    >>> invalid_values(Param("k", "int", low=1))
    ['1', 1.5, True, 0]
    """
    wrong_type: list[Any] = {"int": ["1", 1.5, True], "float": ["0.5", float("nan"), True],
                             "bool": ["yes", 1], "str": [3, ""], "choice": ["not one of them", True],
                             "list": [3.5, {"a": 1}], "mapping": [3, ["a"]], "object": []}[param.kind]
    out = list(wrong_type)
    if param.kind in ("int", "float"):
        step = 1 if param.kind == "int" else 1e-9
        if param.low is not None:
            out.append(param.low - step if param.closed in ("both", "left") else param.low)
        if param.high is not None:
            out.append(param.high + step if param.closed in ("both", "right") else param.high)
        out = [int(v) if param.kind == "int" and isinstance(v, float) and v.is_integer() else v for v in out]
    return [v for v in out if not (isinstance(v, float) and math.isinf(v))]


@dataclass(frozen=True)
class RequirementKey:
    """One key of the requirement grammar, declared on the model it asks for.

    Parameters
    ----------
    key : str
        The name in ``--require`` (``k``, ``l_entropy``, ``lkc``).
    parameter : str, optional
        The model parameter the clause's number sets (``None``: the clause is
        a call, ``lkc(L=2,K=5,C=0.5)``, with every parameter given).
    direction : {">=", "<="}
        The comparison under which the model holds: ``k>=5`` asks for
        5-anonymity; ``t<=0.2`` for 0.2-closeness.
    description : str
        One line for the CLI help.
    report_field : str, optional
        The :class:`~veil.models.CheckReport` (or, for a model with a
        sensitive attribute, :class:`~veil.models.SensitiveReport`) attribute
        that reports the level; ``None``: the level is the model's
        :meth:`~veil.models.PrivacyModel.achieved_level`.
    fixed : mapping, optional
        Other parameters of the model built by ``veil anonymize --require``.
    ordered_variant : str, optional
        The configuration key to build instead for an ordered (numeric, ordinal
        or date) sensitive attribute (``t`` means ordered distance there).
    needs_population : bool, default False
        The level needs a population table (``k_map``, ``delta_min``).
    aliases : tuple of str, default ()
        Other names of the same key (``l_entropy`` for ``entropy_l``): each
        means exactly what ``key`` means (see :meth:`spellings`).
    """

    key: str
    parameter: str | None
    direction: str
    description: str
    report_field: str | None = None
    fixed: Mapping[str, Any] = field(default_factory=lambda: MappingProxyType({}))
    ordered_variant: str | None = None
    needs_population: bool = False
    aliases: tuple[str, ...] = ()

    def __post_init__(self) -> None:
        if self.direction not in (">=", "<="):
            raise ValueError(f"RequirementKey.direction must be '>=' or '<='. Got {self.direction!r} instead.")
        object.__setattr__(self, "fixed", MappingProxyType(dict(self.fixed)))
        object.__setattr__(self, "aliases", tuple(self.aliases))

    def spellings(self) -> tuple[RequirementKey, ...]:
        """This key, then one :class:`RequirementKey` per alias (the same facts under that name).

        Examples
        --------
        >>> [s.key for s in RequirementKey("entropy_l", "l", ">=", "entropy", aliases=("l_entropy",)).spellings()]
        ['entropy_l', 'l_entropy']
        """
        return (self, *(replace(self, key=alias, aliases=()) for alias in self.aliases))

    @property
    def higher_is_stronger(self) -> bool:
        """Whether a larger level is a stronger guarantee (``k``, ``l``)."""
        return self.direction == ">="
