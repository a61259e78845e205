"""Run a release: read the input, anonymize, verify, and publish the outputs as one set.

Every file a release writes goes through the one writer,
:class:`veil.pipeline.Outputs`: the destinations (data, JSON report, HTML
report) are checked against every input (the data, every hierarchy file, the
configuration) and each other before any work; each output is written to a
temporary file beside its destination; the released table is re-read and
verified independently of the pipeline (:func:`veil.pipeline.verify_written`);
only then are all outputs renamed into place together.  A failure leaves
nothing behind.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from veil.anonymization import AnonymizationResult, anonymize
from veil._config_tables import read_tables
from veil.config import ReleaseConfig, build_hierarchies, build_model, deidentify_frame
from veil.dataset import MISSING, Dataset
from veil.data import write_frame
from veil.errors import ConfigError, OutputError
from veil.pipeline import Outputs, ReleasePolicy, verify_written
from veil.pipeline._policy import suppressed_mode

__all__ = ["dataset_from_config", "run_config", "build_models", "write_table", "write_json", "check_output_path", "FileRelease",
           "release_inputs", "policy_from_config"]


def check_output_path(output: str | Path, *inputs: str | Path) -> Path:
    """Refuse an output that is an input, or whose folder cannot be written.

    A check only (kept for the commands that call it); releases check every
    destination against every input through :class:`Outputs`.
    """
    out = Path(output)
    for source in inputs:
        src = Path(source)
        if out.resolve() == src.resolve() or (out.exists() and src.exists() and os.path.samefile(out, src)):
            raise OutputError(f"The output {str(out)!r} is the input file; veil never overwrites its input.")
    folder = out.parent if str(out.parent) else Path(".")
    if folder.exists() and not folder.is_dir():
        raise OutputError(f"Cannot write {str(out)!r}: {str(folder)!r} is not a folder.")
    if folder.exists() and not os.access(folder, os.W_OK):
        raise OutputError(f"Cannot write {str(out)!r}: the folder {str(folder)!r} is not writable.")
    return out


def table_writer(frame: pd.DataFrame, *, sep: str = ",") -> Callable[[Path], None]:
    """A writer of ``frame`` for :meth:`Outputs.write`: Parquet for ``.parquet``/``.pq``, else CSV."""

    def write(path: Path) -> None:
        write_frame(frame, path, sep=sep)

    return write


def write_table(frame: pd.DataFrame, path: str | Path, *, sep: str = ",") -> None:
    """Write one table through :class:`Outputs` (Parquet for ``.parquet``/``.pq``, else CSV)."""
    with Outputs({"data": path}) as out:
        out.write("data", table_writer(frame, sep=sep))
        out.commit()


def write_json(payload: Any, path: str | Path) -> None:
    """Write JSON through :class:`Outputs` (NaN and infinity are refused, never written)."""
    with Outputs({"json": path}) as out:
        out.write_json("json", payload)
        out.commit()


def _check_hierarchy_files(config: ReleaseConfig) -> None:
    """Refuse a hierarchy file (or taxonomy file) that does not exist, naming it."""
    from veil.errors import HierarchyError

    for name, attribute in config.attributes.items():
        spec = attribute.hierarchy
        for given in (getattr(spec, "file", None), getattr(spec, "taxonomy", None)):
            if isinstance(given, (str, Path)) and not config.resolve(given).is_file():
                raise HierarchyError(f"No such hierarchy file for {name!r}: {str(config.resolve(given))!r}.")


def release_inputs(config: ReleaseConfig, config_path: str | Path | None = None) -> list[Path]:
    """Every file a release reads: the data, each hierarchy file, each population file, the configuration."""
    from veil._config_tables import table_files

    files = [config.resolve(config.input.path), *table_files(config)]
    for attribute in config.attributes.values():
        if attribute.hierarchy is not None and attribute.hierarchy.file is not None:
            files.append(config.resolve(attribute.hierarchy.file))
    if config_path is not None:
        files.append(Path(config_path))
    return files


def build_models(config: ReleaseConfig) -> list[Any]:
    """The configuration's models, each table one names read (a population: ``population: FILE``)."""
    return [build_model(read_tables(config, spec, f"models[{i}]") if isinstance(spec, dict) else spec, f"models[{i}]")
            for i, spec in enumerate(config.models)]


