"""The report's account of what was released: provenance, columns, warnings, distributions.

These sections answer the questions a data steward asks of a release before
publishing it: where did it come from (provenance), what was done to each
column (role and treatment), who is still exposed (per-record risk before and
after, homogeneous classes, columns released unchanged), and what the
generalization did to each quasi-identifier's distribution (values ranked,
never named).

Every figure here comes from one source: the JSON report for what the pipeline
decided, the class tables for counts.  The per-QI distributions name no
value and never show a value held by fewer than ``k`` records (such values are pooled under
"other values"), so the page adds nothing a reader of the release cannot
count for themselves, except how the suppressed records were spread; and, like
every veil report, it names no record value.
"""

from __future__ import annotations

import datetime as _dt
import hashlib
import os
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import numpy as np

from veil.report._format import add_row, as_dict, format_value, items, number

__all__ = ["provenance", "provenance_rows", "column_rows", "warnings", "record_risk", "qi_distributions", "RISK_BINS"]

#: Upper edges of the per-record risk bins (prosecutor risk 1/class size).
RISK_BINS = (0.01, 0.02, 0.05, 0.1, 0.2, 1 / 3, 0.5, 1.0)


def provenance(source: str | os.PathLike[str] | None, *, config: Mapping[str, Any] | None = None) -> dict[str, Any]:
    """The ``provenance`` block of a JSON report: input fingerprint, config, veil version, time.

    Parameters
    ----------
    source : path or None
        The input file; its SHA-256 is taken over its bytes (streamed).
        ``None`` (a table given in memory) gives ``input_sha256: None``.
    config : mapping, optional
        The release configuration as resolved (parameters, not data).

    Returns
    -------
    dict
        ``{"input_sha256", "config", "veil_version", "created"}``; ``created``
        is UTC in ISO 8601 to the second.

    Examples
    --------
    >>> block = provenance(None, config={"k": 5})
    >>> sorted(block), block["input_sha256"], block["config"]
    (['config', 'created', 'input_sha256', 'veil_version'], None, {'k': 5})
    """
    import veil

    digest = None
    if source is not None:
        sha = hashlib.sha256()
        with open(Path(source), "rb") as handle:
            for block in iter(lambda: handle.read(1 << 20), b""):
                sha.update(block)
        digest = sha.hexdigest()
    created = _dt.datetime.now(_dt.timezone.utc).replace(microsecond=0).isoformat().replace("+00:00", "Z")
    return {"input_sha256": digest, "config": dict(config or {}), "veil_version": veil.__version__, "created": created}


def provenance_rows(report: Mapping[str, Any]) -> list[dict[str, str]]:
    """Rows of the Provenance section (``provenance`` and ``hierarchies``)."""
    block = as_dict(report.get("provenance"))
    rows: list[dict[str, str]] = []
    for key, label in (("input_sha256", "input file SHA-256"), ("veil_version", "veil version"),
                       ("created", "created (UTC)")):
        if block.get(key) is not None:
            add_row(rows, label, block[key])
    config = as_dict(block.get("config"))
    for key, value in config.items():
        add_row(rows, f"config: {key}", value)
    for name, spec in as_dict(report.get("hierarchies")).items():
        add_row(rows, f"hierarchy of {name}", spec)
    return rows


def column_rows(report: Mapping[str, Any]) -> list[dict[str, str]]:
    """One row per output column: name, role, treatment (the report's ``columns``)."""
    out = []
    for column in items(report.get("columns")):
        column = as_dict(column)
        if "name" not in column:
            continue
        treatment = format_value(column.get("treatment", ""))
        if column.get("level") is not None:
            treatment = f"{treatment} to level {format_value(column['level'])}"
        out.append({"name": str(column["name"]), "role": format_value(column.get("role", "")), "treatment": treatment})
    return out


def _homogeneous(classes: Any) -> list[tuple[str, int, int]]:
    """Per sensitive attribute: classes holding one value only, and their records."""
    out = []
    for name, hist in classes.sensitive.items():
        if hist.n_classes == 0 or hist.n_values == 0:
            continue
        one = hist.distinct() == 1  # from the pairs that occur when the values are many
        out.append((str(name), int(one.sum()), int(np.asarray(classes.counts)[one].sum())))
    return out


