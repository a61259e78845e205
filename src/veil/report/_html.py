"""The HTML report: one self-contained file for people, from a JSON report for machines.

:func:`render_html` reads the report as a plain dict (the contract of
``docs/anonymization.md``, ``docs/risk.md`` or ``veil check --json``), turns
what is there into a small *view* of labelled, already formatted figures, and
fills a Jinja2 template with autoescaping on.  It never trusts the report's
shape: a missing key drops its row or section, an unknown key is listed under
"Other fields", and the whole report is embedded as JSON at the end, so
nothing the machines saw is hidden from the people.

The report never quotes record values: it shows column names, levels,
counts and figures, and (when a class table is given) a histogram of class
sizes, never the classes' QI values.
"""

from __future__ import annotations

import contextlib
import functools
import json
import math
import os
import secrets
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import numpy as np

from veil.errors import OutputError

__all__ = ["render_html", "write_html", "report_kind", "format_value"]

#: Top-level keys of an anonymization report (``veil anonymize --json``).
ANONYMIZATION_KEYS = (
    "transformation", "records", "records_out", "suppressed", "suppressed_dropped", "input_suppressed",
    "suppression_limit", "models", "metric", "achieved", "utility", "risk_before", "risk_after",
    "search", "output_order", "verified", "seconds_total", "recoding",
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


# ---------------------------------------------------------------- formatting
def format_value(value: Any) -> str:
    """A report value as the HTML report writes it.

    Integers (and floats with an integral value) get thousands separators
    (``30,162``), other floats four significant digits (``{:.4g}``) or, from
    10,000 up, no decimals and thousands separators (``360,695``),
    ``None`` and NaN an em dash, infinities ``∞``, booleans ``yes``/``no``,
    lists their items joined by commas; anything else ``str(value)``.

    Examples
    --------
    >>> format_value(30162), format_value(0.0059903047), format_value(10.0), format_value(None)
    ('30,162', '0.00599', '10', '—')
    """
    if value is None:
        return "—"
    if isinstance(value, (bool, np.bool_)):
        return "yes" if value else "no"
    if isinstance(value, (int, np.integer)):
        return f"{int(value):,}"
    if isinstance(value, (float, np.floating)):
        value = float(value)
        if math.isnan(value):
            return "—"
        if math.isinf(value):
            return "∞" if value > 0 else "−∞"
        if value.is_integer() and abs(value) < 1e15:
            return f"{int(value):,}"
        if abs(value) >= 1e4:
            return f"{value:,.0f}"
        return f"{value:.4g}"
    if isinstance(value, (list, tuple)):
        return ", ".join(format_value(v) for v in value)
    if isinstance(value, Mapping):
        return ", ".join(f"{k}={format_value(v)}" for k, v in value.items())
    return str(value)


def _share(part: Any, whole: Any) -> str:
    if _number(part) is None or _number(whole) is None or not whole:
        return ""
    return f"{float(part) / float(whole):.2%} of the records"


def _percent(value: Any) -> str:
    number = _number(value)
    return format_value(value) if number is None else f"{number:.2%}"


def _number(value: Any) -> float | None:
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, (int, float, np.integer, np.floating)):
        return None
    value = float(value)
    return value if math.isfinite(value) else None


def _dict(value: Any) -> dict[str, Any]:
    return dict(value) if isinstance(value, Mapping) else {}


def _items(value: Any) -> list[Any]:
    """A list value as a list; a lone value as a one-item list; ``None`` as no items."""
    if value is None:
        return []
    if isinstance(value, (list, tuple)):
        return list(value)
    return [value]


def _row(rows: list[dict[str, str]], label: str, value: Any, note: str = "") -> None:
    rows.append({"label": label, "value": format_value(value), "note": note})


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


def _release_rows(report: Mapping[str, Any]) -> list[dict[str, str]]:
    rows: list[dict[str, str]] = []
    records = report.get("records")
    if "records" in report:
        _row(rows, "records in", records)
    if "records_out" in report:
        _row(rows, "records out", report["records_out"])
    if "suppressed" in report:
        _row(rows, "suppressed records", report["suppressed"], _share(report["suppressed"], records))
    if "suppressed_dropped" in report:
        _row(rows, "suppressed records dropped from the output", report["suppressed_dropped"])
    if "input_suppressed" in report:
        _row(rows, "records that arrived suppressed", report["input_suppressed"])
    if "suppression_limit" in report:
        rows.append({"label": "suppression limit", "value": _percent(report["suppression_limit"]),
                     "note": "largest share of records that may be suppressed"})
    if "metric" in report:
        _row(rows, "utility metric optimised", report["metric"])
    order = _dict(report.get("output_order"))
    if order:
        shuffled = order.get("shuffled")
        text = "shuffled" if shuffled is True else "input order" if shuffled is False else format_value(shuffled)
        note = f"seed {format_value(order['seed'])}" if order.get("seed") is not None else ""
        rows.append({"label": "output row order", "value": text, "note": note})
    if "seconds_total" in report:
        _row(rows, "total time (s)", report["seconds_total"])
    return rows


