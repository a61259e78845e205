"""What ``veil.anonymize(frame, quasi_identifiers=[...], k=5, auto_hierarchies=True)`` asks for, as a
:class:`~veil.dataset.Dataset` with its hierarchies and a list of privacy models.

:func:`frame_dataset` declares the roles of a pandas DataFrame (one role per column: a column named
twice is a :class:`~veil.errors.SchemaError` naming it) and builds the hierarchies given by object,
by spec (the grammar of ``--hierarchy``: ``"interval:5,10"``, ``"mask:1"``, ``"auto"``) or
``auto_hierarchies``.  :func:`model_specs` turns ``k``, ``l`` and ``t`` into registry entries
(``{"type": "k-anonymity", "k": 5}``), the same for the Python call and the CLI's ``-k``, ``-l``,
``-t``.  Nothing given is ignored: a keyword that has no effect on the form of the call is refused.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from veil.errors import ParameterError

__all__ = ["frame_dataset", "model_specs", "build_models", "FRAME_KEYWORDS", "suppression_limit_of", "refuse_data_built"]

#: The keywords of :func:`veil.anonymize` that describe a DataFrame; a Dataset carries them itself.
FRAME_KEYWORDS = ("quasi_identifiers", "sensitive", "identifiers", "insensitive", "kinds", "hierarchies",
                  "auto_hierarchies")

_ORDERED = ("numeric", "ordinal", "date")


def _names(value: Any, parameter: str) -> list[str]:
    """A list of column names (a bare string is refused: it would be read letter by letter)."""
    if value is None:
        return []
    if isinstance(value, str) or not isinstance(value, Sequence):
        raise ParameterError(f"The {parameter!r} parameter of anonymize must be a list of column names. "
                             f"Got {type(value).__name__} {value!r} instead.")
    return [str(v) for v in value]


def frame_dataset(frame: Any, *, quasi_identifiers: Any, sensitive: Any = None, identifiers: Any = None,
                  insensitive: Any = None, kinds: Mapping[str, str] | None = None,
                  hierarchies: Mapping[str, Any] | None = None,
                  auto_hierarchies: bool = False) -> tuple[Any, dict[str, str]]:
    """The dataset of ``frame`` with its roles and hierarchies, and what each hierarchy came from.

    ``hierarchies`` maps a column to a :class:`~veil.hierarchy.Hierarchy` or to a spec;
    ``auto_hierarchies`` gives ``auto`` to every quasi-identifier without one.

    Raises
    ------
    ParameterError
        No quasi-identifier, a role given as a string, or a hierarchy for a column that is neither
        a quasi-identifier nor sensitive.
    SchemaError, ColumnNotFoundError
        A column given two roles, or not in the frame.
    HierarchyError
        A spec is malformed or does not fit its column.
    """
    from veil.dataset import Dataset
    from veil.hierarchy import Hierarchy, resolve

    qis = _names(quasi_identifiers, "quasi_identifiers")
    if not qis:
        raise ParameterError("The 'quasi_identifiers' parameter of anonymize must name at least one column of "
                             "the DataFrame (the columns an attacker can link).")
    sensitive = _names(sensitive, "sensitive")
    dataset = Dataset.from_pandas(frame, quasi_identifiers=qis, sensitive=sensitive,
                                  identifiers=_names(identifiers, "identifiers"),
                                  insensitive=_names(insensitive, "insensitive"), kinds=kinds)
    given = dict(hierarchies or {})
    stray = [name for name in given if name not in qis and name not in sensitive]
    if stray:
        raise ParameterError(f"hierarchies names {stray[0]!r}, which is neither a quasi-identifier nor a sensitive "
                             "attribute; it would do nothing.")
    objects = {name: h for name, h in given.items() if isinstance(h, Hierarchy)}
    specs = {name: h for name, h in given.items() if name not in objects}
    resolution = resolve(dataset, specs, auto=auto_hierarchies,
                         quasi_identifiers=[q for q in qis if q not in objects],
                         kinds={n: str(k) for n, k in (kinds or {}).items()})
    sources = {**{name: "given" for name in objects}, **resolution.sources}
    return dataset.with_hierarchies({**objects, **resolution.hierarchies}), sources


def refuse_data_built(hierarchies: Mapping[str, Any] | None, auto: bool) -> None:
    """Refuse, for a differentially private release (safepub), a hierarchy built from the column's values:
    ``auto_hierarchies`` or a builder spec (``interval:5,10``); a :class:`~veil.hierarchy.Hierarchy` given
    whole or a file is fixed before the data is read."""
    from veil.hierarchy import parse_spec

    built = [name for name, h in (hierarchies or {}).items() if isinstance(h, str) and parse_spec(h).builder != "file"]
    if auto or built:
        what = "auto_hierarchies=True" if auto else f"the hierarchy {hierarchies[built[0]]!r} of {built[0]!r}"
        raise ParameterError(f"{what} builds a hierarchy from the data; a differentially private release (safepub) "
                             "needs every hierarchy fixed before the data is read: give Hierarchy objects or files.")


def _per_attribute(value: Any, parameter: str, sensitive: Sequence[str]) -> dict[str, Any]:
    """``l=2`` (with one sensitive attribute) or ``l={"disease": 2}``, as ``{attribute: value}``."""
    if value is None:
        return {}
    if isinstance(value, Mapping):
        return dict(value)
    if len(sensitive) != 1:
        raise ParameterError(
            f"The {parameter!r} parameter of anonymize names no sensitive attribute and there are "
            f"{len(sensitive) or 'none'}: give {parameter}={{SENSITIVE: {value!r}}}.")
    return {sensitive[0]: value}


def model_specs(*, k: int | None = None, l: Mapping[str, int] | None = None,  # noqa: E741 - the paper's symbol
                t: Mapping[str, float] | None = None, kinds: Mapping[str, str] | None = None) -> list[dict[str, Any]]:
    """The registry entries of ``k``-anonymity, distinct ``l``-diversity and ``t``-closeness per
    sensitive attribute (ordered distance for a numeric, ordinal or date attribute, else equal).

    >>> model_specs(k=5, l={"dx": 2}, t={"income": 0.2}, kinds={"income": "numeric"})
    [{'type': 'k-anonymity', 'k': 5}, {'type': 'distinct-l-diversity', 'sensitive': 'dx', 'l': 2}, \
{'type': 'ordered-t-closeness', 'sensitive': 'income', 't': 0.2}]
    """
    specs: list[dict[str, Any]] = [] if k is None else [{"type": "k-anonymity", "k": k}]
    specs += [{"type": "distinct-l-diversity", "sensitive": name, "l": value} for name, value in (l or {}).items()]
    for name, value in (t or {}).items():
        ordered = str((kinds or {}).get(name, "categorical")) in _ORDERED
        specs.append({"type": "ordered-t-closeness" if ordered else "equal-t-closeness", "sensitive": name, "t": value})
    return specs


def build_models(dataset: Any, *, k: Any, l: Any, t: Any) -> list[Any]:  # noqa: E741 - the paper's symbol
    """The models ``k``, ``l`` and ``t`` ask for on ``dataset`` (``l``/``t``: a value for its one
    sensitive attribute, or a mapping per attribute), built through the registry."""
    from veil.models import registry

    sensitive = list(dataset.sensitive)
    kinds = {name: dataset.schema.kind(name).value for name in sensitive if name in dataset.schema}
    specs = model_specs(k=k, l=_per_attribute(l, "l", sensitive), t=_per_attribute(t, "t", sensitive), kinds=kinds)
    return [registry.build(spec) for spec in specs]


def suppression_limit_of(suppression: float | None, suppression_limit: float | None) -> float:
    """``suppression`` or its long name ``suppression_limit`` (default 0); both given is refused."""
    if suppression is not None and suppression_limit is not None:
        raise ParameterError("Give one of 'suppression' and 'suppression_limit' (the same limit), not both.")
    chosen = suppression if suppression is not None else suppression_limit
    return 0.0 if chosen is None else chosen
