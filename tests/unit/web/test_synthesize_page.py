"""The Synthesize page: ``veil synthesize`` charged once to the workspace ledger, its report shown,
the synthetic CSV and JSON offered for download; refusals spend and write nothing."""

from __future__ import annotations

import json
import re

import numpy as np
import pandas as pd
import pytest
from markupsafe import escape
from typer.testing import CliRunner

from veil.cli import app as cli

BINS = "age=20:70:10"


@pytest.fixture
def people(web):
    client, app = web
    body = "id,age,sex,town\n" + "".join(f"P{i},{20 + i % 50},{'FM'[i % 2]},{'ABC'[i % 3]}\n" for i in range(300))
    client.post(f"/open/upload?csrf={client.csrf}", files={"file": ("people.csv", body.encode())})
    return client, app, app.state.workspace.path("people.csv")


def _budget(client, epsilon="2", delta="1e-6"):
    page = client.post(f"/dp/budget?csrf={client.csrf}", data={"budget": epsilon, "budget_delta": delta,
                                                               "next": "/synthesize"})
    assert page.status_code == 200 and page.url.path == "/synthesize"
    return page


def _run(client, app, **data):
    answer = client.post(f"/synthesize/run?csrf={client.csrf}", follow_redirects=False,
                         data={"epsilon": "1", "delta": "1e-9", "algorithm": "mst", "bins": BINS,
                               "identifiers": ["id"], **data})
    if answer.status_code != 303:
        return answer, None
    return client.get("/synthesize"), app.state.workspace.state  # the job ran or failed: the page says which


def _ledger_bytes(app):
    root = app.state.workspace.root
    return {p.name: p.read_bytes() for p in root.iterdir() if p.name.startswith("ledger.json")}


def test_synthesis_is_charged_to_the_ledger_and_matches_veil_synthesize(people, tmp_path):
    client, app, path = people
    _budget(client)
    answer = client.post(f"/synthesize/run?csrf={client.csrf}", follow_redirects=False,
                         data={"epsilon": "1", "delta": "1e-9", "algorithm": "mst", "bins": BINS,
                               "identifiers": ["id"], "seed": "3"})
    assert answer.status_code == 303
    assert app.state.jobs.wait(120).status == "done", app.state.jobs.job.as_json()
    page = client.get("/synthesize")
    report = json.loads(app.state.workspace.path("synthetic.json").read_text())
    assert re.search(rf"Synthetic table: {report['rows']:,} rows", page.text)
    assert re.search(r'id="ledger-remaining">1<', page.text)
    cli_out, cli_json = tmp_path / "s.csv", tmp_path / "s.json"
    run = CliRunner().invoke(cli, ["synthesize", str(path), "--epsilon", "1", "--delta", "1e-9", "-o", str(cli_out),
                                   "--json", str(cli_json), "--bins", BINS, "--identifiers", "id", "--seed", "3",
                                   "--budget-file", str(tmp_path / "b.json"), "--budget", "2",
                                   "--budget-delta", "1e-6"])
    assert run.exit_code == 0, run.output
    expected = json.loads(cli_json.read_text())
    for key in ("algorithm", "epsilon", "delta", "rho", "domain_source", "evaluation"):
        assert report[key] == expected[key], key
    assert 0 <= report["workload_error"] <= 1 and 0 <= expected["workload_error"] <= 1  # noisy: not equal
    assert report["marginals"]["1way"] == expected["marginals"]["1way"] == ["age", "sex", "town"]
    assert {k: report["ledger"][k] for k in ("budget", "spent", "spends")} == \
        {k: expected["ledger"][k] for k in ("budget", "spent", "spends")}
    csv = client.get("/synthesize/download/synthetic.csv")
    assert csv.status_code == 200 and "attachment" in csv.headers["content-disposition"]
    frame = pd.read_csv(app.state.workspace.path("synthetic.csv"))
    assert list(frame.columns) == list(pd.read_csv(cli_out).columns) == ["age", "sex", "town"]  # no identifier
    assert client.get("/synthesize/download/synthetic.json").json() == report


