"""Run a release: read the input, anonymize, verify, and write outputs atomically.

Outputs are written to a temporary file in the destination folder and renamed
into place only after the anonymization has been verified, so a failure never
leaves a partial file; an output path equal to the input path is refused.
"""

from __future__ import annotations

import contextlib
import json
import os
import tempfile
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pandas as pd

from veil.anonymization import AnonymizationResult, anonymize
from veil.config import ReleaseConfig, build_hierarchies, build_hierarchy, build_model, deidentify_frame
from veil.dataset import MISSING, Dataset
from veil.errors import ConfigError, OutputError

__all__ = ["dataset_from_config", "run_config", "write_table", "write_json", "check_output_path", "FileRelease"]


def check_output_path(output: str | Path, *inputs: str | Path) -> Path:
    """Refuse an output that is an input, or whose folder cannot be written."""
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


def _atomic(path: Path, write: Callable[[Path], None]) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    os.close(fd)
    try:
        write(Path(tmp))
        os.replace(tmp, path)
    except BaseException:
        with contextlib.suppress(FileNotFoundError):
            os.unlink(tmp)
        raise


def write_table(frame: pd.DataFrame, path: str | Path, *, sep: str = ",") -> None:
    """Write a table atomically: Parquet for ``.parquet``/``.pq``, else CSV."""
    path = Path(path)
    try:
        if path.suffix.lower() in (".parquet", ".pq"):
            _atomic(path, lambda tmp: frame.to_parquet(tmp, index=False))
        else:
            _atomic(path, lambda tmp: frame.to_csv(tmp, sep=sep, index=False))
    except PermissionError as exc:
        raise OutputError(f"Cannot write {str(path)!r}: {exc.strerror}.") from None


def write_json(payload: Any, path: str | Path) -> None:
    """Write JSON atomically (NaN and infinity are refused, never written)."""
    text = json.dumps(payload, indent=2, allow_nan=False) + "\n"
    path = Path(path)
    try:
        _atomic(path, lambda tmp: tmp.write_text(text, encoding="utf-8"))
    except PermissionError as exc:
        raise OutputError(f"Cannot write {str(path)!r}: {exc.strerror}.") from None


def dataset_from_config(config: ReleaseConfig) -> Dataset:
    """Read the configured input and attach roles, kinds and hierarchies."""
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
        missing=spec.missing,
    )
    if config.deidentify:
        cleaned = deidentify_frame(config, dataset.frame)
        dataset = Dataset.from_pandas(
            cleaned,
            quasi_identifiers=[q for q in config.names("quasi-identifier") if q in cleaned.columns],
            sensitive=[s for s in config.names("sensitive") if s in cleaned.columns],
            kinds={n: a.kind for n, a in config.attributes.items() if n in cleaned.columns},
            missing=spec.missing,
        )
    return dataset.with_hierarchies(build_hierarchies(config, dataset).hierarchies)


def run_config(
    config: ReleaseConfig,
    *,
    output: str | None = None,
    report: str | None = None,
    progress: Callable[[int, int], None] | None = None,
    html: str | None = None,
) -> tuple["AnonymizationResult | FileRelease", dict[str, str]]:
    """Run the release a configuration describes; write the outputs it names.

    With ``engine: duckdb`` or ``spark`` the table is anonymized from file to
    file through :func:`veil.engines.anonymize_file` (the result then holds the
    report only).

    Returns the result and the paths written (``{"data": ..., "report": ..., "html": ...}``).
    Nothing is written unless the anonymization succeeded and was verified.
    """
    out_path = output or config.output.path
    report_path = report or config.output.report
    input_path = config.resolve(config.input.path)
    targets = {}
    if out_path:
        targets["data"] = check_output_path(out_path if output else config.resolve(out_path), input_path)
    if report_path:
        targets["report"] = check_output_path(report_path if report else config.resolve(report_path), input_path)
    html_path = html or config.output.html
    if html_path:
        targets["html"] = check_output_path(html_path if html else config.resolve(html_path), input_path)
    models = [build_model(spec, f"models[{i}]") for i, spec in enumerate(config.models)]
    weights = {n: a.weight for n, a in config.attributes.items() if a.weight is not None} or None
    if config.engine != "local":
        return _run_with_engine(config, models, weights, targets, progress)
    dataset = dataset_from_config(config)
    result = anonymize(
        dataset,
        models,
        suppression_limit=config.suppression_limit,
        metric=config.metric,
        label=config.label,
        weights=weights,
        min_levels={n: a.min_level for n, a in config.attributes.items() if a.min_level is not None},
        max_levels={n: a.max_level for n, a in config.attributes.items() if a.max_level is not None},
        shuffle=config.output.shuffle,
        seed=config.output.seed,
        drop_suppressed=config.output.drop_suppressed,
        progress=progress,
        algorithm=config.algorithm,
        options=config.algorithm_options,
    )
    written = {}
    if "data" in targets:
        write_table(result.data, targets["data"])
        written["data"] = str(targets["data"])
    if "report" in targets:
        write_json(result.report, targets["report"])
        written["report"] = str(targets["report"])
    if "html" in targets:
        from veil.report import write_html

        write_html(result, targets["html"])
        written["html"] = str(targets["html"])
    return result, written


