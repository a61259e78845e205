"""The report's lattice picture: what the full-domain search saw, per height, and the node it chose.

Drawn from the JSON report's ``lattice`` block only (written by
:func:`veil.pipeline._report.lattice_section` from the search's own record), so the
picture, the table under it and the JSON cannot disagree: one stacked bar per
height (a node's level sum) of the nodes the search judged *satisfying*,
judged *failing*, and *not evaluated* (tagged by a monotone model's
predictive tagging, or pruned by the loss bound: Kohlmayer et al., "Flash:
efficient, stable and optimal k-anonymity", PASSAT 2012), with the chosen
node's height marked.  Datafly's climb is listed step by step; a local
recoding (Mondrian, TDS, MDAV) has no lattice, and the section says so.

The picture is inline SVG laid out here as numbers and drawn by the template
(autoescaped: nothing is marked safe), so it needs no plotting library and
scales with the page.  Each bar segment carries ``data-height``,
``data-status`` and ``data-count`` so tests read the drawing back.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from veil.report._format import as_dict, format_value, items, number

__all__ = ["lattice", "STATUSES", "WIDTH", "HEIGHT"]

#: The outcomes, bottom to top in each bar: (JSON key, legend label, colour).
STATUSES = (
    ("failing", "failing", "#b03a2e"),
    ("satisfying", "satisfying", "#1e7d45"),
    ("not_evaluated", "not evaluated (tagged or pruned)", "#c9d1d9"),
)
#: The drawing's size in SVG user units (it scales to the page's width).
WIDTH, HEIGHT = 720, 280
_LEFT, _RIGHT, _TOP, _BOTTOM = 56, 12, 48, 36
#: The least height of a drawn segment, so that one node among a thousand is seen.
_MIN_SEGMENT = 2.0

_LOCAL = "The {algorithm} algorithm is a local recoding: each group of records is generalized on its own, so there is no lattice."


def _count(value: Any) -> int:
    figure = number(value)
    return int(figure) if figure is not None and figure >= 0 else 0


def _levels(entry: Mapping[str, Any]) -> str:
    return ", ".join(f"{name}={format_value(level)}" for name, level in as_dict(entry.get("levels")).items())


def _drawing(heights: list[dict[str, Any]], chosen: int | None) -> dict[str, Any]:
    """The stacked bars' geometry: one bar per height, segments bottom to top in :data:`STATUSES` order."""
    plot_w, plot_h = WIDTH - _LEFT - _RIGHT, HEIGHT - _TOP - _BOTTOM
    totals = [sum(_count(h.get(key)) for key, _, _ in STATUSES) for h in heights]
    tallest = max(totals + [1])
    band = plot_w / max(len(heights), 1)
    bars, floor = [], float(_TOP + plot_h)
    for i, (entry, total) in enumerate(zip(heights, totals)):
        x = _LEFT + i * band + band * 0.125
        y = floor
        segments = []
        for key, label, colour in STATUSES:
            count = _count(entry.get(key))
            if not count:
                continue
            size = max(plot_h * count / tallest, _MIN_SEGMENT)
            y -= size
            segments.append({"status": key, "label": label, "colour": colour, "count": count,
                             "y": round(y, 2), "h": round(size, 2), "text": format_value(count)})
        level = _count(entry.get("height"))
        bars.append({"height": level, "x": round(x, 2), "w": round(band * 0.75, 2), "segments": segments,
                     "top": round(y, 2), "total": total, "label_x": round(x + band * 0.375, 2),
                     "chosen": chosen is not None and level == chosen})
    ticks = [{"value": format_value(v), "y": round(floor - plot_h * v / tallest, 2)}
             for v in sorted({0, tallest // 2, tallest})]
    legend = [{"label": label, "colour": colour, "x": _LEFT + i * 190} for i, (_, label, colour) in enumerate(STATUSES)]
    return {"width": WIDTH, "height": HEIGHT, "bars": bars, "ticks": ticks, "legend": legend,
            "left": _LEFT, "right": WIDTH - _RIGHT, "floor": floor, "axis_y": HEIGHT - 6}


def lattice(report: Mapping[str, Any]) -> dict[str, Any] | None:
    """The Lattice section's view, from the report's ``lattice`` block alone; ``None`` without one.

    Returns
    -------
    dict or None
        ``algorithm``, ``note`` (a sentence when there is no lattice),
        ``summary`` rows (nodes in the lattice, chosen node and its height),
        ``rows`` (per height: satisfying, failing, not evaluated, all),
        ``drawing`` (the SVG geometry, see :func:`_drawing`) and ``path``
        (Datafly's steps).
    """
    block = as_dict(report.get("lattice"))
    if not block:
        return None
    algorithm = format_value(block.get("algorithm", "the algorithm"))
    view: dict[str, Any] = {"algorithm": algorithm, "note": None, "summary": [], "rows": [], "drawing": None,
                            "path": []}
    chosen = as_dict(block.get("chosen"))
    if block.get("nodes_total") is None and not chosen:
        view["note"] = _LOCAL.format(algorithm=algorithm)
        return view
    if block.get("nodes_total") is not None:
        view["summary"].append({"label": "nodes in the lattice", "value": format_value(block["nodes_total"])})
    height = None
    if chosen:
        height = _count(chosen.get("height"))
        view["summary"].append({"label": "chosen node", "value": _levels(chosen)})
        view["summary"].append({"label": "chosen node's height (level sum)", "value": format_value(height)})
    heights = [as_dict(h) for h in items(block.get("heights")) if as_dict(h)]
    for entry in heights:
        counts = [_count(entry.get(key)) for key in ("satisfying", "failing", "not_evaluated")]
        view["rows"].append({"height": format_value(_count(entry.get("height"))),
                             "values": [format_value(c) for c in [*counts, sum(counts)]],
                             "chosen": height is not None and _count(entry.get("height")) == height})
    if heights:
        view["drawing"] = _drawing(heights, height)
    for step, entry in enumerate(as_dict(e) for e in items(block.get("path"))):
        view["path"].append({"step": format_value(step), "height": format_value(_count(entry.get("height"))),
                             "levels": _levels(entry), "satisfying": bool(entry.get("satisfying"))})
    return view
