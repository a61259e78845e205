"""``veil explore``: the JSON contract, the plot's points against the JSON, errors."""

from __future__ import annotations

import json
import xml.etree.ElementTree as ET

import pytest
from PIL import Image
from typer.testing import CliRunner

from veil.cli import app
from veil.datasets import ADULT_QUASI_IDENTIFIERS, adult_path
from veil.explore import POINTS_KEY

runner = CliRunner()


def adult_args() -> list[str]:
    args = [adult_path(), "--qi", ",".join(ADULT_QUASI_IDENTIFIERS), "--sensitive", "salary-class"]
    for name in ADULT_QUASI_IDENTIFIERS:
        args += ["--hierarchy", f"{name}={adult_path(f'adult_hierarchy_{name}.csv')}"]
    return args


@pytest.fixture(scope="module")
def adult_run(tmp_path_factory):
    folder = tmp_path_factory.mktemp("explore")
    out, plot, html = folder / "points.json", folder / "frontier.png", folder / "frontier.html"
    result = runner.invoke(app, ["explore", *adult_args(), "--k", "2,5,10,25", "--suppression", "0,0.05",
                                 "--json", str(out), "--plot", str(plot), "--html", str(html)])
    assert result.exit_code == 0, result.output
    return json.loads(out.read_text()), plot


def test_json_contract(adult_run):
    payload, _ = adult_run
    assert len(payload["points"]) == 8
    for point in payload["points"]:
        assert set(point) >= {"parameters", "privacy", "utility", "frontier"}
        assert isinstance(point["frontier"], bool)
        assert set(point["parameters"]) == {"algorithm", "suppression", "k"}
        if point["feasible"]:
            assert set(point["privacy"]) >= {"k", "highest_risk", "records_at_risk"}
            assert point["privacy"]["k"] >= point["parameters"]["k"]
            assert 0.0 <= point["privacy"]["highest_risk"] <= 1.0 / point["parameters"]["k"]
            assert "loss" in point["utility"]
    assert any(p["frontier"] for p in payload["points"])
    assert payload["lattice"]["nodes"] == 2 * 5 * 2 * 3 * 4 * 3 * 3 * 3  # Adult's 8 hierarchies' heights + 1
    assert sum(payload["lattice"]["counts"].values()) == payload["lattice"]["nodes"]


def test_png_points_agree_with_the_json(adult_run):
    payload, plot = adult_run
    image = Image.open(plot)
    assert image.format == "PNG"
    drawn = json.loads(image.text[POINTS_KEY])  # read from the figure's artists just before saving
    feasible = [i for i, p in enumerate(payload["points"]) if p["feasible"]]
    assert [d["index"] for d in drawn] == feasible
    for d in drawn:
        point = payload["points"][d["index"]]
        assert d["x"] == pytest.approx(point["privacy"]["highest_risk"])
        assert d["y"] == pytest.approx(point["utility"]["loss"])
        assert d["frontier"] == point["frontier"]


def test_svg_plot_with_a_target(tmp_path):
    out, plot = tmp_path / "p.json", tmp_path / "p.svg"
    result = runner.invoke(app, ["explore", *adult_args(), "--k", "5,10", "--suppression", "0.05",
                                 "--target", "salary-class", "--classifier", "naive-bayes", "--no-lattice",
                                 "--json", str(out), "--plot", str(plot)])
    assert result.exit_code == 0, result.output
    payload = json.loads(out.read_text())
    assert payload["frontier_axes"][1] == {"section": "utility", "key": "workload:naive-bayes", "better": "higher"}
    description = ET.parse(plot).getroot().find(".//{http://purl.org/dc/elements/1.1/}description")
    drawn = json.loads(description.text)
    for d in drawn:
        assert d["y"] == pytest.approx(payload["points"][d["index"]]["utility"]["workload:naive-bayes"])
    assert "lattice" not in payload


