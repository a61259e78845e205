"""k-map and δ-presence on the Models page: generated from the registry's ``needs_population`` with a
chooser of the workspace's tables (``population: FILE`` in the configuration), a population added
without replacing the open table, and a run whose release holds the models, checked by hand on the
written release against the population generalized to the chosen levels, and equal to
``veil anonymize CONFIG`` with the downloaded configuration."""

from __future__ import annotations

import json
import re

import numpy as np
import pandas as pd
import pytest
from typer.testing import CliRunner

from veil.cli import app as cli

ROLES = {"age": {"role": "quasi-identifier", "kind": "numeric", "hierarchy": {"spec": "interval:5,10,20"}},
         "sex": {"role": "quasi-identifier", "hierarchy": {"flat": True}},
         "zip": {"role": "quasi-identifier", "hierarchy": {"spec": "mask:1"}},
         "disease": {"role": "sensitive"}}


def _population(n=2000, seed=0) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    return pd.DataFrame({"age": rng.integers(18, 90, n), "sex": rng.choice(["f", "m"], n),
                         "zip": rng.choice(["12345", "12346", "12377", "12399"], n),
                         "disease": rng.choice(["flu", "hiv", "cold"], n)})


@pytest.fixture
def sample(web):
    """The open table: 300 records drawn from a population of 2,000 uploaded on the Models page."""
    client, app = web
    population = _population()
    client.post(f"/open/upload?csrf={client.csrf}",
                files={"file": ("people.csv", population.sample(300, random_state=1).to_csv(index=False).encode())})
    app.state.workspace.state.config["attributes"] = ROLES
    added = client.post(f"/models/table?csrf={client.csrf}",
                        files={"file": ("population.csv", population.to_csv(index=False).encode())})
    assert added.status_code == 200 and added.url.path == "/models"
    assert app.state.workspace.state.data == "people.csv"  # the open table stays
    return client, app, population


def _save(client, **fields):
    data = {"suppression": "5", "metric": "loss", "algorithm": "lattice", **fields}
    return client.post(f"/models?csrf={client.csrf}", data=data)


def test_both_models_are_offered_with_a_chooser_of_the_workspace_s_tables(sample):
    client, app, _ = sample
    page = client.get("/models").text
    for kind in ("k-map", "delta-presence"):
        box = re.search(rf'<input type="checkbox" name="model" value="{kind}" id="use-{kind}"[^>]*>', page).group(0)
        assert "disabled" not in box
        chooser = re.search(rf'<select name="{kind}.population" id="{kind}.population">(.*?)</select>', page, re.S)
        assert re.findall(r"<option[^>]*>([^<]+)<", chooser.group(1)) == ["population.csv"]


def test_a_run_under_k_map_and_delta_presence_holds_them_on_the_written_release(sample, tmp_path):
    client, app, population = sample
    saved = _save(client, model=["k-map", "delta-presence"], **{
        "k-map.k": "10", "k-map.population": "population.csv", "delta-presence.delta_min": "0",
        "delta-presence.delta_max": "0.5", "delta-presence.population": "population.csv"})
    assert saved.status_code == 200 and saved.url.path == "/run", saved.text[-500:]
    assert client.post(f"/run/start?csrf={client.csrf}", follow_redirects=False).status_code == 303
    assert app.state.jobs.wait(300).status == "done", app.state.jobs.job.error
    root = app.state.workspace.root
    report = json.loads((root / "run-1-report.json").read_text())
    assert report["models"] == ["10-map", "(0,0.5)-presence"]
    assert report["provenance"]["config"]["models"][0]["population"] == "population.csv"
    # by hand: the released classes against the population's records at the release's age intervals
    width = {0: 1, 1: 5, 2: 10, 3: 20}[report["transformation"]["age"]]
    assert report["transformation"]["sex"] == report["transformation"]["zip"] == 0
    released = pd.read_csv(root / "run-1-release.csv", dtype=str)
    released = released[released["age"] != "*"]
    low = population["age"] // width * width
    people = population.assign(age=[str(a) if width == 1 else f"[{a}, {a + width})" for a in low])
    matched = people.groupby(["age", "sex", "zip"]).size().reindex(
        released.groupby(["age", "sex", "zip"]).size().index)
    ratio = released.groupby(["age", "sex", "zip"]).size() / matched
    assert matched.min() >= 10 and ratio.max() <= 0.5
    # the Results page judges other nodes of the lattice against the same population
    assert client.get("/results").status_code == 200
    levels = ",".join(str(v) for v in report["transformation"].values())
    assert client.get("/results/node", params={"levels": levels}).json()["satisfied"] is True
    assert client.get("/results/node", params={"levels": "0,0,0"}).json()["satisfied"] is False
    # the downloaded configuration reproduces the run with the CLI
    config = tmp_path / "config.yaml"
    config.write_text((root / "run-1-config.yaml").read_text())
    for name in ("people.csv", "population.csv"):
        (tmp_path / name).write_bytes((root / name).read_bytes())
    run = CliRunner().invoke(cli, ["anonymize", str(config)])
    assert run.exit_code == 0, run.output
    cli_report = json.loads((tmp_path / "report.json").read_text())
    assert cli_report["transformation"] == report["transformation"]
    assert cli_report["models"] == report["models"]


@pytest.mark.parametrize(("fields", "message"), [
    ({"model": ["k-map"], "k-map.k": "3"}, "error: models[0].population: k-map needs the population table"),
    ({"model": ["k-map"], "k-map.k": "3", "k-map.population": "gone.csv"},
     "error: no file &#39;gone.csv&#39; in the workspace."),
    ({"model": ["delta-presence"], "delta-presence.delta_min": "0", "delta-presence.delta_max": "0.5",
      "delta-presence.population": "population.csv", "algorithm": "mondrian"},
     "error: models[0]: delta-presence is judged against the population at the release&#39;s levels"),
])
def test_refusals_are_the_configuration_s_one_line(sample, fields, message):
    client, app, _ = sample
    answer = _save(client, **fields)
    assert answer.status_code == 400 and message in answer.text, answer.text[-800:]
    assert "models" not in app.state.workspace.state.config


def test_a_population_under_the_open_table_s_name_is_refused(sample):
    client, app, _ = sample
    before = (app.state.workspace.root / "people.csv").read_bytes()
    answer = client.post(f"/models/table?csrf={client.csrf}", files={"file": ("people.csv", b"a,b\n1,2\n")})
    assert answer.status_code == 400 and "the open table&#39;s name" in answer.text
    assert (app.state.workspace.root / "people.csv").read_bytes() == before


def test_without_another_table_the_population_models_cannot_be_ticked(web):
    client, app = web
    client.post(f"/open/upload?csrf={client.csrf}", files={"file": ("people.csv", b"age,sex\n30,f\n40,m\n")})
    page = client.get("/models").text
    for kind in ("k-map", "delta-presence"):
        box = re.search(rf'<input type="checkbox" name="model" value="{kind}" id="use-{kind}"[^>]*>', page).group(0)
        assert "disabled" in box
    assert 'id="population-upload"' in page
