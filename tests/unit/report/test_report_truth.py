"""The HTML report tells one truth: every figure from one source, no two places disagree.

The page is parsed back (stdlib HTMLParser) into its tables, and each figure a
reader would compare across sections is checked against the JSON report and the
class tables it was drawn from.
"""

from __future__ import annotations

import hashlib
from html.parser import HTMLParser

import numpy as np
import pandas as pd
import pytest

import veil
from veil.classes import ClassTable
from veil.models import DistinctLDiversity, KAnonymity
from veil.report import provenance, render_html


class _Tables(HTMLParser):
    """Every <section id=...>'s table rows as lists of cell texts."""

    def __init__(self) -> None:
        super().__init__()
        self.sections: dict[str, list[list[str]]] = {}
        self._section = ""
        self._row: list[str] | None = None
        self._cell: list[str] | None = None

    def handle_starttag(self, tag, attrs):
        attrs = dict(attrs)
        if tag == "section":
            self._section = attrs.get("id", "")
            self.sections.setdefault(self._section, [])
        elif tag == "tr":
            self._row = []
        elif tag in ("td", "th") and self._row is not None:
            self._cell = []

    def handle_endtag(self, tag):
        if tag in ("td", "th") and self._cell is not None and self._row is not None:
            self._row.append("".join(self._cell).strip())
            self._cell = None
        elif tag == "tr" and self._row is not None:
            self.sections[self._section].append(self._row)
            self._row = None

    def handle_data(self, data):
        if self._cell is not None:
            self._cell.append(data)


def _tables(page: str) -> dict[str, list[list[str]]]:
    parser = _Tables()
    parser.feed(page)
    return parser.sections


def _n(text: str) -> int:
    return int(text.replace(",", ""))


@pytest.fixture(scope="module")
def adult_release():
    adult = veil.datasets.load_adult()
    return veil.anonymize(adult, [KAnonymity(k=5), DistinctLDiversity(sensitive="salary-class", l=2)],
                          suppression_limit=0.05)


@pytest.fixture(scope="module")
def page(adult_release):
    return render_html(adult_release, plots=False)


def test_suppressed_records_are_one_figure_everywhere(adult_release, page):
    tables = _tables(page)
    suppressed = adult_release.report["suppressed"]
    release = {row[0]: row[1] for row in tables["release"]}
    assert _n(release["suppressed records"]) == suppressed
    classes = {row[0]: row[1:] for row in tables["class-sizes"]}
    assert _n(classes["suppressed records"][-1]) == suppressed       # the released column
    bands = {row[0]: row[1:] for row in tables["record-risk"]}
    assert _n(bands["suppressed (no class)"][-1]) == suppressed
    # the achieved section no longer repeats a count of its own (it used to say 1,282
    # "records with * in every quasi-identifier" beside "0 records that arrived suppressed")
    achieved_labels = [row[0] for row in tables["models"]]
    assert not any("every quasi-identifier" in label for label in achieved_labels)


def test_every_record_is_in_one_risk_band_or_suppressed(adult_release, page):
    bands = _tables(page)["record-risk"][1:]                        # skip the header row
    records = adult_release.report["records"]
    assert sum(_n(row[1]) for row in bands) == records               # before: kept records in classes + suppressed
    assert sum(_n(row[2]) for row in bands) == records               # after: in classes + suppressed


def test_risk_bands_agree_with_the_class_sizes(adult_release, page):
    # after the release every class has >= 5 records, so no record has risk above 1/5
    bands = {row[0]: row[1:] for row in _tables(page)["record-risk"]}
    assert _n(bands["(0.2, 0.3333]"][1]) == 0 and _n(bands["(0.5, 1]"][1]) == 0
    # before: the kept records in classes of one (at their input values) are exactly those at risk 1
    base = adult_release.classes.base
    kept = np.asarray(adult_release.classes.base_map) >= 0
    singles = int(((np.asarray(base.counts) == 1) & kept).sum())
    assert 0 < singles < int((np.asarray(base.counts) == 1).sum())  # the suppressed singles are not counted
    assert _n(bands["(0.5, 1]"][0]) == singles