def test_without_a_budget_nothing_is_synthesized(people):
    client, app, path = people
    page = client.get("/synthesize")
    assert 'id="budget-form"' in page.text and 'id="synthesize-form"' not in page.text
    answer, _ = _run(client, app)
    assert answer.status_code == 400 and "error: set this table&#39;s budget first" in answer.text
    assert app.state.jobs.job is None


@pytest.mark.parametrize(("data", "message"), [
    ({"epsilon": "0"}, "error: The &#39;epsilon&#39; parameter of veil synthesize"),
    ({"algorithm": "gan"}, "error: --algorithm must be one of"),
    ({"bins": "age"}, "error: --bins expects COLUMN=MIN:MAX:BINS. Got &#39;age&#39; instead."),
    ({"identifiers": ["nope"]}, "error: --identifiers: the table has no column &#39;nope&#39;."),
])
def test_bad_settings_are_refused_before_the_job(people, data, message):
    client, app, path = people
    _budget(client)
    answer, _ = _run(client, app, **data)
    assert answer.status_code == 400 and message in answer.text, answer.text[-800:]
    assert app.state.jobs.job is None


@pytest.mark.parametrize("name", [None, "survey-2024"])
def test_a_synthesis_beyond_the_budget_is_refused_with_the_command_s_line(people, tmp_path, name):
    """The page refuses before the job with exactly ``veil synthesize --budget-file``'s line on a copy
    of the workspace ledger: after the read that makes the fingerprint key, or, for a declared
    ``--dataset-name``, before any record is read."""
    client, app, path = people
    client.post(f"/dp/budget?csrf={client.csrf}", data={"budget": "2", "budget_delta": "1e-6", "next": "/synthesize",
                                                        **({"dataset_name": name} if name else {})})
    before = _ledger_bytes(app)
    answer, _ = _run(client, app, epsilon="2.5")
    assert answer.status_code == 400 and app.state.jobs.job is None
    shown = re.search(r"(error: The synthesis costs[^<]*)<", answer.text).group(1)
    for file, content in before.items():
        (tmp_path / file).write_bytes(content)
    run = CliRunner().invoke(cli, ["synthesize", str(path), "--epsilon", "2.5", "--delta", "1e-9", "--bins", BINS,
                                   "--identifiers", "id", "-o", str(tmp_path / "s.csv"),
                                   "--budget-file", str(tmp_path / "ledger.json"),
                                   *(["--dataset-name", name] if name else [])])
    assert run.exit_code == 2
    line = " ".join(run.output.split())
    assert str(escape(line)) == shown, (line, shown)
    assert line.endswith(f"nothing was {'read, ' if name else ''}spent or written.")
    assert _ledger_bytes(app) == before and not app.state.workspace.path("synthetic.csv").exists()


@pytest.mark.parametrize(("data", "message"), [
    ({"bins": ""}, "The numeric column &#39;age&#39; has no bounds"),
])
def test_a_refused_synthesis_spends_and_writes_nothing(people, data, message):
    client, app, path = people
    _budget(client)
    before = _ledger_bytes(app)
    page, _ = _run(client, app, **data)
    app.state.jobs.wait(60)
    page = client.get("/synthesize")
    assert app.state.jobs.job.status == "failed"
    shown = re.search(r'id="job-message" role="alert"\s+class="error">([^<]+)<', page.text).group(1)
    assert shown.startswith("error: ") and message in shown
    assert _ledger_bytes(app) == before
    assert not app.state.workspace.path("synthetic.csv").exists()


def test_only_the_synthetic_outputs_are_downloaded(people):
    client, app, path = people
    answer = client.get("/synthesize/download/people.csv")
    assert answer.status_code == 400 and "no download" in answer.text


