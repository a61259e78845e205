"""The report's plots, drawn with matplotlib's Agg renderer and embedded as PNG data URIs.

matplotlib is imported inside each function (``import veil.report`` stays
cheap) and only through its object-oriented API (:class:`~matplotlib.figure.Figure`
with an Agg canvas): :mod:`matplotlib.pyplot` and its global state are never
touched, so rendering a report neither changes the caller's backend nor leaks
figures.  The plots carry no text from the data (only fixed labels, column
names and numbers; dollar signs escaped, so no name is read as mathtext, and
control characters written escaped, ``\\x1b``), and
the PNG carries no software metadata, so the same report renders to the same
bytes.
"""

from __future__ import annotations

import base64
import io
import math
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from typing import Any

import numpy as np

from veil._lazy import require
from veil._text import printable

__all__ = ["risk_chart", "class_size_chart", "band_chart"]

#: Colours of the "before" and "after" series (colour-blind safe pair).
BEFORE = "#b8b8b8"
AFTER = "#1f6fb2"
SINGLE = "#1f6fb2"

_RC = {
    "font.size": 9.0,
    "axes.spines.top": False,
    "axes.spines.right": False,
    "axes.titlesize": 10.0,
}


def _png(fig: Any) -> str:
    """Render ``fig`` with Agg and return it as a ``data:image/png;base64,...`` URI."""
    from matplotlib.backends.backend_agg import FigureCanvasAgg

    FigureCanvasAgg(fig)
    buffer = io.BytesIO()
    fig.savefig(buffer, format="png", dpi=110, metadata={"Software": None})
    return "data:image/png;base64," + base64.b64encode(buffer.getvalue()).decode("ascii")


def _text(value: Any) -> str:
    """A label from the data as drawn: control characters written escaped, dollar signs too (no mathtext)."""
    return printable(value).replace("$", r"\$")


def _finite(value: Any) -> float | None:
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return None
    value = float(value)
    return value if math.isfinite(value) else None


@contextmanager
def _axes(height: float) -> Iterator[Any]:
    """One constrained-layout figure of width 7.2 in and ``height`` in, drawn under :data:`_RC`;
    yields its axes."""
    require("matplotlib", feature="the HTML report's plots")
    import matplotlib
    from matplotlib.figure import Figure

    with matplotlib.rc_context(_RC):
        yield Figure(figsize=(7.2, height), layout="constrained").add_subplot()


def _bar_layout(n_series: int, n_labels: int) -> tuple[float, np.ndarray, list[str]]:
    """Bar width, group positions and colours of ``n_series`` grouped bar series."""
    colours = [SINGLE] if n_series == 1 else [BEFORE, AFTER] + [f"C{i}" for i in range(2, n_series)]
    return 0.8 / max(n_series, 1), np.arange(n_labels, dtype=float), colours


def _finish(ax: Any, *, legend: bool, ncols: int = 1) -> str:
    """Light y grid behind the data, a frameless legend when asked; the figure as a PNG data URI.

    The legend sits outside the axes, above them (constrained layout makes room), so it
    never covers a bar: inside, at the upper right, it hid the "records at risk" bars.
    """
    ax.grid(axis="y", alpha=0.3)
    ax.set_axisbelow(True)
    if legend:
        ax.figure.legend(frameon=False, loc="outside upper right", ncols=ncols)
    return _png(ax.figure)


