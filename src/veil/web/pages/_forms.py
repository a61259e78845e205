"""Forms generated from the registries: the privacy models (:mod:`veil.models.registry`) and the
utility metrics (:data:`veil.utility.METRICS`); the algorithms' options are
:mod:`veil.web.pages._algorithm_fields`'s.

Nothing here names a model, an algorithm or a metric: a model registered with
:func:`veil.models.registry.register` gets its form from its declared
:class:`~veil.models._facts.Param` facts (kind, interval, optional) and its dataclass defaults,
and the page shows it without a line of web code.  The form's answers become the
configuration's ``models:`` list exactly as ``veil anonymize CONFIG`` reads it, checked by the
configuration's own :func:`veil.config.build_model` (the CLI's one-line errors).
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Mapping, Sequence
from typing import Any

from veil._config_tables import TABLE_KEYS
from veil.errors import ConfigError

__all__ = ["DEFAULTS", "model_forms", "parse_models", "metric_choices",
           "parameter_default", "field_name", "FIRST", "SUGGESTED", "HELP", "FLAG_LABELS", "in_page_words", "bound_settings"]

#: What the Models page proposes before the steward chose anything.
DEFAULTS: dict[str, Any] = {"models": [{"type": "k-anonymity", "k": 5}], "suppression_limit": 0.05,
                            "metric": "loss", "algorithm": "lattice", "algorithm_options": {}}


#: The models the page shows first, in this order (the usual start: k-anonymity, then the models on
#: a sensitive column); every other registered model is under "More privacy models".
FIRST = ("k-anonymity", "distinct-l-diversity", "entropy-l-diversity", "recursive-cl-diversity",
         "equal-t-closeness", "ordered-t-closeness", "hierarchical-t-closeness")
#: Values a form proposes where the model declares no default and the interval alone would
#: suggest a poor one, as (config key, parameter) -> value: SafePub's own choices (Bild et al. 2018,
#: and ARX's defaults; docs/algorithms/safepub.md).
SUGGESTED: dict[tuple[str, str], Any] = {("dp", "epsilon"): 2.0, ("dp", "delta"): 1e-5}
#: A plain sentence under a parameter, as (config key, parameter) -> text.
HELP: dict[tuple[str, str], str] = {
    ("dp", "epsilon"): "the privacy budget: smaller is more private and releases fewer records (2 is SafePub's usual choice)",
    ("dp", "delta"): "the chance the guarantee fails: keep it far below 1 / the number of records (1e-5 is the usual choice)",
}
#: The command line's flags as the page's controls, for a library message shown in the page:
#: flag -> words (``{value}`` is the flag's value in the message, when it has one).
FLAG_LABELS: dict[str, str] = {
    "--algorithm": "Algorithm {value} (Models)",
    "--suppression": "the suppression limit (Models)",
    "--suppressed": "suppressed records kept in the release",
    "--qi": "role quasi-identifier on Roles",
    "--sensitive": "role sensitive on Roles",
    "--keep-unlisted": "columns kept without a role",
    "--seed": "a seed",
    "--epsilon": "epsilon of the dp model (Models)",
    "--delta": "delta of the dp model (Models)",
    "--search-budget": "search_budget of the dp model (Models)",
}
_SUPPRESSION_100 = "a suppression limit of 100% (Models)"


def in_page_words(message: str) -> str:
    """A library message with each command-line flag it names replaced by the page's control.

    >>> in_page_words("use --algorithm safepub.")
    'use Algorithm safepub (Models).'
    >>> in_page_words("a limit of 1 (--suppression 1); 'd' must be a quasi-identifier (--qi)")
    "a limit of 1 (a suppression limit of 100% (Models)); 'd' must be a quasi-identifier (role quasi-identifier on Roles)"
    """
    import re

    def word(match: "re.Match[str]") -> str:
        flag, rest = match.group(1), match.group(2)
        label = FLAG_LABELS.get(flag)
        if label is None:
            return match.group(0)
        if "{value}" not in label and flag not in ("--suppression", "--suppressed"):
            return label + rest  # a flag without a value: the next word is the sentence's own
        value = rest.strip()
        if flag == "--suppression":
            return _SUPPRESSION_100 if value == "1" else label
        if flag == "--suppressed":
            return label if value in ("keep", "") else f"suppressed records written as {value}"
        return label.format(value=value)

    return re.sub(r"(--[a-z][a-z-]*)((?: [a-z0-9]+(?:\.[0-9]+)?)?)", word, message)


def bound_settings(specs: Sequence[Mapping[str, Any]]) -> dict[str, Any]:
    """The settings the chosen models require of the release (an algorithm that alone achieves a
    model, e.g. SafePub for dp, with its suppression limit of 100% and suppressed records dropped)."""
    from veil.models.registry import MODELS

    bound = sorted({getattr(MODELS.get(str(s.get("type"))), "released_by", None) or "" for s in specs} - {""})
    if not bound:
        return {}
    return {"algorithm": bound[0], "suppression_limit": 1.0, "suppressed": "drop"}


def field_name(model_type: str, parameter: str) -> str:
    """The form field of one parameter of one model type."""
    return f"{model_type}.{parameter}"


def parameter_default(cls: type, param: Any) -> Any:
    """The value a form proposes: the dataclass default, else a value inside the declared interval."""
    declared = {f.name: f.default for f in dataclasses.fields(cls) if f.default is not dataclasses.MISSING}
    if param.name in declared:
        return declared[param.name]
    if param.kind == "int":
        return int(max(param.low if param.low is not None else 0, 2))
    if param.kind == "float":
        if param.high is not None and param.high <= 1:
            return 0.2 if param.low is None or param.low < 0.2 else param.low
        return 1.0 if param.low is None or param.low < 1.0 else float(max(param.low, 2))  # entropy l: 2
    return False if param.kind == "bool" else ""


def _bound(value: float | None) -> Any:
    if value is None or (isinstance(value, float) and math.isinf(value)):
        return None
    return int(value) if float(value).is_integer() else value


def _input(cls: type, param: Any, chosen: Mapping[str, Any] | None, sensitive: Sequence[str]) -> dict[str, Any]:
    key = (getattr(cls, "config_key", None), param.name)
    value = chosen.get(param.name) if chosen is not None and param.name in chosen else SUGGESTED.get(
        key, parameter_default(cls, param))
    field = {"name": param.name, "kind": param.kind, "rule": param.rule, "value": value, "help": HELP.get(key),
             "min": _bound(param.low), "max": _bound(param.high), "optional": param.optional,
             "column": param.name == "sensitive", "choices": list(sensitive)}
    field["step"] = "1" if param.kind == "int" else "any"
    return field


def _table_input(param: str, chosen: Mapping[str, Any] | None, tables: Sequence[str]) -> dict[str, Any]:
    """The chooser of a table a model takes by file (``population: FILE``): the workspace's tables."""
    value = chosen.get(param) if chosen is not None else None
    return {"name": param, "kind": "table", "rule": "a table of the workspace (CSV or Parquet)", "value": value,
            "help": None, "min": None, "max": None, "optional": False, "column": False, "choices": list(tables),
            "step": None}


