"""The usability pass of the Run and Results pages (issue #37): what a steward who never saw veil
misread on the first use, each finding pinned by a test of the page."""

from __future__ import annotations

import copy
import html
import re

import numpy as np

from tests.unit.web.people import open_people, people
from veil.web.pages._hierarchy_build import freeze

DP_ROLES = {"age": {"role": "quasi-identifier", "kind": "numeric", "hierarchy": {"spec": "interval:5,10,20"}},
            "sex": {"role": "quasi-identifier", "hierarchy": {"flat": True}},
            "zip": {"role": "quasi-identifier", "hierarchy": {"spec": "mask:1"}}}
DP = {"models": [{"type": "dp", "epsilon": 0.1, "delta": 1e-5}], "algorithm": "safepub",
      "suppression_limit": 1.0, "suppressed": "drop"}


def prepared(app, **config):
    workspace = open_people(app, copy.deepcopy(DP_ROLES), n=400, seed=1, **config)
    if config.get("algorithm") == "safepub":  # as the Models page does when dp is ticked: the hierarchies as files
        freeze(workspace, workspace.state.config)
    return workspace


def run(client, app) -> str:
    client.post(f"/run/start?csrf={client.csrf}")
    job = app.state.jobs.wait(300)
    assert job.status in ("done", "failed"), job.as_json()
    return job.status


def risk_table(page: str) -> tuple[list[str], dict[str, list[str]]]:
    section = re.search(r'<section id="risk">(.*?)</section>', page, re.S).group(1)
    heads = [html.unescape(h) for h in re.findall(r'<th class="num">(.*?)</th>', section)]
    rows = {html.unescape(m.group(1)): re.findall(r'<td class="num">(.*?)</td>', m.group(2))
            for m in re.finditer(r"<tr><td>(.*?)</td>(.*?)</tr>", section, re.S)}
    return heads, rows


def test_an_empty_release_says_so_in_red_and_the_input_risk_is_not_zero(web):
    client, app = web
    prepared(app, **DP)  # epsilon 0.1 on 400 records: SafePub suppresses every record
    assert run(client, app) == "done"
    page = client.get("/results").text
    warning = re.search(r'<p class="error" id="empty-release" role="alert">(.*?)</p>', page, re.S)
    assert warning, "no empty-release warning"
    text = html.unescape(warning.group(1))
    assert "the release is empty: every record was suppressed" in text.lower() and "Try" in text
    assert 'class="ok" id="verified"' not in page  # no green "met and verified" on nothing
    heads, rows = risk_table(page)
    assert heads[0] == "input (all 400 records)"
    assert rows["prosecutor risk: highest"][0] == "1"  # 400 records on age x sex x zip: some are unique
    assert heads[1:] == ["before (the 0 records not suppressed)", "after (the release)"]


K_ROLES = {**DP_ROLES, "disease": {"role": "sensitive"}}


def k_prepared(app, k: int):
    workspace = prepared(app, models=[{"type": "k-anonymity", "k": k}], suppression_limit=0.05)
    workspace.write_bytes("people.csv", people(300, 1).assign(disease="flu").to_csv(index=False).encode())
    workspace.state.config["attributes"] = K_ROLES
    return workspace


def test_the_run_page_hides_a_finished_job_of_another_configuration(web):
    client, app = web
    workspace = k_prepared(app, 3)
    assert run(client, app) == "done"
    page = client.get("/run").text
    assert 'id="job-progress" class="job" data-status="done"' in page and 'id="config-changed"' not in page
    workspace.state.config["models"] = [{"type": "k-anonymity", "k": 4}]  # the steward changed the models
    page = client.get("/run").text
    assert 'data-status="done"' not in page and 'id="job-progress" class="job" data-status="none" hidden' in page
    assert "The configuration changed since run 1" in page


