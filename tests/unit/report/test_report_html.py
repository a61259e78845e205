"""veil.report: the HTML report of anonymization, risk and check reports.

The expected figures are read from the report dict in each test (never typed
in), then looked up in the rendered page's table rows, so a test fails if a
figure is missing, mislabelled or in the wrong column.
"""

from __future__ import annotations

import base64
import json
import os
import re
from html.parser import HTMLParser

import matplotlib
import numpy as np
import pandas as pd
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import veil.anonymization as veil_anonymization
from veil.anonymization import anonymize
from veil.dataset import Dataset
from veil.errors import OutputError
from veil.hierarchy import Hierarchy
from veil.models import DistinctLDiversity, KAnonymity, check
from veil.report import format_value, render_html, report_kind, write_html
from veil.report._html import ANONYMIZATION_KEYS, CHECK_KEYS, RISK_KEYS
from veil.risk import assess


class _Rows(HTMLParser):
    """Every table row of a page as the list of its cells' texts; image sources apart."""

    def __init__(self) -> None:
        super().__init__()
        self.rows: list[list[str]] = []
        self.images: list[str] = []
        self._row: list[str] | None = None
        self._cell: list[str] | None = None

    def handle_starttag(self, tag, attrs):
        if tag == "tr":
            self._row = []
        elif tag in ("td", "th") and self._row is not None:
            self._cell = []
        elif tag == "img":
            self.images.append(dict(attrs).get("src", ""))

    def handle_endtag(self, tag):
        if tag in ("td", "th") and self._cell is not None and self._row is not None:
            self._row.append(" ".join("".join(self._cell).split()))
            self._cell = None
        elif tag == "tr" and self._row is not None:
            self.rows.append(self._row)
            self._row = None

    def handle_data(self, data):
        if self._cell is not None:
            self._cell.append(data)


def parse(page: str) -> _Rows:
    parser = _Rows()
    parser.feed(page)
    return parser


def _charted(classes) -> int:
    """Quasi-identifiers whose released values get a chart: 1 to 30 of them."""
    return sum(1 <= np.unique(classes.codes[:, i]).size <= 30 for i in range(len(classes.quasi_identifiers)))


def number(value) -> str:
    """The report's number format, written out independently of ``format_value``."""
    if isinstance(value, int) or (isinstance(value, float) and value.is_integer()):
        return f"{int(value):,}"
    return f"{value:,.0f}" if abs(value) >= 1e4 else f"{value:.4g}"


@pytest.fixture(scope="module")
def release(adult):
    """The demo release: Adult, 5-anonymity and distinct 2-diversity, 5% suppression."""
    models = [KAnonymity(k=5), DistinctLDiversity(sensitive="salary-class", l=2)]
    return anonymize(adult, models, suppression_limit=0.05, metric="loss", seed=0)


@pytest.fixture(scope="module")
def page(release):
    return render_html(release.report, classes=release.classes, original=release.classes.base)


def test_adult_page_shows_the_release_figures_of_the_report(release, page):
    report = release.report
    rows = parse(page).rows
    assert ["records in", number(report["records"]), ""] in rows
    assert ["records out", number(report["records_out"]), ""] in rows
    share = f"{report['suppressed'] / report['records']:.2%} of the records"
    assert ["suppressed records", number(report["suppressed"]), share] in rows
    assert ["suppressed records dropped from the output", number(report["suppressed_dropped"]), ""] in rows
    limit = ["suppression limit", f"{report['suppression_limit']:.2%}",
             "largest share of records that may be suppressed"]
    assert limit in rows
    assert ["utility metric optimised", report["metric"], ""] in rows


def test_adult_page_shows_the_transformation_with_hierarchy_heights(release, page):
    rows = parse(page).rows
    heights = dict(zip(release.classes.quasi_identifiers, (h.height for h in release.classes.hierarchies)))
    for name, level in release.report["transformation"].items():
        assert [name, str(level), str(heights[name]), ""] in rows, name
    # the bar's width is the level's share of the hierarchy's height
    age = release.report["transformation"]["age"]
    assert f'width: {100 * age / heights["age"]:.0f}%' in page


