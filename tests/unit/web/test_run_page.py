"""The Run page: the configuration shown is the document `veil anonymize CONFIG` reads; a run goes
through the job runner into run-specific files; an invalid configuration never starts a job."""

from __future__ import annotations

import html
import re
import threading

import pandas as pd
import pytest
import yaml

from tests.unit.web.people import open_people
from tests.unit.web.people import people as generated
from veil.config import ReleaseConfig, load_config

ROLES = {"age": {"role": "quasi-identifier", "kind": "numeric", "hierarchy": {"spec": "interval:5,10,20"}},
         "sex": {"role": "quasi-identifier", "hierarchy": {"flat": True}},
         "zip": {"role": "quasi-identifier", "hierarchy": {"spec": "mask:1"}},
         "disease": {"role": "sensitive"}}


def people() -> pd.DataFrame:
    return generated(300, 0, disease=True)


def prepared(app, attributes=ROLES, **config):
    return open_people(app, attributes, disease=True, **config)


def shown_yaml(page: str) -> str:
    return html.unescape(re.search(r'<pre id="config-yaml">(.*?)</pre>', page, re.S).group(1))


def test_the_page_shows_the_document_veil_anonymize_reads(web):
    client, app = web
    workspace = prepared(app, models=[{"type": "k-anonymity", "k": 3}], suppression_limit=0.1)
    text = shown_yaml(client.get("/run").text)
    document = yaml.safe_load(text)
    assert document["input"] == {"path": "people.csv"}
    assert document["attributes"] == ROLES
    assert document["models"] == [{"type": "k-anonymity", "k": 3}]
    assert document["suppression_limit"] == 0.1 and document["metric"] == "loss" and document["algorithm"] == "lattice"
    assert document["output"] == {"path": "release.csv", "report": "report.json", "html": "report.html"}
    saved = workspace.root / "copy.yaml"
    saved.write_text(text)
    config = load_config(saved)  # the CLI's reader: the same configuration, relative to the workspace
    assert config.resolve(config.input.path) == workspace.root / "people.csv"
    assert config == ReleaseConfig(**document, base_dir=str(workspace.root))


def test_a_run_writes_run_specific_files_and_a_second_run_keeps_the_first(web):
    client, app = web
    workspace = prepared(app, models=[{"type": "k-anonymity", "k": 3}], suppression_limit=0.05)
    answer = client.post(f"/run/start?csrf={client.csrf}", follow_redirects=False)
    assert answer.status_code == 303 and answer.headers["location"] == "/run?started=1"
    job = app.state.jobs.wait(120)
    assert job.status == "done", job.as_json()
    first = {p.name: p.read_bytes() for p in workspace.root.glob("run-1-*")}
    assert sorted(first) == ["run-1-config.yaml", "run-1-release.csv", "run-1-report.html", "run-1-report.json"]
    assert client.get("/job").json()["status"] == "done"
    client.post(f"/run/start?csrf={client.csrf}")
    assert app.state.jobs.wait(120).status == "done"
    assert sorted(p.name for p in workspace.root.glob("run-2-*")) == [
        "run-2-config.yaml", "run-2-release.csv", "run-2-report.html", "run-2-report.json"]
    assert {p.name: p.read_bytes() for p in workspace.root.glob("run-1-*")} == first
    assert workspace.state.results["run"]["number"] == 2


def test_an_invalid_configuration_is_the_cli_error_and_starts_no_job(web):
    client, app = web
    workspace = prepared(app, attributes={"age": {"role": "insensitive"}, "disease": {"role": "sensitive"}})
    page = client.get("/run").text
    assert "error: attributes: no attribute has role quasi-identifier; there is nothing to anonymize." in page
    assert '<button type="submit" id="run" data-problem="yes" disabled>' in page
    answer = client.post(f"/run/start?csrf={client.csrf}")
    assert answer.status_code == 400
    assert "error: attributes: no attribute has role quasi-identifier" in answer.text
    assert app.state.jobs.job is None and not list(workspace.root.glob("run-*-release.csv"))


def test_a_schema_error_names_the_key_and_the_file_by_its_name_only(web):
    client, app = web
    workspace = prepared(app, attributes={**ROLES, "age": {"role": "quasi-identifier", "kind": "number"}})
    page = html.unescape(client.get("/run").text)
    assert "error: Invalid configuration 'release-config.yaml': attributes.age.kind:" in page
    assert str(workspace.root) not in page


def test_one_job_at_a_time_and_cancel_stops_it_with_nothing_written(web, monkeypatch):
    client, app = web
    workspace = prepared(app, models=[{"type": "k-anonymity", "k": 3}])
    entered, release = threading.Event(), threading.Event()

    def slow_run_config(config, *, progress, **kwargs):  # a release that waits at its first phase
        progress("encode", None, None)
        entered.set()
        release.wait(30)
        progress("search", 1, 10)  # raises Cancelled once the steward cancelled
        raise AssertionError("the job went on after the cancel")

    monkeypatch.setattr("veil.release.run_config", slow_run_config)
    client.post(f"/run/start?csrf={client.csrf}")
    assert entered.wait(30)
    second = client.post(f"/run/start?csrf={client.csrf}")
    assert second.status_code == 400 and "a job (anonymize) is running" in second.text
    assert client.get("/job").json()["status"] == "running"
    client.post(f"/job/cancel?csrf={client.csrf}")
    release.set()
    assert app.state.jobs.wait(30).status == "cancelled"
    assert "run" not in workspace.state.results and not list(workspace.root.glob("run-*-release.csv"))


