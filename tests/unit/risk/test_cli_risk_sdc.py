"""``veil risk`` with --weight, --household, --suda and --per-record: the JSON contract of issue 34."""

from __future__ import annotations

import json

import numpy as np
import pandas as pd
from typer.testing import CliRunner

from veil.cli import app

FRANCDAT = ("Key1,Key2,Key3,Key4,w,hh\n1,2,5,1,18,1\n1,2,1,1,45.5,1\n1,2,1,1,39,2\n3,3,1,5,17,2\n"
            "4,3,1,4,541,3\n4,3,1,1,8,3\n6,2,1,5,5,4\n1,2,5,1,92,4\n")


def test_json_and_per_record(tmp_path):
    data = tmp_path / "francdat.csv"
    data.write_text(FRANCDAT)
    out, rows = tmp_path / "r.json", tmp_path / "rows.csv"
    result = CliRunner().invoke(app, ["risk", str(data), "--qi", "Key1,Key2,Key3,Key4", "--weight", "w",
                                      "--household", "hh", "--suda", "--json", str(out), "--per-record", str(rows)])
    assert result.exit_code == 0, result.output
    report = json.loads(out.read_text())
    ir = report["individual_risk"]
    assert {"mean", "max", "expected_reidentifications", "share", "histogram", "weighted"} <= set(ir)
    assert ir["weighted"] is True and abs(ir["max"] - 0.4023595) < 1e-7
    assert set(report["household_risk"]) == {"mean", "max", "expected_reidentifications", "share"}
    s = report["suda2"]
    assert {"max_size", "special_uniques", "max_score", "dis_suda", "attribute_contribution"} <= set(s)
    assert set(s["dis_suda"]) == {"mean", "max"} and set(s["attribute_contribution"]) == {"Key1", "Key2", "Key3", "Key4"}
    frame = pd.read_csv(rows)
    assert frame.columns.tolist() == ["row", "fk", "Fk", "risk", "suda_score", "dis_suda"]
    assert frame["row"].tolist() == list(range(1, 9)) and frame["fk"].tolist() == [2, 2, 2, 1, 1, 1, 1, 2]
    # households are records (1, 2), (3, 4), (5, 6), (7, 8): each member's household risk is
    # 1 - (1 - r_a)(1 - r_b), and ER sums it over the records (two per household)
    hh = 1 - (1 - frame["risk"].to_numpy().reshape(4, 2)).prod(axis=1)
    assert abs(report["household_risk"]["expected_reidentifications"] - 2 * hh.sum()) < 1e-12
    assert abs(report["household_risk"]["max"] - hh.max()) < 1e-15


def test_without_weight_every_weight_is_one(tmp_path):
    data = tmp_path / "francdat.csv"
    data.write_text(FRANCDAT)
    out = tmp_path / "r.json"
    result = CliRunner().invoke(app, ["risk", str(data), "--qi", "Key1,Key2,Key3,Key4", "--json", str(out)])
    assert result.exit_code == 0, result.output
    ir = json.loads(out.read_text())["individual_risk"]
    # 6 classes of 8 records: ER = sum of 1/f_k over records = number of classes
    assert ir["weighted"] is False and ir["expected_reidentifications"] == 6.0 and ir["share"] == 0.75


def test_suda_on_duckdb_engine_equals_local(tmp_path):
    data = tmp_path / "francdat.csv"
    data.write_text(FRANCDAT)
    got = {}
    for engine in ("local", "duckdb"):
        out = tmp_path / f"{engine}.json"
        result = CliRunner().invoke(app, ["risk", str(data), "--qi", "Key1,Key2,Key3,Key4", "--suda",
                                          "--engine", engine, "--json", str(out)])
        assert result.exit_code == 0, result.output
        report = json.loads(out.read_text())
        got[engine] = (report["suda2"], report["individual_risk"])
    assert got["local"] == got["duckdb"]


def test_html_page_has_the_sdc_section(tmp_path):
    data = tmp_path / "francdat.csv"
    data.write_text(FRANCDAT.replace("Key4", "<b>Key4</b>"))
    pages = []
    for name in ("a.html", "b.html"):
        result = CliRunner().invoke(app, ["risk", str(data), "--qi", "Key1,Key2,Key3,<b>Key4</b>", "--weight", "w",
                                          "--suda", "--html", str(tmp_path / name)])
        assert result.exit_code == 0, result.output
        pages.append((tmp_path / name).read_text())
    page = pages[0]
    assert page == pages[1]  # the same report renders to the same bytes
    section = page[page.index('<section id="sdc">'):]
    assert "threshold 0.2" in section and section.count("data:image/png;base64,") == 2
    assert "contribution of &lt;b&gt;Key4&lt;/b&gt;" in section and "<b>Key4</b>" not in section