def _transformation(report: Mapping[str, Any], classes: Any) -> list[dict[str, Any]]:
    levels = _dict(report.get("transformation"))
    heights: dict[str, int] = {}
    if classes is not None:
        known = dict(zip(classes.quasi_identifiers, classes.levels))
        # heights are only meaningful for the class table the transformation was applied to
        if all(known.get(name) == level for name, level in levels.items()):
            heights = {name: h.height for name, h in zip(classes.quasi_identifiers, classes.hierarchies)}
    out = []
    for name, level in levels.items():
        height = heights.get(str(name))
        number = _number(level)
        share = None
        if height and number is not None:
            share = max(0.0, min(100.0, 100.0 * number / height))
        out.append({
            "name": str(name), "level": format_value(level),
            "height": format_value(height) if height is not None else "",
            "percent": None if share is None else f"{share:.0f}",
        })
    return out


def _sensitive_rows(sensitive: Mapping[str, Any]) -> dict[str, Any]:
    """One table: a row per figure, a column per sensitive attribute."""
    names = [str(n) for n in sensitive]
    spec: list[tuple[str, Any]] = [
        ("kind", lambda s: s.get("kind", "absent")),
        ("distinct values in the table", lambda s: s.get("distinct_values", "absent")),
        ("distinct l-diversity: l", lambda s: s.get("distinct_l", "absent")),
        ("entropy l-diversity: l", lambda s: s.get("entropy_l", "absent")),
        ("recursive (c,l)-diversity: c", lambda s: _dict(s.get("recursive_cl")).get("c", "absent")),
        ("recursive (c,l)-diversity: l", lambda s: _dict(s.get("recursive_cl")).get("l", "absent")),
        ("t-closeness (equal distance): t", lambda s: s.get("t_equal", "absent")),
        ("t-closeness (ordered distance): t", lambda s: s.get("t_ordered", "absent")),
        ("t-closeness (hierarchical distance): t", lambda s: s.get("t_hierarchical", "absent")),
        ("δ-disclosure: δ", lambda s: s.get("delta_disclosure", "absent")),
        ("δ-disclosure (present values): δ", lambda s: s.get("delta_disclosure_present_values", "absent")),
        ("(α,k)-anonymity: α", lambda s: _dict(s.get("alpha_k")).get("alpha", "absent")),
        ("(α,k)-anonymity: k", lambda s: _dict(s.get("alpha_k")).get("k", "absent")),
        ("basic β-likeness: β", lambda s: s.get("beta_likeness", "absent")),
        ("enhanced β-likeness: β", lambda s: s.get("enhanced_beta_likeness", "absent")),
        # homogeneity and disclosure figures of a risk report's ``sensitive``
        ("homogeneous classes", lambda s: s.get("homogeneous_classes", "absent")),
        ("records in homogeneous classes", lambda s: s.get("exposed_records", "absent")),
        ("share of records exposed", lambda s: s.get("exposed_fraction", "absent")),
        ("A_diff (largest)", lambda s: s.get("a_diff_max", "absent")),
        ("A_know", lambda s: s.get("a_know", "absent")),
        ("A_acc", lambda s: s.get("a_acc", "absent")),
        ("δ (Brickell & Shmatikov)", lambda s: s.get("delta", "absent")),
    ]
    values = {name: _dict(sensitive[name]) for name in sensitive}
    rows = []
    for label, get in spec:
        cells = [get(values[name]) for name in sensitive]
        if all(isinstance(c, str) and c == "absent" for c in cells):
            continue
        rows.append({"label": label, "values": ["" if c == "absent" else format_value(c) for c in cells]})
    notes = []
    for name in sensitive:
        for note in _items(values[name].get("notes")):
            notes.append(f"{name}: {note}")
    return {"names": names, "rows": rows, "notes": notes}