def test_after_a_failed_run_see_the_results_says_they_are_of_an_earlier_run(web):
    client, app = web
    workspace = k_prepared(app, 3)
    assert run(client, app) == "done"
    workspace.state.config["models"] = [{"type": "k-anonymity", "k": 1000}]  # more than the 300 records
    assert run(client, app) == "failed"
    page = html.unescape(client.get("/run").text)
    assert 'data-status="failed"' in page  # this configuration's own failure stays shown
    note = re.search(r'<span class="warning" id="not-latest">(.*?)</span>', page, re.S).group(1)
    assert "Run 2 failed: the last results are of run 1, an earlier run (" in note and "3-anonymity" in note
    assert "See the results of run 1" in page
    results = html.unescape(client.get("/results").text)
    assert "Run 2 failed: these are the results of run 1, an earlier run." in results


def test_the_results_list_every_run_with_downloads_named_by_run(web):
    client, app = web
    workspace = k_prepared(app, 3)
    assert run(client, app) == "done"
    workspace.state.config["models"] = [{"type": "k-anonymity", "k": 1000}]
    assert run(client, app) == "failed"
    workspace.state.config["models"] = [{"type": "k-anonymity", "k": 4}]
    assert run(client, app) == "done"
    page = html.unescape(client.get("/results").text)
    rows = dict(re.findall(r'<tr data-run="(\d+)"[^>]*>(.*?)</tr>', page, re.S))
    assert sorted(rows) == ["1", "2", "3"]
    assert "3-anonymity" in rows["1"] and "failed" in rows["2"] and "download" not in rows["2"]
    assert "4-anonymity" in rows["3"] and "(shown)" in rows["3"]
    assert 'href="/results/download/release?run=1"' in rows["1"]
    answer = client.get("/results/download/release?run=1")
    assert answer.content == (workspace.root / "run-1-release.csv").read_bytes()
    assert 'filename="run-1-release.csv"' in answer.headers["content-disposition"]
    assert 'filename="run-3-report.json"' in client.get("/results/download/report").headers["content-disposition"]
    missing = client.get("/results/download/release?run=2", headers={"Accept": "application/json"})
    assert missing.status_code == 400 and missing.json()["error"] == "error: no finished run '2'; finished runs: 1, 3."
    assert "Run 3, started " in page and "4-anonymity; suppression limit 5%; algorithm lattice." in page
    assert 'id="results-stale"' not in page
    workspace.state.config["models"] = [{"type": "k-anonymity", "k": 2}]
    assert "The configuration in progress is not the one of run 3" in client.get("/results").text


def test_ticking_dp_sets_what_safepub_requires_and_the_run_makes_a_release(web):
    client, app = web
    workspace = prepared(app)  # every column a quasi-identifier with a hierarchy
    page = client.get("/models").text
    assert 'id="dp.delta" value="1e-05"' in page and 'id="dp.epsilon" value="2.0"' in page
    assert "the chance the guarantee fails" in page and 'id="bound-dp"' in page
    answer = client.post(f"/models?csrf={client.csrf}", follow_redirects=False, data={
        "model": ["dp"], "dp.epsilon": "2", "dp.delta": "1e-5", "dp.search_budget": "0.1",
        "suppression": "5", "metric": "loss", "algorithm": "lattice"})  # the form as the steward left it
    assert answer.status_code == 303
    config = workspace.state.config
    assert (config["algorithm"], config["suppression_limit"], config["suppressed"]) == ("safepub", 1.0, "drop")
    assert 'id="config-error"' not in client.get("/run").text
    assert run(client, app) == "done"


def test_a_library_error_names_the_page_controls_not_the_cli_flags(web):
    client, app = web
    workspace = prepared(app, **DP)
    workspace.state.config["attributes"]["age"] = {"role": "sensitive"}
    assert run(client, app) == "failed"
    error = app.state.jobs.job.error
    assert "(role quasi-identifier on Roles)" in error and "--qi" not in error
    workspace.state.config["algorithm"] = "lattice"
    page = html.unescape(client.get("/run").text)
    problem = re.search(r'id="config-error" role="alert">(.*?)</p>', page, re.S)
    text = problem.group(1) if problem else app.state.jobs.job.error
    if problem is None:  # the plan's check runs in the job
        assert run(client, app) == "failed"
        text = app.state.jobs.job.error
    assert "use Algorithm safepub (Models)" in text and "--algorithm" not in text


