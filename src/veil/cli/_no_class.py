"""``veil check`` on a table with no equivalence class.

Two tables have no class: one whose every record is suppressed (``*`` in every
quasi-identifier), and a release file with a header and no rows, which is what
``veil anonymize --suppressed drop`` writes when every record is suppressed.

``veil anonymize`` publishes such a table: every privacy model says "no class
violates me" (its check is over classes, and there is none), and its report's
``achieved`` figures are ``None``.  ``veil check`` judges it the same way:

* the per-class figures (k, the risks, every sensitive attribute's l, c, t, δ,
  α, β, and k-map/δ-presence) are ``null`` in the JSON and ``—`` in the table,
  not 0, which would read as a table that fails every model;
* a ``--require`` clause in the model's own direction (``k>=5``, ``t<=0.2``, a
  call such as ``lkc(...)``) holds vacuously, as the model holds; a clause the
  other way (``k<=5``, ``k==5``) asks for a class that is not there and fails.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

__all__ = ["NO_CLASS_NOTE", "EMPTY_FILE_NOTE", "header_only_columns", "empty_file_report", "no_class_payload",
           "no_class_notes", "judge_without_classes", "no_class_requested_levels"]

NO_CLASS_NOTE = (
    "no class: every record is suppressed or there is no record, so the per-class levels are undefined "
    "(— here, null in the JSON); a requirement in its model's direction (k>=N, t<=T, ...) holds vacuously, "
    "as veil anonymize decides (no class violates it), and one the other way (k<=N, k==N) fails"
)
EMPTY_FILE_NOTE = "the file has a header and no rows (what --suppressed drop writes when every record is suppressed)"

_SAMPLE = 1 << 20  # a header-only file is small: more than this many bytes holds a data row
_TOP = ("k", "max_prosecutor_risk", "average_risk")
_SENSITIVE = ("distinct_l", "entropy_l", "t_equal", "t_ordered", "t_hierarchical", "delta_disclosure",
              "delta_disclosure_present_values", "beta_likeness", "enhanced_beta_likeness")


def header_only_columns(path: Path, *, sep: str | None, encoding: str) -> list[str] | None:
    """The column names of a CSV or Parquet file that has a header (a schema) and no data row;
    ``None`` for any other file, which the ordinary reader then reads or refuses (an empty file).
    Read by the one reader (:func:`veil.data.read_table`, which allows no rows here)."""
    from veil.data import read_table
    from veil.errors import VeilError

    try:
        if path.stat().st_size > _SAMPLE:  # a header-only file is small: a larger one holds a data row
            return None
        table = read_table(path, sep=sep, encoding=encoding, na_values=(), allow_no_rows=True)
    except (OSError, VeilError):  # not a readable header-only file: the ordinary reader says why
        return None
    return list(table.column_names) if table.num_rows == 0 else None


def empty_file_report(columns: list[str], qis: list[str], sensitive: list[str], *, kinds: dict[str, str],
                      hierarchies: list[str], recursive_l: int, strict: bool, source: str) -> Any:
    """The :class:`~veil.models.CheckReport` of a file with a header and no row: 0 records, no
    class (its per-class figures are blanked by :func:`no_class_payload`)."""
    from veil.classes._build import check_roles
    from veil.data import check_column_names
    from veil.errors import ParameterError
    from veil.models import CheckReport, SensitiveReport
    from veil.schema import Kind

    check_column_names(columns, source)
    check_roles(columns, qis, sensitive)  # as the class-table builder refuses them
    reports = {}
    for name in sensitive:
        try:
            kind = Kind(kinds.get(name, "categorical")).value
        except ValueError:
            raise ParameterError(f"--kind {name}: unknown kind {kinds[name]!r}; use categorical, ordinal, "
                                 "numeric or date.") from None
        ordered = kind in ("numeric", "ordinal", "date")
        reports[name] = SensitiveReport(
            name=name, kind=kind, ordered=ordered, distinct_values=0, distinct_l=0, entropy_l=0.0, recursive_c=None,
            recursive_l=recursive_l, strict=strict, t_equal=0.0, t_ordered=0.0 if ordered else None,
            t_hierarchical=0.0 if name in hierarchies else None, delta_disclosure=None,
            delta_disclosure_present_values=None, alpha=0.0, alpha_k=0, beta_likeness=0.0,
            enhanced_beta_likeness=None)
    return CheckReport(records=0, classes=0, k=0, suppressed_records=0, input_suppressed=0, max_prosecutor_risk=0.0,
                       average_risk=0.0, quasi_identifiers=tuple(qis), sensitive=reports, strict=strict,
                       notes=(EMPTY_FILE_NOTE,))


def no_class_notes(notes: tuple[str, ...] | list[str]) -> list[str]:
    """The report's notes with its "levels are reported as 0" replaced by :data:`NO_CLASS_NOTE`."""
    return [n for n in notes if not n.startswith("every record is suppressed: there is no class")] + [NO_CLASS_NOTE]


def no_class_payload(payload: dict[str, Any]) -> dict[str, Any]:
    """The ``--json`` payload of a report with no class: every per-class figure ``null``."""
    for key in _TOP:
        payload[key] = None
    for figures in payload["sensitive"].values():
        for key in _SENSITIVE:
            if key in figures:
                figures[key] = None
        figures["recursive_cl"]["c"] = None
        figures["alpha_k"] = {"alpha": None, "k": None}
    if "k_map" in payload:
        payload["k_map"] = None
        payload["delta_presence"] = {"delta_min": None, "delta_max": None}
    payload["notes"] = no_class_notes(payload["notes"])
    return payload


def no_class_requested_levels(clauses: list[Any], present: list[str]) -> dict[str, Any]:
    """The levels ``requested_levels`` would add to the JSON, each ``null`` (no class to measure)."""
    return {c.key: None for c in clauses if not isinstance(c, tuple) and c.key not in present
            and not c.needs_population and not (c.spec.report_field is not None and c.needs_sensitive)}


def judge_without_classes(clause: Any, report: Any, classes: Any) -> Any:
    """A ``--require`` clause on a table with no class (see the module docstring).

    ``clause`` is a :class:`~veil.models.Requirement` or a population ``(key, op, value, clause)``;
    ``classes`` is the class table (all suppressed) or ``None`` (a file with no row).  The clause is
    checked as usual first (an unknown attribute, a parameter out of range), then judged.
    """
    from veil.models import RequirementResult, registry

    if isinstance(clause, tuple):
        key, op, _, text = clause
        direction = registry.requirement_key(key)[1].direction
    else:
        key, op, text, direction = clause.key, clause.op, clause.clause, clause.spec.direction
        if classes is not None:
            clause.judge(report, classes)  # the usual checks; its verdict on "0" levels is not used
        elif clause.spec.report_field is not None and not clause.arguments:
            clause.level(report)
        else:
            clause.models(list(report.sensitive))
    if op is None or op in (direction, direction[0]):
        return RequirementResult(text, True, None, "no class: holds vacuously, no class violates it")
    return RequirementResult(text, False, None, "no class: there is no level to compare")
