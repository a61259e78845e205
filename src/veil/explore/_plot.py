"""The frontier plot and the lattice view, drawn with matplotlib's object API (never pyplot).

The coordinates drawn are read back from the figure's own artists
(:func:`plotted_points`) and written into the image file's metadata
(``veil:points``), so a reader can check that the picture and the JSON agree.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from veil.explore._lattice import FAILING, PRUNED, SATISFYING, LatticeView
from veil.explore._sweep import Exploration

__all__ = ["Drawing", "chosen_point", "exploration_figure", "plotted_points", "save_figure", "POINTS_KEY"]

#: The image metadata key holding the plotted points as JSON.
POINTS_KEY = "veil:points"
_COLOURS = {SATISFYING: "#1a9850", PRUNED: "#a6d96a", FAILING: "#d73027"}


def chosen_point(exploration: Exploration) -> int | None:
    """The frontier point nearest the ideal corner (both axes scaled to [0, 1] over feasible points).

    ``None`` when no point is feasible.
    """
    xy = exploration.coordinates()
    frontier = np.array([p["frontier"] for p in exploration.points], dtype=np.bool_)
    if not frontier.any():
        return None
    valid = ~np.isnan(xy).any(axis=1)
    low, high = xy[valid].min(axis=0), xy[valid].max(axis=0)
    span = np.where(high > low, high - low, 1.0)
    scaled = (xy - low) / span
    for j, (_, _, maximize) in enumerate(exploration.objectives):
        if maximize:
            scaled[:, j] = 1.0 - scaled[:, j]
    distance = np.where(frontier, np.hypot(scaled[:, 0], scaled[:, 1]), np.inf)
    return int(np.argmin(distance))


@dataclass
class Drawing:
    """A figure and, per scatter of the frontier plot (its gid), the JSON point index of each offset."""

    figure: Any
    index: dict[str, list[int]] = field(default_factory=dict)


def exploration_figure(exploration: Exploration, *, lattice: LatticeView | None = None, chosen: int | None = None) -> Drawing:
    """The frontier (and the lattice view of the chosen point, when given) as a matplotlib Figure."""
    from matplotlib.figure import Figure

    fig = Figure(figsize=(11.0 if lattice is not None else 6.0, 4.5), layout="constrained")
    axes = fig.subplots(1, 2 if lattice is not None else 1, squeeze=False)[0]
    index = _frontier_axes(axes[0], exploration, chosen)
    if lattice is not None:
        _lattice_axes(axes[1], lattice)
    return Drawing(fig, index)


def _frontier_axes(ax: Any, exploration: Exploration, chosen: int | None) -> dict[str, list[int]]:
    xy = exploration.coordinates()
    index = np.flatnonzero(~np.isnan(xy).any(axis=1))
    on = np.array([bool(exploration.points[i]["frontier"]) for i in index], dtype=np.bool_)
    (xs, xkey, _), (ys, ykey, ymax) = exploration.objectives
    off = ax.scatter(xy[index[~on], 0], xy[index[~on], 1], s=22, c="#9e9e9e", label="point", zorder=2)
    off.set_gid("points")
    front = ax.scatter(xy[index[on], 0], xy[index[on], 1], s=34, c="#1f6fb2", label="Pareto frontier", zorder=3)
    front.set_gid("frontier")
    order = index[on][np.argsort(xy[index[on], 0], kind="stable")]
    ax.plot(xy[order, 0], xy[order, 1], color="#1f6fb2", linewidth=1.0, zorder=1)
    if chosen is not None:
        ax.scatter([xy[chosen, 0]], [xy[chosen, 1]], s=140, facecolors="none", edgecolors="black",
                   linewidths=1.5, label="chosen", zorder=4).set_gid("chosen")
    ax.set_xlabel(f"{xkey.replace('_', ' ')} (prosecutor, lower is better)")
    ax.set_ylabel(f"{ykey} ({'higher' if ymax else 'lower'} is better)")
    ax.set_title("privacy–utility frontier")
    ax.legend(loc="best", fontsize=8)
    # which JSON point each plotted offset is, in drawing order
    return {"points": index[~on].tolist(), "frontier": index[on].tolist()}


def _lattice_axes(ax: Any, lattice: LatticeView) -> None:
    sums = lattice.level_sum
    # spread the nodes of each level sum over [-0.5, 0.5] (stable order: the lattice's)
    rank = np.zeros(len(sums), dtype=np.float64)
    for value in np.unique(sums):
        members = np.flatnonzero(sums == value)
        rank[members] = (np.arange(len(members)) + 0.5) / len(members) - 0.5
    for status in (FAILING, PRUNED, SATISFYING):
        mask = lattice.status == status
        ax.scatter(sums[mask], rank[mask], s=8, c=_COLOURS[status], label=f"{status} ({int(mask.sum())})",
                   linewidths=0)
    if lattice.optimum is not None:
        at = np.flatnonzero((lattice.nodes == np.asarray(lattice.optimum)).all(axis=1))
        if len(at):
            ax.scatter(sums[at], rank[at], marker="*", s=200, c="gold", edgecolors="black", label="optimum", zorder=5)
    ax.set_xlabel("level sum (generalization height)")
    ax.set_yticks([])
    ax.set_title(f"lattice ({len(sums)} nodes)")
    ax.legend(loc="upper left", fontsize=7, markerscale=1)


def plotted_points(drawing: Drawing) -> list[dict[str, Any]]:
    """The frontier plot's points as drawn: ``{"index", "x", "y", "frontier"}`` per point, read from the artists."""
    ax = drawing.figure.axes[0]
    index = drawing.index
    out = []
    for collection in ax.collections:
        gid = collection.get_gid()
        if gid not in ("points", "frontier"):
            continue
        offsets = np.asarray(collection.get_offsets(), dtype=np.float64).reshape(-1, 2)
        for i, (x, y) in zip(index[gid], offsets):
            out.append({"index": int(i), "x": float(x), "y": float(y), "frontier": gid == "frontier"})
    return sorted(out, key=lambda p: p["index"])


def save_figure(drawing: Drawing, path: Path, *, format: str) -> None:
    """Render the figure (Agg/SVG backends) to ``path`` with the plotted points in its metadata."""
    from matplotlib.backends.backend_agg import FigureCanvasAgg

    fig = drawing.figure
    FigureCanvasAgg(fig)
    points = json.dumps(plotted_points(drawing), allow_nan=False)
    if format == "png":
        metadata = {"Software": None, POINTS_KEY: points}
    else:  # SVG accepts Dublin Core keys only
        metadata = {"Creator": None, "Date": None, "Description": points}
    fig.savefig(path, format=format, dpi=110, metadata=metadata)