def risk_chart(labels: Sequence[str], series: Sequence[tuple[str, Sequence[Any]]]) -> str:
    """Grouped bars of risk figures in [0, 1], one group per label, one bar per series.

    Parameters
    ----------
    labels : sequence of str
        The figures (``prosecutor highest``, ...).
    series : sequence of (name, values)
        One or two series (``before``, ``after``); a value that is not a
        number in [0, 1] (not a risk) is drawn as a missing bar marked ``n/a``.

    Returns
    -------
    str
        A PNG data URI.
    """
    with _axes(3.0) as ax:
        n = len(series)
        tallest = 1.0
        width, x, colours = _bar_layout(n, len(labels))
        for i, (name, values) in enumerate(series):
            heights = [_fraction(v) for v in values]
            offsets = x + (i - (n - 1) / 2) * width
            bars = ax.bar(offsets, [h if h is not None else 0.0 for h in heights], width * 0.92,
                          label=name, color=colours[i])
            for bar, h in zip(bars, heights):
                text = "n/a" if h is None else f"{h:.3g}"
                ax.annotate(text, (bar.get_x() + bar.get_width() / 2, bar.get_height()),
                            xytext=(0, 2), textcoords="offset points", ha="center", va="bottom", fontsize=7)
        ax.set_xticks(x, list(labels), rotation=0)
        ax.tick_params(axis="x", labelsize=7.5)
        ax.set_ylim(0.0, tallest * 1.12)
        ax.set_ylabel("risk (fraction)")
        return _finish(ax, legend=n > 1, ncols=n)


def _fraction(value: Any) -> float | None:
    """``value`` when it is a number in [0, 1], else None (drawn as ``n/a``)."""
    number = _finite(value)
    return number if number is not None and 0.0 <= number <= 1.0 else None


def _edges(largest: int) -> np.ndarray:
    """Bin edges for class sizes 1..largest: one per size up to 20, log-spaced above."""
    if largest <= 20:
        return np.arange(0.5, largest + 1.5)
    # integer edges 1 .. largest + 1 (rounding makes the small ones unique sizes), shifted by
    # one half so that every integer size falls inside a bin
    return np.unique(np.round(np.logspace(0, math.log10(largest + 1), 40))) - 0.5


def class_size_chart(released: np.ndarray | None, original: np.ndarray | None, *, k: int | None = None) -> str:
    """Histogram of equivalence class sizes (classes per size), released and original.

    Parameters
    ----------
    released, original : numpy.ndarray of int, optional
        Class sizes (suppressed records are in no class).  At least one.
    k : int, optional
        Drawn as a dashed line (the achieved or required k).

    Returns
    -------
    str
        A PNG data URI.
    """
    present = [c for c in (released, original) if c is not None and len(c)]
    largest = int(max((int(c.max()) for c in present), default=1))
    edges = _edges(largest)
    with _axes(3.0) as ax:
        both = released is not None and original is not None
        if original is not None and len(original):
            ax.hist(original, bins=edges, histtype="stepfilled" if not both else "step", linewidth=1.4,
                    color=BEFORE if both else SINGLE, label="original" if both else None)
        if released is not None and len(released):
            ax.hist(released, bins=edges, histtype="stepfilled", alpha=0.75 if both else 1.0,
                    color=AFTER if both else SINGLE, label="released" if both else None)
        if largest > 20:
            ax.set_xscale("log")
        ax.set_yscale("log")
        if k is not None and k >= 1:
            ax.axvline(k, color="#c0392b", linestyle="--", linewidth=1.0)
            ax.annotate(f"k = {k}", (k, 1), xycoords=("data", "axes fraction"), xytext=(3, -10),
                        textcoords="offset points", color="#c0392b", fontsize=8)
        ax.set_xlabel("class size (records per equivalence class)")
        ax.set_ylabel("classes")
        return _finish(ax, legend=both)


def band_chart(labels: Sequence[str], series: Sequence[tuple[str, Sequence[Any]]], *, ylabel: str, title: str) -> str:
    """Grouped bars of counts, one group per label, one bar per series (``before``, ``after``).

    Returns
    -------
    str
        A PNG data URI.
    """
    with _axes(2.8) as ax:
        n = len(series)
        width, x, colours = _bar_layout(n, len(labels))
        for i, (name, values) in enumerate(series):
            ax.bar(x + (i - (n - 1) / 2) * width, [float(v) for v in values], width * 0.92, label=name, color=colours[i])
        ticks = [_text(label) for label in labels]
        ax.set_xticks(x, ticks, rotation=30 if len(labels) > 6 else 0, ha="right" if len(labels) > 6 else "center")
        ax.tick_params(axis="x", labelsize=7)
        ax.set_ylabel(ylabel)
        ax.set_title(_text(title))
        return _finish(ax, legend=n > 1, ncols=n)
