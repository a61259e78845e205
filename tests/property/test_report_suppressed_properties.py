"""Property: no report figure (JSON or HTML) depends on the QI values of the records the release suppressed.

Two inputs differ only in the QI values of a few rare records.  Whenever the two
releases are the same table (same transformation, the rare records suppressed in
both, the same released rows), a reader of the file cannot tell the inputs apart,
and neither may a reader of the report.  The hierarchies are given (fixed in
advance), as with a hierarchy file: a hierarchy built from the data takes its
leaves from every record (docs/reports.md, "What 'before' may show").

Left out of the comparison: the record of the search itself (``search`` counts and
the ``lattice`` block: which nodes were checked, satisfying, failing or pruned),
which follows every input record; docs/reports.md says so.
"""

from __future__ import annotations

import re

import pandas as pd
import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from veil.anonymization import anonymize
from veil.dataset import Dataset
from veil.hierarchy import Hierarchy
from veil.models import KAnonymity
from veil.report import render_html

VALUES = ["v0", "v1", "v2", "v3", "r0", "r1"]  # r0 and r1 are held by the rare records only


def _hierarchy(name: str) -> Hierarchy:
    return Hierarchy.from_rows([[v, f"g{i // 2}", "*"] for i, v in enumerate(VALUES)], name=name)


def _dataset(common: list[tuple[str, str, str]], rare: list[tuple[str, str, str]]) -> Dataset:
    frame = pd.DataFrame(common + rare, columns=["q0", "q1", "s"])
    return Dataset.from_pandas(frame, quasi_identifiers=["q0", "q1"], sensitive=["s"],
                               hierarchies={"q0": _hierarchy("q0"), "q1": _hierarchy("q1")})


def _public(report: dict) -> dict:
    return {k: v for k, v in report.items() if k not in ("seconds_total", "provenance", "search", "lattice")}


def _page(html: str) -> str:
    html = html.split('<details id="json">')[0]
    html = re.sub(r'<section id="(search|lattice)">.*?</section>', "", html, flags=re.S)
    return re.sub(r"<tr><th scope=\"row\">total time \(s\)</th>.*?</tr>", "", html, flags=re.S)


common_rows = st.lists(st.tuples(st.sampled_from(VALUES[:4]), st.sampled_from(VALUES[:4]), st.sampled_from("ab")),
                       min_size=12, max_size=40)
rare_values = st.tuples(st.sampled_from(VALUES), st.sampled_from(VALUES[4:]))


@pytest.mark.slow
@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much])
@given(common=common_rows, first=st.lists(rare_values, min_size=1, max_size=2), data=st.data(),
       k=st.integers(2, 4), mode=st.sampled_from(["blank", "drop"]))
def test_the_report_is_the_same_whatever_the_suppressed_records_held(common, first, data, k, mode):
    second = data.draw(st.lists(rare_values, min_size=len(first), max_size=len(first)))
    sensitive = data.draw(st.lists(st.sampled_from("abc"), min_size=len(first), max_size=len(first)))
    runs = []
    for rare in (first, second):
        rows = [(a, b, s) for (a, b), s in zip(rare, sensitive)]
        runs.append(anonymize(_dataset(common, rows), [KAnonymity(k=k)], suppression_limit=0.25, seed=0,
                              suppressed=mode))
    a, b = runs
    # the same release: same levels, the rare records (and only those) suppressed, the same rows
    assume(a.report["transformation"] == b.report["transformation"])
    assume(a.report["suppressed"] == b.report["suppressed"] == len(first))
    rare_rows = set(range(len(common), len(common) + len(first)))
    for run in runs:
        assume(set((run.classes.row_classes() < 0).nonzero()[0]) == rare_rows)
    assume(sorted(map(tuple, a.data.astype(str).values)) == sorted(map(tuple, b.data.astype(str).values)))
    assert _public(a.report) == _public(b.report)
    assert _page(render_html(a, plots=False)) == _page(render_html(b, plots=False))
