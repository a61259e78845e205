"""The Results page: its figures are run_config's report; the downloaded configuration reproduces
the run; a node of the lattice is judged as the search judges it; violation counts after."""

from __future__ import annotations

import html
import json
import math
import re
import shutil

import pandas as pd
import pytest

from tests.unit.web.people import people as generated
from veil.config import load_config
from veil.release import run_config

ROLES = {"age": {"role": "quasi-identifier", "kind": "numeric", "hierarchy": {"spec": "interval:5,10,20"}},
         "sex": {"role": "quasi-identifier", "hierarchy": {"flat": True}},
         "zip": {"role": "quasi-identifier", "hierarchy": {"spec": "mask:1"}},
         "disease": {"role": "sensitive"}}
MODELS = [{"type": "k-anonymity", "k": 3}, {"type": "distinct-l-diversity", "sensitive": "disease", "l": 2}]


def people() -> pd.DataFrame:
    return generated(400, 1, disease=True)


@pytest.fixture
def ran(web):
    """A finished run of the web app on a generated table: (client, app, the run's JSON report)."""
    client, app = web
    workspace = app.state.workspace
    workspace.write_bytes("people.csv", people().to_csv(index=False).encode())
    workspace.state.data = "people.csv"
    workspace.state.config = {"attributes": ROLES, "models": MODELS, "suppression_limit": 0.05, "target": "disease"}
    client.post(f"/run/start?csrf={client.csrf}")
    job = app.state.jobs.wait(120)
    assert job.status == "done", job.as_json()
    report = json.loads((workspace.root / "run-1-report.json").read_text())
    return client, app, report


def figures(page: str) -> dict[str, str]:
    return dict(re.findall(r'<tr data-figure="([^"]+)" data-value="([^"]*)">', page))


def test_the_figures_are_those_of_run_config_on_the_downloaded_configuration(ran, tmp_path):
    client, app, report = ran
    page = client.get("/results").text
    # the configuration downloaded, saved beside a copy of the data, run as `veil anonymize CONFIG` runs it
    (tmp_path / "release-config.yaml").write_bytes(client.get("/results/download/config").content)
    shutil.copy(app.state.workspace.root / "people.csv", tmp_path / "people.csv")
    result, written = run_config(load_config(tmp_path / "release-config.yaml"))
    assert sorted(written) == ["data", "html", "report"] and (tmp_path / "release.csv").is_file()
    again = json.loads((tmp_path / "report.json").read_text())
    shown = figures(page)
    for key, path in (("suppressed", ("suppressed",)), ("records", ("records",)), ("records_out", ("records_out",)),
                      ("classes", ("classes_released",)), ("k", ("achieved", "k"))):
        expected, reported = again, report
        for part in path:
            expected, reported = expected[part], reported[part]
        assert int(shown[key]) == expected == reported, key
    assert float(shown["loss"]) == again["utility"]["loss"] == report["utility"]["loss"]
    assert again["transformation"] == report["transformation"]
    for name, level in report["transformation"].items():
        assert f'<tr data-column="{name}" data-level="{level}">' in page
    assert again["workload"] == report["workload"] and 'id="workload"' in page


def test_the_sections_are_shown_with_plots_as_inline_images(ran):
    client, app, report = ran
    page = client.get("/results").text
    for section in ("summary", "levels", "violations-after", "achieved", "risk", "record-risk", "class-sizes",
                    "utility", "distributions", "lattice", "downloads"):
        assert f'<section id="{section}"' in page, section
    assert page.count('src="data:image/png;base64,') >= 3 + len(ROLES) - 1  # risk, bands, sizes, one per QI
    assert "<script>" not in page and "style=" not in page  # the CSP forbids inline script and style
    text = re.sub(r"data:image/png;base64,[A-Za-z0-9+/=]+", "", page)
    for value in ("12345", "12399", "flu", "hiv"):  # no value of the table in the page's text
        assert value not in text, value