def test_a_configuration_file_replaces_the_settings_and_a_bad_one_changes_nothing(web):
    client, app = web
    workspace = prepared(app, models=[{"type": "k-anonymity", "k": 3}])
    text = ("input: {path: elsewhere.csv}\nattributes:\n  age: {role: quasi-identifier, kind: numeric, hierarchy: 'interval:10'}\n"
            "  disease: {role: sensitive}\nmodels: [{type: k-anonymity, k: 4}]\nsuppression_limit: 0.1\n"
            "output: {path: /tmp/x.csv}\n")
    answer = client.post(f"/run/config?csrf={client.csrf}", files={"file": ("mine.yaml", text.encode())},
                         follow_redirects=False)
    assert answer.status_code == 303
    config = workspace.state.config
    assert config["models"] == [{"type": "k-anonymity", "k": 4}] and config["suppression_limit"] == 0.1
    assert "input" not in config and "output" not in config  # the open table and the run's files stand for them
    document = yaml.safe_load(shown_yaml(client.get("/run").text))
    assert document["input"] == {"path": "people.csv"} and document["output"]["path"] == "release.csv"
    before = dict(config)
    bad = client.post(f"/run/config?csrf={client.csrf}", data={"config": "models: [{type: k-anonymity, k: 0}]\n"
                                                                         "attributes: {age: {role: quasi-identifier, hierarchy: auto}}"})
    assert bad.status_code == 400 and "must be an int in [1, inf). Got 0 instead." in html.unescape(bad.text)
    assert workspace.state.config == before
    assert "error: the configuration is not YAML (line 1)." in client.post(
        f"/run/config?csrf={client.csrf}", data={"config": "models: [unclosed"}).text


def test_a_run_after_another_table_was_opened_does_not_overwrite_the_earlier_files(web):
    client, app = web
    workspace = prepared(app, models=[{"type": "k-anonymity", "k": 3}])
    client.post(f"/run/start?csrf={client.csrf}")
    assert app.state.jobs.wait(120).status == "done"
    first = (workspace.root / "run-1-release.csv").read_bytes()
    client.post(f"/close?csrf={client.csrf}")  # the state (and its run count) is reset; the files stay
    prepared(app, models=[{"type": "k-anonymity", "k": 2}])
    client.post(f"/run/start?csrf={client.csrf}")
    assert app.state.jobs.wait(120).status == "done"
    assert (workspace.root / "run-1-release.csv").read_bytes() == first
    assert (workspace.root / "run-2-release.csv").is_file() and workspace.state.results["run"]["number"] == 2


def test_before_the_roles_are_saved_the_run_uses_the_scanner_suggestions_and_says_so(web):
    from veil.web.pages._roles_config import default_attributes
    from veil.web.pages.data import column_summary

    client, app = web
    client.post(f"/open/upload?csrf={client.csrf}", files={"file": ("people.csv", people().to_csv(index=False).encode())})
    workspace = app.state.workspace
    assert "attributes" not in workspace.state.config
    page = client.get("/run").text
    assert 'id="suggested-roles"' in page and 'href="/roles"' in page
    suggested = default_attributes(column_summary(workspace))
    assert yaml.safe_load(shown_yaml(page))["attributes"] == suggested
    assert any(a["role"] == "quasi-identifier" and a["hierarchy"] == {"spec": "auto"} for a in suggested.values())
    assert 'id="suggested-roles"' in client.get("/models").text
    client.post(f"/run/start?csrf={client.csrf}")
    assert app.state.jobs.wait(120).status == "done"
    assert "attributes" not in workspace.state.config  # nothing was saved for the steward


def test_a_release_that_cannot_be_made_fails_with_the_cli_line_and_writes_nothing(web, tmp_path):
    from veil.errors import VeilError
    from veil.release import run_config

    client, app = web
    workspace = prepared(app, models=[{"type": "k-anonymity", "k": 1000}])  # more than the 300 records
    client.post(f"/run/start?csrf={client.csrf}")
    job = app.state.jobs.wait(120)
    assert job.status == "failed"
    (tmp_path / "people.csv").write_bytes((workspace.root / "people.csv").read_bytes())
    (tmp_path / "c.yaml").write_bytes((workspace.root / "run-1-config.yaml").read_bytes())
    with pytest.raises(VeilError) as raised:  # what `veil anonymize c.yaml` prints after "error: "
        run_config(load_config(tmp_path / "c.yaml"))
    expected = str(raised.value)
    assert job.error == expected and "1000" in expected
    assert client.get("/job").json()["error"] == expected
    assert not list(workspace.root.glob("run-1-release*")) and "run" not in workspace.state.results