@pytest.mark.slow  # the evaluation (500 attacks each, in the page's job and in the CLI): about a minute
def test_withheld_records_evaluate_the_synthetic_table_as_the_command_does(web, tmp_path):
    client, app = web
    rng = np.random.default_rng(0)  # 400 records over 10^4 combinations: few repeat, so the control is apart
    frame = pd.DataFrame({name: rng.choice(list("ABCDEFGHIJ"), 400) for name in ("a", "b", "c", "d")})
    client.post(f"/open/upload?csrf={client.csrf}", files={"file": ("codes.csv", frame.to_csv(index=False).encode())})
    path = app.state.workspace.path("codes.csv")
    _budget(client)
    answer = client.post(f"/synthesize/run?csrf={client.csrf}", follow_redirects=False,
                         data={"epsilon": "1", "delta": "1e-9", "holdout": "0.3", "evaluate": "on"})
    assert answer.status_code == 303
    assert app.state.jobs.wait(300).status == "done", app.state.jobs.job.error
    page = client.get("/synthesize")
    root = app.state.workspace.root
    report = json.loads((root / "synthetic.json").read_text())
    run = CliRunner().invoke(cli, ["synthesize", str(path), "--epsilon", "1", "-o", str(tmp_path / "s.csv"),
                                   "--json", str(tmp_path / "s.json"), "--budget-file", str(tmp_path / "b.json"),
                                   "--budget", "2", "--budget-delta", "1e-6", "--holdout", "0.3", "--evaluate",
                                   "--holdout-out", str(tmp_path / "h.csv"), "--html", str(tmp_path / "s.html")])
    assert run.exit_code == 0, run.output
    expected = json.loads((tmp_path / "s.json").read_text())
    assert set(report) == set(expected) and set(report["evaluation"]) == set(expected["evaluation"])
    assert report["outside_dp"] == expected["outside_dp"] == ["marginal_error", "workload_error", "evaluation",
                                                              "holdout", "ledger.dataset"]
    held = pd.read_csv(root / "synthetic-holdout.csv")
    assert report["holdout"] == {"share": 0.3, "records": len(held)} and 0 < len(held) < 400
    assert report["evaluation"]["linkability"] is not None, report["evaluation"]["notes"]
    names = re.findall(r"<tr><td>([^<]+)</td><td class=\"num\">", page.text.split('id="synth-evaluation"')[1])
    assert names[:3] == ["singling out, univariate", "singling out, multivariate", "linkability"]
    assert client.get("/synthesize/download/synthetic.html").status_code == 200


def test_an_evaluation_the_library_could_not_run_says_why(people):
    client, app, path = people
    _budget(client)
    _run(client, app, holdout="0.3", evaluate="on")  # 300 records over 150 combinations: the control repeats them
    assert app.state.jobs.wait(120).status == "done", app.state.jobs.job.error
    report = json.loads(app.state.workspace.path("synthetic.json").read_text())
    note = report["evaluation"]["notes"]["attacks"]
    assert str(escape(note)) in client.get("/synthesize").text


def test_a_public_report_leaves_out_the_figures_of_the_real_records(people):
    client, app, path = people
    _budget(client)
    _run(client, app, public_report="on")
    assert app.state.jobs.wait(120).status == "done", app.state.jobs.job.error
    report = json.loads(app.state.workspace.path("synthetic.json").read_text())
    assert report["public_report"] is True and report["marginal_error"] == {"1way": None, "2way": None, "3way": None}
    assert 'id="synth-public"' in client.get("/synthesize").text


def test_evaluate_with_a_public_report_is_refused_as_the_command_refuses_it(people):
    client, app, path = people
    _budget(client)
    answer, _ = _run(client, app, holdout="0.3", evaluate="on", public_report="on")
    assert answer.status_code == 400 and "error: --evaluate measures the release with the real records" in answer.text
    assert app.state.jobs.job is None