def test_qi_distributions_count_the_released_values(adult_release, page):
    result = adult_release
    released_in_classes = result.report["records"] - result.report["suppressed"]
    from veil.report._distributions import qi_distributions  # the section's own builder

    for dist in qi_distributions(result.classes, result.classes.base, 5, plots=False):
        rows = dist["rows"]
        assert rows[-1]["label"] == "suppressed records (no value)"
        assert _n(rows[-1]["value"]) == result.report["suppressed"]
        assert sum(_n(row["value"]) for row in rows[:-1]) == released_in_classes
    # the released labels are named as the release writes them (they are public)
    frame = result.data
    sex = {row[0]: _n(row[1]) for row in _tables(page)["distributions"] if row[0] in ("Male", "Female")}
    counts = frame["sex"].value_counts()
    assert sex == {"Male": int(counts["Male"]), "Female": int(counts["Female"])}


def test_before_shows_granularity_and_no_value_held_by_fewer_than_k_records():
    from veil.hierarchy import build

    ages = ["30"] * 6 + ["33"] + ["40"] * 6 + ["47"] + ["97"]
    frame = pd.DataFrame({"age": ages, "sex": ["F"] * len(ages)})
    hierarchy = build("interval:10", sorted(set(ages)), name="age")
    classes = ClassTable.from_dataset(
        veil.Dataset.from_pandas(frame, quasi_identifiers=["age", "sex"]), hierarchies={"age": hierarchy})
    chosen = classes.generalize({"age": 1, "sex": 0})
    released = chosen.suppress(np.asarray(chosen.counts) < 3)   # [90, 100) holds the one record of 97
    page = render_html({"transformation": {"age": 1, "sex": 0}, "records": 15, "suppressed": 1, "achieved": {"k": 3}},
                       classes=released, original=classes, plots=False)
    section = page.split('id="distributions"')[1].split("</section>")[0]
    rows = [row for row in _tables(page)["distributions"] if len(row) == 2]
    age = rows[:rows.index(["before", "1 distinct values"])] if ["before", "1 distinct values"] in rows else rows
    # kept records: 30 (6), 33 (1), 40 (6), 47 (1); 97 was suppressed: neither counted nor named
    assert "97" not in section and "[90, 100)" not in section
    assert ["before", "4 distinct values; range 30 to 40"] in age  # 33 and 47 are held by 1 < k = 3 record
    assert "33" not in section and "47" not in section
    assert ["[30, 40)", "7"] in age and ["[40, 50)", "7"] in age  # released values: named, as released
    assert ["suppressed records (no value)", "1"] in age


def test_warnings_name_homogeneous_classes_unchanged_columns_and_a_seed():
    frame = pd.DataFrame({"age": ["30"] * 4 + ["40"] * 4, "diagnosis": ["flu"] * 4 + ["flu", "hiv"] * 2})
    classes = ClassTable.from_pandas(frame, quasi_identifiers=["age"], sensitive=["diagnosis"])
    report = {
        "transformation": {"age": 0}, "records": 8, "suppressed": 0, "verified": True,
        "columns": [{"name": "age", "role": "quasi-identifier", "treatment": "generalized", "level": 0},
                    {"name": "ward", "role": "insensitive", "treatment": "unchanged"}],
        "output_order": {"shuffled": True, "seed": 7},
        "risk_after": {"prosecutor": {"records_at_risk_count": 3, "threshold": 0.2}},
    }
    page = render_html(report, classes=classes, plots=False)
    warnings = [row for row in _tables(page).get("warnings", [])]
    text = page.split('id="warnings"')[1].split("</section>")[0]
    assert "1 classes (4 records) hold one value of &#39;diagnosis&#39;" in text
    assert "Released unchanged: ward" in text
    assert "3 records are still above the risk threshold 0.2" in text
    assert "reproducible from the seed" in text
    assert warnings == []  # warnings are a list, not a table
    columns = _tables(page)["columns"]
    assert ["age", "quasi-identifier", "generalized: original values (level 0)"] in columns
    assert ["ward", "insensitive", "unchanged"] in columns


def test_provenance_fingerprints_the_input_and_is_shown(tmp_path):
    source = tmp_path / "input.csv"
    source.write_bytes(b"age;sex\n30;F\n")
    block = provenance(source, config={"k": 5})
    assert block["input_sha256"] == hashlib.sha256(b"age;sex\n30;F\n").hexdigest()
    assert block["veil_version"] == veil.__version__
    assert block["created"].endswith("Z")
    page = render_html({"transformation": {}, "records": 1, "provenance": block,
                        "hierarchies": {"age": "interval:5,10"}}, plots=False)
    rows = {row[0]: row[1] for row in _tables(page)["provenance"]}
    assert rows["input file SHA-256"] == block["input_sha256"]
    assert rows["config: k"] == "5"
    assert rows["hierarchy of age"] == "interval:5,10"


