"""The Risk page: ``veil risk``'s figures (attacker models, uniques, class sizes, individual risk,
SUDA2) for the chosen QIs, equal to those of ``veil risk --json`` on the same options."""

from __future__ import annotations

import json
import re

import pytest
from typer.testing import CliRunner

from veil.cli import app as cli

ADULT_QIS = ["sex", "age", "race", "marital-status", "education", "workclass", "occupation"]


def _open_adult(client):
    assert client.post(f"/open/adult?csrf={client.csrf}").status_code == 200


def _run(client, app, data):
    answer = client.post(f"/risk/run?csrf={client.csrf}", data=data, follow_redirects=False)
    assert answer.status_code == 303, answer.text[:500]
    job = app.state.jobs.wait(120)
    assert job.status == "done", job.as_json()
    page = client.get("/risk")
    assert page.status_code == 200
    return page


def _cli_report(tmp_path, path, *options):
    out = tmp_path / "cli-risk.json"
    result = CliRunner().invoke(cli, ["risk", str(path), *options, "--json", str(out)])
    assert result.exit_code == 0, result.output
    return json.loads(out.read_text())


def test_the_qis_are_pre_ticked_from_the_scanner(web):
    client, app = web
    _open_adult(client)
    page = client.get("/risk")
    assert page.status_code == 200
    from veil.web.pages.data import column_summary

    suggested = [c["name"] for c in column_summary(app.state.workspace) if c["role"] == "quasi-identifier"]
    assert {"sex", "age", "race", "education"} <= set(suggested)
    assert re.findall(r'name="qi" value="([^"]+)" checked', page.text) == suggested
    assert "Measure the risk" in page.text


def test_the_qis_are_pre_ticked_from_the_release_configuration(web):
    client, app = web
    _open_adult(client)
    app.state.workspace.state.config = {"attributes": {"age": {"role": "quasi-identifier"},
                                                       "sex": {"role": "quasi-identifier"},
                                                       "salary-class": {"role": "sensitive"}}}
    page = client.get("/risk")
    assert re.findall(r'name="qi" value="([^"]+)" checked', page.text) == ["sex", "age"]
    assert re.findall(r'name="sensitive" value="([^"]+)" checked', page.text) == ["salary-class"]


def test_adult_figures_equal_veil_risk_and_show_the_histograms(web, tmp_path):
    client, app = web
    _open_adult(client)
    page = _run(client, app, {"qi": ADULT_QIS, "sensitive": ["salary-class"], "suda": "on", "threshold": "0.2",
                              "dis_fraction": "0.01"})
    workspace = app.state.workspace
    expected = _cli_report(tmp_path, workspace.path("adult.csv"), "--qi", ",".join(ADULT_QIS), "--sep", ";",
                           "--sensitive", "salary-class", "--suda")
    shown = workspace.state.results["risk"]["report"]
    assert json.loads(json.dumps(shown)) == expected
    # the headline figures, as the page writes them (share with one decimal)
    assert f'id="risk-uniques">{100 * expected["sample_uniques"]:.1f}%<' in page.text
    assert f'id="risk-prosecutor">{100 * expected["prosecutor"]["highest"]:.1f}%<' in page.text
    assert f'id="suda-special">{expected["suda2"]["special_uniques"]:,}<' in page.text
    for picture in ("class-size-histogram", "individual-histogram", "suda-contributions"):
        assert re.search(rf'id="{picture}" src="data:image/png;base64,[A-Za-z0-9+/=]+"', page.text), picture
    for value in ("Never-married", "Bachelors", "Private", "<=50K"):  # no value of the table
        assert value not in page.text


def test_weights_and_households_give_veil_risk_s_individual_risk(web, tmp_path):
    client, app = web
    rows = "".join(f"{20 + i % 7},{'FM'[i % 2]},{1 + i % 5}.5,{i // 3}\n" for i in range(90))
    client.post(f"/open/upload?csrf={client.csrf}", files={"file": ("survey.csv", ("age,sex,w,hh\n" + rows).encode())})
    _run(client, app, {"qi": ["age", "sex"], "weight": "w", "household": "hh", "risk_method": "exact",
                       "threshold": "0.1", "dis_fraction": "0.01"})
    expected = _cli_report(tmp_path, app.state.workspace.path("survey.csv"), "--qi", "age,sex", "--weight", "w",
                           "--household", "hh", "--risk-method", "exact", "--threshold", "0.1")
    shown = app.state.workspace.state.results["risk"]["report"]
    assert json.loads(json.dumps(shown)) == expected
    assert expected["individual_risk"]["weighted"] is True and "household_risk" in expected


@pytest.mark.parametrize(("data", "message"), [
    ({"qi": []}, "error: --qi needs at least one column"),
    ({"qi": ["age", "nope"]}, "error: --qi: the table has no column 'nope'."),
    ({"qi": ["age"], "weight": "nope"}, "error: --weight: the table has no column 'nope'."),
    ({"qi": ["age"], "threshold": "high"}, "error: --threshold must be a number. Got 'high' instead."),
    ({"qi": ["age"], "risk_method": "guess"}, "error: --risk-method must be approx or exact."),
    ({"qi": ["age", "sex"], "suda": "on", "suda_max_size": "5"},
     "error: --suda-max-size must be between 1 and 2 (the number of --qi columns). Got 5 instead."),
    ({"qi": ["age"], "dis_fraction": "0"}, "error: --dis-fraction must be in (0, 1]. Got 0.0 instead."),
])
def test_bad_options_are_refused_with_one_line_and_no_job(web, data, message):
    client, app = web
    _open_adult(client)
    answer = client.post(f"/risk/run?csrf={client.csrf}", data=data)
    assert answer.status_code == 400
    assert message.replace("'", "&#39;") in answer.text
    assert "Traceback" not in answer.text and app.state.jobs.job is None


def test_a_library_refusal_is_the_job_s_one_line_error(web):
    client, app = web
    client.post(f"/open/upload?csrf={client.csrf}", files={"file": ("w.csv", b"age,w\n30,2\n40,x\n")})
    answer = client.post(f"/risk/run?csrf={client.csrf}", data={"qi": ["age"], "weight": "w"},
                         follow_redirects=False)
    assert answer.status_code == 303
    job = app.state.jobs.wait(60)
    assert job.status == "failed" and job.error.startswith("The weight column 'w' is not numeric at row 2")
    page = client.get("/risk")
    shown = re.search(r'id="job-message" role="alert"\s+class="error">([^<]+)<', page.text).group(1)
    assert shown == "error: " + job.error.replace("'", "&#39;") and "Traceback" not in page.text


def test_a_column_with_two_roles_is_refused_by_the_library_as_by_veil_risk(web):
    client, app = web
    _open_adult(client)
    client.post(f"/risk/run?csrf={client.csrf}", data={"qi": ["age", "sex"], "sensitive": ["sex"]})
    job = app.state.jobs.wait(60)
    assert job.status == "failed"
    assert job.error == ("Column 'sex' is declared both as quasi-identifier and as sensitive; a column has "
                         "exactly one role.")


def test_a_largest_msu_implies_suda2_as_suda_max_size_does(web):
    client, app = web
    _open_adult(client)
    _run(client, app, {"qi": ["age", "sex", "race"], "suda_max_size": "2"})
    assert app.state.workspace.state.results["risk"]["report"]["suda2"]["max_size"] == 2


def test_without_a_table_the_page_says_to_open_one(web):
    client, app = web
    page = client.get("/risk")
    assert page.status_code == 200 and "Open a table first" in page.text
