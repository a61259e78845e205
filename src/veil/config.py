"""The release configuration: one YAML/JSON file that describes a whole release.

Example (``examples/adult-k5-l2.yaml``)::

    input:
      path: adult.csv
      sep: ";"
    attributes:
      age: {role: quasi-identifier, kind: numeric, hierarchy: {file: adult_hierarchy_age.csv}}
      sex: {role: quasi-identifier, hierarchy: {file: adult_hierarchy_sex.csv}}
      salary-class: {role: sensitive}
    models:
      - {type: k-anonymity, k: 5}
      - {type: distinct-l-diversity, sensitive: salary-class, l: 2}
    suppression_limit: 0.05
    metric: loss
    output: {path: out/adult-anonymized.csv, report: out/report.json, seed: 1}

Unknown keys and contradictions are :class:`~veil.errors.ConfigError` with the
key path named (``attributes.age.hierarchy.intervals.widths``).  Relative
paths are resolved against the configuration file's folder.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator, model_validator

from veil._config_text import read_config_file
from veil.errors import ConfigError, ParameterError, VeilError

__all__ = [
    "ReleaseConfig", "load_config", "MODEL_TYPES", "build_model", "build_hierarchy", "build_hierarchies",
    "hierarchy_inputs", "hierarchy_entry", "deidentify_frame", "DEIDENTIFY_PROFILES", "check_consistency",
]


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class InputSpec(_Strict):
    path: str
    sep: str | None = None
    encoding: str = "utf-8"
    missing: Literal["value", "error"] = "value"
    #: The cell texts read as missing (docs/data.md); default: veil.data.DEFAULT_NA_VALUES.
    na_values: list[str] | None = None

    @property
    def missing_words(self) -> tuple[str, ...]:
        """The cell texts read as missing (the empty cell always one of them)."""
        from veil.data import DEFAULT_NA_VALUES

        return DEFAULT_NA_VALUES if self.na_values is None else tuple(dict.fromkeys(["", *self.na_values]))


class HierarchySpec(_Strict):
    """Exactly one way to build a hierarchy."""

    file: str | None = None
    intervals: dict[str, Any] | None = None
    masking: dict[str, Any] | None = None
    prefix: dict[str, Any] | None = None
    dates: dict[str, Any] | None = None
    taxonomy: dict[str, Any] | None = None
    flat: bool | None = None
    #: A one-line spec of the grammar shared with ``--hierarchy`` (``interval:5,10``, ``mask:1``, ``auto``, ...).
    spec: str | None = None

    @model_validator(mode="after")
    def _one(self) -> "HierarchySpec":
        given = [k for k, v in self.model_dump().items() if v is not None]
        if len(given) != 1:
            raise ValueError(
                "give exactly one of file, intervals, masking, prefix, dates, taxonomy, flat, spec"
                + (f" (got {', '.join(given)})" if given else "")
            )
        if self.spec is not None:
            from veil.hierarchy import parse_spec

            try:
                parse_spec(self.spec)
            except VeilError as exc:
                raise ValueError(str(exc)) from None
        return self

    def reads_the_data(self) -> bool:
        """Whether the hierarchy is built from the column's values (a builder, ``auto``, ``flat``)
        rather than given whole (a file, a taxonomy)."""
        if self.file is not None or self.taxonomy is not None:
            return False
        if self.spec is not None:
            from veil.hierarchy import parse_spec

            return parse_spec(self.spec).builder != "file"
        return True


class AttributeSpec(_Strict):
    role: Literal["identifier", "quasi-identifier", "sensitive", "insensitive"]
    kind: Literal["categorical", "ordinal", "numeric", "date"] = "categorical"
    domain: list[str] | None = None
    hierarchy: HierarchySpec | None = None
    min_level: int | None = Field(default=None, ge=0)
    max_level: int | None = Field(default=None, ge=0)
    weight: float | None = Field(default=None, ge=0)

    @field_validator("hierarchy", mode="before")
    @classmethod
    def _spec_text(cls, value: Any) -> Any:
        """``hierarchy: "interval:5,10"`` is short for ``hierarchy: {spec: "interval:5,10"}``."""
        return {"spec": value} if isinstance(value, str) else value

    @model_validator(mode="after")
    def _levels(self) -> "AttributeSpec":
        if self.min_level is not None and self.max_level is not None and self.min_level > self.max_level:
            raise ValueError(f"min_level {self.min_level} is above max_level {self.max_level}")
        return self


class OutputSpec(_Strict):
    path: str | None = None
    report: str | None = None
    html: str | None = None
    drop_suppressed: bool = False
    shuffle: bool = True
    seed: int | None = None


class ReleaseConfig(_Strict):
    """A whole release: input, roles, hierarchies, models, limit, metric, outputs."""

    input: InputSpec
    attributes: dict[str, AttributeSpec]
    models: list[dict[str, Any]] = Field(min_length=1)
    suppression_limit: float = Field(default=0.0, ge=0.0, le=1.0)
    metric: str = "loss"
    label: str | None = None
    algorithm: str = "lattice"
    algorithm_options: dict[str, Any] = Field(default_factory=dict)
    #: The largest lattice the lattice search enumerates (docs/algorithms/lattice.md); None: the default.
    max_nodes: int | None = Field(default=None, ge=1)
    engine: Literal["local", "duckdb", "spark"] = "local"
    output: OutputSpec = OutputSpec()
    deidentify: dict[str, Any] | None = None
    #: Release policy (docs/security.md): suppressed records, unlisted columns,
    #: identifier-scan exceptions, and a reproducible row order on request.
    suppressed: Literal["drop", "blank", "keep"] | None = None
    #: Whether a missing sensitive value is a value of its own (docs/models.md, "What a release shows").
    missing_sensitive: Literal["value", "ignore"] = "value"
    keep_unlisted: bool = False
    allow_identifiers: list[str] = Field(default_factory=list)
    seed: int | None = Field(default=None, ge=0)
    #: Workload utility in the report (Brickell & Shmatikov): the attribute classifiers predict.
    target: str | None = None
    base_dir: str = "."

    @field_validator("deidentify")
    @classmethod
    def _deidentify_keys(cls, value: dict[str, Any] | None) -> dict[str, Any] | None:
        """``deidentify:`` holds a ``profile`` and/or per-column actions (``columns``), run before anonymizing."""
        if value is None:
            return value
        unknown = [k for k in value if k not in _DEIDENTIFY_KEYS]
        if unknown:
            raise ValueError(f"unknown key(s) {', '.join(map(repr, unknown))}; allowed: {', '.join(_DEIDENTIFY_KEYS)}")
        profile = value.get("profile")
        if profile is not None and profile not in DEIDENTIFY_PROFILES:
            raise ValueError(f"profile must be one of {', '.join(DEIDENTIFY_PROFILES)}. Got {profile!r} instead")
        if profile is None and "columns" not in value:
            raise ValueError("give a profile (safe-harbor) and/or columns (per-column actions)")
        return value

    def resolve(self, path: str) -> Path:
        p = Path(path)
        return p if p.is_absolute() else Path(self.base_dir) / p

    def names(self, role: str) -> list[str]:
        return [n for n, a in self.attributes.items() if a.role == role]


def __getattr__(name: str) -> Any:
    """``MODEL_TYPES``: configuration ``type`` -> model class name, derived from the registry."""
    if name == "MODEL_TYPES":
        from veil.models.registry import MODEL_TYPES

        return MODEL_TYPES
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


#: De-identification profiles a release config may name in ``deidentify: {profile: ...}``.
DEIDENTIFY_PROFILES = ("safe-harbor",)
_DEIDENTIFY_KEYS = ("profile", "columns", "restricted_zip3", "as_of", "link")


def build_model(spec: dict[str, Any], where: str = "models") -> Any:
    """Build a privacy model from ``{"type": ..., parameters...}`` (the types and
    parameters of :mod:`veil.models.registry`)."""
    from veil.models import registry

    if not isinstance(spec, dict):
        raise ConfigError(f"{where} must be a mapping such as {{type: k-anonymity, k: 5}}. Got {spec!r} instead.")
    kind = spec.get("type")
    if kind not in registry.MODELS:
        raise ConfigError(f"{where}.type must be one of {', '.join(registry.MODELS)}. Got {kind!r} instead.")
    try:
        return registry.build(spec)
    except VeilError as exc:
        raise ConfigError(f"{where} ({kind}): {exc}") from None


def build_hierarchy(
    name: str, spec: HierarchySpec, values: list[str], config: ReleaseConfig, counts: Any = None,
) -> Any:
    """Build the hierarchy of attribute ``name`` from its spec (values: the column's labels;
    counts: records per value, which ``spec: auto`` and ``group`` need for categories)."""
    from veil import hierarchy as H

    where = f"attributes.{name}.hierarchy"
    try:
        if spec.file is not None:
            return H.from_csv(config.resolve(spec.file), name=name)
        if spec.intervals is not None:
            return H.intervals(values, name=name, **spec.intervals)
        if spec.masking is not None:
            return H.masking(values, name=name, **spec.masking)
        if spec.prefix is not None:
            return H.prefix(values, name=name, **spec.prefix)
        if spec.dates is not None:
            return H.dates(values, name=name, **spec.dates)
        if spec.taxonomy is not None:
            return H.taxonomy(spec.taxonomy, name=name)
        if spec.spec is not None:
            attribute = config.attributes.get(name)
            kind = attribute.kind if attribute is not None and "kind" in attribute.model_fields_set else None
            return H.build(spec.spec, values, counts=counts, name=name, kind=kind, base_dir=config.base_dir)
        return H.flat(values, name=name)
    except TypeError as exc:
        raise ConfigError(f"{where}: {exc}") from None


def build_hierarchies(config: ReleaseConfig, dataset: Any = None, *, values_of: Any = None) -> Any:
    """Build every configured hierarchy over the dataset's columns, with record counts.

    ``values_of(name)`` gives a column's distinct present values and their record counts
    (default: :func:`veil.hierarchy.column_values` of ``dataset``; an out-of-core engine gives
    them from a group-count, so that ``auto`` and ``group`` choose as they do in memory); it is
    not asked for a hierarchy read from a file.

    Returns a :class:`veil.hierarchy.Resolution`: ``.hierarchies`` for the
    dataset and ``.sources`` ({column: spec or file}, with what ``auto``
    chose) for the report's ``hierarchies`` section.
    """
    from veil.hierarchy import Resolution, auto_source, choose, column_values

    if values_of is None:
        def values_of(name: str) -> tuple[list[str], Any]:
            return column_values(dataset, name) if name in dataset.columns else ([], None)

    out = Resolution()
    private = config.algorithm == "safepub" or any(m.get("type") == "dp" for m in config.models)
    for name, attribute in config.attributes.items():
        spec = attribute.hierarchy
        if spec is None:
            continue
        if private and spec.reads_the_data():
            raise ConfigError(
                f"attributes.{name}.hierarchy: a differentially private release (safepub) needs every hierarchy "
                f"fixed before the data is read (a file or a taxonomy); {_source(spec)!r} is built from the "
                "column's values, so the generalizations released would depend on the records. Write it once as a "
                "file (`veil hierarchy build`), review it, and give the file."
            )
        values, counts = values_of(name) if spec.file is None and spec.taxonomy is None else ([], None)
        if spec.spec is not None and spec.spec.strip().lower() == "auto":
            kind = attribute.kind if "kind" in attribute.model_fields_set else None
            chosen = choose(values, counts, kind=kind, name=name)
            spec = HierarchySpec(spec=str(chosen))
            out.sources[name], out.reasons[name] = auto_source(chosen), chosen.reason
        else:
            out.sources[name] = _source(spec)
        out.hierarchies[name] = build_hierarchy(name, spec, values, config, counts=counts)
    return out


def _source(spec: HierarchySpec) -> str:
    """What a hierarchy came from, for the report: the spec, the builder key, or a file's name
    (never its folder, which may name a person or a project)."""
    from veil.hierarchy import BuilderSpec, parse_spec

    if spec.file is not None:
        return Path(spec.file).name
    if spec.spec is None:
        return next(iter(spec.model_dump(exclude_none=True)))
    parsed = parse_spec(spec.spec)
    return str(BuilderSpec(parsed.builder, path=Path(parsed.path).name)) if parsed.files else str(parsed)


def hierarchy_inputs(config: ReleaseConfig) -> list[Path]:
    """Every file the configured hierarchies read (for the output writer's list of inputs)."""
    from veil.hierarchy import parse_spec

    files = []
    for attribute in config.attributes.values():
        spec = attribute.hierarchy
        if spec is None:
            continue
        names = [spec.file] if spec.file else (list(parse_spec(spec.spec).files) if spec.spec else [])
        files.extend(config.resolve(f) for f in names)
    return files


def hierarchy_entry(text: str) -> dict[str, str]:
    """The config form of a ``--hierarchy`` value: ``{"file": absolute path}`` or ``{"spec": text}``."""
    from veil.hierarchy import parse_spec

    spec = parse_spec(text)
    if spec.builder == "file":
        return {"file": str(Path(spec.path).expanduser().resolve())}
    if spec.builder == "taxonomy":
        return {"spec": f"taxonomy:{Path(spec.path).expanduser().resolve()}"}
    return {"spec": str(spec)}


def deidentify_frame(config: ReleaseConfig, frame: Any) -> Any:
    """Run the config's ``deidentify:`` section on a table (before anonymization).

    ``profile: safe-harbor`` applies :func:`veil.sanitize.safe_harbor` (with
    ``restricted_zip3``, ``as_of`` and ``link``), and ``columns`` actions
    override the profile's choice per column; without a profile, the
    ``columns`` plan alone runs.  An HMAC key, when a column action needs one,
    is read from the environment variable ``VEIL_PSEUDONYM_KEY``, never from
    the file.  Returns the de-identified frame.
    """
    import os

    from veil.sanitize import Plan, deidentify, safe_harbor

    section = config.deidentify or {}
    plan = Plan.from_dict({"columns": section["columns"]}, path="deidentify") if "columns" in section else None
    key = os.environ.get("VEIL_PSEUDONYM_KEY") if plan is not None and plan.needs_key else None
    index = frame.index
    frame = frame.set_axis(range(1, len(frame) + 1))  # messages count rows from 1, as `veil deidentify` does
    if section.get("profile") == "safe-harbor":
        result = safe_harbor(frame, restricted_zip3=section.get("restricted_zip3"), as_of=section.get("as_of"),
                             link=list(section.get("link", [])), rng=config.output.seed, key=key, overrides=plan)
    else:
        result = deidentify(frame, plan, key=key, rng=config.output.seed)
    return result.frame.set_axis(index)


def _location(loc: tuple[Any, ...]) -> str:
    out = ""
    for part in loc:
        out += f"[{part}]" if isinstance(part, int) else (f".{part}" if out else str(part))
    return out or "(top level)"


def load_config(path: str | Path) -> ReleaseConfig:
    """Read and validate a release configuration (YAML or JSON).

    Raises
    ------
    ConfigError
        Unreadable file, unknown keys, wrong types, or contradictions, with the
        key path named.
    """
    path = Path(path)
    if not path.is_file():
        raise ConfigError(f"No such configuration file: {str(path)!r}.")
    raw = read_config_file(path, name=repr(str(path)))
    if not isinstance(raw, dict):
        raise ConfigError(f"{str(path)!r} must hold a mapping at the top level.")
    raw.setdefault("base_dir", str(path.parent))
    try:
        config = ReleaseConfig(**raw)
    except ValidationError as exc:
        problems = "; ".join(f"{_location(e['loc'])}: {e['msg']}" for e in exc.errors())
        raise ConfigError(f"Invalid configuration {str(path)!r}: {problems}") from None
    _check_consistency(config)
    return config


def check_consistency(config: ReleaseConfig) -> None:
    """The rules across keys (roles, algorithm, models, paths), each a :class:`ConfigError` naming the key."""
    _check_consistency(config)


def _check_consistency(config: ReleaseConfig) -> None:
    qis = config.names("quasi-identifier")
    sensitive = config.names("sensitive")
    from veil.algorithms import ALGORITHMS

    if config.algorithm not in ALGORITHMS:
        raise ConfigError(f"algorithm must be one of {', '.join(ALGORITHMS)}. Got {config.algorithm!r} instead.")
    _check_output(config)
    if not qis:
        raise ConfigError("attributes: no attribute has role quasi-identifier; there is nothing to anonymize.")
    full_domain = ALGORITHMS[config.algorithm].full_domain
    if config.algorithm_options and not ALGORITHMS[config.algorithm].takes_options:
        raise ConfigError(f"algorithm_options: the {config.algorithm} algorithm takes no options.")
    try:
        options = ALGORITHMS[config.algorithm].check_options(config.algorithm_options)  # --option's message too
    except ParameterError as exc:
        raise ConfigError(str(exc)) from None
    in_label_order = config.algorithm == "mondrian" and options.get("categorical") == "ordered"
    for name in qis:
        spec = config.attributes[name]
        numeric = spec.kind in ("numeric", "ordinal", "date") or in_label_order  # split in order: no hierarchy
        if config.algorithm == "mdav":
            if spec.kind != "numeric":
                raise ConfigError(
                    f"attributes.{name}.kind: the mdav algorithm aggregates numeric quasi-identifiers; "
                    f"{name!r} is {spec.kind}."
                )
        elif spec.hierarchy is None and not (config.algorithm == "mondrian" and numeric) and (
            full_domain or config.algorithm in ("mondrian", "tds")
        ):
            raise ConfigError(f"attributes.{name}.hierarchy: a quasi-identifier needs a hierarchy.")
        if not full_domain and (spec.min_level is not None or spec.max_level is not None):
            raise ConfigError(
                f"attributes.{name}: min_level/max_level apply to the lattice and datafly algorithms, "
                f"not to {config.algorithm}."
            )
    if config.algorithm == "tds" and config.label is None:
        raise ConfigError("label: the tds algorithm needs a class label to score specializations.")
    from veil._config_tables import check_tables

    check_tables(config)  # a population model's file (population: FILE)
    for i, spec in enumerate(config.models):
        build_model(spec, f"models[{i}]")  # the registry's schema: type, parameters, constraints
        s = spec.get("sensitive")
        if s is not None and s not in sensitive:
            raise ConfigError(
                f"models[{i}].sensitive: {s!r} is not an attribute with role sensitive "
                f"(sensitive: {', '.join(sensitive) or 'none'})."
            )
    if config.target is not None:
        if config.target not in config.attributes or config.target in qis:
            raise ConfigError(f"target: {config.target!r} must be a declared attribute that is not a quasi-identifier.")
        if config.engine != "local":
            raise ConfigError("target: workload utility runs with the local engine only.")
    if config.label is not None and config.label in qis:
        raise ConfigError(f"label: {config.label!r} is a quasi-identifier; the class label must not be one.")
    from veil.utility import METRICS

    if config.metric not in METRICS:
        raise ConfigError(f"metric must be one of {', '.join(METRICS)}. Got {config.metric!r} instead.")


def _check_output(config: ReleaseConfig) -> None:
    """The output keys against each other and the input: no contradiction, no key that would do nothing."""
    if config.suppressed not in (None, "drop") and config.output.drop_suppressed:
        raise ConfigError(f"output.drop_suppressed: true contradicts suppressed: {config.suppressed}.")
    if not config.output.shuffle and (config.seed is not None or (config.output.seed is not None
                                                                  and config.deidentify is None)):
        key = "seed" if config.seed is not None else "output.seed"
        raise ConfigError(f"{key}: a seed orders the shuffle of the output rows; with output.shuffle: false "
                          "(--no-shuffle) it would do nothing. Give one of them.")
    if config.output.path is not None:
        if config.resolve(config.output.path).resolve() == config.resolve(config.input.path).resolve():
            raise ConfigError("output.path is the input file; veil never overwrites its input.")
