"""The HTML report: one self-contained file for people, from a JSON report for machines.

:func:`render_html` reads the report as a plain dict (the contract of
``docs/anonymization.md``, ``docs/risk.md`` or ``veil check --json``), turns
what is there into a small *view* of labelled, already formatted figures, and
fills a Jinja2 template with autoescaping on.  It never trusts the report's
shape: a missing key drops its row or section, an unknown key is listed under
"Other fields", and the whole report is embedded as JSON at the end, so
nothing the machines saw is hidden from the people.

The report quotes no record value beyond the release: it shows column names,
levels, counts and figures, the released labels of the quasi-identifiers
(they are in the release) and, for a numeric one, the range of the input's
values held by at least k records; never a sensitive value, and nothing of a
suppressed record but that it exists (``veil.report._truth``).

What the page shows: for an anonymization report the transformation (level per
quasi-identifier), records in, out and suppressed, the models asked for and the
levels achieved, the utility figures, the risk before and after (prosecutor,
journalist, marketer, with a bar chart) and the search; for a risk report
(``veil risk --json``) the risk figures, population uniqueness, QI ranking and
attribute disclosure; for a check report (``veil check --json``) the achieved
levels and requirements.
"""

from __future__ import annotations

import functools
import json
import os
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from veil.errors import OutputError
from veil.report import _sections as sections
from veil.report import _truth as truth
from veil.report._distributions import qi_distributions
from veil.report._format import add_row, as_dict, format_value, items, other_rows
from veil.report._lattice import lattice as lattice_section
from veil._text import printable

__all__ = ["render_html", "write_html", "report_kind"]

#: Top-level keys of an anonymization report (``veil anonymize --json``).
ANONYMIZATION_KEYS = (
    "transformation", "records", "records_out", "suppressed", "suppressed_dropped", "input_suppressed",
    "suppression_limit", "models", "metric", "achieved", "utility", "risk_before", "risk_after",
    "search", "output_order", "verified", "seconds_total", "recoding", "provenance", "columns", "hierarchies",
    "lattice", "warnings", "suppressed_records", "classes_released", "missing_sensitive",
)
#: Top-level keys of a risk report (``veil risk --json``).
RISK_KEYS = (
    "records", "classes", "suppressed_records", "input_suppressed_records", "records_assessed",
    "quasi_identifier_names", "prosecutor", "journalist", "marketer", "sample_uniques",
    "sample_uniques_count", "population_uniques", "quasi_identifiers", "sensitive",
)
#: Top-level keys of a check report (``veil check --json``, and ``achieved``).
CHECK_KEYS = (
    "records", "classes", "k", "suppressed_records", "input_suppressed", "max_prosecutor_risk",
    "average_risk", "quasi_identifiers", "sensitive", "facts", "notes", "requirements",
)

_DEFAULT_TITLES = {
    "anonymization": "Anonymization report",
    "risk": "Re-identification risk report",
    "check": "Privacy model check",
    "unknown": "veil report",
}



# ---------------------------------------------------------------- report shapes
def report_kind(report: Mapping[str, Any]) -> str:
    """Which of veil's reports ``report`` is: ``anonymization``, ``risk``, ``check`` or ``unknown``.

    An anonymization report has any of ``transformation``, ``achieved``,
    ``utility``, ``risk_before``, ``risk_after``; a risk report has
    ``prosecutor``; a check report has ``k`` with ``facts``, ``sensitive`` or
    ``max_prosecutor_risk``.
    """
    if any(key in report for key in ("transformation", "achieved", "utility", "risk_before", "risk_after")):
        return "anonymization"
    if "prosecutor" in report:
        return "risk"
    if "k" in report and any(key in report for key in ("facts", "sensitive", "max_prosecutor_risk")):
        return "check"
    return "unknown"



