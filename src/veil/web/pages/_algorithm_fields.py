"""The algorithms' option fields, generated from the options each algorithm declares in the
registry (:attr:`veil.algorithms.AlgorithmSpec.options`, :mod:`veil.algorithms._options`).

Nothing here names an algorithm or an option: a choice is a select, a bool a checkbox, a number an
input with the declared bounds, a list a comma-separated text, a mapping a YAML flow mapping (as
``--option KEY={...}`` reads it); an ``object`` option (given from Python only) has no field.  The
form's answers become the configuration's ``algorithm_options`` as typed values, checked by the
algorithm's own declaration (the CLI's one-line errors), keeping only the options that differ from
their defaults (what ``veil anonymize CONFIG`` then reads is what the steward changed).
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Any

from veil.errors import ConfigError, ParameterError

__all__ = ["algorithm_forms", "read_algorithm_options", "typed_options", "option_field_name"]


def option_field_name(algorithm: str, option: str) -> str:
    """The form field of one option of one algorithm."""
    return f"option.{algorithm}.{option}"


def _bound(value: float | None, included: bool) -> Any:
    """An HTML ``min``/``max`` (an open or infinite bound has none: the server's check names it)."""
    if value is None or not included or (isinstance(value, float) and math.isinf(value)):
        return None
    return int(value) if float(value).is_integer() else value


def _shown(param: Any, value: Any) -> Any:
    """The option's value as the field shows it."""
    if value is None:
        return None if param.kind != "bool" else False
    if param.kind == "list":
        return ", ".join(str(v) for v in value) if isinstance(value, (list, tuple)) else str(value)
    if param.kind == "mapping":
        import yaml

        try:  # a value refused (a list, say) is shown as it was given, to fix
            return yaml.safe_dump(value, default_flow_style=True, sort_keys=False).strip().removesuffix("\n...")
        except yaml.YAMLError:
            return str(value)
    return value


def _field(algorithm: str, param: Any, chosen: Mapping[str, Any]) -> dict[str, Any]:
    value = chosen[param.name] if param.name in chosen else param.default
    left = param.closed in ("both", "left")
    right = param.closed in ("both", "right")
    return {"name": param.name, "field": option_field_name(algorithm, param.name), "kind": param.kind,
            "rule": param.rule, "help": param.help, "value": _shown(param, value), "optional": param.optional,
            "min": _bound(param.low, left), "max": _bound(param.high, right), "choices": list(param.choices),
            "step": "1" if param.kind == "int" else "any"}


def algorithm_forms(chosen_algorithm: str, chosen_options: Mapping[str, Any] | None) -> list[dict[str, Any]]:
    """One entry per registered algorithm, in registry order: its facts and its option fields
    (filled with ``chosen_options`` for the chosen algorithm, else with the declared defaults)."""
    from veil.algorithms import ALGORITHMS
    from veil.algorithms._options import shown_options

    forms = []
    for name, spec in ALGORITHMS.items():
        chosen = dict(chosen_options or {}) if name == chosen_algorithm else {}
        forms.append({"name": name, "full_domain": spec.full_domain, "takes_options": spec.takes_options,
                      "fields": [_field(name, p, chosen) for p in shown_options(spec.options)]})
    return forms


def _text_value(param: Any, text: str) -> Any:
    """A field's text as the option's value before its check (a mapping read as YAML)."""
    if param.kind == "int":
        try:
            return int(text)
        except ValueError:
            return text
    if param.kind == "float":
        try:
            return float(text)
        except ValueError:
            return text
    if param.kind == "mapping":
        import yaml

        try:
            return yaml.safe_load(text)
        except yaml.YAMLError:
            raise ConfigError(f"algorithm_options.{param.name}: not a YAML mapping such as {{age: null}}.") from None
    return text


def read_algorithm_options(form: Any, algorithm: str) -> dict[str, Any]:
    """The chosen algorithm's fields as option values, not checked yet (:func:`typed_options`):
    a box's bool, a number's number, a mapping's YAML; an empty field is an option not given."""
    from veil.algorithms import ALGORITHMS
    from veil.algorithms._options import shown_options

    spec = ALGORITHMS.get(algorithm)
    given: dict[str, Any] = {}
    for param in shown_options(spec.options) if spec is not None else ():
        raw = form.get(option_field_name(algorithm, param.name))
        if param.kind == "bool":
            given[param.name] = raw is not None and str(raw) not in ("", "0", "false", "off")
        elif raw is not None and str(raw).strip():
            given[param.name] = _text_value(param, str(raw).strip())
    return given


def typed_options(algorithm: str, given: Mapping[str, Any]) -> dict[str, Any]:
    """``algorithm_options``: ``given`` checked by the algorithm's declaration and typed, the options
    equal to their default left out.

    Raises
    ------
    ConfigError
        A value outside the option's declaration (the message ``--option`` and a configuration give).
    """
    from veil.algorithms import ALGORITHMS

    spec = ALGORITHMS[algorithm]
    try:
        checked = spec.check_options(given)
    except ParameterError as exc:
        raise ConfigError(str(exc)) from None
    declared = {p.name: p.default for p in spec.options}
    return {key: value for key, value in checked.items() if key not in declared or value != declared[key]}
