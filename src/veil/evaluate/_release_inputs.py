"""What an evaluation knows about a release veil made: its roles and levels (its veil JSON report)
and its hierarchies, read as ``veil evaluate --report FILE --hierarchy NAME=FILE`` reads them; the
web app's Evaluate page reads a run's the same way.

With them, :func:`veil.evaluate.evaluate` matches each original value to the label it was
generalized to and leaves suppressed records out (``docs/evaluate.md``).
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from types import MappingProxyType
from typing import Any

from veil.errors import DataFormatError

__all__ = ["ReleaseInputs", "read_report", "release_facts", "release_inputs"]


@dataclass(frozen=True)
class ReleaseInputs:
    """The release's quasi-identifiers, sensitive columns, levels (``{column: level}``) and
    hierarchies (``{column: Hierarchy}``); all empty for a release without a report."""

    quasi_identifiers: tuple[str, ...] = ()
    sensitive: tuple[str, ...] = ()
    levels: Mapping[str, int] = field(default_factory=lambda: MappingProxyType({}))
    hierarchies: Mapping[str, Any] = field(default_factory=lambda: MappingProxyType({}))

    def keywords(self) -> dict[str, Any]:
        """The keywords of :func:`veil.evaluate.evaluate` these facts set."""
        return {"quasi_identifiers": list(self.quasi_identifiers), "sensitive": list(self.sensitive),
                "levels": dict(self.levels), "hierarchies": dict(self.hierarchies)}


def read_report(path: str | Path | None) -> dict[str, Any] | None:
    """A veil JSON report as a dict (None without one): ``--report`` of utility and evaluate."""
    if path is None:
        return None
    try:
        report = json.loads(Path(path).read_text(encoding="utf-8"))
    except (OSError, ValueError) as exc:
        raise DataFormatError(f"Cannot read the report {str(path)!r} as JSON: {exc}.") from None
    if not isinstance(report, dict):
        raise DataFormatError(f"The report {str(path)!r} is not a veil report (a JSON object).")
    return report


def release_facts(report: Mapping[str, Any] | None, where: str | Path = "report",
                  ) -> tuple[list[str], list[str], dict[str, int]]:
    """The QIs, sensitive columns and levels a veil JSON report names (empty without one); ``where``
    names the report in an error. The QIs default to the columns with a level."""
    if report is None:
        return [], [], {}
    columns = [c for c in report.get("columns") or [] if isinstance(c, dict)]
    qis = [str(c.get("name")) for c in columns if c.get("role") == "quasi-identifier"]
    sensitive = [str(c.get("name")) for c in columns if c.get("role") == "sensitive"]
    levels = report.get("transformation") or {}
    if not isinstance(levels, dict):
        raise DataFormatError(f"The report {str(where)!r} has a malformed 'transformation'.")
    try:
        levels = {str(k): int(v) for k, v in levels.items()}
    except (TypeError, ValueError):
        raise DataFormatError(f"The report {str(where)!r} has a malformed 'transformation'.") from None
    return qis or list(levels), sensitive, levels


def release_inputs(report: str | Path | None = None, hierarchies: Mapping[str, Any] | None = None) -> ReleaseInputs:
    """The facts of a release: those of its report file (``--report``) and its hierarchies, each an
    ARX-format file (``--hierarchy NAME=FILE``) or a :class:`veil.hierarchy.Hierarchy` already built."""
    from veil.hierarchy import from_csv

    qis, sensitive, levels = release_facts(read_report(report), report or "report")
    built = {name: from_csv(h, name=name) if isinstance(h, (str, Path)) else h
             for name, h in (hierarchies or {}).items()}
    return ReleaseInputs(tuple(qis), tuple(sensitive), MappingProxyType(levels), MappingProxyType(built))
