"""The Results page's view of one run, built from the run's JSON report (the figures of
``veil anonymize --json``) and its class tables by the HTML report's own section builders
(:mod:`veil.report`): the same words, the same figures, the same plots (PNG data URIs, which the
page's Content-Security-Policy allows as images).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from veil.report._distributions import qi_distributions
from veil.report._format import as_dict, format_value
from veil.report._lattice import lattice as lattice_section
from veil.report._sections import achieved as achieved_rows
from veil.report._sections import class_sizes, release_rows, risk, search, transformation, utility
from veil.report._truth import column_rows, record_risk, released_input, warnings
from veil.web.pages.models import violations

__all__ = ["results_view", "summary", "SUMMARY_FIGURES", "input_classes", "risk_columns", "EMPTY_ADVICE"]

#: What to try when a run released no record (the page's own controls).
EMPTY_ADVICE = ("Try a smaller k (or, for dp, a larger epsilon), coarser hierarchies or fewer quasi-identifiers "
                "(Roles, Hierarchies), or a larger table: then run again.")

#: The headline figures, each read from one place of the report: (key, label, path in the report).
SUMMARY_FIGURES = (
    ("records", "records in", ("records",)),
    ("records_out", "records out", ("records_out",)),
    ("suppressed", "suppressed records", ("suppressed",)),
    ("k", "achieved k (smallest class)", ("achieved", "k")),
    ("classes", "equivalence classes released", ("classes_released",)),
    ("verified", "models verified on the written file", ("verified",)),
)


def _at(report: Mapping[str, Any], path: tuple[str, ...]) -> Any:
    value: Any = report
    for key in path:
        value = as_dict(value).get(key)
    return value


def summary(report: Mapping[str, Any]) -> list[dict[str, Any]]:
    """The headline rows: each with its raw value (``raw``, for a script) and its text."""
    rows = []
    for key, label, path in SUMMARY_FIGURES:
        value = _at(report, path)
        if value is not None:
            rows.append({"key": key, "label": label, "raw": value, "text": format_value(value)})
    if report.get("suppressed") and report.get("records_out") == report.get("records"):
        for row in rows:  # the file holds the suppressed rows, all '*': one more group than the classes
            if row["key"] == "classes":
                row["label"] = "groups in the written file (the suppressed rows, all '*', count as one)"
    metric = report.get("metric")
    loss = as_dict(report.get("utility")).get(metric) if metric else None
    if metric and loss is not None:
        rows.append({"key": "loss", "label": f"{metric} (the metric optimised)", "raw": loss,
                     "text": format_value(loss)})
    return rows


def input_classes(record: Mapping[str, Any]) -> Any:
    """The input on its quasi-identifiers, every record of it: its class table, or the dataset read
    again after a run whose class table has no base (``None`` when unknown).

    The report's ``risk_before`` is on the records the release keeps (public, it must not describe a
    suppressed record); this page is the steward's own, so it may also show the input as it is."""
    classes = record.get("classes")
    if classes is not None and classes.base is not classes:
        return classes.base
    config = record.get("config")
    if config is None or not hasattr(config, "resolve"):
        return None
    from veil.dataset import Dataset

    qis = [name for name, spec in config.attributes.items() if spec.role == "quasi-identifier"]
    return Dataset.read(config.resolve(config.input.path), sep=config.input.sep, quasi_identifiers=qis)


def risk_columns(record: Mapping[str, Any]) -> list[tuple[str, Any]]:
    """The risk table's columns, each labelled with the records it is on."""
    from veil.risk import assess

    report = record["report"]
    columns: list[tuple[str, Any]] = []
    original = input_classes(record)
    if original is not None:
        columns.append((f"input (all {format_value(int(report.get('records') or 0))} records)",
                        assess(original, qi_subsets_max_size=0).to_dict()))
    columns.append((before_label(report), report.get("risk_before")))
    columns.append((after_label(report), report.get("risk_after")))
    return columns


def before_label(report: Mapping[str, Any]) -> str:
    """What every "before" figure is on: the input's records the release did not suppress (the
    report's rule: a public figure never describes a suppressed record)."""
    records, suppressed = report.get("records"), report.get("suppressed")
    if records is None or suppressed is None:
        return "before (the records not suppressed)"
    return f"before (the {format_value(int(records) - int(suppressed))} records not suppressed)"