def test_adult_page_shows_models_and_achieved_levels(release, page):
    report = release.report
    rows = parse(page).rows
    for name in report["models"]:
        assert f"<li>{name}</li>" in page
    achieved = report["achieved"]
    assert ["k-anonymity: k (smallest class)", number(achieved["k"])] in rows
    assert ["equivalence classes", number(achieved["classes"])] in rows
    assert ["average prosecutor risk", number(achieved["average_risk"])] in rows
    salary = achieved["sensitive"]["salary-class"]
    assert ["distinct l-diversity: l", number(salary["distinct_l"])] in rows
    assert ["entropy l-diversity: l", number(salary["entropy_l"])] in rows
    assert ["t-closeness (equal distance): t", number(salary["t_equal"])] in rows
    assert ["(α,k)-anonymity: α", number(salary["alpha_k"]["alpha"])] in rows
    assert salary["enhanced_beta_likeness"] is None
    assert ["enhanced β-likeness: β", "—"] in rows


def test_adult_page_shows_every_utility_figure(release, page):
    report = release.report
    rows = parse(page).rows
    for name, value in report["utility"].items():
        label = f"{name} (optimised)" if name == report["metric"] else name
        matching = [r for r in rows if r and r[0] == label]
        assert len(matching) == 1, name
        assert matching[0][1] == ("n/a" if value is None else number(value)), name


def test_adult_page_shows_risk_before_and_after(release, page):
    before, after = release.report["risk_before"], release.report["risk_after"]
    rows = parse(page).rows
    expected = {
        "prosecutor risk: highest": ("prosecutor", "highest"),
        "prosecutor risk: average": ("prosecutor", "average"),
        "records at risk": ("prosecutor", "records_at_risk_count"),
        "journalist risk: highest": ("journalist", "highest"),
        "journalist risk: average": ("journalist", "average"),
        "marketer risk": ("marketer", "average"),
    }
    for label, (group, key) in expected.items():
        assert [label, number(before[group][key]), number(after[group][key])] in rows, label
    assert ["sample uniques", number(before["sample_uniques_count"]), number(after["sample_uniques_count"])] in rows


def test_adult_page_shows_class_sizes_of_both_tables(release, page):
    rows = parse(page).rows
    released = release.classes
    # "before" is the input's records that the release keeps (the suppressed ones counted, not described)
    kept_rows = release.classes.row_classes() >= 0
    base_rows = release.classes.base.row_classes()
    sizes = np.bincount(base_rows[kept_rows])
    sizes = sizes[sizes > 0]
    assert ["equivalence classes", number(len(sizes)), number(released.n_classes)] in rows
    assert ["smallest class", number(int(sizes.min())), number(int(released.counts.min()))] in rows
    assert ["largest class", number(int(sizes.max())), number(int(released.counts.max()))] in rows
    assert ["suppressed records", number(released.suppressed), number(released.suppressed)] in rows


def test_adult_page_embeds_its_png_plots_and_is_self_contained(release, page):
    images = parse(page).images
    # the risk chart, the class-size histogram, the records per risk band, and the released
    # values of each quasi-identifier with up to 30 of them
    assert len(images) == 3 + _charted(release.classes)
    for src in images:
        assert src.startswith("data:image/png;base64,")
        assert base64.b64decode(src.split(",", 1)[1])[:8] == b"\x89PNG\r\n\x1a\n"
    assert "<script" not in page.lower()
    assert "<link" not in page.lower()
    assert not re.search(r'(src|href)="https?:', page)
    assert "<style>" in page


def test_adult_page_quotes_no_record_values(adult, release, page):
    # an input value appears only where the release writes it (a released label); the
    # sensitive attribute's values never do
    for name in ("workclass", "occupation", "marital-status", "native-country", "salary-class"):
        released = set(release.data[name].unique()) if name != "salary-class" else set()
        for value in adult.frame[name].unique():
            if len(value) >= 6 and value not in released:
                assert value not in page, (name, value)
    assert "50K" not in page