def test_the_models_page_shows_the_usual_models_first_and_folds_the_others(web):
    client, app = web
    workspace = prepared(app)
    workspace.state.config["attributes"] = {**DP_ROLES, "disease": {"role": "sensitive"}}
    page = client.get("/models").text
    first = re.search(r'<div class="models" id="models-first">(.*?)<details id="more-models">', page, re.S).group(1)
    assert re.findall(r'data-type="([^"]+)"', first) == [
        "k-anonymity", "distinct-l-diversity", "entropy-l-diversity", "recursive-cl-diversity",
        "equal-t-closeness", "ordered-t-closeness", "hierarchical-t-closeness"]
    more = page[page.index('<details id="more-models">'):]
    assert 'data-type="dp"' in more and 'data-type="average-risk"' in more
    assert "infers no listed sensitive" in more and "and     infers" not in more  # one plain line each
    workspace.state.config["models"] = [{"type": "dp", "epsilon": 2, "delta": 1e-5}]
    assert '<details id="more-models" open>' in client.get("/models").text  # a model chosen there is shown


def visible_text(page: str) -> str:
    """The page's text outside the configuration document and the one muted line for scripts."""
    page = re.sub(r'<pre id="config-yaml">.*?</pre>', "", page, flags=re.S)
    page = re.sub(r'<p class="muted small" id="reproduce">.*?</p>', "", page, flags=re.S)
    return html.unescape(re.sub(r"<[^>]+>", " ", page))


def test_no_command_line_instructions_in_the_run_and_results_pages(web):
    client, app = web
    k_prepared(app, 3)
    assert "veil anonymize" not in visible_text(client.get("/run").text)
    assert run(client, app) == "done"
    assert "veil anonymize" not in visible_text(client.get("/run").text)
    results = client.get("/results").text
    assert "veil anonymize" not in visible_text(results)
    assert "(for scripts: veil anonymize FILE)" in results


def test_use_these_levels_holds_each_quasi_identifier_at_the_node_and_the_next_run_releases_it(web):
    client, app = web
    workspace = k_prepared(app, 3)
    assert run(client, app) == "done"
    lattice = client.get("/results/lattice").json()
    others = [n for layer in lattice["layers"] for n in layer["nodes"] if n != lattice["chosen"]]
    assert others, lattice
    node = others[-1]
    answer = client.post(f"/results/levels?csrf={client.csrf}", data={"levels": node}, follow_redirects=False)
    assert answer.status_code == 303 and answer.headers["location"] == "/run"
    levels = dict(zip(lattice["quasi_identifiers"], (int(v) for v in node.split(","))))
    attributes = workspace.state.config["attributes"]
    assert {q: (attributes[q]["min_level"], attributes[q]["max_level"]) for q in levels} == {
        q: (v, v) for q, v in levels.items()}
    assert attributes["disease"] == {"role": "sensitive"}
    assert run(client, app) == "done"
    assert workspace.state.results["run"]["report"]["transformation"] == levels
    bad = client.post(f"/results/levels?csrf={client.csrf}", data={"levels": "9,9"}, headers={"Accept": "application/json"})
    assert bad.status_code == 400 and "levels must be 3 whole numbers" in bad.json()["error"]


