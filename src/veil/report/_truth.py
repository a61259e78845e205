"""The report's account of what was released: provenance, columns, warnings, what "before" may show.

These sections answer the questions a data steward asks of a release before
publishing it: where did it come from (provenance), what was done to each
column (role and treatment, each level in words), who is still exposed
(per-record risk before and after, homogeneous classes, columns released
unchanged, a quasi-identifier suppressed in every record).

Every figure comes from one source: the JSON report for what the pipeline
decided, the class tables for counts.  The rule for "before": the report is
public, so no figure may tell more about a suppressed record than the release
does (that it exists).  A figure of the whole input would, wherever the
release shows the other records: the input counted at the released level
minus the release *is* the suppressed records.  So every "before" figure, in
the JSON (``risk_before``) and on the page, is taken from
:func:`released_input`: the input's records that the release keeps, at their
input values; the suppressed records are counted, never described.
"""

from __future__ import annotations

import datetime as _dt
import hashlib
import os
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import numpy as np

from veil.report._distributions import whole_suppressed
from veil.report._format import add_row, as_dict, format_value, items, number
from veil.report._levels import describe_level

__all__ = ["provenance", "provenance_rows", "column_rows", "warnings", "record_risk", "released_input", "kept_classes",
           "RISK_BINS"]

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


def column_rows(report: Mapping[str, Any], classes: Any = None) -> list[dict[str, str]]:
    """One row per output column: name, role, treatment, a level in words (the report's ``columns``).

    A generalized column's level is described from its hierarchy's spec (the
    report's ``hierarchies``: "10-wide bands", "masked 2 characters from the
    right", "month") and, with the released class table, its height and the
    number of released values.
    """
    specs = as_dict(report.get("hierarchies"))
    known: dict[str, tuple[int, int]] = {}
    if classes is not None:
        for i, name in enumerate(classes.quasi_identifiers):
            values = int(np.unique(classes.codes[:, i]).size) if len(classes.counts) else 0
            known[str(name)] = (classes.hierarchies[i].height, values)
    out = []
    for column in items(report.get("columns")):
        column = as_dict(column)
        if "name" not in column:
            continue
        name = str(column["name"])
        treatment = format_value(column.get("treatment", ""))
        if column.get("level") is not None:
            height, values = known.get(name, (None, None))
            if height is not None and number(column["level"]) != classes.levels[classes.quasi_identifiers.index(name)]:
                height = values = None  # the table is not the one this level was applied to
            words = describe_level(column["level"], specs.get(name), height=height, values=values)
            treatment = f"{treatment}: {words} (level {format_value(column['level'])})"
        out.append({"name": name, "role": format_value(column.get("role", "")), "treatment": treatment})
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
    """What a steward must look at before publishing, in plain words.

    The report's own ``warnings`` (the pipeline's: a seed, an unlisted column, a
    class diverse only through missing values, ...) come first, each as it is;
    then what the page reads from the class tables and the figures.
    """
    out: list[str] = [format_value(w) for w in items(report.get("warnings")) if w is not None]
    if report.get("verified") is False:
        out.append("The release was not verified: do not publish it.")
    if classes is not None:
        for name, n_classes, n_records in _homogeneous(classes):
            if n_classes:
                out.append(
                    f"{format_value(n_classes)} classes ({format_value(n_records)} records) hold one value of "
                    f"{name!r} only: whoever knows a person is in such a class learns their {name}."
                )
        for name in whole_suppressed(classes):
            out.append(f"Quasi-identifier {name!r} is suppressed in every record (every released value is '*'): "
                       "the release keeps nothing of it. If that is not what you want, allow more suppression, "
                       "a coarser hierarchy for another quasi-identifier, or fewer quasi-identifiers.")
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
    if as_dict(report.get("output_order")).get("seed") is not None and not any("seed" in w for w in out):
        out.append("The row order is reproducible from the seed in this report: whoever holds both can restore the "
                   "input's order. Publish this report only with a release whose input order is not secret.")
    return out


