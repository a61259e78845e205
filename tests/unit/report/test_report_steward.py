"""What the report shows a steward: levels in words, whole-QI suppression, every warning, the token, the demo's words."""

from __future__ import annotations

import re

import numpy as np
import pandas as pd
import pytest
from typer.testing import CliRunner

import veil
from veil.classes import ClassTable
from veil.cli import app
from veil.cli.cmd_demo import verdicts
from veil.hierarchy import build
from veil.report import render_html
from veil.report._levels import describe_level
from veil.report._truth import released_input


@pytest.mark.parametrize(("level", "spec", "words"), [
    (0, "interval:10,50", "original values"),
    (1, "interval:10,50", "10-wide bands"),
    (2, "interval:10,50", "50-wide bands"),
    (3, "interval:10,50", "suppressed (every value written as *)"),
    (1, "interval:quantiles=4,2", "4 quantile groups of the records"),
    (3, "mask:1", "masked 3 characters from the right"),
    (1, "mask:2", "masked 2 characters from the right"),
    (1, "date:month,year", "month"),
    (2, "Date:month,year", "year"),
    (1, "round:10,100", "rounded to multiples of 10"),
    (1, "group:8", "values held by fewer than 8 records pooled as (other)"),
    (1, "suppress", "suppressed (every value written as *)"),
    (2, "auto (interval:5,32)", "32-wide bands"),
    (1, "auto (mask:2; a code column)", "masked 2 characters from the right"),
    (2, "hierarchies/age.csv", "level 2"),
])
def test_a_level_is_described_from_its_spec(level, spec, words):
    assert describe_level(level, spec) == words


def test_a_file_level_is_described_by_its_place_and_the_released_values():
    assert describe_level(2, "age.csv", height=4, values=6) == "level 2 of 4 (6 released values)"
    assert describe_level(4, "age.csv", height=4, values=1) == "suppressed (every value written as *)"
    assert describe_level(1, "interval:10", height=2, values=1) == "10-wide bands (1 released value)"
    assert describe_level("x") == "level x"