def test_violation_counts_after_are_counted_on_the_released_file(ran):
    client, app, report = ran
    release = pd.read_csv(app.state.workspace.root / "run-1-release.csv", dtype=str, keep_default_na=False)
    kept = release[(release[["age", "sex", "zip"]] != "*").any(axis=1)]
    sizes = kept.groupby(["age", "sex", "zip"]).size().to_numpy()
    page = client.get("/results").text
    after = page[page.index('id="violations-after"'):]
    shown = dict(re.findall(r'<tr data-k="(\d)"><td>\d</td><td class="num violating">([\d,]+)</td>', after))
    assert shown == {str(k): f"{int(sizes[sizes < k].sum()):,}" for k in (2, 3, 5)}
    assert shown["2"] == shown["3"] == "0"  # 3-anonymous: no released group smaller than 3


def test_the_chosen_node_has_the_run_figures_and_the_top_node_is_one_group(ran):
    client, app, report = ran
    chosen = ",".join(str(v) for v in report["transformation"].values())
    node = client.get("/results/node", params={"levels": chosen}).json()
    assert node["chosen"] and node["satisfied"]
    assert node["suppressed"] == report["suppressed"]
    assert math.isclose(node["loss"], report["utility"]["loss"], rel_tol=1e-12)
    top = client.get("/results/node", params={"levels": "4,1,5"}).json()  # every QI at its hierarchy's height
    assert (top["classes"], top["k"], top["suppressed"], top["satisfied"]) == (1, 400, 0, True)
    below = client.get("/results/node", params={"levels": "0,0,0"}).json()
    assert not below["satisfied"] and below["loss"] is None and below["suppressed"] > below["suppression_limit"]


def test_the_lattice_judges_every_node_and_lists_the_least_generalized_solutions(ran):
    client, app, report = ran
    lattice = client.get("/results/lattice").json()
    assert lattice["nodes_total"] == 5 * 2 * 6 == sum(lattice["counts"].values())
    solutions = [n for layer in lattice["layers"] for n in layer["nodes"]]
    assert len(solutions) == lattice["counts"]["satisfying"]
    for levels in solutions:
        node = client.get("/results/node", params={"levels": levels}).json()
        assert node["satisfied"], levels  # the library's lattice view and the search's evaluator agree


def test_bad_levels_and_no_run_are_one_line_errors(web, ran):
    client, app, report = ran
    answer = client.get("/results/node", params={"levels": "9,0,0"}, headers={"Accept": "application/json"})
    assert answer.status_code == 400
    assert answer.json() == {"error": "error: levels: 'age' has levels 0 to 4. Got 9 instead."}
    answer = client.get("/results/node", params={"levels": "1,2"}, headers={"Accept": "application/json"})
    assert answer.json()["error"].startswith("error: levels must be 3 whole numbers")
    assert client.get("/results/download/secrets").status_code == 400


def test_without_a_run_the_page_says_what_to_do(web):
    client, app = web
    assert 'id="no-run"' in client.get("/results").text
    answer = client.get("/results/node", params={"levels": "0"}, headers={"Accept": "application/json"})
    assert answer.json() == {"error": "error: no release has been run yet: choose the models, then Run."}


def test_downloads_are_the_run_files_under_their_run_names(ran):
    client, app, report = ran
    root = app.state.workspace.root
    for what, name, file in (("release", "release.csv", "run-1-release.csv"), ("report", "report.json", "run-1-report.json"),
                             ("html", "report.html", "run-1-report.html"), ("config", "release-config.yaml", "run-1-config.yaml")):
        answer = client.get(f"/results/download/{what}")
        assert answer.status_code == 200 and answer.content == (root / file).read_bytes()
        assert f'filename="{file}"' in answer.headers["content-disposition"]
    assert html.unescape(client.get("/results").text).count("veil anonymize") == 1  # one small line for scripts


def test_a_local_recoding_has_no_lattice_and_says_so(web):
    client, app = web
    workspace = app.state.workspace
    workspace.write_bytes("people.csv", people().to_csv(index=False).encode())
    workspace.state.data = "people.csv"
    workspace.state.config = {"attributes": ROLES, "models": MODELS[:1], "algorithm": "mondrian"}
    client.post(f"/run/start?csrf={client.csrf}")
    assert app.state.jobs.wait(120).status == "done"
    page = client.get("/results").text
    assert "The mondrian algorithm is a local recoding" in page and 'id="frontier"' not in page
    expected = {"error": "error: the mondrian algorithm is a local recoding: there is no lattice of levels to explore."}
    assert client.get("/results/lattice", headers={"Accept": "application/json"}).json() == expected
    assert int(figures(page)["k"]) >= 3