@dataclass
class FileRelease:
    """What a release through an out-of-core engine returns: its report (the
    released rows stay in the output file)."""

    report: dict[str, Any]


def _run_with_engine(
    config: ReleaseConfig,
    models: list[Any],
    weights: dict[str, float] | None,
    targets: dict[str, Path],
    progress: Callable[[int, int], None] | None,
) -> tuple[FileRelease, dict[str, str]]:
    """Run the release through the DuckDB or Spark engine (file to file)."""
    from veil.engines import anonymize_file, get_engine

    refused = {
        "deidentify": config.deidentify is not None,
        "input.missing: error": config.input.missing == "error",
        "input.encoding other than utf-8": config.input.encoding.lower().replace("_", "-") not in ("utf-8", "utf8"),
        "output.shuffle: false": not config.output.shuffle,
        f"algorithm: {config.algorithm}": config.algorithm != "lattice",
    }
    bad = [name for name, hit in refused.items() if hit]
    if bad:
        raise ConfigError(
            f"engine: the {config.engine} engine runs the lattice search from file to file; it does not "
            f"support {', '.join(bad)}. Use engine: local for these."
        )
    if "data" not in targets:
        raise ConfigError(f"output.path: the {config.engine} engine writes the released table to a file; name one.")
    input_path = config.resolve(config.input.path)
    engine = get_engine(config.engine)
    qis, sensitive = config.names("quasi-identifier"), config.names("sensitive")
    kinds = {n: a.kind for n, a in config.attributes.items()}
    hierarchies = {}
    for name, attribute in config.attributes.items():
        if attribute.hierarchy is None:
            continue
        values: list[str] = []
        if attribute.hierarchy.file is None and attribute.hierarchy.taxonomy is None:
            # builders take the column's values: one small group-count through the engine
            counts = engine.group_count(input_path, [name], [])
            column = Dataset.from_pandas(counts[[name]].dropna(), quasi_identifiers=[name],
                                         kinds={name: kinds[name]})
            values = [v for v in column.encode(name).labels.tolist() if v != MISSING]
        hierarchies[name] = build_hierarchy(name, attribute.hierarchy, values, config)
    report = anonymize_file(
        input_path,
        engine=engine,
        quasi_identifiers=qis,
        sensitive=sensitive,
        hierarchies=hierarchies,
        models=models,
        suppression_limit=config.suppression_limit,
        metric=config.metric,
        output=targets["data"],
        seed=config.output.seed,
        drop_suppressed=config.output.drop_suppressed,
        sep=config.input.sep,
        kinds=kinds,
        domains={n: a.domain for n, a in config.attributes.items() if a.domain},
        label=config.label,
        weights=weights,
        min_levels={n: a.min_level for n, a in config.attributes.items() if a.min_level is not None},
        max_levels={n: a.max_level for n, a in config.attributes.items() if a.max_level is not None},
        progress=progress,
    )
    written = {"data": str(targets["data"])}
    if "report" in targets:
        write_json(report, targets["report"])
        written["report"] = str(targets["report"])
    if "html" in targets:
        from veil.report import write_html

        write_html(report, targets["html"])
        written["html"] = str(targets["html"])
    return FileRelease(report), written
