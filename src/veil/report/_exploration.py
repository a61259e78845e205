"""The privacy–utility frontier as a page for people (``veil explore --html``).

One self-contained HTML page: the frontier and lattice figure embedded as PNG,
and a table of every point of the sweep (its parameters, the frontier's two
axes, k, and whether it is on the frontier), with the chosen point marked.
The page is built from the same ``--json`` payload the machines read, so the
two never disagree.
"""

from __future__ import annotations

import base64
from collections.abc import Mapping
from typing import Any

from veil.report._format import as_dict, format_value, items

__all__ = ["render_exploration"]


def _rows(payload: Mapping[str, Any]) -> tuple[list[str], list[dict[str, Any]]]:
    axes = [as_dict(a) for a in items(payload.get("frontier_axes"))]
    header = ["parameters", "k"] + [f"{a.get('key')} ({a.get('better')} is better)" for a in axes] + ["frontier"]
    chosen = payload.get("chosen")
    rows = []
    for index, point in enumerate(items(payload.get("points"))):
        point = as_dict(point)
        params = ", ".join(f"{k}={format_value(v)}" for k, v in as_dict(point.get("parameters")).items())
        feasible = point.get("feasible", True)
        values = [format_value(as_dict(point.get(str(a.get("section")))).get(str(a.get("key")))) if feasible
                  else "infeasible" for a in axes]
        rows.append({
            "cells": [params, format_value(as_dict(point.get("privacy")).get("k")) if feasible else "—", *values,
                      ("yes" if point.get("frontier") else "no") + (" (chosen)" if index == chosen else "")],
            "chosen": index == chosen, "frontier": bool(point.get("frontier")),
        })
    return header, rows


def render_exploration(payload: Mapping[str, Any], *, figure_png: bytes | None = None,
                       title: str = "Privacy–utility frontier") -> str:
    """Render ``veil explore``'s JSON payload (and its figure) as one HTML page.

    Parameters
    ----------
    payload : mapping
        The ``--json`` document: ``points``, ``frontier_axes``, ``chosen``,
        optionally ``lattice`` and ``notes``.
    figure_png : bytes, optional
        The frontier (and lattice view) figure as PNG bytes, embedded as a
        data URI.
    title : str
        The page title.

    Returns
    -------
    str
        The HTML document (autoescaped; no scripts, no external files).

    Examples
    --------
    >>> page = render_exploration({"points": [{"parameters": {"k": 2}, "feasible": True, "frontier": True,
    ...     "privacy": {"k": 2, "highest_risk": 0.5}, "utility": {"loss": 0.1}}],
    ...     "frontier_axes": [{"section": "privacy", "key": "highest_risk", "better": "lower"},
    ...                       {"section": "utility", "key": "loss", "better": "lower"}], "chosen": 0})
    >>> "k=2" in page and "yes (chosen)" in page
    True
    """
    import veil
    from veil.report._html import environment

    header, rows = _rows(payload)
    lattice = as_dict(payload.get("lattice"))
    figure = None if figure_png is None else "data:image/png;base64," + base64.b64encode(figure_png).decode("ascii")
    view = {
        "title": str(title), "version": veil.__version__, "header": header, "rows": rows, "figure": figure,
        "lattice": {str(k): format_value(v) for k, v in as_dict(lattice.get("counts")).items()},
        "optimum": ", ".join(f"{q}={format_value(v)}" for q, v in lattice["optimum"].items())
        if isinstance(lattice.get("optimum"), dict) else format_value(lattice.get("optimum")) if lattice else "",
        "notes": [format_value(n) for n in items(payload.get("notes"))],
    }
    return environment().get_template("exploration.html.j2").render(view=view)
