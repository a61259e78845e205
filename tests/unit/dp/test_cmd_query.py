import json

import pytest
from typer.testing import CliRunner

from veil.cli import app

runner = CliRunner()


@pytest.fixture
def csv(tmp_path):
    p = tmp_path / "people.csv"
    p.write_text("name,age,sex\n" + "".join(f"P{i},{20 + i % 60},{'FM'[i % 2]}\n" for i in range(300)))
    return p


def _json_lines(out):
    return [json.loads(line) for line in out.splitlines() if line.startswith("{")]


def test_json_contract_and_persistent_budget(csv, tmp_path):
    bf = tmp_path / "budget.json"
    r = runner.invoke(app, ["query", str(csv), "count where age > 40", "histogram sex",
                            "--categories", "F,M", "--epsilon", "1", "--budget-file", str(bf),
                            "--budget", "2.5", "--json"])
    assert r.exit_code == 0, r.output
    answers = _json_lines(r.output)
    assert len(answers) == 2
    for a in answers:
        assert {"value", "epsilon", "delta", "mechanism", "noise_scale", "budget_remaining"} <= set(a)
    assert answers[1]["budget_remaining"]["epsilon"] == pytest.approx(0.5)
    # a second invocation cannot re-spend what the first one spent
    r2 = runner.invoke(app, ["query", str(csv), "count", "--epsilon", "1", "--budget-file", str(bf)])
    assert r2.exit_code == 2 and "remains" in r2.output
    r3 = runner.invoke(app, ["query", str(csv), "count", "--epsilon", "0.5", "--budget-file", str(bf),
                             "--json"])
    assert r3.exit_code == 0
    assert _json_lines(r3.output)[0]["budget_remaining"]["epsilon"] == pytest.approx(0.0, abs=1e-9)
    # raising the budget from the command line is refused
    r4 = runner.invoke(app, ["query", str(csv), "count", "--epsilon", "0.5", "--budget-file", str(bf),
                             "--budget", "100"])
    assert r4.exit_code == 2 and "cannot be changed" in r4.output


@pytest.mark.parametrize("content", ["{not json", '{"datasets": {"k": {"budget": {"epsilon": 1, '
                                     '"delta": 0}, "spent": {"epsilon": -3, "delta": 0}}}}'])
def test_corrupted_or_negative_budget_file_is_refused(csv, tmp_path, content):
    bf = tmp_path / "budget.json"
    bf.write_text(content)
    r = runner.invoke(app, ["query", str(csv), "count", "--epsilon", "1", "--budget-file", str(bf),
                            "--budget", "3"])
    assert r.exit_code == 2 and "corrupted" in r.output
    # a file that is not a ledger gets nothing written beside it (no lock, no journal)
    assert sorted(f.name for f in tmp_path.iterdir()) == ["budget.json", "people.csv"]
    assert bf.read_text() == content


@pytest.mark.parametrize("args,message", [
    (["count", "--epsilon", "0", "--budget", "1"], "epsilon"),
    (["count where height > 3", "--epsilon", "1", "--budget", "2"], "height"),
    (["sum age", "--epsilon", "1", "--budget", "2"], "clamping bounds"),
    (["histogram sex", "--epsilon", "1", "--budget", "2"], "--categories"),
    (["count", "--epsilon", "1", "--budget", "2", "--budget-delta", "1.5"], "delta"),
])
def test_bad_input_gives_clear_errors(csv, args, message):
    r = runner.invoke(app, ["query", str(csv), *args])
    assert r.exit_code == 2
    assert message in r.output


