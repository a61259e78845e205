"""The registry of privacy models: one line per model, everything else derived.

Each model class declares its facts once (``config_key``, ``label``,
``parameters``, ``requirement_keys``, monotonicity, ``needs_sensitive``,
``needs_population``, ``reference``; see :class:`~veil.models.PrivacyModel`).
This module lists the classes and derives from their facts:

* the release configuration's ``models`` schema (:func:`build`,
  :data:`MODEL_TYPES`);
* the requirement grammar of ``veil check --require`` and
  ``veil anonymize --require`` (:func:`requirement_key`,
  :func:`requirement_help`);
* the report's description of a model (:func:`describe`).

Adding a model is one new module and one :func:`register` call (below, or
in user code: ``register(MyModel)``).

Examples
--------
>>> build({"type": "k-anonymity", "k": 5}).name
'5-anonymity'
>>> requirement_key("l_entropy")[0].__name__
'EntropyLDiversity'
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from typing import Any

from veil.errors import ParameterError
from veil.models._alpha_k import AlphaKAnonymity
from veil.models._base import PrivacyModel
from veil.models._beta_likeness import BasicBetaLikeness, EnhancedBetaLikeness
from veil.models._delta_disclosure import DeltaDisclosure, PresentValuesDeltaDisclosure
from veil.models._delta_presence import DeltaPresence
from veil.models._differential_privacy import DifferentialPrivacy
from veil.models._facts import RequirementKey, invalid_values
from veil.models._k_anonymity import KAnonymity
from veil.models._k_link import KLinkAnonymity
from veil.models._k_map import KMap
from veil.models._l_diversity import DistinctLDiversity, EntropyLDiversity, RecursiveCLDiversity
from veil.models._lkc import LKCPrivacy
from veil.models._population import EstimatedKMap, PopulationUniques
from veil.models._risk_thresholds import AverageRisk, MaxProsecutorRisk, RecordsAtRiskShare
from veil.models._t_closeness import EqualDistanceTCloseness, HierarchicalTCloseness, OrderedDistanceTCloseness

__all__ = [
    "MODELS", "MODEL_TYPES", "register", "unregister", "registered", "build", "model_class",
    "requirement_key", "requirement_keys", "requirement_help", "describe", "invalid_values", "class_local_models",
]

_MODELS: dict[str, type[PrivacyModel]] = {}


class _LiveView(Mapping):
    """A read-only view of the registry that follows later registrations."""

    def __init__(self, value: Any) -> None:
        self._value = value

    def __getitem__(self, key: str) -> Any:
        return self._value(_MODELS[key])

    def __iter__(self) -> Iterator[str]:
        return iter(list(_MODELS))

    def __len__(self) -> int:
        return len(_MODELS)


#: Configuration ``type`` -> model class (a live view of the registry).
MODELS: Mapping[str, type[PrivacyModel]] = _LiveView(lambda cls: cls)
#: Configuration ``type`` -> model class name (the old ``veil.config.MODEL_TYPES``).
MODEL_TYPES: Mapping[str, str] = _LiveView(lambda cls: cls.__name__)


def register(cls: type[PrivacyModel]) -> type[PrivacyModel]:
    """Add a model class to the registry (usable as a decorator).

    Raises
    ------
    ParameterError
        The class is not a :class:`PrivacyModel`, has no ``config_key``, or
        its configuration key or one of its requirement keys is taken.
    """
    if not (isinstance(cls, type) and issubclass(cls, PrivacyModel)):
        raise ParameterError(f"register expects a PrivacyModel subclass. Got {cls!r} instead.")
    if not cls.config_key:
        raise ParameterError(f"{cls.__name__} declares no config_key; set config_key = 'my-model'.")
    if cls.config_key in _MODELS and _MODELS[cls.config_key] is not cls:
        raise ParameterError(f"The model type {cls.config_key!r} is taken by {_MODELS[cls.config_key].__name__}.")
    taken = requirement_keys()
    for spec in (named for declared in cls.requirement_keys for named in declared.spellings()):
        if spec.key in taken and taken[spec.key][0] is not cls:
            raise ParameterError(
                f"The requirement key {spec.key!r} of {cls.__name__} is taken by {taken[spec.key][0].__name__}."
            )
    _MODELS[cls.config_key] = cls
    return cls


def unregister(cls: type[PrivacyModel]) -> None:
    """Remove a model class from the registry (a no-op when it is absent)."""
    if _MODELS.get(cls.config_key) is cls:
        del _MODELS[cls.config_key]


@contextmanager
def registered(cls: type[PrivacyModel]) -> Iterator[type[PrivacyModel]]:
    """Register ``cls`` for the duration of a ``with`` block (for tests and plug-ins)."""
    register(cls)
    try:
        yield cls
    finally:
        unregister(cls)


def model_class(config_key: str) -> type[PrivacyModel]:
    """The class registered under ``config_key``.

    Raises
    ------
    ParameterError
        An unknown key (the message lists the known ones).
    """
    try:
        return _MODELS[config_key]
    except (KeyError, TypeError):
        raise ParameterError(
            f"The model type must be one of {', '.join(_MODELS)}. Got {config_key!r} instead."
        ) from None


def build(spec: Mapping[str, Any]) -> PrivacyModel:
    """A model from a configuration entry ``{"type": KEY, parameter: value, ...}``.

    Raises
    ------
    ParameterError
        An unknown type, a missing or unknown parameter, or a value outside
        its constraint (one message shape for every model).
    """
    spec = dict(spec)
    cls = model_class(spec.pop("type", None))
    known = {p.name for p in cls.parameters}
    unknown = sorted(set(spec) - known - {"values", "population"})
    if unknown:
        raise ParameterError(
            f"{cls.__name__} takes the parameters {', '.join(sorted(known)) or 'none'}. "
            f"Got {', '.join(map(repr, unknown))} instead."
        )
    try:
        return cls(**spec)
    except TypeError as exc:  # a missing parameter
        raise ParameterError(f"{cls.__name__}: {exc}") from None


def requirement_keys() -> dict[str, tuple[type[PrivacyModel], RequirementKey]]:
    """Every requirement key (aliases included) -> (model class, its :class:`RequirementKey`), in registry order."""
    return {
        spec.key: (cls, spec)
        for cls in _MODELS.values() for declared in cls.requirement_keys for spec in declared.spellings()
    }


def requirement_key(key: str) -> tuple[type[PrivacyModel], RequirementKey]:
    """The model class and :class:`RequirementKey` of a requirement ``key``.

    Raises
    ------
    ParameterError
        An unknown key (the message lists the known ones).
    """
    keys = requirement_keys()
    if key not in keys:
        raise ParameterError(f"Unknown requirement {key!r}; known keys: {', '.join(keys)}.")
    return keys[key]


def requirement_help() -> str:
    """The requirement keys in one line each, for ``--help`` and the docs."""
    lines = []
    for key, (cls, spec) in requirement_keys().items():
        if spec.parameter is None:
            form = f"{key}({','.join(p.name + '=N' for p in cls.parameters if p.name != 'sensitive')})"
        else:
            form = f"{key}{'[S]' if cls.needs_sensitive else ''}{spec.direction}N"
        extra = " (needs --population)" if spec.needs_population else ""
        lines.append(f"{form}: {spec.description}{extra}")
    return "; ".join(lines)


def class_local_models() -> tuple[type[PrivacyModel], ...]:
    """The registered models that judge each class on its own (``class_local``), in registry order."""
    return tuple(cls for cls in _MODELS.values() if cls.class_local)


def describe(model: PrivacyModel) -> dict[str, Any]:
    """A model as the report shows it: type, name, parameters, facts and reference.

    Examples
    --------
    >>> from veil.models import KAnonymity
    >>> describe(KAnonymity(k=5))["name"], describe(KAnonymity(k=5))["parameters"]
    ('5-anonymity', {'k': 5})
    """
    cls = type(model)
    return {
        "type": cls.config_key or cls.__name__,
        "name": model.name,
        "parameters": {p.name: getattr(model, p.name) for p in cls.parameters},
        "monotone_generalization": cls.monotone_generalization,
        "monotone_with_suppression": cls.monotone_with_suppression,
        "compared_with": cls.compared_with or None,
        "reference": cls.reference,
    }


for _cls in (
    KAnonymity,
    MaxProsecutorRisk,
    AverageRisk,
    DistinctLDiversity,
    EntropyLDiversity,
    RecursiveCLDiversity,
    EqualDistanceTCloseness,
    OrderedDistanceTCloseness,
    HierarchicalTCloseness,
    DeltaDisclosure,
    PresentValuesDeltaDisclosure,
    AlphaKAnonymity,
    BasicBetaLikeness,
    EnhancedBetaLikeness,
    LKCPrivacy,
    RecordsAtRiskShare,
    KMap,
    DeltaPresence,
    KLinkAnonymity,
    PopulationUniques,
    EstimatedKMap,
    DifferentialPrivacy,
):
    register(_cls)
