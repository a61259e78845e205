"""The sections of the HTML report, each built from the JSON report (and class tables).

Each function turns one part of a report into a small view of labelled,
already formatted figures for the template.  A figure is taken from one place
of the report only, so two sections never show two values for one thing.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np

from veil.report._format import add_row, as_dict, format_value, items, number, percent, share

__all__ = [
    "release_rows", "transformation", "sensitive_rows", "achieved", "utility", "risk", "population",
    "qi_ranking", "class_sizes", "search",
]


#: What each ``--suppressed`` mode writes for a suppressed record (the report's ``suppressed_records``).
SUPPRESSED_MODES = {
    "blank": "the row is kept with the token * in every quasi-identifier and every sensitive attribute",
    "drop": "the row is left out of the file",
    "keep": "the row is kept with the token * in every quasi-identifier; its sensitive values are published",
}


def release_rows(report: Mapping[str, Any]) -> list[dict[str, str]]:
    rows: list[dict[str, str]] = []
    records = report.get("records")
    if "records" in report:
        add_row(rows, "records in", records)
    if "records_out" in report:
        add_row(rows, "records out", report["records_out"])
    if "suppressed" in report:
        add_row(rows, "suppressed records", report["suppressed"], share(report["suppressed"], records))
    mode = report.get("suppressed_records")
    if mode is not None:
        rows.append({"label": "suppressed records written as", "value": format_value(mode),
                     "note": SUPPRESSED_MODES.get(str(mode), "")})
    if "suppressed_dropped" in report:
        add_row(rows, "suppressed records dropped from the output", report["suppressed_dropped"])
    if "input_suppressed" in report:
        add_row(rows, "records that arrived suppressed", report["input_suppressed"])
    if "classes_released" in report:
        add_row(rows, "equivalence classes released", report["classes_released"])
    if "suppression_limit" in report:
        rows.append({"label": "suppression limit", "value": percent(report["suppression_limit"]),
                     "note": "largest share of records that may be suppressed"})
    if "metric" in report:
        add_row(rows, "utility metric optimised", report["metric"])
    order = as_dict(report.get("output_order"))
    if order:
        shuffled = order.get("shuffled")
        text = "shuffled" if shuffled is True else "input order" if shuffled is False else format_value(shuffled)
        note = f"seed {format_value(order['seed'])}" if order.get("seed") is not None else ""
        rows.append({"label": "output row order", "value": text, "note": note})
    if "seconds_total" in report:
        add_row(rows, "total time (s)", report["seconds_total"])
    return rows


def transformation(report: Mapping[str, Any], classes: Any) -> list[dict[str, Any]]:
    levels = as_dict(report.get("transformation"))
    heights: dict[str, int] = {}
    if classes is not None:
        known = dict(zip(classes.quasi_identifiers, classes.levels))
        # heights are only meaningful for the class table the transformation was applied to
        if all(known.get(name) == level for name, level in levels.items()):
            heights = {name: h.height for name, h in zip(classes.quasi_identifiers, classes.hierarchies)}
    out = []
    for name, level in levels.items():
        height = heights.get(str(name))
        figure = number(level)
        share = None
        if height and figure is not None:
            share = max(0.0, min(100.0, 100.0 * figure / height))
        out.append({
            "name": str(name), "level": format_value(level),
            "height": format_value(height) if height is not None else "",
            "percent": None if share is None else f"{share:.0f}",
        })
    return out


def sensitive_rows(sensitive: Mapping[str, Any]) -> dict[str, Any]:
    """One table: a row per figure, a column per sensitive attribute."""
    names = [str(n) for n in sensitive]
    spec: list[tuple[str, Any]] = [
        ("kind", lambda s: s.get("kind", "absent")),
        ("distinct values in the table", lambda s: s.get("distinct_values", "absent")),
        ("distinct l-diversity: l", lambda s: s.get("distinct_l", "absent")),
        ("entropy l-diversity: l", lambda s: s.get("entropy_l", "absent")),
        ("recursive (c,l)-diversity: c", lambda s: as_dict(s.get("recursive_cl")).get("c", "absent")),
        ("recursive (c,l)-diversity: l", lambda s: as_dict(s.get("recursive_cl")).get("l", "absent")),
        ("t-closeness (equal distance): t", lambda s: s.get("t_equal", "absent")),
        ("t-closeness (ordered distance): t", lambda s: s.get("t_ordered", "absent")),
        ("t-closeness (hierarchical distance): t", lambda s: s.get("t_hierarchical", "absent")),
        ("δ-disclosure: δ", lambda s: s.get("delta_disclosure", "absent")),
        ("δ-disclosure (present values): δ", lambda s: s.get("delta_disclosure_present_values", "absent")),
        ("(α,k)-anonymity: α", lambda s: as_dict(s.get("alpha_k")).get("alpha", "absent")),
        ("(α,k)-anonymity: k", lambda s: as_dict(s.get("alpha_k")).get("k", "absent")),
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
    values = {name: as_dict(sensitive[name]) for name in sensitive}
    rows = []
    for label, get in spec:
        cells = [get(values[name]) for name in sensitive]
        if all(isinstance(c, str) and c == "absent" for c in cells):
            continue
        rows.append({"label": label, "values": ["" if c == "absent" else format_value(c) for c in cells]})
    notes = []
    for name in sensitive:
        for note in items(values[name].get("notes")):
            notes.append(f"{name}: {note}")
    return {"names": names, "rows": rows, "notes": notes}


#: Counts an anonymization report shows in its Release section only.
_COUNTS_SHOWN_ONCE = frozenset({"records", "suppressed_records", "input_suppressed"})


def achieved(achieved: Mapping[str, Any], *, counts: bool = True) -> dict[str, Any]:
    """The achieved levels; ``counts=False`` leaves out the record counts shown elsewhere."""
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
        if key in achieved and (counts or key not in _COUNTS_SHOWN_ONCE):
            add_row(rows, label, achieved[key])
    sensitive = as_dict(achieved.get("sensitive"))
    requirements = []
    for item in items(achieved.get("requirements")):
        item = as_dict(item)
        requirements.append({
            "clause": format_value(item.get("clause")), "met": item.get("met") is True,
            "actual": format_value(item.get("actual")), "note": format_value(item.get("note", "")),
        })
    facts = [{"label": str(k), "value": format_value(v)} for k, v in as_dict(achieved.get("facts")).items()]
    notes = [format_value(n) for n in items(achieved.get("notes"))]
    return {
        "rows": rows,
        "sensitive": sensitive_rows(sensitive) if sensitive else None,
        "requirements": requirements,
        "facts": facts,
        "notes": notes,
    }


def utility(report: Mapping[str, Any]) -> list[dict[str, Any]]:
    from veil.utility import METRICS

    optimised = report.get("metric")
    out = []
    for name, value in as_dict(report.get("utility")).items():
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
    source = as_dict(risk.get(group)) if group else risk
    return source.get(key, _ABSENT)


def risk(
    columns: Sequence[tuple[str, Mapping[str, Any]]], plots: bool, *, counts: bool = True,
) -> dict[str, Any] | None:
    columns = [(name, as_dict(r)) for name, r in columns if isinstance(r, Mapping)]
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
                if any(number(_risk_value(r, g, k)) is not None for _, r in columns)]
        if bars:
            from veil.report._plots import risk_chart

            chart = risk_chart(
                [label for _, _, label in bars],
                [(name, [_risk_value(r, g, k) for g, k, _ in bars]) for name, r in columns],
            )
    return {"columns": [name for name, _ in columns], "rows": rows, "chart": chart}


def population(risk: Mapping[str, Any]) -> list[dict[str, str]]:
    population = as_dict(risk.get("population_uniques"))
    rows: list[dict[str, str]] = []
    labels = (
        ("pitman", "Pitman"), ("zayatz", "Zayatz"), ("snb", "SNB"), ("dankar", "Dankar et al."),
        ("observed", "observed in the population"), ("model_used", "model used"),
        ("sampling_fraction", "sampling fraction"), ("population_size", "population size"),
    )
    for key, label in labels:
        if key in population:
            add_row(rows, label, population[key])
    return rows


def qi_ranking(risk: Mapping[str, Any]) -> list[dict[str, str]]:
    out = []
    for score in items(risk.get("quasi_identifiers")):
        if not isinstance(score, Mapping):
            continue
        out.append({
            "attributes": format_value(items(score.get("attributes"))),
            "distinction": format_value(score.get("distinction")),
            "separation": format_value(score.get("separation")),
            "classes": format_value(score.get("classes")),
        })
    return out


def class_sizes(classes: Any, original: Any, k: Any, plots: bool, released: bool) -> dict[str, Any] | None:
    tables = [(name, t) for name, t in (("before", original), ("released" if released else "table", classes))
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

        k_line = int(k) if number(k) is not None and float(k) >= 1 else None
        chart = class_size_chart(
            None if classes is None else np.asarray(classes.counts),
            None if original is None else np.asarray(original.counts),
            k=k_line,
        )
    return {"columns": columns, "rows": stats, "chart": chart}


def search(report: Mapping[str, Any]) -> list[dict[str, str]]:
    """The search (full-domain algorithms) and the recoding (local recoding: Mondrian, TDS, MDAV)."""
    search = as_dict(report.get("search"))
    rows: list[dict[str, str]] = []
    labels = {"algorithm": "algorithm", "nodes_total": "transformations in the lattice",
              "nodes_checked": "transformations checked",
              "nodes_refuted": "of which refuted from attribute pairs (no table built)", "seconds": "search time (s)"}
    for key, label in labels.items():
        if search.get(key) is not None:  # a local recoding has no lattice: its counts are null
            add_row(rows, label, search[key])
    for key in search:
        if key not in labels:
            add_row(rows, str(key), search[key])
    recoding = as_dict(report.get("recoding"))
    if "groups" in recoding:
        add_row(rows, "groups formed by the recoding", recoding["groups"])
    for key, value in as_dict(recoding.get("details")).items():
        add_row(rows, f"recoding: {str(key).replace('_', ' ')}", value)
    for key in recoding:
        if key not in ("algorithm", "groups", "details"):
            add_row(rows, f"recoding: {key}", recoding[key])
    if recoding.get("algorithm") is not None and recoding.get("algorithm") != search.get("algorithm"):
        add_row(rows, "recoding algorithm", recoding["algorithm"])
    return rows

