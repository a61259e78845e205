"""The columns of a release through an out-of-core engine (``engine: duckdb|spark``).

The engine release publishes what the in-memory release publishes, decided in
the one place, :meth:`veil.pipeline.ReleasePolicy.treatments`, from the
configuration's roles and the input file's header: an identifier is dropped,
a column with no declared role is withheld (``dropped``) unless
``keep_unlisted``, and every published column but the generalized
quasi-identifiers goes through the identifier scan (on the input's first
10,000 rows).  The engine writes the published columns only
(:func:`veil.engines.anonymize_file`'s ``columns``); the report's ``columns``
list every input column with its treatment, as in memory.
"""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path
from typing import Any

from veil.config import ReleaseConfig
from veil.data import read_table
from veil.pipeline import ColumnTreatment, ReleasePolicy, unlisted_warnings

__all__ = ["engine_columns", "published", "report_columns", "SCAN_ROWS"]

#: The rows of the input the identifier scan of an engine release reads (the first ones).
SCAN_ROWS = 10_000


def engine_columns(config: ReleaseConfig, input_path: Path, policy: ReleasePolicy) -> list[ColumnTreatment]:
    """Every column of the input file with its treatment, after the identifier scan of the published ones.

    Raises
    ------
    DataFormatError
        The input cannot be read (ragged rows, not UTF-8, unreadable).
    IdentifierLeakError
        A published column looks like a direct identifier (allowed by name only).
    """
    from veil.engines import Source

    source = Source.from_path(input_path, sep=config.input.sep)
    roles = {name: attribute.role for name, attribute in config.attributes.items()}
    columns = policy.treatments(source.columns, roles)
    # as in memory (veil.anonymize): QIs are generalized and judged by the models, dropped columns
    # are not published; every column published as it is is scanned
    scanned = [c.name for c in columns if c.treatment not in ("dropped", "generalized")]
    # the first rows, by the one reader (every cell as text: no missing-value markers)
    sample = read_table(input_path, sep=source.sep if source.format == "csv" else None, na_values=(),
                        max_rows=SCAN_ROWS).to_pandas()
    policy.check_identifiers(sample, scanned)
    return columns


def published(columns: list[ColumnTreatment]) -> list[str]:
    """The columns the release writes, in the input's order."""
    return [c.name for c in columns if c.treatment != "dropped"]


def report_columns(report: dict[str, Any], columns: list[ColumnTreatment]) -> None:
    """The report's ``columns`` (each QI with its level) and the warning for unlisted columns
    released unchanged, as the in-memory report has them."""
    levels = report["transformation"]
    report["columns"] = [replace(c, level=levels.get(c.name)).to_dict() for c in columns]
    warnings = unlisted_warnings(columns)
    if warnings:
        report.setdefault("warnings", []).extend(warnings)