def model_forms(chosen: Sequence[Mapping[str, Any]], sensitive: Sequence[str],
                tables: Sequence[str] = ()) -> list[dict[str, Any]]:
    """One form per registered model, in registry order, filled with ``chosen`` (the config's ``models``).

    A model that reads a sensitive attribute offers the columns whose role is sensitive (one
    entry per ticked column); a model that needs a population table (``needs_population``) offers
    ``tables``, the workspace's tables, for its ``population: FILE``.
    """
    from veil.models.registry import MODELS

    by_type: dict[str, list[Mapping[str, Any]]] = {}
    for spec in chosen:
        by_type.setdefault(str(spec.get("type")), []).append(spec)
    forms = []
    for key, cls in MODELS.items():
        entries = by_type.get(key, [])
        first = entries[0] if entries else None
        fields = [_input(cls, p, first, sensitive) for p in cls.parameters]
        if cls.needs_population:
            fields += [_table_input(key, first, tables) for key in TABLE_KEYS]
        forms.append({
            "type": key, "title": cls.__name__, "summary": _first_line(cls.__doc__),
            "reference": cls.reference, "needs_sensitive": cls.needs_sensitive,
            "needs_population": cls.needs_population, "used": bool(entries),
            "ticked": [str(e.get("sensitive")) for e in entries if e.get("sensitive") is not None],
            "fields": fields, "first": key in FIRST, "released_by": getattr(cls, "released_by", None),
            "usable": (not cls.needs_population or bool(tables)) and (not cls.needs_sensitive or bool(sensitive)),
        })
    order = {key: i for i, key in enumerate(FIRST)}
    return sorted(forms, key=lambda form: order.get(form["type"], len(FIRST)))  # stable: registry order after