def _plain(value: Any) -> Any:
    """``value`` with every mapping key made a str (JSON keys), recursively."""
    if isinstance(value, Mapping):
        return {str(k): _plain(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_plain(v) for v in value]
    return value


def _json(value: Any) -> str:
    """The report as indented JSON for display (NaN shown as such, odd objects as text)."""
    return json.dumps(_plain(value), indent=2, default=str, ensure_ascii=False)


def _check_table(value: Any, name: str) -> Any:
    if value is None:
        return None
    from veil.classes import ClassTable

    if not isinstance(value, ClassTable):
        raise TypeError(
            f"The {name!r} parameter of render_html must be a ClassTable. Got {type(value).__name__} instead."
        )
    return value


def _view(
    report: Mapping[str, Any], *, title: str | None, classes: Any, original: Any, plots: bool,
) -> dict[str, Any]:
    import veil

    kind = report_kind(report)
    view: dict[str, Any] = {
        "title": str(title) if title is not None else _DEFAULT_TITLES[kind],
        "kind": kind,
        "version": veil.__version__,
        "verified": report.get("verified") if kind == "anonymization" else None,
        "empty": not report,
        "release": [], "transformation": [], "models": [], "achieved": None, "utility": [],
        "risk": None, "population": [], "ranking": [], "sensitive_risk": None,
        "classes": None, "search": [], "lattice": None, "overview": [], "other": None, "recoded": None,
        "provenance": truth.provenance_rows(report), "columns": truth.column_rows(report, classes),
        "warnings": [], "record_risk": None, "distributions": [],
        "raw": _json(report),
    }
    known: Sequence[str] = ()
    k = None
    if kind == "anonymization":
        known = ANONYMIZATION_KEYS
        k = _anonymization_view(view, report, classes, original, plots)
    elif kind == "risk":
        known = RISK_KEYS
        _risk_view(view, report, plots)
    elif kind == "check":
        known = CHECK_KEYS
        view["achieved"] = sections.achieved(report)
        k = report.get("k")
    released = kind == "anonymization" or original is not None
    # "before" is the kept records at their input values, never the suppressed ones (see _truth)
    # (a local recoding's table is its own base: then there is no "before")
    before = truth.released_input(classes, original) if original is not None and original is not classes else None
    view["classes"] = sections.class_sizes(classes, before, k, plots, released=released)
    if classes is not None and (kind == "anonymization" or original is not None):
        view["record_risk"] = truth.record_risk(classes, before, plots)
        view["distributions"] = qi_distributions(classes, before, k, plots)
    view["before_hidden"] = original is not None and original is not classes and before is None
    view["warnings"] = truth.warnings(report, classes) if kind != "risk" else []
    other = {str(key): value for key, value in report.items() if key not in known}
    view["other"] = other_rows(other) if other else None
    return view


def _anonymization_view(view: dict[str, Any], report: Mapping[str, Any], classes: Any, original: Any,
                        plots: bool) -> Any:
    """Fill the sections of an anonymization report; return the achieved k."""
    view["release"] = sections.release_rows(report)
    view["transformation"] = sections.transformation(report, classes)
    recoding = as_dict(report.get("recoding"))
    view["recoded"] = format_value(recoding.get("algorithm", "local recoding")) if recoding else None
    view["models"] = [format_value(m) for m in items(report.get("models"))]
    achieved = as_dict(report.get("achieved"))
    # the release's counts (records, suppressed) are shown once, in the Release section
    view["achieved"] = sections.achieved(achieved, counts=False) if achieved else None
    view["utility"] = sections.utility(report)
    risks = [(name, report.get(key)) for name, key in (("before", "risk_before"), ("after", "risk_after"))]
    view["risk"] = sections.risk(risks, plots)
    view["search"] = sections.search(report)
    view["lattice"] = lattice_section(report)
    return achieved.get("k")


def _risk_view(view: dict[str, Any], report: Mapping[str, Any], plots: bool) -> None:
    for key, label in (("records", "records"), ("classes", "equivalence classes"),
                       ("suppressed_records", "suppressed records"),
                       ("input_suppressed_records", "records that arrived suppressed"),
                       ("records_assessed", "records assessed"),
                       ("quasi_identifier_names", "quasi-identifiers")):
        if key in report:
            add_row(view["overview"], label, report[key])
    view["risk"] = sections.risk([("table", report)], plots, counts=False)
    view["population"] = sections.population(report)
    view["ranking"] = sections.qi_ranking(report)
    sensitive = as_dict(report.get("sensitive"))
    view["sensitive_risk"] = sections.sensitive_rows(sensitive) if sensitive else None


def _unpack_result(result: Any, classes: Any, original: Any) -> tuple[Mapping[str, Any], Any, Any]:
    """An :class:`~veil.anonymization.AnonymizationResult`'s report and class tables."""
    from veil.anonymization import AnonymizationResult

    if not isinstance(result, AnonymizationResult):
        raise TypeError(
            "render_html needs the report as a mapping (a dict) or an AnonymizationResult. "
            f"Got {type(result).__name__} instead."
        )
    if classes is None:
        classes = result.classes
    if original is None and result.classes.base is not result.classes:
        # full-domain algorithms: the search's table was derived from the input's
        original = result.classes.base
    return result.report, classes, original


def _visible(value: Any) -> Any:
    """Every ``{{ ... }}`` of the templates, before autoescaping: control characters written visibly.

    A column name holding ESC, DEL or a C1 control (from a CSV header) is
    shown as ``\\x1b``, never written raw; tabs and line breaks are kept (white
    space in HTML; the preformatted JSON needs them).  Markup veil built
    itself (already escaped, none today) passes as it is.
    """
    import markupsafe

    if isinstance(value, str) and not isinstance(value, markupsafe.Markup):
        return printable(value, keep="\n\t")
    return value


@functools.lru_cache(maxsize=1)
def environment() -> Any:
    """The Jinja2 environment (built once: it caches the compiled template)."""
    import jinja2

    return jinja2.Environment(
        loader=jinja2.PackageLoader("veil.report", "templates"),
        autoescape=True,
        finalize=_visible,
        undefined=jinja2.StrictUndefined,
        trim_blocks=True,
        lstrip_blocks=True,
        keep_trailing_newline=True,
    )


def render_html(
    report: Any, *, title: str | None = None, classes: Any = None, original: Any = None, plots: bool = True,
) -> str:
    """Render a veil report as one self-contained HTML page for people.

    The page has inline CSS and its plots embedded as PNG images, so it can
    be mailed or archived as a single file.  It shows what the report holds
    (the module docstring lists the sections of each kind of report).

    Parameters
    ----------
    report : mapping or AnonymizationResult
        The JSON report as a dict (``AnonymizationResult.report``, ``RiskReport.to_dict()``,
        ``CheckReport.to_dict()``, or one read back from a file).  A result stands for its report,
        with ``classes=result.classes`` and, for the full-domain algorithms (lattice, Datafly),
        ``original=result.classes.base`` unless given.
    title : str, optional
        The page title (default after the kind of report).
    classes : ClassTable, optional
        The released class table (``result.classes``): adds a histogram of
        equivalence class sizes and, when its levels are the report's
        transformation, each level's share of the hierarchy's height.
    original : ClassTable, optional
        The input's class table (``result.classes.base``): its class sizes are
        drawn next to the released ones.
    plots : bool, default True
        Draw the plots (matplotlib, Agg renderer).  ``False`` gives the
        tables only, faster.

    Returns
    -------
    str
        The HTML document.

    Raises
    ------
    TypeError
        ``report`` is neither a mapping nor a result, or ``classes`` / ``original`` not a ClassTable.

    Notes
    -----
    Every text that comes from the data or the report (column names,
    labels, the title) is HTML-escaped by the template (Jinja2 autoescaping),
    so a column named ``<script>`` is shown, never run.  No record value is
    written beyond the release's own labels (see the module docstring).  The same
    inputs render to the same bytes (no timestamp; PNGs carry no metadata).

    Examples
    --------
    >>> from veil.report import render_html
    >>> page = render_html({"records": 10, "records_out": 10, "transformation": {"age": 1}}, plots=False)
    >>> page.startswith("<!DOCTYPE html>"), "Anonymization report" in page
    (True, True)
    """
    if not isinstance(report, Mapping):
        report, classes, original = _unpack_result(report, classes, original)
    classes = _check_table(classes, "classes")
    original = _check_table(original, "original")
    view = _view(report, title=title, classes=classes, original=original, plots=bool(plots))
    return environment().get_template("report.html.j2").render(view=view)


def write_html(report: Any, path: str | os.PathLike[str], **options: Any) -> Path:
    """Render ``report`` (:func:`render_html`) and write it to ``path`` atomically.

    The page is rendered first, then written through veil's one writer
    (:class:`veil.pipeline.Outputs`): a temporary file beside ``path``,
    renamed into place, so a failure never leaves a partial or temporary
    file, and an existing file at ``path`` is either kept whole or replaced
    whole.  Missing parent folders are created.

    Parameters
    ----------
    report : mapping or AnonymizationResult
        As for :func:`render_html`.
    path : str or path-like
        The HTML file to write.
    **options
        ``title``, ``classes``, ``original``, ``plots``: see :func:`render_html`.

    Returns
    -------
    pathlib.Path
        The path written.

    Raises
    ------
    OutputError
        ``path`` is a folder, or its folder cannot be created or written.
    TypeError
        As for :func:`render_html`.
    """
    from veil.pipeline import publishing

    page = render_html(report, **options)
    with publishing({"html": path}) as out:
        out.write_text("html", page)
    return Path(path)