def _ages(frame_ages, levels, *, k=3, spec="interval:10"):
    frame = pd.DataFrame({"age": frame_ages, "sex": ["F", "M"] * (len(frame_ages) // 2) + ["F"] * (len(frame_ages) % 2)})
    hierarchy = build(spec, sorted(set(frame_ages)), name="age")
    base = ClassTable.from_dataset(veil.Dataset.from_pandas(frame, quasi_identifiers=["age", "sex"]),
                                   hierarchies={"age": hierarchy})
    chosen = base.generalize(levels)
    return base, chosen.suppress(np.asarray(chosen.counts) < k)


def test_the_columns_table_says_what_a_level_means():
    base, released = _ages(["31", "32", "33", "34", "41", "42", "43", "44"], {"age": 1, "sex": 0}, k=2)
    report = {"transformation": {"age": 1, "sex": 0}, "hierarchies": {"age": "interval:10", "sex": "suppress"},
              "columns": [{"name": "age", "role": "quasi-identifier", "treatment": "generalized", "level": 1},
                          {"name": "sex", "role": "quasi-identifier", "treatment": "generalized", "level": 0}]}
    page = render_html(report, classes=released, original=base, plots=False)
    section = page.split('id="columns"')[1].split("</section>")[0]
    assert "generalized: 10-wide bands (2 released values) (level 1)" in section
    assert "generalized: original values (level 0)" in section
    assert "level 1<" not in section


def test_a_quasi_identifier_suppressed_in_every_record_is_warned_and_marked():
    base, released = _ages(["31", "32", "33", "34", "41", "42", "43", "44"], {"age": 2, "sex": 0})
    page = render_html({"transformation": {"age": 2, "sex": 0}, "records": 8, "suppressed": 0, "achieved": {"k": 3}},
                       classes=released, original=base, plots=False)
    warnings = page.split('id="warnings"')[1].split("</section>")[0]
    assert "Quasi-identifier &#39;age&#39; is suppressed in every record" in warnings
    assert "&#39;sex&#39; is suppressed" not in warnings
    distributions = page.split('id="distributions"')[1].split("</section>")[0]
    assert distributions.count("suppressed in every record") == 1
    # before: the input's granularity (8 ages, 31 to 44 would name values held by 1 record: no range)
    assert "8 distinct values; range no value held by 3 or more records" in distributions
    assert re.search(r"<td>\*</td><td class=\"num\">8</td>", distributions)


def test_without_k_no_original_value_is_named():
    base, released = _ages(["31", "32", "33", "34", "41", "42", "43", "44"], {"age": 2, "sex": 0})
    page = render_html({"transformation": {"age": 2, "sex": 0}}, classes=released, original=base, plots=False)
    distributions = page.split('id="distributions"')[1].split("</section>")[0]
    assert "8 distinct values<" in distributions and "31" not in distributions and "range" not in distributions.split("</p>")[1]


def test_every_warning_of_the_report_is_shown_and_not_as_an_other_field():
    text = "3 classes are 2-diverse in 'income' only through missing values."
    page = render_html({"transformation": {"age": 0}, "warnings": [text, "The rows are in input order."],
                        "suppressed_records": "blank", "classes_released": 4}, plots=False)
    warnings = page.split('id="warnings"')[1].split("</section>")[0]
    assert "only through missing values" in warnings and "The rows are in input order." in warnings
    assert 'id="other"' not in page


@pytest.mark.parametrize(("mode", "words"), [
    ("blank", "the token * in every quasi-identifier and every sensitive attribute"),
    ("drop", "left out of the file"),
    ("keep", "its sensitive values are published"),
])
def test_the_suppressed_token_is_named(mode, words):
    page = render_html({"transformation": {"age": 0}, "records": 9, "suppressed": 2, "suppressed_records": mode},
                       plots=False)
    release = page.split('id="release"')[1].split("</section>")[0]
    assert "suppressed records written as" in release and words in release


def test_no_before_figure_when_a_class_of_the_input_is_partly_suppressed():
    frame = pd.DataFrame({"zip": ["1"] * 4 + ["2"] * 4, "sex": ["F"] * 8})
    base = ClassTable.from_pandas(frame, quasi_identifiers=["zip", "sex"])
    # a local suppression of one record of class "1": the rest of its class is released
    rows = np.zeros(8, dtype=bool)
    rows[0] = True
    assert released_input(None, base, rows) is None
    assert released_input(None, base, np.zeros(8, dtype=bool)) is base
    whole = released_input(None, base, np.arange(8) < 4)
    assert whole.n_classes == 1 and whole.suppressed == 4


def test_the_legend_sits_outside_the_bars(monkeypatch):
    from veil.report import _plots

    figures = []
    monkeypatch.setattr(_plots, "_png", lambda fig: figures.append(fig) or "data:image/png;base64,")
    _plots.risk_chart(["prosecutor\nhighest", "records\nat risk", "sample\nuniques"],
                      [("before", [1.0, 1.0, 1.0]), ("after", [0.2, 0.9, 0.95])])
    from matplotlib.backends.backend_agg import FigureCanvasAgg

    fig = figures[0]
    FigureCanvasAgg(fig).draw()
    renderer = fig.canvas.get_renderer()
    ax = fig.axes[0]
    assert ax.get_legend() is None and len(fig.legends) == 1
    legend, axes = fig.legends[0].get_window_extent(renderer), ax.get_window_extent(renderer)
    assert legend.y0 >= axes.y1 - 1  # above the axes: no bar is covered


def test_the_demo_figures_are_said_in_words():
    words = verdicts({"utility": {"loss": 0.31}, "achieved": {
        "k": 5, "sensitive": {"salary": {"delta_disclosure": 0.3}, "job": {"delta_disclosure": 2.0},
                              "x": {"delta_disclosure": None}}}})
    assert words[0].startswith("information loss 0.31: 31% of the detail of the quasi-identifiers is gone")
    assert words[0].endswith("moderate.")
    assert "at least 4 others" in words[1] and "1/5 = 0.2" in words[1]
    assert "δ-disclosure 0.30 on salary" in words[2] and "1.35 times" in words[2] and words[2].endswith("low: a class tells little about it.")
    assert "δ-disclosure 2.00 on job" in words[3] and "7.39 times" in words[3] and "high" in words[3]
    assert len(words) == 4
    assert verdicts({"utility": {"loss": 0.7}})[0].endswith("heavy: check that the release is still useful.")
    assert verdicts({}) == []


def test_the_demo_points_to_its_html_report(tmp_path):
    result = CliRunner().invoke(app, ["demo", "--out", str(tmp_path / "demo"), "-q"])
    assert result.exit_code == 0, result.output
    text = " ".join(result.stdout.split())
    assert f"Open the HTML report in a browser: {tmp_path / 'demo' / 'report.html'}" in text
    assert "information loss" in text and "δ-disclosure" in text and "What the figures mean" in text