def test_every_count_on_the_results_says_which_records_it_is_on(web):
    client, app = web
    workspace = app.state.workspace
    frame = people(300, 1).assign(disease="flu")
    frame.loc[:5, "age"] = ["101", "102", "103", "104", "105", "106"]  # six outliers: suppressed at k=3
    frame.loc[10:29, "sex"] = ""  # missing sex: a released value of its own
    workspace.write_bytes("people.csv", frame.to_csv(index=False).encode())
    workspace.state.data = "people.csv"
    workspace.state.config = {"attributes": {**K_ROLES, "age": {"role": "quasi-identifier", "kind": "numeric",
                                                                 "hierarchy": {"spec": "interval:5,10,20"}}},
                              "models": [{"type": "k-anonymity", "k": 3}], "suppression_limit": 0.1,
                              "suppressed": "keep"}
    assert run(client, app) == "done"
    report = workspace.state.results["run"]["report"]
    suppressed, records = report["suppressed"], report["records"]
    assert suppressed > 0 and report["records_out"] == records  # the suppressed rows are written, all '*'
    page = html.unescape(client.get("/results").text)
    heads, rows = risk_table(page)
    kept = f"{records - suppressed:,}"
    assert heads == [f"input (all {records} records)", f"before (the {kept} records not suppressed)",
                     f"after (the {records} rows written; the {suppressed} suppressed, all '*', as one group)"]
    assert rows["records assessed"] == [f"{records}", kept, f"{records}"]
    assert "groups in the written file (the suppressed rows, all '*', count as one)" in page
    sizes = re.search(r'<section id="class-sizes">(.*?)</section>', page, re.S).group(1)
    assert f"before (the {kept} records not suppressed)" in sizes
    sex_line = re.search(r"<summary>sex: (.*?)</summary>", page).group(1)
    assert sex_line == "2 distinct values before, not counting missing; 3 released value(s) (one of them: missing)"


def test_a_quasi_identifier_suppressed_everywhere_points_to_a_node_that_keeps_it(web):
    client, app = web
    workspace = app.state.workspace
    rng = np.random.default_rng(3)
    frame = people(300, 1).assign(disease="flu", code=[f"{v:04d}" for v in rng.integers(0, 10000, 300)])
    workspace.write_bytes("people.csv", frame.to_csv(index=False).encode())
    workspace.state.data = "people.csv"
    workspace.state.config = {"attributes": {**K_ROLES, "code": {"role": "quasi-identifier",
                                                                  "hierarchy": {"spec": "mask:1"}}},
                              "models": [{"type": "k-anonymity", "k": 3}], "suppression_limit": 0.05}
    assert run(client, app) == "done"
    page = html.unescape(client.get("/results").text)
    assert "Quasi-identifier 'code' is suppressed in every record" in page, re.findall(r"<li>(.*?)</li>", page)
    assert ("What to try for 'code': the search chose the solution with the lowest loss, so more suppression may "
            "change nothing. Under Explore below, look for a solution that keeps part of 'code', click it, "
            "then Use these levels.") in page


def test_the_downloaded_configuration_names_itself_as_it_is_saved(web):
    client, app = web
    k_prepared(app, 3)
    assert run(client, app) == "done"
    answer = client.get("/results/download/config")
    assert 'filename="run-1-config.yaml"' in answer.headers["content-disposition"]
    assert "release-config.yaml" not in answer.text and "#   veil anonymize FILE" in answer.text


def test_held_levels_are_shown_on_run_and_can_be_freed(web):
    client, app = web
    workspace = k_prepared(app, 3)
    attributes = workspace.state.config["attributes"]
    attributes["age"] = {**attributes["age"], "min_level": 2, "max_level": 2}
    attributes["zip"] = {**attributes["zip"], "min_level": 0, "max_level": 1}  # a range: not held
    page = client.get("/run").text
    assert "Held at one level (chosen on Results): age at level 2." in page
    answer = client.post(f"/run/levels/free?csrf={client.csrf}", follow_redirects=False)
    assert answer.status_code == 303
    assert "min_level" not in attributes["age"] and attributes["zip"]["max_level"] == 1
    assert 'id="held-levels"' not in client.get("/run").text
