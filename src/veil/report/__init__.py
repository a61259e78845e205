"""Reports for people: one self-contained HTML page per JSON report.

veil's JSON reports are for machines (``veil anonymize --json``,
``veil risk --json``, ``veil check --json``; the contracts are in
``docs/anonymization.md`` and ``docs/risk.md``).  :func:`render_html` turns
any of them into a single HTML file with inline CSS and plots embedded as
PNG (matplotlib, Agg renderer): the transformation, records in, out and
suppressed, requested models and achieved levels, utility, risk before and
after, and a histogram of equivalence class sizes when the class table is
given.  :func:`write_html` writes it atomically.  See ``docs/reports.md``.

Examples
--------
>>> import veil
>>> from veil.models import KAnonymity
>>> from veil.report import write_html
>>> adult = veil.datasets.load_adult()
>>> result = veil.anonymize(adult, [KAnonymity(k=5)], suppression_limit=0.05, seed=0)
>>> write_html(result.report, "report.html", classes=result.classes,
...            original=result.classes.base)  # doctest: +SKIP
"""

from veil.report._format import format_value
from veil.report._html import render_html, report_kind, write_html
from veil.report._exploration import render_exploration
from veil.report._synthesis import render_synthesis_html
from veil.report._truth import provenance

__all__ = ["render_html", "write_html", "report_kind", "format_value", "provenance", "render_exploration",
           "render_synthesis_html"]