def policy_from_config(config: ReleaseConfig) -> ReleasePolicy:
    """The release policy a configuration declares (``keep_unlisted``,
    ``allow_identifiers``, and the treatments of its ``deidentify`` actions)."""
    actions: dict[str, str] = {}
    if config.deidentify and "columns" in config.deidentify:  # a profile's own changes are reported by role
        from veil.sanitize import Plan

        treatment = {"pseudonymize": "pseudonymized", "mask": "masked", "zip3": "masked",
                     "top_code": "masked", "bottom_code": "masked", "shift_dates": "masked",
                     "truncate_dates": "masked", "age_90_plus": "masked", "birth_year": "masked"}
        plan = Plan.from_dict({"columns": config.deidentify["columns"]}, path="deidentify")
        for name, spec in plan.columns.items():
            if spec.action in treatment:
                actions[name] = treatment[spec.action]
    return ReleasePolicy(keep_unlisted=config.keep_unlisted, allow_identifiers=tuple(config.allow_identifiers),
                         actions=actions)


def dataset_from_config(config: ReleaseConfig, *, sources: dict[str, str] | None = None) -> Dataset:
    """Read the configured input and attach roles, kinds and hierarchies.

    ``sources``, when given, is filled with what each hierarchy came from
    (``{column: spec or file name}``, with what ``auto`` chose), for the
    report's ``hierarchies`` section.
    """
    spec = config.input
    dataset = Dataset.read(
        config.resolve(spec.path),
        sep=spec.sep,
        encoding=spec.encoding,
        quasi_identifiers=config.names("quasi-identifier"),
        sensitive=config.names("sensitive"),
        identifiers=config.names("identifier"),
        insensitive=config.names("insensitive"),
        kinds={n: a.kind for n, a in config.attributes.items()},
        domains={n: a.domain for n, a in config.attributes.items() if a.domain},
        missing=spec.missing, na_values=spec.missing_words,
    )
    if config.deidentify:
        cleaned = deidentify_frame(config, dataset.frame)
        dataset = Dataset.from_pandas(
            cleaned,
            quasi_identifiers=[q for q in config.names("quasi-identifier") if q in cleaned.columns],
            sensitive=[s for s in config.names("sensitive") if s in cleaned.columns],
            identifiers=[s for s in config.names("identifier") if s in cleaned.columns],
            insensitive=[s for s in config.names("insensitive") if s in cleaned.columns],
            kinds={n: a.kind for n, a in config.attributes.items() if n in cleaned.columns},
            missing=spec.missing,
        )
    resolution = build_hierarchies(config, dataset)
    if sources is not None:
        sources.update(resolution.sources)
    return dataset.with_hierarchies(resolution.hierarchies)


def _targets(config: ReleaseConfig, output: str | None, report: str | None, html: str | None) -> dict[str, Path | None]:
    """The outputs: a path given on the command line as is, one from the config relative to it."""
    def pick(given: str | None, configured: str | None) -> Path | None:
        if given:
            return Path(given)
        return config.resolve(configured) if configured else None

    return {
        "data": pick(output, config.output.path),
        "report": pick(report, config.output.report),
        "html": pick(html, config.output.html),
    }


def _options(config: ReleaseConfig) -> dict[str, Any]:
    """The anonymize() keywords a configuration sets."""
    return {
        "suppression_limit": config.suppression_limit,
        "metric": config.metric,
        "label": config.label,
        "weights": {n: a.weight for n, a in config.attributes.items() if a.weight is not None} or None,
        "min_levels": {n: a.min_level for n, a in config.attributes.items() if a.min_level is not None},
        "max_levels": {n: a.max_level for n, a in config.attributes.items() if a.max_level is not None},
        "shuffle": config.output.shuffle,
        # output.seed also seeds a deidentify section's random ids, which are drawn with or without a shuffle
        "seed": config.seed if config.seed is not None else (config.output.seed if config.output.shuffle else None),
        "suppressed": suppressed_mode(config.suppressed, drop_suppressed=config.output.drop_suppressed),
        "missing_sensitive": config.missing_sensitive,
        "algorithm": config.algorithm,
        "options": config.algorithm_options,
        "max_nodes": config.max_nodes,
    }