def test_adult_page_embeds_the_whole_report_as_json(release, page):
    match = re.search(r'<details id="json">.*?<pre>(.*?)</pre>', page, flags=re.S)
    assert match is not None
    from html import unescape

    assert json.loads(unescape(match.group(1))) == json.loads(json.dumps(release.report))


def test_rendering_is_deterministic_and_leaves_the_matplotlib_backend_alone(release):
    backend = matplotlib.get_backend()
    first = render_html(release.report, classes=release.classes)
    second = render_html(release.report, classes=release.classes)
    assert first == second
    assert matplotlib.get_backend() == backend


# ---------------------------------------------------------------- escaping
XSS = '<script>alert("veil")</script>'


def test_labels_from_the_report_are_escaped():
    report = {
        "transformation": {XSS: 1},
        "models": [XSS],
        "metric": XSS,
        "utility": {XSS: 0.5},
        "achieved": {"k": 2, "quasi_identifiers": [XSS], "sensitive": {XSS: {"distinct_l": 2, "notes": [XSS]}}},
        "risk_before": {"prosecutor": {"highest": 1.0}, "journalist": {"case": XSS}},
        XSS: XSS,
    }
    page = render_html(report, title=XSS)
    assert "<script" not in page.lower()
    assert "&lt;script&gt;alert(&#34;veil&#34;)&lt;/script&gt;" in page
    assert parse(page).rows  # still a well-formed page


def test_a_column_named_script_in_a_real_release_is_escaped():
    qi, sensitive = '<script>alert("qi")</script>', '"><img src=x onerror=alert(1)>'
    frame = pd.DataFrame({qi: ["a", "b", "a", "b", "c", "c"], sensitive: ["x", "y", "y", "x", "x", "y"]})
    hierarchy = Hierarchy.from_rows([["a", "ab", "*"], ["b", "ab", "*"], ["c", "c", "*"]], name=qi)
    dataset = Dataset.from_pandas(frame, quasi_identifiers=[qi], sensitive=[sensitive], hierarchies={qi: hierarchy})
    result = anonymize(dataset, [KAnonymity(k=2), DistinctLDiversity(sensitive=sensitive, l=2)], seed=0)
    page = render_html(result.report, classes=result.classes, original=result.classes.base)
    assert "<script" not in page.lower()
    assert "<img src=x" not in page
    assert "&lt;script&gt;alert(&#34;qi&#34;)&lt;/script&gt;" in page
    assert [qi, str(result.transformation[qi]), "2", ""] in parse(page).rows


# ---------------------------------------------------------------- shapes
@pytest.mark.parametrize("key", ANONYMIZATION_KEYS)
def test_each_key_of_the_report_may_be_missing(release, key):
    report = {k: v for k, v in release.report.items() if k != key}
    page = render_html(report, plots=False)
    assert page.startswith("<!DOCTYPE html>")
    if key == "records":
        assert not any(r[:1] == ["records in"] for r in parse(page).rows)


def test_nested_keys_may_be_missing(release):
    report = json.loads(json.dumps(release.report))
    del report["risk_before"]["prosecutor"]
    del report["risk_after"]["journalist"]
    del report["achieved"]["sensitive"]["salary-class"]["alpha_k"]
    report["search"] = {}
    page = render_html(report)
    rows = parse(page).rows
    assert ["prosecutor risk: highest", "", number(release.report["risk_after"]["prosecutor"]["highest"])] in rows
    assert not any(r[:1] == ["(α,k)-anonymity: α"] for r in rows)
    assert 'id="search"' not in page
    assert len(parse(page).images) == 1


def test_empty_and_unknown_reports_render():
    assert "The report is empty" in render_html({})
    page = render_html({"something": [1, 2]})
    assert report_kind({"something": 1}) == "unknown"
    assert "Other fields" in page and "something" in page