@pytest.mark.parametrize(
    ("extra", "message"),
    [
        ([], "at least one privacy model"),
        (["--k", "5:2"], "START <= STOP"),
        (["--k", "5", "--plot", "x.pdf"], "--plot must end in .png or .svg"),
        (["--k", "5", "--algorithm", "nope"], "algorithm"),
    ],
)
def test_bad_input_exits_2_and_writes_nothing(tmp_path, extra, message):
    out = tmp_path / "never.json"
    extra = [str(tmp_path / e) if e.endswith(".pdf") else e for e in extra]
    result = runner.invoke(app, ["explore", *adult_args(), *extra, "--json", str(out)])
    assert result.exit_code == 2, result.output
    assert message in result.output.replace("\n", " ")
    assert list(tmp_path.iterdir()) == []


def test_configuration_file_mode(tmp_path):
    from pathlib import Path

    config = Path(__file__).resolve().parents[3] / "examples" / "adult-k5-l2.yaml"
    out = tmp_path / "c.json"
    result = runner.invoke(app, ["explore", str(config), "--k", "5", "--no-lattice", "--json", str(out)])
    assert result.exit_code == 0, result.output
    (point,) = json.loads(out.read_text())["points"]
    assert point["parameters"]["suppression"] == 0.05  # the configuration's suppression_limit
    assert point["privacy"]["k"] >= 5


def test_html_page_lists_the_json_points_and_embeds_the_figure(adult_run):
    import re

    payload, plot = adult_run
    page = plot.with_suffix(".html").read_text(encoding="utf-8")
    assert page.count('src="data:image/png;base64,') == 1
    rows = re.findall(r'<tr class="[^"]*">(.*?)</tr>', page, flags=re.S)
    assert len(rows) == len(payload["points"])
    for row, point in zip(rows, payload["points"]):
        cells = re.findall(r"<td>(.*?)</td>", row)
        from veil.report import format_value

        assert cells[0] == ", ".join(f"{k}={format_value(v)}" for k, v in point["parameters"].items())
        assert cells[-1].startswith("yes" if point["frontier"] else "no")
    chosen = [i for i, row in enumerate(rows) if "(chosen)" in row]
    assert chosen == [payload["chosen"]]


def small_args() -> list[str]:
    """Adult on three QIs: a sweep of a second or so."""
    qis = ["sex", "age", "race"]
    args = [adult_path(), "--qi", ",".join(qis), "--sensitive", "salary-class"]
    for name in qis:
        args += ["--hierarchy", f"{name}={adult_path(f'adult_hierarchy_{name}.csv')}"]
    return [*args, "--k", "2,5", "--suppression", "0.05"]


def _timeless(payload: dict) -> dict:
    """The payload without its timings (the sweep's and each point's ``seconds``)."""
    points = [{k: v for k, v in p.items() if k != "seconds"} for p in payload["points"]]
    return {**{k: v for k, v in payload.items() if k != "seconds"}, "points": points}


def test_json_on_stdout_is_alone_and_the_progress_is_on_stderr(tmp_path):
    """``--json -``: stdout parses as one JSON document, the same as ``--json FILE`` writes;
    the progress lines (every phase printed at once with interval 0) are all on stderr."""
    result = runner.invoke(app, ["explore", *small_args(), "--json", "-"], env={"VEIL_PROGRESS_INTERVAL": "0"})
    assert result.exit_code == 0, result.output
    payload = json.loads(result.stdout)
    out = tmp_path / "points.json"
    again = runner.invoke(app, ["explore", *small_args(), "--json", str(out)], env={"VEIL_PROGRESS_INTERVAL": "0"})
    assert again.exit_code == 0, again.output
    assert _timeless(payload) == _timeless(json.loads(out.read_text()))
    assert [p["parameters"]["k"] for p in payload["points"]] == [2, 5]
    lines = result.stderr.splitlines()
    assert lines and all(line.startswith("veil: ") for line in lines), result.stderr
    assert "veil: sweep done: 2/2 points" in result.stderr
    assert "veil:" not in again.stdout and "veil: sweep done" in again.stderr  # a file: the table on stdout only
    assert list(tmp_path.iterdir()) == [out]  # no file named "-"


def test_quiet_prints_no_progress():
    result = runner.invoke(app, ["explore", *small_args(), "--no-lattice", "--json", "-", "--quiet"],
                           env={"VEIL_PROGRESS_INTERVAL": "0"})
    assert result.exit_code == 0, result.output
    assert result.stderr == ""
    assert json.loads(result.stdout)["chosen"] is not None
