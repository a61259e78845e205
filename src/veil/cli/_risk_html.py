"""``veil risk --html``: the risk report's page (:func:`veil.report.render_html`) with the statistical
disclosure control section: the individual-risk histogram with the threshold, the household risk, and
SUDA2's attribute contributions.

The section is built here from the report's JSON objects alone (``individual_risk``, ``household_risk``,
``suda2``), escaped with :func:`html.escape`, its plots PNGs embedded as data URIs (matplotlib, Agg, no
metadata: the same report gives the same bytes), and placed before the page's raw-JSON part.
"""

from __future__ import annotations

import base64
import html
import io
from collections.abc import Mapping
from typing import Any

__all__ = ["risk_page"]


def _png(fig: Any) -> str:
    import matplotlib.pyplot as plt

    buffer = io.BytesIO()
    fig.savefig(buffer, format="png", dpi=96, bbox_inches="tight", metadata={"Software": None})
    plt.close(fig)
    return "data:image/png;base64," + base64.b64encode(buffer.getvalue()).decode("ascii")


def _histogram(individual: Mapping[str, Any], threshold: float) -> str:
    """Records per individual-risk bin, the threshold drawn as a line."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    edges = individual["histogram"]["edges"]
    counts = individual["histogram"]["counts"]
    fig, ax = plt.subplots(figsize=(6.4, 2.8))
    ax.bar(edges[:-1], counts, width=[b - a for a, b in zip(edges, edges[1:])], align="edge",
           color="#4c72b0", edgecolor="white")
    ax.axvline(threshold, color="#c44e52", linestyle="--", label=f"threshold {threshold:g}")
    ax.set_xlabel("individual risk")
    ax.set_ylabel("records")
    ax.legend(frameon=False)
    return _png(fig)


def _contributions(contribution: Mapping[str, float]) -> str:
    """SUDA2's attribute contributions as horizontal bars (percent of the total score)."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    names = sorted(contribution, key=lambda name: contribution[name])
    fig, ax = plt.subplots(figsize=(6.4, 0.4 * len(names) + 0.8))
    ax.barh(range(len(names)), [contribution[n] for n in names], color="#55a868")
    ax.set_yticks(range(len(names)))
    ax.set_yticklabels(names)
    ax.set_xlabel("percent of the total SUDA score from MSUs holding the attribute")
    return _png(fig)


def _rows(pairs: list[tuple[str, str]]) -> str:
    return "".join(f"<tr><td>{html.escape(a)}</td><td class=\"num\">{html.escape(b)}</td></tr>" for a, b in pairs)


def _section(report: Mapping[str, Any], threshold: float) -> str:
    """The SDC section of the page (HTML)."""
    individual = report["individual_risk"]
    pairs = [("mean risk", f"{individual['mean']:.6g}"), ("highest risk", f"{individual['max']:.6g}"),
             ("expected re-identifications", f"{individual['expected_reidentifications']:.6g}"),
             ("share (expected re-identifications / records)", f"{individual['share']:.6g}"),
             ("sampling weights", "yes" if individual["weighted"] else "no (every weight 1)")]
    household = report.get("household_risk")
    if household is not None:
        pairs += [("household risk: mean", f"{household['mean']:.6g}"),
                  ("household risk: expected re-identifications", f"{household['expected_reidentifications']:.6g}")]
    parts = ['<section id="sdc">', "<h2>Individual risk (statistical disclosure control)</h2>",
             '<p class="meta">The negative-binomial individual risk of each record (sdcMicro\'s indivRisk), '
             "from its class's sample size and, with sampling weights, its estimated population size.</p>",
             f'<figure><img src="{_histogram(individual, threshold)}" alt="Histogram of the records\' individual '
             f'risk, with the threshold {threshold:g}"></figure>',
             f"<table><tbody>{_rows(pairs)}</tbody></table>"]
    suda = report.get("suda2")
    if suda is not None:
        rows = [("largest MSU searched", str(suda["max_size"])), ("special uniques", str(suda["special_uniques"])),
                ("highest SUDA score", f"{suda['max_score']:g}"),
                ("DIS-SUDA mean / max", f"{suda['dis_suda']['mean']:.6g} / {suda['dis_suda']['max']:.6g}")]
        rows += [(f"contribution of {name}", f"{pct:.2f}%") for name, pct in
                 sorted(suda["attribute_contribution"].items(), key=lambda kv: -kv[1])]
        parts += ["<h3>SUDA2: special uniques</h3>",
                  f'<figure><img src="{_contributions(suda["attribute_contribution"])}" alt="Bar chart of each '
                  'attribute\'s contribution to the SUDA scores"></figure>',
                  f"<table><tbody>{_rows(rows)}</tbody></table>"]
    parts.append("</section>")
    return "\n".join(parts) + "\n"


def risk_page(report: Mapping[str, Any], threshold: float) -> str:
    """The ``veil risk --html`` page: the risk report's page with the SDC section before its raw JSON."""
    from veil.report import render_html

    page = render_html(dict(report), title="Re-identification risk report")
    section = _section(report, threshold)
    for anchor in ('<section id="other">', '<details id="json">', "</main>"):
        if anchor in page:
            return page.replace(anchor, section + anchor, 1)
    return page + section