def test_unknown_keys_are_listed_as_other_fields(release):
    page = render_html({**release.report, "deidentify": {"dropped": ["name"], "seconds": 1.5}}, plots=False)
    other = re.search(r'<section id="other">(.*?)</section>', page, flags=re.S)
    assert other is not None and "transformation" not in other.group(1)
    # readable rows, not a JSON dump
    rows = parse(other.group(1)).rows
    assert rows == [["deidentify › dropped", "name"], ["deidentify › seconds", "1.5"]]
    assert "&#34;" not in other.group(1) and "<pre>" not in other.group(1)


json_values = st.recursive(
    st.none() | st.booleans() | st.integers(-10**6, 10**6) | st.floats(allow_nan=True, allow_infinity=True)
    | st.text(max_size=8),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(
        st.sampled_from(["highest", "average", "k", "sensitive", "notes", "case", "x"]) | st.text(max_size=4),
        inner, max_size=4),
    max_leaves=12,
)


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.dictionaries(st.sampled_from(sorted(set(ANONYMIZATION_KEYS + RISK_KEYS + CHECK_KEYS))) | st.text(max_size=5),
                       json_values, max_size=8))
def test_any_report_shaped_dict_renders(report):
    page = render_html(report, plots=False)
    assert page.startswith("<!DOCTYPE html>") and page.rstrip().endswith("</html>")


@settings(max_examples=15, deadline=None)
@given(st.fixed_dictionaries({
    "risk_before": st.fixed_dictionaries({"prosecutor": st.dictionaries(
        st.sampled_from(["highest", "average", "records_at_risk"]), json_values)}),
    "risk_after": st.dictionaries(st.sampled_from(["prosecutor", "marketer", "sample_uniques"]), json_values),
}))
def test_risk_chart_draws_any_values(report):
    render_html(report)


def test_risk_report_alone(adult):
    risk = assess(adult, population_fraction=0.1, sensitive=["salary-class"]).to_dict()
    assert report_kind(risk) == "risk"
    page = render_html(risk)
    rows = parse(page).rows
    assert "Re-identification risk report" in page
    assert ["prosecutor risk: highest", number(risk["prosecutor"]["highest"])] in rows
    assert ["records at risk", number(risk["prosecutor"]["records_at_risk_count"])] in rows
    assert ["Pitman", number(risk["population_uniques"]["pitman"])] in rows
    top = risk["quasi_identifiers"][0]
    assert [", ".join(top["attributes"]), number(top["distinction"]), number(top["separation"]),
            number(top["classes"])] in rows
    disclosure = risk["sensitive"]["salary-class"]
    assert ["homogeneous classes", number(disclosure["homogeneous_classes"])] in rows
    assert len(parse(page).images) == 1


def test_check_report_with_requirements(adult):
    report = check(adult, require="k>=5, l>=2")
    data = report.to_dict()
    assert report_kind(data) == "check"
    rows = parse(render_html(data, plots=False)).rows
    assert ["k-anonymity: k (smallest class)", number(data["k"])] in rows
    for requirement in data["requirements"]:
        result = "met" if requirement["met"] else "not met"
        assert [requirement["clause"], result, number(requirement["actual"]), ""] in rows


def test_format_value():
    assert format_value(30162) == "30,162"
    assert format_value(np.int64(7)) == "7"
    assert format_value(10.0) == "10"
    assert format_value(0.0059903047091412745) == "0.00599"
    assert format_value(360695.0103631247) == "360,695"
    assert format_value(None) == format_value(float("nan")) == "—"
    assert format_value(float("inf")) == "∞"
    assert format_value(True) == "yes"
    assert format_value(["a", 1000]) == "a, 1,000"


def test_bad_arguments_are_type_errors(release):
    with pytest.raises(TypeError, match="mapping"):
        render_html([("records", 1)])
    with pytest.raises(TypeError, match="'classes' parameter of render_html must be a ClassTable"):
        render_html(release.report, classes=release.data)


