"""The tables a release configuration's models name by file.

A model that needs a population table (its class declares ``needs_population``: k-map and
δ-presence) takes it in a configuration as ``population: FILE``, a CSV or Parquet file relative to
the configuration, read like the input (its ``sep``, ``encoding`` and missing values). The file is
one of the release's inputs (no output may overwrite it) and the report names it by its name only.
:func:`veil.release.build_models` builds the models with their tables read (:func:`read_tables`).

Examples
--------
``models: [{type: k-map, k: 3, population: census.csv}]``
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

from veil.errors import ConfigError

__all__ = ["TABLE_KEYS", "check_entry", "check_tables", "table_files", "read_tables"]

#: The keys of a ``models`` entry that name a table file.
TABLE_KEYS = ("population",)


def _needs_population(spec: Mapping[str, Any]) -> bool:
    from veil.models.registry import MODELS

    cls = MODELS.get(str(spec.get("type")))
    return bool(getattr(cls, "needs_population", False))


def check_entry(spec: Mapping[str, Any], where: str, *, algorithm: str = "lattice", engine: str = "local") -> None:
    """A ``models`` entry that needs a population names one file (``population: FILE``), with a
    full-domain algorithm (the release is judged against the population at its levels) and the
    local engine (the population is matched in memory)."""
    from veil.algorithms import ALGORITHMS

    if not isinstance(spec, Mapping) or not _needs_population(spec):
        return
    kind, given = spec.get("type"), spec.get("population")
    if not isinstance(given, str) or not given.strip():
        raise ConfigError(f"{where}.population: {kind} needs the population table the data was drawn from: "
                          f"give its file (population: FILE, CSV or Parquet).")
    spec_of = ALGORITHMS.get(algorithm)
    if spec_of is not None and not spec_of.full_domain:
        raise ConfigError(f"{where}: {kind} is judged against the population at the release's levels: use a "
                          f"full-domain algorithm ({', '.join(n for n, a in ALGORITHMS.items() if a.full_domain)}).")
    if engine != "local":
        raise ConfigError(f"{where}: {kind} matches the population in memory: use engine: local.")


def check_tables(config: Any) -> None:
    """Every ``models`` entry as :func:`check_entry` checks it."""
    for i, spec in enumerate(config.models):
        check_entry(spec, f"models[{i}]", algorithm=config.algorithm, engine=config.engine)


def table_files(config: Any) -> list[Path]:
    """Every table file the models name (inputs of the release)."""
    return [config.resolve(spec[key]) for spec in config.models if isinstance(spec, Mapping)
            for key in TABLE_KEYS if isinstance(spec.get(key), str)]


def read_tables(config: Any, spec: Mapping[str, Any], where: str) -> dict[str, Any]:
    """``spec`` with each table file it names read (like the input)."""
    from veil.dataset import Dataset

    out = dict(spec)
    for key in TABLE_KEYS:
        given = spec.get(key)
        if not isinstance(given, str):
            continue
        path = config.resolve(given)
        if not path.is_file():
            raise ConfigError(f"{where}.{key}: no such file {str(path)!r}.")
        source = config.input
        out[key] = Dataset.read(path, sep=source.sep, encoding=source.encoding, missing=source.missing,
                                na_values=source.missing_words).frame
    return out