def warnings(report: Mapping[str, Any], classes: Any) -> list[str]:
    """What a steward must look at before publishing, in plain words."""
    out: list[str] = []
    if report.get("verified") is False:
        out.append("The release was not verified: do not publish it.")
    if classes is not None:
        for name, n_classes, n_records in _homogeneous(classes):
            if n_classes:
                out.append(
                    f"{format_value(n_classes)} classes ({format_value(n_records)} records) hold one value of "
                    f"{name!r} only: whoever knows a person is in such a class learns their {name}."
                )
    after = as_dict(as_dict(report.get("risk_after")).get("prosecutor"))
    at_risk = number(after.get("records_at_risk_count"))
    if at_risk:
        out.append(
            f"{format_value(int(at_risk))} records are still above the risk threshold "
            f"{format_value(after.get('threshold'))} (prosecutor model)."
        )
    unchanged = [str(as_dict(c).get("name")) for c in items(report.get("columns"))
                 if as_dict(c).get("treatment") == "unchanged"]
    if unchanged:
        out.append(f"Released unchanged: {', '.join(unchanged)}. Check that none of these columns identifies anyone.")
    if as_dict(report.get("output_order")).get("seed") is not None:
        out.append("The row order is reproducible from the seed in this report: whoever holds both can restore the "
                   "input's order. Publish this report only with a release whose input order is not secret.")
    return out


def _risk_histogram(table: Any) -> np.ndarray:
    counts = np.asarray(table.counts, dtype=np.int64)
    if counts.size == 0:
        return np.zeros(len(RISK_BINS), dtype=np.int64)
    bins = np.searchsorted(np.asarray(RISK_BINS), 1.0 / counts, side="left")
    return np.bincount(np.minimum(bins, len(RISK_BINS) - 1), weights=counts, minlength=len(RISK_BINS)).astype(np.int64)


def record_risk(classes: Any, original: Any, plots: bool) -> dict[str, Any] | None:
    """Records per prosecutor-risk band (1/class size), before and after.

    Suppressed records belong to no class and are counted in a row of their own.
    """
    tables = [(name, t) for name, t in (("before", original), ("after", classes)) if t is not None]
    if not tables:
        return None
    lower = (0.0, *RISK_BINS[:-1])
    labels = [f"({format_value(lo)}, {format_value(hi)}]" if lo else f"≤ {format_value(hi)}"
              for lo, hi in zip(lower, RISK_BINS)]
    hists = [_risk_histogram(t) for _, t in tables]
    rows = [{"label": label, "values": [format_value(int(h[i])) for h in hists]} for i, label in enumerate(labels)]
    rows.append({"label": "suppressed (no class)", "values": [format_value(int(t.suppressed)) for _, t in tables]})
    chart = None
    if plots:
        from veil.report._plots import band_chart

        chart = band_chart(labels, [(name, h) for (name, _), h in zip(tables, hists)],
                           ylabel="records", title="Records per prosecutor risk band")
    return {"columns": [name for name, _ in tables], "rows": rows, "chart": chart}


def _distribution(classes: Any, original: Any, i: int, k: int) -> dict[str, Any]:
    hierarchy = classes.hierarchies[i]
    level = classes.levels[i]
    size = hierarchy.n_values(level)
    after = np.bincount(classes.codes[:, i], weights=classes.counts, minlength=size).astype(np.int64)
    base_codes = hierarchy.rollup(original.levels[i], level)[original.codes[:, i]]
    before = np.bincount(base_codes, weights=original.counts, minlength=size).astype(np.int64)
    shown = np.flatnonzero((before >= k) & ((after >= k) | (after == 0)))
    shown = shown[np.argsort(-after[shown], kind="stable")]
    pooled = np.setdiff1d(np.arange(size), shown)
    labels = [f"#{rank}" for rank in range(1, len(shown) + 1)]
    b, a = [int(x) for x in before[shown]], [int(x) for x in after[shown]]
    if before[pooled].sum() or after[pooled].sum():
        labels.append("other values")
        b.append(int(before[pooled].sum()))
        a.append(int(after[pooled].sum()))
    return {"labels": labels, "before": b, "after": a}


def qi_distributions(classes: Any, original: Any, k: Any, plots: bool, *, max_values: int = 30) -> list[dict[str, Any]]:
    """Per quasi-identifier, records per released value before and after the release.

    The original's records are counted at the released level, so the two
    bars compare like with like; their difference is the suppressed records.
    Values are ranked by their count in the release (``#1`` the most
    frequent) and never named: veil's reports quote no record values.  Values
    held by fewer than ``k`` records (before, or after when present) are
    pooled under "other values"; attributes with more than ``max_values``
    released values are listed without a chart.
    """
    if classes is None or original is None or tuple(classes.quasi_identifiers) != tuple(original.quasi_identifiers):
        return []
    k_value = int(k) if number(k) is not None and float(k) >= 1 else 1
    out = []
    for i, name in enumerate(classes.quasi_identifiers):
        dist = _distribution(classes, original, i, k_value)
        chart = None
        if plots and len(dist["labels"]) <= max_values:
            from veil.report._plots import band_chart

            chart = band_chart(dist["labels"], [("before", dist["before"]), ("after", dist["after"])],
                               ylabel="records", title=str(name))
        rows = [{"label": label, "values": [format_value(int(b)), format_value(int(a))]}
                for label, b, a in zip(dist["labels"], dist["before"], dist["after"])]
        out.append({"name": str(name), "rows": rows, "chart": chart})
    return out