# ---------------------------------------------------------------- write_html
def test_write_html_writes_the_page_and_leaves_no_temporary_file(release, tmp_path):
    path = write_html(release.report, tmp_path / "out" / "report.html", plots=False, title="Release 7")
    assert path == tmp_path / "out" / "report.html"
    assert os.listdir(tmp_path / "out") == ["report.html"]
    assert path.read_text(encoding="utf-8") == render_html(release.report, plots=False, title="Release 7")


def test_write_html_replaces_an_existing_file_whole(release, tmp_path):
    path = tmp_path / "report.html"
    path.write_text("old", encoding="utf-8")
    write_html(release.report, path, plots=False)
    assert path.read_text(encoding="utf-8").startswith("<!DOCTYPE html>")
    assert os.listdir(tmp_path) == ["report.html"]


def test_a_failed_rename_keeps_the_old_file_and_removes_the_temporary_one(release, tmp_path, monkeypatch):
    path = tmp_path / "report.html"
    path.write_text("old", encoding="utf-8")

    def refuse(src, dst):
        raise PermissionError(13, "Permission denied")

    monkeypatch.setattr(os, "replace", refuse)
    with pytest.raises(OutputError, match=r"^Cannot write '.*report\.html': Permission denied; nothing was published\.$"):
        write_html(release.report, path, plots=False)
    assert path.read_text(encoding="utf-8") == "old"
    assert os.listdir(tmp_path) == ["report.html"]


def test_a_failed_render_writes_nothing(release, tmp_path):
    path = tmp_path / "report.html"
    path.write_text("old", encoding="utf-8")
    with pytest.raises(TypeError):
        write_html(release.report, path, classes="not a class table")
    assert path.read_text(encoding="utf-8") == "old"
    assert os.listdir(tmp_path) == ["report.html"]


def test_write_html_refuses_a_folder(release, tmp_path):
    with pytest.raises(OutputError, match="it is a folder"):
        write_html(release.report, tmp_path, plots=False)
    assert os.listdir(tmp_path) == []


# ---------------------------------------------------------------- every algorithm's report
@pytest.mark.parametrize("algorithm", [a for a in getattr(veil_anonymization, "ALGORITHMS", ("lattice",))
                                       if a != "mdav"])  # MDAV needs numeric QIs, Adult's are not
def test_reports_of_every_algorithm_render(adult, algorithm):
    label = "salary-class" if algorithm == "tds" else None
    result = anonymize(adult, [KAnonymity(k=5)], suppression_limit=0.05, seed=0, algorithm=algorithm, label=label)
    report = result.report
    page = render_html(result)  # the result itself: its report and class tables
    rows = parse(page).rows
    assert ["records in", number(report["records"]), ""] in rows
    assert ["k-anonymity: k (smallest class)", number(report["achieved"]["k"])] in rows
    if report.get("recoding"):
        assert not report["transformation"]
        assert ["groups formed by the recoding", number(report["recoding"]["groups"])] in rows
        assert "Local recoding" in page
        assert ["equivalence classes", number(result.classes.n_classes)] in rows  # released table only
    else:
        kept = result.classes.base.n_classes - int((result.classes.base_map < 0).sum())  # suppressed: not "before"
        assert ["equivalence classes", number(kept), number(result.classes.n_classes)] in rows
    # risk chart, class sizes, records per risk band, and the released values of each quasi-identifier
    # (up to 30 of them: more are listed without a chart)
    assert len(parse(page).images) == 3 + _charted(result.classes)


@pytest.mark.parametrize("value", [1.7976931348623157e308, -1.7976931348623157e308, 1.5, -0.2])
def test_risk_chart_draws_a_value_outside_0_1_as_missing(value):
    # found by test_risk_chart_draws_any_values: the largest float made the axis limit infinite
    report = {"risk_before": {"prosecutor": {"highest": value, "average": 0.25}},
              "risk_after": {"prosecutor": {"highest": 0.2, "average": value}}}
    assert render_html(report).startswith("<!DOCTYPE html>")