def run_config(
    config: ReleaseConfig,
    *,
    output: str | None = None,
    report: str | None = None,
    progress: Callable[[str, int | None, int | None], None] | None = None,
    html: str | None = None,
    config_path: str | Path | None = None,
    holdout: Any = None,
    accountant: Any = None,
) -> tuple["AnonymizationResult | FileRelease", dict[str, str]]:
    """Run the release a configuration describes; publish the outputs it names as one set.

    One pipeline (:func:`veil.pipeline.run`): in memory (:func:`veil.anonymize`) or, with
    ``engine: duckdb|spark``, file to file (:func:`veil.engines.anonymize_file`; the result holds the report).
    ``progress(phase, done, total)`` hears each phase (see :mod:`veil.progress`).

    ``holdout`` (a :class:`veil.evaluate.Holdout`) withholds a share of the records from the release
    and writes them with the outputs, as its control set (in memory only).  ``accountant`` is safepub's.

    Returns the result and the paths written (``{"data": ..., "report": ..., "html": ...}``).
    Nothing is written unless the anonymization succeeded and the written
    table was verified.

    Raises
    ------
    OutputError
        A destination is an input (data, hierarchy file, configuration) or
        another destination, or cannot be written: refused before any work.
    """
    from veil.progress import no_progress

    phase = progress or no_progress
    targets = _targets(config, output, report, html)
    if holdout is not None:
        if config.engine != "local":
            raise ConfigError("--holdout withholds records in memory: use the local engine.")
        targets["control"] = Path(holdout.path)
    _check_hierarchy_files(config)  # before the data is read: a typo must not cost a long read
    models = build_models(config)  # a population file read
    with Outputs(targets, inputs=release_inputs(config, config_path)) as out:
        phase("encode", None, None)
        files = [role for role in ("data", "report", "html") if role in out]  # the write phase counts them
        if config.engine != "local":
            result: AnonymizationResult | FileRelease = _run_with_engine(config, models, out, phase)
        else:
            result = _run_in_memory(config, models, out, phase, len(files), holdout, accountant)
        result.report["provenance"] = provenance(config)
        phase("write", int("data" in out), len(files))
        if "report" in out:
            out.write_json("report", result.report)
            phase("write", files.index("report") + 1, len(files))
        if "html" in out:
            from veil.report import render_html

            extra = {"classes": result.classes, "original": result.classes.base} if isinstance(result, AnonymizationResult) else {}
            out.write_text("html", render_html(result.report, **extra))
            phase("write", len(files), len(files))
        out.commit()
    return result, {role: str(path) for role, path in targets.items() if path is not None}


def _run_in_memory(config: ReleaseConfig, models: list[Any], out: Outputs,
                   phase: Callable[[str, int | None, int | None], None], files: int,
                   holdout: Any = None, accountant: Any = None) -> AnonymizationResult:
    """The release in memory (:func:`veil.anonymize`), its data written into ``out`` and re-read."""
    sources: dict[str, str] = {}
    dataset = dataset_from_config(config, sources=sources)
    control = None
    if holdout is not None:
        from veil.evaluate._holdout import hold_out

        dataset, control = hold_out(dataset, holdout.share)
    if config.target is not None:  # a target it cannot learn is refused before the anonymization
        from veil.utility import check_workload_target

        check_workload_target(dataset, config.target)
    options = _options(config)
    if accountant is not None:  # the ledger safepub charges (veil anonymize --budget-file)
        options["options"] = {**options["options"], "accountant": accountant}
    result = anonymize(dataset, models, progress=phase, policy=policy_from_config(config), **options)
    result.report["hierarchies"] = sources
    if config.target is not None:
        result.report["workload"] = _workload(config, dataset, result)
    phase("write", 0, files)
    if "data" in out:
        written = out.write("data", table_writer(result.data))
        verify_written(written, result, dataset, models, label=config.label)
    if control is not None:
        _hold(result, dataset, control, holdout, out)
    return result


def _hold(result: AnonymizationResult, dataset: Dataset, control: pd.DataFrame, holdout: Any, out: Outputs) -> None:
    """Write the withheld records (with the outputs) and, if asked, the release's attack evaluation."""
    out.write("control", table_writer(control))
    result.report["holdout"] = {"share": holdout.share, "records": len(control)}
    if holdout.evaluate:
        from veil.evaluate._holdout import evaluate_release

        result.report["evaluation"] = evaluate_release(dataset, result.data, control, result.transformation)


def _workload(config: ReleaseConfig, dataset: Dataset, result: "AnonymizationResult") -> dict[str, Any]:
    """The report's ``workload`` (``target:`` / ``--target``): U_base, U_san, U_max and A_acc."""
    from veil.utility import workload_summary

    if not result.transformation:
        raise ConfigError("target: workload utility in the report needs a full-domain algorithm (lattice, datafly); "
                          "for a local recoding run `veil utility` on a release written without shuffling.")
    return workload_summary(dataset, result.data, target=config.target, levels=result.transformation)