def _achieved(achieved: Mapping[str, Any]) -> dict[str, Any]:
    rows: list[dict[str, str]] = []
    labels = (
        ("k", "k-anonymity: k (smallest class)"),
        ("classes", "equivalence classes"),
        ("records", "records"),
        ("suppressed_records", "suppressed records"),
        ("input_suppressed", "records with * in every quasi-identifier"),
        ("max_prosecutor_risk", "highest prosecutor risk (1/k)"),
        ("average_risk", "average prosecutor risk"),
        ("quasi_identifiers", "quasi-identifiers"),
    )
    for key, label in labels:
        if key in achieved:
            _row(rows, label, achieved[key])
    sensitive = _dict(achieved.get("sensitive"))
    requirements = []
    for item in _items(achieved.get("requirements")):
        item = _dict(item)
        requirements.append({
            "clause": format_value(item.get("clause")), "met": item.get("met") is True,
            "actual": format_value(item.get("actual")), "note": format_value(item.get("note", "")),
        })
    facts = [{"label": str(k), "value": format_value(v)} for k, v in _dict(achieved.get("facts")).items()]
    notes = [format_value(n) for n in _items(achieved.get("notes"))]
    return {
        "rows": rows,
        "sensitive": _sensitive_rows(sensitive) if sensitive else None,
        "requirements": requirements,
        "facts": facts,
        "notes": notes,
    }


def _utility(report: Mapping[str, Any]) -> list[dict[str, Any]]:
    from veil.utility import METRICS

    optimised = report.get("metric")
    out = []
    for name, value in _dict(report.get("utility")).items():
        metric = METRICS.get(str(name))
        direction = ""
        if metric is not None:
            direction = "lower is better" if metric.lower_is_better else "higher is better"
        out.append({
            "name": str(name), "value": format_value(value),
            "description": metric.description if metric is not None else "",
            "direction": direction, "optimised": str(name) == optimised,
            "applies": value is not None,
        })
    return out


_RISK_FIGURES: tuple[tuple[str, str, str], ...] = (
    ("prosecutor", "highest", "prosecutor risk: highest"),
    ("prosecutor", "average", "prosecutor risk: average"),
    ("prosecutor", "lowest", "prosecutor risk: lowest"),
    ("prosecutor", "records_at_risk", "records at risk (share)"),
    ("prosecutor", "records_at_risk_count", "records at risk"),
    ("prosecutor", "threshold", "risk threshold"),
    ("journalist", "highest", "journalist risk: highest"),
    ("journalist", "average", "journalist risk: average"),
    ("journalist", "case", "journalist model"),
    ("marketer", "average", "marketer risk"),
    ("marketer", "case", "marketer model"),
    ("", "sample_uniques", "sample uniques (share)"),
    ("", "sample_uniques_count", "sample uniques"),
    ("", "records_assessed", "records assessed"),
    ("", "classes", "equivalence classes"),
    ("", "suppressed_records", "suppressed records"),
)

#: The bars of the risk chart: (group, key, short label).
_RISK_BARS: tuple[tuple[str, str, str], ...] = (
    ("prosecutor", "highest", "prosecutor\nhighest"),
    ("prosecutor", "average", "prosecutor\naverage"),
    ("journalist", "highest", "journalist\nhighest"),
    ("journalist", "average", "journalist\naverage"),
    ("marketer", "average", "marketer\naverage"),
    ("prosecutor", "records_at_risk", "records\nat risk"),
    ("", "sample_uniques", "sample\nuniques"),
)

_ABSENT = object()

#: Counts a risk report also has at its top level (shown once, in the overview).
_COUNT_KEYS = frozenset({"records_assessed", "classes", "suppressed_records"})


def _risk_value(risk: Mapping[str, Any], group: str, key: str) -> Any:
    source = _dict(risk.get(group)) if group else risk
    return source.get(key, _ABSENT)


def _risk(
    columns: Sequence[tuple[str, Mapping[str, Any]]], plots: bool, *, counts: bool = True,
) -> dict[str, Any] | None:
    columns = [(name, _dict(r)) for name, r in columns if isinstance(r, Mapping)]
    if not columns:
        return None
    rows = []
    for group, key, label in _RISK_FIGURES:
        if not counts and key in _COUNT_KEYS:
            continue
        values = [_risk_value(r, group, key) for _, r in columns]
        if all(v is _ABSENT for v in values):
            continue
        rows.append({"label": label, "values": ["" if v is _ABSENT else format_value(v) for v in values]})
    chart = None
    if plots:
        bars = [(g, k, label) for g, k, label in _RISK_BARS
                if any(_number(_risk_value(r, g, k)) is not None for _, r in columns)]
        if bars:
            from veil.report._plots import risk_chart

            chart = risk_chart(
                [label for _, _, label in bars],
                [(name, [_risk_value(r, g, k) for g, k, _ in bars]) for name, r in columns],
            )
    return {"columns": [name for name, _ in columns], "rows": rows, "chart": chart}