def _first_line(doc: str | None) -> str:
    return " ".join((doc or "").strip().split("\n\n")[0].replace("``", "").split())


def _value(param: Any, text: Any) -> Any:
    """The form's text as the configuration's value (a text that is no number stays text: the
    registry's check names it)."""
    if param.kind == "bool":
        return text is not None and str(text) not in ("", "0", "false", "off")
    if text is None or str(text).strip() == "":
        return None
    text = str(text).strip()
    try:
        if param.kind == "int":
            return int(text)
        if param.kind == "float":
            return float(text)
    except ValueError:
        return text
    return text


def parse_models(form: Any) -> list[dict[str, Any]]:
    """The config's ``models:`` list from the form (``model`` = ticked types; ``TYPE.PARAM`` fields).

    The entries are not checked here (see :func:`check_models`); a model whose sensitive
    attribute is asked gives one entry per ticked column.
    """
    from veil.models.registry import MODELS

    ticked = list(form.getlist("model"))
    specs: list[dict[str, Any]] = []
    for key, cls in MODELS.items():
        if key not in ticked:
            continue
        spec: dict[str, Any] = {"type": key}
        for param in cls.parameters:
            if param.name == "sensitive":
                continue
            value = _value(param, form.get(field_name(key, param.name)))
            if value is not None or param.kind == "bool":
                spec[param.name] = value
        if cls.needs_population:
            spec.update({name: str(form.get(field_name(key, name))).strip() for name in TABLE_KEYS
                         if str(form.get(field_name(key, name)) or "").strip()})
        columns = [str(c) for c in form.getlist(field_name(key, "sensitive"))] if any(
            p.name == "sensitive" for p in cls.parameters) else []
        if columns:
            specs.extend({"type": key, "sensitive": c, **{k: v for k, v in spec.items() if k != "type"}}
                         for c in columns)
        else:
            specs.append(spec)
    return specs


def check_models(specs: Sequence[Mapping[str, Any]], sensitive: Sequence[str], algorithm: str = "lattice") -> None:
    """Each entry as the configuration checks it (:func:`veil.config.build_model`), and its
    sensitive attribute among the sensitive columns (:func:`veil.config.check_consistency`'s rule)."""
    from veil._config_tables import check_entry
    from veil.config import build_model

    if not specs:
        raise ConfigError("models: choose at least one privacy model.")
    for i, spec in enumerate(specs):
        check_entry(spec, f"models[{i}]", algorithm=algorithm)
        build_model(dict(spec), f"models[{i}]")
        column = spec.get("sensitive")
        if column is not None and column not in sensitive:
            raise ConfigError(f"models[{i}].sensitive: {column!r} is not an attribute with role sensitive "
                              f"(sensitive: {', '.join(sensitive) or 'none'}).")


def metric_choices() -> list[dict[str, Any]]:
    """The registered metrics: name, description, direction and what each needs."""
    from veil.utility import METRICS

    return [{"name": m.name, "description": m.description, "lower_is_better": m.lower_is_better,
             "needs_label": m.needs_label} for m in METRICS.values()]