def released_input(classes: Any, original: Any, suppressed_rows: np.ndarray | None = None) -> Any:
    """The input's class table without the records the release suppressed: what "before" may show.

    Parameters
    ----------
    classes : ClassTable or None
        The released class table (its suppressed records are those of the release).
    original : ClassTable
        The input's class table (``classes.base`` after a full-domain algorithm).
    suppressed_rows : numpy.ndarray of bool, optional
        Per input row, whether the release suppressed it (the pipeline knows it; a
        local recoding's class table has no map back to the input's classes).

    Returns
    -------
    ClassTable or None
        ``original`` with the classes that hold the release's suppressed records
        suppressed in turn (counted in ``suppressed``, described nowhere); ``original``
        itself when the release suppressed no record beyond those that arrived
        suppressed; ``None`` when the two cannot be told apart (a class of the input
        partly suppressed, or tables of different rows): then no "before" figure is shown.
    """
    if original is None:
        return None
    if suppressed_rows is not None and len(suppressed_rows) == original.n_records:
        return _without_rows(original, np.asarray(suppressed_rows, dtype=bool))
    if classes is None:
        return None
    if int(classes.suppressed) <= int(original.suppressed):
        return original if int(classes.n_records) == int(original.n_records) else None
    if classes.base is original and classes is not original:
        return original.suppress(np.asarray(classes.base_map) < 0)
    try:
        rows = classes.row_classes()
    except (AssertionError, AttributeError, IndexError):
        return None
    return _without_rows(original, rows < 0) if rows.shape == (original.n_records,) else None


def kept_classes(chosen: Any, base: Any, *, label: str | None = None,
                 suppressed_rows: np.ndarray | None = None) -> Any:
    """The chosen levels' class table of the records the release keeps, as a table of their own.

    For the figures that would read a suppressed record's value (a utility metric
    that costs a suppressed record by its own value's frequency, or its label):
    they are taken on this table, where the suppressed records are left out.

    Parameters
    ----------
    chosen : ClassTable
        The search's table at the chosen levels (its base is ``base``).
    base : ClassTable
        The input's class table.
    label : str, optional
        A sensitive attribute of ``base`` to carry (a class label).
    suppressed_rows : numpy.ndarray of bool, optional
        As for :func:`released_input`.

    Returns
    -------
    ClassTable or None
        ``None`` when the release suppressed no record beyond those that arrived
        suppressed (the figures of ``chosen`` tell nothing more), or when the kept
        records cannot be told apart.
    """
    from veil.classes import ClassTable
    from veil.data import Dataset

    before = released_input(chosen, base, suppressed_rows)
    if before is None or before is base or not before.n_classes:
        return None
    frame = before.labels()
    if label is not None:  # one row per (class, label value) that occurs
        hist = before.sensitive[label]
        counts = np.asarray(hist.counts)
        rows, values = np.nonzero(counts)
        frame = frame.iloc[rows].reset_index(drop=True)
        frame[label] = np.asarray(hist.labels, dtype=object)[values]
        frame["count"] = counts[rows, values]
    qis = list(base.quasi_identifiers)
    weights = frame.pop("count").to_numpy(dtype=np.int64)
    dataset = Dataset.from_pandas(frame.astype(str), quasi_identifiers=qis,
                                  sensitive=[label] if label is not None else [])
    table = ClassTable.from_dataset(dataset, hierarchies=dict(zip(qis, base.hierarchies)), weights=weights)
    return table.generalize(chosen.levels)


def _without_rows(original: Any, lost_rows: np.ndarray) -> Any:
    """``original`` without the classes of ``lost_rows``; None when a class would be cut in two."""
    try:
        input_rows = original.row_classes()
    except (AssertionError, AttributeError, IndexError):
        return None  # a table of weighted counts has no rows
    if input_rows.shape != lost_rows.shape:
        return None
    lost = np.bincount(input_rows[lost_rows & (input_rows >= 0)], minlength=original.n_classes)
    if not lost.any():
        return original
    partly = (lost > 0) & (lost < np.asarray(original.counts))
    return None if partly.any() else original.suppress(lost > 0)


def _risk_histogram(table: Any) -> np.ndarray:
    counts = np.asarray(table.counts, dtype=np.int64)
    if counts.size == 0:
        return np.zeros(len(RISK_BINS), dtype=np.int64)
    bins = np.searchsorted(np.asarray(RISK_BINS), 1.0 / counts, side="left")
    return np.bincount(np.minimum(bins, len(RISK_BINS) - 1), weights=counts, minlength=len(RISK_BINS)).astype(np.int64)


def record_risk(classes: Any, before: Any, plots: bool) -> dict[str, Any] | None:
    """Records per prosecutor-risk band (1/class size), before and after.

    ``before`` is :func:`released_input`: the kept records at their input
    values.  Suppressed records belong to no class and are counted in a row of
    their own, in both columns.
    """
    tables = [(name, t) for name, t in (("before", before), ("after", classes)) if t is not None]
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