def _population(risk: Mapping[str, Any]) -> list[dict[str, str]]:
    population = _dict(risk.get("population_uniques"))
    rows: list[dict[str, str]] = []
    labels = (
        ("pitman", "Pitman"), ("zayatz", "Zayatz"), ("snb", "SNB"), ("dankar", "Dankar et al."),
        ("observed", "observed in the population"), ("model_used", "model used"),
        ("sampling_fraction", "sampling fraction"), ("population_size", "population size"),
    )
    for key, label in labels:
        if key in population:
            _row(rows, label, population[key])
    return rows


def _qi_ranking(risk: Mapping[str, Any]) -> list[dict[str, str]]:
    out = []
    for score in _items(risk.get("quasi_identifiers")):
        if not isinstance(score, Mapping):
            continue
        out.append({
            "attributes": format_value(_items(score.get("attributes"))),
            "distinction": format_value(score.get("distinction")),
            "separation": format_value(score.get("separation")),
            "classes": format_value(score.get("classes")),
        })
    return out


def _class_sizes(classes: Any, original: Any, k: Any, plots: bool, released: bool) -> dict[str, Any] | None:
    tables = [(name, t) for name, t in (("original", original), ("released" if released else "table", classes))
              if t is not None]
    if not tables:
        return None
    columns, stats = [], []
    figures = ("equivalence classes", "records in classes", "suppressed records", "smallest class",
               "median class", "mean class", "largest class", "classes of one record")
    cells: dict[str, list[str]] = {f: [] for f in figures}
    for name, table in tables:
        counts = np.asarray(table.counts)
        columns.append(name)
        present = len(counts) > 0
        cells["equivalence classes"].append(format_value(len(counts)))
        cells["records in classes"].append(format_value(int(counts.sum())))
        cells["suppressed records"].append(format_value(int(table.suppressed)))
        cells["smallest class"].append(format_value(int(counts.min())) if present else "—")
        cells["median class"].append(format_value(float(np.median(counts))) if present else "—")
        cells["mean class"].append(format_value(float(counts.mean())) if present else "—")
        cells["largest class"].append(format_value(int(counts.max())) if present else "—")
        cells["classes of one record"].append(format_value(int((counts == 1).sum())))
    stats = [{"label": f, "values": cells[f]} for f in figures]
    chart = None
    if plots and any(len(t.counts) for _, t in tables):
        from veil.report._plots import class_size_chart

        k_line = int(k) if _number(k) is not None and float(k) >= 1 else None
        chart = class_size_chart(
            None if classes is None else np.asarray(classes.counts),
            None if original is None else np.asarray(original.counts),
            k=k_line,
        )
    return {"columns": columns, "rows": stats, "chart": chart}


def _search(report: Mapping[str, Any]) -> list[dict[str, str]]:
    """The search (full-domain algorithms) and the recoding (local recoding: Mondrian, TDS, MDAV)."""
    search = _dict(report.get("search"))
    rows: list[dict[str, str]] = []
    labels = {"algorithm": "algorithm", "nodes_total": "transformations in the lattice",
              "nodes_checked": "transformations checked", "seconds": "search time (s)"}
    for key, label in labels.items():
        if search.get(key) is not None:  # a local recoding has no lattice: its counts are null
            _row(rows, label, search[key])
    for key in search:
        if key not in labels:
            _row(rows, str(key), search[key])
    recoding = _dict(report.get("recoding"))
    if "groups" in recoding:
        _row(rows, "groups formed by the recoding", recoding["groups"])
    for key, value in _dict(recoding.get("details")).items():
        _row(rows, f"recoding: {str(key).replace('_', ' ')}", value)
    for key in recoding:
        if key not in ("algorithm", "groups", "details"):
            _row(rows, f"recoding: {key}", recoding[key])
    if recoding.get("algorithm") is not None and recoding.get("algorithm") != search.get("algorithm"):
        _row(rows, "recoding algorithm", recoding["algorithm"])
    return rows


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
        "classes": None, "search": [], "overview": [], "other": None, "recoded": None,
        "raw": _json(report),
    }
    known: Sequence[str] = ()
    k = None
    if kind == "anonymization":
        known = ANONYMIZATION_KEYS
        view["release"] = _release_rows(report)
        view["transformation"] = _transformation(report, classes)
        recoding = _dict(report.get("recoding"))
        view["recoded"] = format_value(recoding.get("algorithm", "local recoding")) if recoding else None
        view["models"] = [format_value(m) for m in _items(report.get("models"))]
        achieved = _dict(report.get("achieved"))
        view["achieved"] = _achieved(achieved) if achieved else None
        k = achieved.get("k")
        view["utility"] = _utility(report)
        risks = [(name, report.get(key)) for name, key in (("before", "risk_before"), ("after", "risk_after"))]
        view["risk"] = _risk(risks, plots)
        view["search"] = _search(report)
    elif kind == "risk":
        known = RISK_KEYS
        for key, label in (("records", "records"), ("classes", "equivalence classes"),
                           ("suppressed_records", "suppressed records"),
                           ("input_suppressed_records", "records that arrived suppressed"),
                           ("records_assessed", "records assessed"),
                           ("quasi_identifier_names", "quasi-identifiers")):
            if key in report:
                _row(view["overview"], label, report[key])
        view["risk"] = _risk([("table", report)], plots, counts=False)
        view["population"] = _population(report)
        view["ranking"] = _qi_ranking(report)
        sensitive = _dict(report.get("sensitive"))
        view["sensitive_risk"] = _sensitive_rows(sensitive) if sensitive else None
    elif kind == "check":
        known = CHECK_KEYS
        view["achieved"] = _achieved(report)
        k = report.get("k")
    released = kind == "anonymization" or original is not None
    view["classes"] = _class_sizes(classes, original, k, plots, released=released)
    other = {str(key): value for key, value in report.items() if key not in known}
    view["other"] = _json(other) if other else None
    return view


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


