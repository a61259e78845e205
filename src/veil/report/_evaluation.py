"""The HTML page of ``veil evaluate``: each attack's risk with its interval, against the baseline.

One picture (matplotlib's Agg, embedded as a PNG data URI, no data values in it:
attack names, column names and rates only) and one table.  The page quotes no
record: the evaluation holds rates and counts only.
"""

from __future__ import annotations

import base64
import html
import io
from typing import Any

__all__ = ["evaluation_rows", "render_evaluation_html"]


def evaluation_rows(result: dict[str, Any]) -> list[tuple[str, dict[str, Any]]]:
    """Every attack of an evaluation as ``(name, figures)``, in reading order."""
    rows: list[tuple[str, dict[str, Any]]] = []
    for mode, figures in (result.get("singling_out") or {}).items():
        rows.append((f"singling out, {mode}", figures))
    if result.get("linkability"):
        rows.append(("linkability", result["linkability"]))
    for column, figures in (result.get("inference") or {}).items():
        rows.append((f"inference of {column}", figures))
    for name, figures in (result.get("attacks") or {}).items():
        if "risk" in figures:
            rows.append((name.replace("_", " "), figures))
        else:
            rows.extend((f"{name.replace('_', ' ')} of {column}", f) for column, f in figures.items())
    return rows


def _chart(rows: list[tuple[str, dict[str, Any]]]) -> str:
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure

    from veil._text import printable

    fig = Figure(figsize=(7.0, 0.45 * len(rows) + 1.2))
    FigureCanvasAgg(fig)
    ax = fig.add_subplot(1, 1, 1)
    y = list(range(len(rows)))[::-1]
    risk = [r["risk"] for _, r in rows]
    low = [r["risk"] - r["ci"][0] for _, r in rows]
    high = [r["ci"][1] - r["risk"] for _, r in rows]
    ax.errorbar(risk, y, xerr=[low, high], fmt="o", color="#1f6fb2", capsize=3, label="risk (main beyond control)")
    ax.scatter([r["baseline"] for _, r in rows], y, marker="|", s=120, color="#b8b8b8",
               label="random-guess success")
    ax.set_yticks(y)
    ax.set_yticklabels([printable(name).replace("$", r"\$") for name, _ in rows])
    ax.set_xlim(0, 1)
    ax.set_xlabel("share of targets")
    ax.legend(loc="upper center", bbox_to_anchor=(0.5, -0.25 if len(rows) > 2 else -0.4), ncol=2, frameon=False)
    fig.tight_layout()
    buffer = io.BytesIO()
    fig.savefig(buffer, format="png", dpi=110, metadata={"Software": None})
    return "data:image/png;base64," + base64.b64encode(buffer.getvalue()).decode("ascii")


def _pct(x: float | None) -> str:
    return "—" if x is None else f"{100 * x:.1f}%"


def render_evaluation_html(result: dict[str, Any]) -> str:
    """The evaluation as one self-contained HTML page."""
    rows = evaluation_rows(result)
    params = result.get("parameters", {})
    body = []
    for name, r in rows:
        note = "" if r.get("meaningful", True) else "no better than random guessing: says nothing"
        body.append(
            f"<tr><td>{html.escape(name)}</td><td>{_pct(r['risk'])}</td>"
            f"<td>{_pct(r['ci'][0])} – {_pct(r['ci'][1])}</td><td>{_pct(r['main'])}</td>"
            f"<td>{_pct(r.get('control'))}</td><td>{_pct(r['baseline'])}</td><td>{r['n_attacks']}</td>"
            f"<td>{html.escape(note)}</td></tr>")
    picture = f'<img alt="risk of each attack" src="{_chart(rows)}">' if rows else ""
    return f"""<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8"><title>veil evaluate</title>
<meta http-equiv="Content-Security-Policy" content="default-src 'none'; img-src data:; style-src 'unsafe-inline'">
<style>body{{font-family:sans-serif;max-width:60rem;margin:2rem auto;padding:0 1rem}}
table{{border-collapse:collapse}}td,th{{border-bottom:1px solid #ddd;padding:.3rem .6rem;text-align:right}}
td:first-child,th:first-child,td:last-child{{text-align:left}}</style></head><body>
<h1>What an attacker gains from this release</h1>
<p>Each attack ran on {params.get('n_attacks')} targets drawn from the records the release was made from
(<em>main</em>) and, the same way, from {params.get('control_records') or 'no'} control records that were not used
(<em>control</em>). The <strong>risk</strong> is the main success beyond the control's, as a share of what was left
to gain: (main − control) / (1 − control), with its {100 * float(params.get('confidence', 0.95)):.0f}% interval.
The control's success is what any sample of the same population would give away; the risk is what this release
adds. An attack that does no better than random guessing says nothing about the release.</p>
{picture}
<table><thead><tr><th>attack</th><th>risk</th><th>interval</th><th>main</th><th>control</th><th>random guess</th>
<th>attacks</th><th></th></tr></thead><tbody>
{''.join(body)}
</tbody></table>
<p>Differential privacy bounds every attacker; these attacks measure some. A low risk here is evidence, not a
guarantee.</p>
</body></html>
"""