def provenance(config: ReleaseConfig) -> dict[str, Any]:
    """The report's ``provenance``: the input's SHA-256, the configuration, veil's version, the time.

    The configuration is reported as resolved, with every file named by its
    name only (a folder may name a person or a project) and no ``base_dir``.
    """
    from veil.report import provenance as block

    def names_only(value: Any, key: str = "") -> Any:
        if isinstance(value, dict):
            return {k: names_only(v, k) for k, v in value.items() if k != "base_dir"}
        if isinstance(value, list):
            return [names_only(v) for v in value]
        if key in ("path", "file", "report", "html", "population") and isinstance(value, str):
            return Path(value).name
        return value

    return block(config.resolve(config.input.path), config=names_only(config.model_dump(mode="json", exclude_none=True)))


@dataclass
class FileRelease:
    """What a release through an out-of-core engine returns: its report (the
    released rows stay in the output file)."""

    report: dict[str, Any]


def _engine_hierarchies(config: ReleaseConfig, engine: Any, input_path: Path) -> Any:
    """:func:`~veil.config.build_hierarchies` with each column's values and record counts from
    one small group-count through the engine: the same hierarchies (``auto``'s choice, ``group``'s
    frequency groups) as in memory."""
    from veil.engines import COUNT_COLUMN

    kinds = {n: a.kind for n, a in config.attributes.items()}

    def values_of(name: str) -> tuple[list[str], np.ndarray]:
        counts = engine.group_count(input_path, [name], [])
        present = counts[counts[name].notna()]
        column = Dataset.from_pandas(present[[name]], quasi_identifiers=[name], kinds={name: kinds[name]})
        encoded = column.encode(name)
        records = np.bincount(encoded.codes, weights=present[COUNT_COLUMN].to_numpy(dtype=np.float64),
                              minlength=len(encoded.labels)).astype(np.int64)
        keep = encoded.labels != MISSING
        return [str(v) for v in encoded.labels[keep]], records[keep]

    return build_hierarchies(config, values_of=values_of)


def _run_with_engine(
    config: ReleaseConfig,
    models: list[Any],
    out: Outputs,
    progress: Callable[[str, int | None, int | None], None] | None,
) -> FileRelease:
    """Run the release through the DuckDB or Spark engine, file to file, into ``out``'s temporary."""
    from veil._release_columns import engine_columns, published, report_columns
    from veil.engines import anonymize_file, get_engine

    _refuse_for_engine(config, out)
    input_path = config.resolve(config.input.path)
    options = _options(config)
    mode = options["suppressed"]
    if options["missing_sensitive"] != "value":
        from veil.errors import ParameterError

        raise ParameterError("missing_sensitive: ignore needs the table in memory; use engine: local.")
    # the in-memory release's columns: identifiers dropped, unlisted columns withheld unless keep_unlisted
    columns = engine_columns(config, input_path, policy_from_config(config))
    engine = get_engine(config.engine)
    resolution = _engine_hierarchies(config, engine, input_path)
    report = anonymize_file(
        input_path, engine=engine, quasi_identifiers=config.names("quasi-identifier"),
        sensitive=config.names("sensitive"), hierarchies=resolution.hierarchies,
        models=models, suppression_limit=config.suppression_limit, metric=config.metric,
        output=out.temporary("data"), seed=options["seed"], suppressed=mode, sep=config.input.sep,
        kinds={n: a.kind for n, a in config.attributes.items()},
        domains={n: a.domain for n, a in config.attributes.items() if a.domain},
        label=config.label, weights=options["weights"], min_levels=options["min_levels"],
        max_levels=options["max_levels"], phases=progress, algorithm=config.algorithm, columns=published(columns),
        max_nodes=config.max_nodes,
        na_values=config.input.missing_words,
    )
    report["output"] = str(out.destination("data"))
    report["suppressed_records"] = mode
    if resolution.sources:
        report["hierarchies"] = resolution.sources
    report_columns(report, columns)
    return FileRelease(report)


def _refuse_for_engine(config: ReleaseConfig, out: Outputs) -> None:
    """What the out-of-core engines do not run, refused before any work (a :class:`ConfigError`)."""
    from veil.algorithms import get_algorithm

    refused = {
        "deidentify": config.deidentify is not None,
        "input.missing: error": config.input.missing == "error",
        "input.encoding other than utf-8": config.input.encoding.lower().replace("_", "-") not in ("utf-8", "utf8"),
        "output.shuffle: false": not config.output.shuffle,
        f"algorithm: {config.algorithm}": get_algorithm(config.algorithm).search is None,  # a local recoding
    }
    bad = [name for name, hit in refused.items() if hit]
    if bad:
        raise ConfigError(
            f"engine: the {config.engine} engine runs a full-domain search (lattice, datafly) from file to "
            f"file; it does not support {', '.join(bad)}. Use engine: local for these."
        )
    if "data" not in out:
        raise ConfigError(f"output.path: the {config.engine} engine writes the released table to a file; name one.")