@functools.lru_cache(maxsize=1)
def _environment() -> Any:
    """The Jinja2 environment (built once: it caches the compiled template)."""
    import jinja2

    return jinja2.Environment(
        loader=jinja2.PackageLoader("veil.report", "templates"),
        autoescape=True,
        undefined=jinja2.StrictUndefined,
        trim_blocks=True,
        lstrip_blocks=True,
        keep_trailing_newline=True,
    )


def render_html(
    report: Any,
    *,
    title: str | None = None,
    classes: Any = None,
    original: Any = None,
    plots: bool = True,
) -> str:
    """Render a veil report as one self-contained HTML page for people.

    The page has inline CSS and its plots embedded as PNG images, so it can
    be mailed or archived as a single file.  It shows what the report holds:
    for an anonymization report the transformation (level per
    quasi-identifier), records in, out and suppressed, the models asked for
    and the levels achieved, the utility figures, the risk before and after
    (prosecutor, journalist, marketer, with a bar chart) and the search; for
    a risk report (``veil risk --json``) the risk figures, population
    uniqueness, QI ranking and attribute disclosure; for a check report
    (``veil check --json``) the achieved levels and requirements.  Keys that
    are missing are left out; keys it does not know are listed as JSON; the
    whole report is embedded at the end.

    Parameters
    ----------
    report : mapping or AnonymizationResult
        The JSON report as a dict (``AnonymizationResult.report``,
        ``RiskReport.to_dict()``, ``CheckReport.to_dict()``, or any of them
        read back from a file).  An :class:`~veil.anonymization.AnonymizationResult`
        stands for its report, with ``classes=result.classes`` and, for the
        full-domain algorithms (lattice, Datafly), ``original=result.classes.base``
        unless given.
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
        ``report`` is neither a mapping nor a result, or ``classes`` /
        ``original`` is not a :class:`~veil.classes.ClassTable`.

    Notes
    -----
    Every text that comes from the data or the report (column names,
    labels, the title) is HTML-escaped by the template (Jinja2 autoescaping),
    so a column named ``<script>`` is shown, never run.  Record values of
    quasi-identifiers or sensitive attributes are never written.  The same
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
    return _environment().get_template("report.html.j2").render(view=view)


def write_html(report: Any, path: str | os.PathLike[str], **options: Any) -> Path:
    """Render ``report`` (:func:`render_html`) and write it to ``path`` atomically.

    The page is rendered first, then written to a temporary file in the
    destination folder and renamed into place (:func:`os.replace`): a failure
    never leaves a partial or temporary file, and an existing file at
    ``path`` is either kept whole or replaced whole.  Missing parent folders
    are created.

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
    path = Path(path)
    if path.is_dir():
        raise OutputError(f"Cannot write the HTML report to {str(path)!r}: it is a folder; give a file name.")
    page = render_html(report, **options)
    tmp = path.parent / f".{path.name}.{secrets.token_hex(6)}.tmp"
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        # mode "x": created here and now, with the user's umask (mkstemp would force 0600)
        with open(tmp, "x", encoding="utf-8", newline="\n") as handle:
            handle.write(page)
        os.replace(tmp, path)
    except BaseException as exc:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        if isinstance(exc, OSError):
            raise OutputError(f"Cannot write the HTML report to {str(path)!r}: {exc.strerror or exc}.") from None
        raise
    return path
