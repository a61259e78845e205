"""The options each registered algorithm declares, and the one check they all go through.

An algorithm's options are data (:class:`~veil.models._facts.Param`, the class
the privacy models declare their parameters with): name, kind (``bool``,
``int``, ``float``, ``choice``, ``list``, ``mapping``, ``object``), range or
choices, default and one line of help.  :func:`check_options` checks the
options given (the library's ``options=``, the CLI's ``--option KEY=VALUE``,
a configuration's ``algorithm_options``) against them with one message shape:

``The 'strict' option of mondrian must be a bool. Got 'maybe' instead.``

and the CLI help, the docs' table and the web form are generated from the same
declarations, so an algorithm registered with its options needs no other edit.

Examples
--------
>>> check_options("mondrian", MONDRIAN_OPTIONS, {"seed": "3", "strict": False})
{'seed': 3, 'strict': False}
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from veil.errors import ParameterError
from veil.models._facts import Param

__all__ = ["MONDRIAN_OPTIONS", "TDS_OPTIONS", "MDAV_OPTIONS", "LOCAL_SUPPRESSION_OPTIONS", "SAFEPUB_OPTIONS",
           "check_options", "describe_option", "shown_options"]

MONDRIAN_OPTIONS = (
    Param("strict", "bool", default=True,
          help="strict median splits (parts never overlap); false: relaxed, balanced parts whose ranges may overlap"),
    Param("categorical", "choice", choices=("hierarchy", "ordered"), default="hierarchy",
          help="split a categorical QI along its hierarchy, or as an ordered attribute in label order"),
    Param("seed", "int", low=0, optional=True,
          help="randomize tie-breaking with this seed (none: ties go to the first QI and the earlier row)"),
)
TDS_OPTIONS = (
    Param("score", "choice", choices=("infogain", "infogain/anonyloss"), default="infogain",
          help="how specializations are ranked: InfoGain (HDTDS), or InfoGain / (AnonyLoss + 1) (TDS)"),
    Param("max_iterations", "int", low=0, optional=True,
          help="stop after this many scored specializations (none: until no valid one remains)"),
    Param("intervals", "mapping", optional=True,
          help="numeric QIs whose intervals grow at runtime, each to its root [low, high) or null: {age: null}"),
)
MDAV_OPTIONS = (
    Param("standardize", "bool", default=True,
          help="measure distances on z-scores, so that a column's unit does not decide the grouping"),
)
LOCAL_SUPPRESSION_OPTIONS = (
    Param("importance", "list", optional=True,
          help="every quasi-identifier once, the most important (blanked last) first (none: fewest values first)"),
    Param("combs", "list", item="int", low=1, optional=True,
          help="sizes of key sets, each k-anonymous (sdcMicro's combs: 4,3; none: all the keys together)"),
)
SAFEPUB_OPTIONS = (
    Param("score", "choice", choices=("smooth", "granularity"), default="smooth",
          help="the score the exponential mechanism ranks nodes by: smoothed granularity, or ARX's"),
    Param("search", "choice", choices=("auto", "lattice", "walk"), default="auto",
          help="one draw over the whole lattice when it fits (auto), always (lattice), or a walk"),
    Param("steps", "int", low=1, default=100, help="steps of the walk (giving it with search=auto selects the walk)"),
    Param("walk_share", "float", low=0, high=1, closed="right", default=0.01,
          help="share of the search budget the walk spends; the rest draws the node released"),
    Param("accountant", "object", optional=True,
          help="a veil.dp.PrivacyAccountant charged before the records are sampled (command line: --budget-file)"),
)


def _number(param: Param, value: Any) -> Any:
    """A number written as text (``"5"``, ``"0.5"``) read as the option's int or float; other values unchanged."""
    if param.kind not in ("int", "float") or not isinstance(value, str):
        return value
    try:
        return int(value.strip()) if param.kind == "int" else float(value.strip())
    except ValueError:
        return value


def check_options(name: str, declared: Sequence[Param], options: Mapping[str, Any] | None) -> dict[str, Any]:
    """The options given, each checked against its declaration and converted to its type.

    Raises
    ------
    ParameterError
        An option the algorithm does not declare (naming the ones it does),
        or a value outside its declaration (naming the option, what it must
        be and the value given).
    """
    by_name = {p.name: p for p in declared}
    out: dict[str, Any] = {}
    for key, value in (options or {}).items():
        param = by_name.get(str(key))
        if param is None:
            raise ParameterError(f"Bad option for the {name} algorithm: {key!r} is not one of its options "
                                 f"({', '.join(by_name)}).")
        out[param.name] = param.check(_number(param, value), name, noun="option")
    return out


def shown_options(declared: Sequence[Param]) -> tuple[Param, ...]:
    """The options a configuration, the command line or a form can give (not the ``object`` ones)."""
    return tuple(p for p in declared if p.kind != "object")


def describe_option(param: Param) -> str:
    """``name=VALUE`` (its rule, default), for the CLI help: ``steps (an int in [1, inf), default 100)``."""
    default = "none" if param.default is None else (str(param.default).lower() if isinstance(param.default, bool)
                                                    else str(param.default))
    return f"{param.name} ({param.rule}, default {default})"
