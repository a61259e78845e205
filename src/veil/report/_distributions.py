"""The "Quasi-identifiers before and after" section: granularity before, released values after.

*After*: records per released value, the values **named**: they are in the
release, so a reader of the file counts the same figures.  *Before*: each
QI's original granularity (how many distinct values, and for numbers their
range), counted on the records the release keeps (:func:`released_input`),
never on the suppressed records, and naming no original value held by fewer
than ``k`` records.  So no figure here tells more about a suppressed record
than its existence; counting the input at the released level (what this
section used to do) let anyone subtract the release from the "before" column
and read the suppressed records' values.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pandas as pd

from veil.report._format import format_value, number

__all__ = ["qi_distributions", "whole_suppressed", "SUPPRESSED_TOKEN"]

#: The token a suppressed value is written as (``--suppressed blank``, and a QI generalized to its top).
SUPPRESSED_TOKEN = "*"
#: Missing values' label in a hierarchy (veil.data's MISSING): not a number, not a range end.
_MISSING = "<missing>"


def _k(k: Any) -> int | None:
    """The report's k; None when it has none (then no original value is named at all)."""
    return int(k) if number(k) is not None and float(k) >= 1 else None


def _released_counts(classes: Any, i: int) -> tuple[list[str], np.ndarray]:
    """The released values of QI ``i`` (named, most frequent first) and their records."""
    hierarchy, level = classes.hierarchies[i], classes.levels[i]
    counts = np.bincount(classes.codes[:, i], weights=classes.counts,
                         minlength=hierarchy.n_values(level)).astype(np.int64)
    present = np.flatnonzero(counts)
    present = present[np.argsort(-counts[present], kind="stable")]
    return [hierarchy.label(level, int(c)) for c in present], counts[present]


def _granularity(before: Any, i: int, k: int | None) -> dict[str, str]:
    """Distinct values of QI ``i`` in ``before`` and, for numbers, the range of those held by ``k`` or more
    (no range without a ``k``)."""
    hierarchy, level = before.hierarchies[i], before.levels[i]
    counts = np.bincount(before.codes[:, i], weights=before.counts,
                         minlength=hierarchy.n_values(level)).astype(np.int64)
    present = np.flatnonzero(counts)
    labels = pd.Series(hierarchy.labels[level][present], dtype=object).astype(str)
    known = labels != _MISSING
    figures = pd.to_numeric(labels[known], errors="coerce")
    out = {"distinct": format_value(int(known.sum())), "range": ""}
    if k is not None and len(figures) and not figures.isna().any():
        common = figures[counts[present][known.to_numpy()] >= k]
        out["range"] = (f"{format_value(float(common.min()))} to {format_value(float(common.max()))}"
                        if len(common) else f"no value held by {format_value(k)} or more records")
    return out


def whole_suppressed(classes: Any) -> list[str]:
    """The QIs whose every released value is ``*`` (their hierarchy's top, or its one label ``*``)."""
    if classes is None or not len(classes.counts):
        return []
    out = []
    for i, name in enumerate(classes.quasi_identifiers):
        hierarchy, level = classes.hierarchies[i], classes.levels[i]
        codes = np.unique(classes.codes[:, i])
        if level >= hierarchy.height or (len(codes) == 1 and set(hierarchy.label(level, int(codes[0]))) == {"*"}):
            out.append(str(name))
    return out


def _rows(labels: list[str], counts: np.ndarray, suppressed: int, max_values: int) -> list[dict[str, Any]]:
    rows = [{"label": label, "value": format_value(int(c))} for label, c in zip(labels[:max_values], counts[:max_values])]
    if len(labels) > max_values:
        rest = len(labels) - max_values
        rows.append({"label": f"{format_value(rest)} other released values",
                     "value": format_value(int(counts[max_values:].sum()))})
    if suppressed:
        rows.append({"label": "suppressed records (no value)", "value": format_value(suppressed)})
    return rows


def qi_distributions(classes: Any, before: Any, k: Any, plots: bool, *, max_values: int = 30) -> list[dict[str, Any]]:
    """Per quasi-identifier: its granularity before, its released values (named) with their records after.

    Parameters
    ----------
    classes : ClassTable
        The released class table.
    before : ClassTable or None
        The input's records that the release keeps (:func:`veil.report._truth.released_input`);
        ``None`` leaves the "before" figures out.
    k : int or None
        No original value held by fewer than ``k`` records is named (none at all without ``k``).
    plots : bool
        Draw a bar chart of the released values (up to ``max_values`` of them).

    Returns
    -------
    list of dict
        ``name``, ``before`` (``distinct``, ``range``; or None), ``after`` (released values
        and suppressed records), ``values`` (released values), ``suppressed`` (bool: every
        released value is ``*``), ``chart``.
    """
    if classes is None:
        return []
    if before is not None and tuple(before.quasi_identifiers) != tuple(classes.quasi_identifiers):
        before = None
    k_value, everything_star = _k(k), set(whole_suppressed(classes))
    out = []
    for i, name in enumerate(classes.quasi_identifiers):
        labels, counts = _released_counts(classes, i)
        chart = None
        if plots and 0 < len(labels) <= max_values:
            from veil.report._plots import band_chart

            chart = band_chart(labels, [("released", counts)], ylabel="records", title=str(name))
        out.append({
            "name": str(name),
            "before": None if before is None else _granularity(before, i, k_value),
            "values": format_value(len(labels)),
            "rows": _rows(labels, counts, int(classes.suppressed), max_values),
            "suppressed": str(name) in everything_star,
            "chart": chart,
        })
    return out