def after_label(report: Mapping[str, Any]) -> str:
    """What the "after" risk is on: the rows of the written file, where the suppressed rows (all '*')
    are one group of their own when the release writes them."""
    out, suppressed = report.get("records_out"), report.get("suppressed") or 0
    if out and suppressed and int(out) == int(report.get("records") or -1):
        return f"after (the {format_value(out)} rows written; the {format_value(suppressed)} suppressed, all '*', as one group)"
    return "after (the release)"


def _relabel(block: dict[str, Any] | None, report: Mapping[str, Any]) -> dict[str, Any] | None:
    """A section's "before" column named by what it is on (see :func:`before_label`)."""
    if block is not None:
        block["columns"] = [before_label(report) if c == "before" else c for c in block["columns"]]
    return block


def _warnings(report: Mapping[str, Any], classes: Any) -> list[str]:
    """The report's warnings; after a full-domain search, each quasi-identifier suppressed in every
    record gets the step that can change it here (more suppression alone changes nothing when a
    solution keeping it already meets the models and the search preferred the lower loss)."""
    if classes is None:
        return list(report.get("warnings") or [])
    out = warnings(report, classes)
    if report.get("transformation"):
        from veil.report._distributions import whole_suppressed

        metric = report.get("metric") or "loss"
        for name in whole_suppressed(classes):
            out.append(f"What to try for {name!r}: the search chose the solution with the lowest {metric}, so "
                       f"more suppression may change nothing. Under Explore below, look for a solution that keeps "
                       f"part of {name!r}, click it, then Use these levels.")
    return out


def _achieved(achieved: Mapping[str, Any], report: Mapping[str, Any]) -> dict[str, Any] | None:
    """The achieved figures; their class count is on the written file (see :func:`after_label`)."""
    if not achieved:
        return None
    block = achieved_rows(achieved, counts=False)
    if report.get("suppressed") and report.get("records_out") == report.get("records"):
        for row in block.get("rows") or []:
            if row.get("label") == "equivalence classes":
                row["label"] = "groups in the written file (the suppressed rows, all '*', count as one)"
    return block


def _distribution_line(d: Mapping[str, Any]) -> str:
    """A quasi-identifier's one line: distinct values before (non-suppressed records, missing not
    counted) and the released values (missing counted as one when present)."""
    labels = [str(r.get("label")) for r in d.get("rows") or []]
    missing = " (one of them: missing)" if "<missing>" in labels else ""
    before = as_dict(d.get("before"))
    head = f"{before['distinct']} distinct values before, not counting missing; " if before.get("distinct") else ""
    return f"{head}{d.get('values')} released value(s){missing}"


def _workload(report: Mapping[str, Any]) -> list[dict[str, str]]:
    rows: list[dict[str, str]] = []
    for key, value in as_dict(report.get("workload")).items():
        if isinstance(value, Mapping):
            for inner, figure in value.items():
                rows.append({"label": f"{key}: {inner}", "value": format_value(figure)})
        else:
            rows.append({"label": str(key).replace("_", " "), "value": format_value(value)})
    return rows


def results_view(record: Mapping[str, Any], *, plots: bool = True) -> dict[str, Any]:
    """Every section of the Results page for one run record (``report``, ``classes``, ``files``)."""
    report = record["report"]
    classes = record.get("classes")
    original = classes.base if classes is not None and classes.base is not classes else None
    before = released_input(classes, original) if original is not None else None
    achieved = as_dict(report.get("achieved"))
    k = achieved.get("k")
    view: dict[str, Any] = {
        "number": record["number"],
        "files": record["files"],
        "summary": summary(report),
        "models": [format_value(m) for m in report.get("models") or []],
        "verified": report.get("verified"),
        "levels": report.get("transformation") or {},
        "release": release_rows(report),
        "transformation": transformation(report, classes),
        "columns": column_rows(report, classes),
        "achieved": _achieved(achieved, report),
        "utility": utility(report),
        "workload": _workload(report),
        "risk": risk(risk_columns(record), plots),
        "empty": report.get("records_out") == 0, "advice": EMPTY_ADVICE,
        "lattice": lattice_section(report),
        "search": search(report),
        "warnings": _warnings(report, classes),
        "classes": None, "record_risk": None, "distributions": [], "violations": None,
    }
    if classes is not None:
        view["classes"] = _relabel(class_sizes(classes, before, k, plots, released=True), report)
        view["record_risk"] = _relabel(record_risk(classes, before, plots), report)
        view["distributions"] = [{**d, "line": _distribution_line(d)} for d in qi_distributions(classes, before, k, plots)]
        view["violations"] = violations(classes.counts)
    return view