class _Bars(HTMLParser):
    """The lattice figure's bar segments (data-height, data-status, data-count) and chosen bar."""

    def __init__(self) -> None:
        super().__init__()
        self.segments: dict[tuple[int, str], int] = {}
        self.chosen: list[int] = []

    def handle_starttag(self, tag, attrs):
        attrs = dict(attrs)
        if tag == "rect" and "data-status" in attrs:
            self.segments[(int(attrs["data-height"]), attrs["data-status"])] = int(attrs["data-count"])
        elif tag == "g" and "chosen" in attrs.get("class", "").split():
            self.chosen.append(int(attrs["data-height"]))


def test_the_lattice_picture_table_and_json_agree(adult_release, page):
    report = adult_release.report
    block = report["lattice"]
    bars = _Bars()
    bars.feed(page)
    # the drawing: one segment per non-zero count, exactly the JSON's counts
    expected = {(h["height"], key): h[key] for h in block["heights"]
                for key in ("satisfying", "failing", "not_evaluated") if h[key]}
    assert bars.segments == expected
    assert bars.chosen == [block["chosen"]["height"]]
    # the table under it: one row per height, the "all" column the height's nodes
    rows = [row for row in _tables(page)["lattice"] if len(row) == 5 and row[0].isdigit()]
    assert [[_n(c) for c in row] for row in rows] == [
        [h["height"], h["satisfying"], h["failing"], h["not_evaluated"],
         h["satisfying"] + h["failing"] + h["not_evaluated"]] for h in block["heights"]]
    assert sum(_n(row[4]) for row in rows) == report["search"]["nodes_total"]
    assert sum(_n(row[1]) + _n(row[2]) for row in rows) == report["search"]["nodes_checked"]
    # the summary and the other sections: one lattice size, one chosen node
    summary = {row[0]: row[1] for row in _tables(page)["lattice"] if len(row) == 2}
    search = {row[0]: row[1] for row in _tables(page)["search"]}
    assert _n(summary["nodes in the lattice"]) == _n(search["transformations in the lattice"]) == 6480
    transformation = {row[0]: _n(row[1]) for row in _tables(page)["transformation"][1:]}
    assert summary["chosen node"] == ", ".join(f"{q}={v}" for q, v in transformation.items())
    assert transformation == report["transformation"] == block["chosen"]["levels"]
    assert _n(summary["chosen node's height (level sum)"]) == sum(transformation.values())


def test_utility_figures_that_read_values_are_taken_on_the_kept_records():
    from veil.hierarchy import Hierarchy
    from veil.report._truth import kept_classes
    from veil.utility import METRICS

    values = ["a", "b", "c", "z"]
    rows = [[v, "ab" if v in "ab" else "cz", "*"] for v in values]
    hierarchies = {q: Hierarchy.from_rows(rows, name=q) for q in ("q0", "q1")}
    common = [("a", "a", "y"), ("a", "b", "n"), ("b", "a", "y"), ("c", "c", "n")] * 4

    def release(rare):
        frame = pd.DataFrame(common + [rare], columns=["q0", "q1", "label"])
        data = veil.Dataset.from_pandas(frame, quasi_identifiers=["q0", "q1"], sensitive=["label"],
                                        hierarchies=hierarchies)
        # drop: a suppressed group of one record is never published (a published group holds at least k)
        return veil.anonymize(data, [KAnonymity(k=4)], suppression_limit=0.1, seed=0, label="label",
                              suppressed="drop")

    first, second = release(("a", "z", "y")), release(("c", "z", "n"))
    assert first.report["transformation"] == second.report["transformation"] == {"q0": 0, "q1": 0}
    assert first.report["suppressed"] == second.report["suppressed"] == 1
    for name in ("entropy", "kl", "infogain"):
        assert first.report["utility"][name] is not None
        assert first.report["utility"][name] == second.report["utility"][name], name
    # the figures are the kept records' own: 16 records in 4 classes at their input values
    kept = kept_classes(first.classes, first.classes.base, label="label")
    assert kept.n_records == 16 and sorted(kept.counts.tolist()) == [4, 4, 4, 4]
    assert first.report["utility"]["entropy"] == METRICS["entropy"].value(kept, label="label", weights=None,
                                                                          k=4, original=None) == 0.0
    # the cost of suppression still shows, by the count alone
    assert first.report["utility"]["loss"] > 0
