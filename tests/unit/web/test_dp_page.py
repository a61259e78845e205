"""The DP page: ``veil query``'s answers charged to the workspace ledger (ledger.json); refusals
are the CLI's one-line errors and leave the ledger unchanged."""

from __future__ import annotations

import json
import re

import pytest
from markupsafe import escape
from typer.testing import CliRunner

from veil.cli import app as cli

NOISE_FIELDS = ("query", "epsilon", "delta", "mechanism", "noise_scale", "privacy_unit", "sensitivity",
                "contribution_bounds", "rho", "missing_as")


@pytest.fixture
def people(web):
    """The web app with a small table open: ``(client, app, path)``."""
    client, app = web
    body = "age,sex,income\n" + "".join(f"{20 + i % 50},{'FM'[i % 2]},{1000 * (i % 7)}\n" for i in range(200))
    page = client.post(f"/open/upload?csrf={client.csrf}", files={"file": ("people.csv", body.encode())})
    assert page.status_code == 200
    return client, app, app.state.workspace.path("people.csv")


def _budget(client, epsilon="1", **extra):
    return client.post(f"/dp/budget?csrf={client.csrf}", data={"budget": epsilon, **extra})


def _ask(client, queries, epsilon="0.25", **extra):
    return client.post(f"/dp/query?csrf={client.csrf}", data={"queries": queries, "epsilon": epsilon, **extra})


def _ledger_bytes(app):
    root = app.state.workspace.root
    return {p.name: p.read_bytes() for p in root.iterdir() if p.name.startswith("ledger.json")}


def _alert(page):
    return re.search(r'role="alert">([^<]+)<', page.text).group(1).replace("&#39;", "'").replace("&gt;", ">")


def _remaining(page):
    return re.search(r'id="ledger-remaining">([^<]+)<', page.text).group(1)


def test_the_budget_is_set_on_the_page_and_journaled_in_the_workspace(people):
    client, app, path = people
    page = client.get("/dp")
    assert 'id="budget-form"' in page.text and 'id="query-form"' not in page.text
    page = _budget(client, "1.5", budget_delta="0.000001")
    assert page.status_code == 200 and _remaining(page) == "1.5" and "nothing spent yet" in page.text
    journal = (app.state.workspace.root / "ledger.json.journal").read_text().splitlines()
    assert len(journal) == 1 and json.loads(journal[0])["budget"] == {"epsilon": 1.5, "delta": 1e-06}
    again = _budget(client, "3")
    assert again.status_code == 400 and "it cannot be changed" in _alert(again)


def test_a_query_before_the_budget_is_refused(people):
    client, app, path = people
    page = _ask(client, "count")
    assert page.status_code == 400
    assert _alert(page) == "error: set this table's budget first: no query is answered without one."
    assert _ledger_bytes(app) == {}


def test_answers_are_veil_query_s_and_share_its_ledger(people):
    client, app, path = people
    _budget(client, "1")
    page = _ask(client, "count where age > 40\nhistogram sex\nsum income", categories="sex=F,M",
                lower="0", upper="6000")
    assert page.status_code == 200, _alert(page)
    assert len(re.findall(r'<tr class="answer">', page.text)) == 3
    assert _remaining(page) == "0.25"
    shown = app.state.workspace.state.results["dp_answers"][1]
    ledger = app.state.workspace.path("ledger.json")
    cli_run = CliRunner().invoke(cli, ["query", str(path), "count where age > 40", "histogram sex", "sum income",
                                       "--categories", "sex=F,M", "--lower", "0", "--upper", "6000",
                                       "--epsilon", "0.25", "--budget-file", str(ledger), "--json"])
    # the same ledger key (the records' fingerprint): the CLI finds 0.25 left and refuses the batch whole
    assert cli_run.exit_code == 2 and "only epsilon=0.25" in cli_run.output
    cli_run = CliRunner().invoke(cli, ["query", str(path), "count where age > 40", "--epsilon", "0.25",
                                       "--budget-file", str(ledger), "--json"])
    assert cli_run.exit_code == 0, cli_run.output
    from_cli = json.loads(cli_run.output.splitlines()[0])
    assert {k: shown[0][k] for k in NOISE_FIELDS} == {k: from_cli[k] for k in NOISE_FIELDS}
    assert set(shown[1]["value"]) == {"F", "M"} and shown[2]["noise_scale"] == pytest.approx(6000 / 0.25)
    page = client.get("/dp")
    assert _remaining(page) == "0" and len(re.findall(r"<td>\d+</td><td>", page.text)) == 4  # 4 spends listed


@pytest.mark.parametrize(("queries", "extra", "message"), [
    ("count\ncount\ncount", {}, "error: The budget's epsilon is short: the 3 queries cost epsilon=0.75, delta=0 in "
     "total, but only epsilon=0.5, delta=0 of the budget remains; nothing was spent. Ask fewer queries or with a "
     "smaller epsilon."),
    ("count wher age > 3", {}, "error: Unexpected 'wher' at the end of the query."),
    ("count where height > 3", {}, "error: The query 'count where height > 3' names the column 'height', which "
     "the data does not have; nothing was spent."),
    ("sum income", {}, "error: veil query needs clamping bounds"),
    ("count", {"epsilon": "lots"}, "error: --epsilon must be a number. Got 'lots' instead."),
])
def test_refusals_are_one_line_and_leave_the_ledger_unchanged(people, queries, extra, message):
    client, app, path = people
    _budget(client, "1")
    assert _ask(client, "count\ncount").status_code == 200  # 0.5 spent
    before = _ledger_bytes(app)
    page = _ask(client, queries, **{"epsilon": "0.25", **extra})
    assert page.status_code == 400
    assert _alert(page).startswith(message) and "\n" not in _alert(page)
    assert _ledger_bytes(app) == before and _remaining(page) == "0.5"
    assert 'id="query-form"' in page.text and str(escape(queries.split("\n")[0])) in page.text  # the form as sent


def test_a_declared_name_keys_the_ledger(people):
    client, app, path = people
    _budget(client, "2", dataset_name="survey-2024")
    assert _ask(client, "count").status_code == 200
    ledger = app.state.workspace.path("ledger.json")
    cli_run = CliRunner().invoke(cli, ["query", str(path), "count", "--epsilon", "1.75", "--budget-file",
                                       str(ledger), "--dataset-name", "survey-2024"])
    assert cli_run.exit_code == 0, cli_run.output
    page = client.get("/dp")
    assert _remaining(page) == "0" and "survey-2024" in page.text


def test_the_ledger_key_follows_the_file_s_records_as_veil_query_s_does(people):
    client, app, path = people
    _budget(client, "1")
    assert _ask(client, "count").status_code == 200
    same = path.read_bytes()
    changed = same.replace(b"\n20,F,0\n", b"\n21,F,0\n", 1)
    assert changed != same
    client.post(f"/open/upload?csrf={client.csrf}", files={"file": ("people.csv", changed)})
    page = client.get("/dp")  # other records: another dataset of the ledger, as for veil query
    assert 'id="budget-form"' in page.text
    client.post(f"/open/upload?csrf={client.csrf}", files={"file": ("people.csv", same)})
    assert _remaining(client.get("/dp")) == "0.75"  # the same records again: the same budget