def test_per_group_bounds_from_the_command_line(tmp_path):
    p = tmp_path / "visits.csv"
    p.write_text("uid,ward\n" + "".join(f"{i // 3},{'xyz'[i % 3]}\n" for i in range(300)))
    r = runner.invoke(app, ["query", str(p), "histogram ward", "--categories", "x,y,z",
                            "--epsilon", "1", "--budget", "2", "--privacy-unit", "uid",
                            "--max-groups", "2", "--max-rows-per-group", "1", "--json"])
    assert r.exit_code == 0, r.output
    (ans,) = _json_lines(r.output)
    assert ans["privacy_unit"] == "uid"
    assert ans["contribution_bounds"] == {"max_rows_per_unit": None, "max_groups": 2,
                                          "max_rows_per_group": 1}
    assert ans["sensitivity"] == 2 and ans["noise_scale"] == pytest.approx(2.0)
    text = runner.invoke(app, ["query", str(p), "histogram ward", "--categories", "x,y,z",
                               "--epsilon", "1", "--budget", "2", "--privacy-unit", "uid",
                               "--max-groups", "2", "--max-rows-per-group", "1"])
    assert "unit: uid (max_groups=2, max_rows_per_group=1)" in text.output
    r2 = runner.invoke(app, ["query", str(p), "count", "--epsilon", "1", "--budget", "2",
                             "--privacy-unit", "uid", "--max-groups", "2",
                             "--max-rows-per-group", "1"])
    assert r2.exit_code == 2 and "max_rows_per_unit" in r2.output
    r3 = runner.invoke(app, ["query", str(p), "count", "--epsilon", "1", "--budget", "2",
                             "--max-groups", "0", "--privacy-unit", "uid",
                             "--max-rows-per-group", "1"])
    assert r3.exit_code == 2 and "'max_groups'" in r3.output


@pytest.mark.parametrize(("bad", "message"), [
    ("histogram sex", "--categories or a --delta"),        # neither public keys nor partition selection
    ("sum income", "'income'"),                             # no such column
    ("count where income > 3", "'income'"),                 # no such column in the filter
])
def test_a_batch_with_a_failing_query_spends_nothing(csv, tmp_path, bad, message):
    # the first query is fine; if the batch failed at its second query, the first one's spend
    # would be saved and its answer never printed
    bf = tmp_path / "budget.json"
    r = runner.invoke(app, ["query", str(csv), "count", bad, "--epsilon", "1", "--lower", "0", "--upper", "9",
                            "--budget-file", str(bf), "--budget", "3", "--json"])
    assert r.exit_code == 2 and message in r.output and "nothing was spent" in r.output.lower()
    again = runner.invoke(app, ["query", str(csv), "count", "--epsilon", "3", "--budget-file", str(bf),
                                "--budget", "3", "--json"])
    assert again.exit_code == 0, again.output  # the whole budget is still there
    assert _json_lines(again.output)[0]["budget_remaining"]["epsilon"] == pytest.approx(0.0, abs=1e-9)


@pytest.mark.parametrize("engine", ["local", "duckdb"])
def test_categories_are_bound_to_one_column_each(csv, engine):
    # a short list F,M could key sex or name: refused, nothing spent; named lists key their column
    r = runner.invoke(app, ["query", str(csv), "histogram sex", "histogram name", "--categories", "F,M",
                            "--epsilon", "1", "--budget", "3", "--json", "--engine", engine])
    assert r.exit_code == 2 and "'sex' and 'name'" in r.output and "COLUMN=K1,K2" in r.output
    named = runner.invoke(app, ["query", str(csv), "histogram sex", "histogram name", "--categories", "sex=F,M",
                                "--categories", "name=Ann", "--epsilon", "1", "--budget", "3", "--json",
                                "--engine", engine])
    assert named.exit_code == 0, named.output
    answers = [json.loads(line) for line in named.stdout.splitlines()]
    assert [list(a["value"]) for a in answers] == [["F", "M"], ["Ann"]]
    # queries keyed by the one column share its short list
    ok = runner.invoke(app, ["query", str(csv), "histogram sex", "count", "--categories", "F,M",
                             "--epsilon", "1", "--budget", "3", "--json", "--engine", engine])
    assert ok.exit_code == 0, ok.output
