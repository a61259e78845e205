"""``--na-values`` on every command that reads a table: a text ``NA`` (or ``None``) meant as a value.

Before, ``veil risk``, ``describe``, ``scan``, ``utility``, ``explore`` and ``query`` had no
``--na-values`` and read the default missing words whatever the steward meant, so their figures
disagreed with what ``veil anonymize --na-values ""`` released and ``veil check --na-values ""``
verified.  Every figure below is counted by hand from the table ``TABLE``.
"""

from __future__ import annotations

import json

import pytest
import typer.main
from typer.testing import CliRunner

from veil.cli import app
from veil.cli._reading_options import NA_VALUES_HELP, na_values_of
from veil.data import DEFAULT_NA_VALUES, parse_na_values
from veil.errors import ParameterError

#: country and answer are quasi-identifiers, diag the sensitive attribute; NA and None are a country
#: code, an answer and a diagnosis code; row 7's country is an empty cell (missing either way).
TABLE = """country,answer,diag
NA,None,flu
NA,None,cold
None,yes,flu
None,yes,NA
US,no,cold
US,no,None
,None,flu
"""

#: Who reads the rows in risk and query: in memory, DuckDB, Spark (a session of its own: slow).
ENGINES = ["local", "duckdb", pytest.param("spark", marks=[pytest.mark.spark, pytest.mark.slow])]

READING_COMMANDS = ("anonymize", "check", "risk", "describe", "scan", "utility", "explore", "query")


def _run(*args: object):
    result = CliRunner().invoke(app, [str(a) for a in args])
    assert result.exit_code == 0, (result.stdout, result.stderr, result.exception)
    return result


@pytest.fixture
def table(tmp_path):
    path = tmp_path / "t.csv"
    path.write_text(TABLE)
    return path


@pytest.fixture(params=["value", "default"])
def mode(request):
    """``value``: --na-values "" (NA and None are values); ``default``: the default missing words."""
    return request.param


def _na(mode: str) -> list[str]:
    return ["--na-values", ""] if mode == "value" else []


def test_every_reading_command_shares_one_option_definition():
    commands = typer.main.get_command(app).commands
    for name in READING_COMMANDS:
        (option,) = [p for p in commands[name].params if "--na-values" in p.opts]
        assert option.help == NA_VALUES_HELP, name
        assert option.default is None, name
    # the help names exactly the default words
    assert NA_VALUES_HELP.startswith('Cell texts read as missing, comma-separated (default: "", ' +
                                     ", ".join(DEFAULT_NA_VALUES[1:]) + ");")


@pytest.mark.parametrize("text", [None, "", "NA", " NA , None ", "a,,b", 'x"y,z', "NA,NA"])
def test_unquoted_words_parse_as_the_library_parses_them(text):
    assert na_values_of(text) == parse_na_values(text)


def test_a_quoted_word_may_hold_a_comma():
    assert na_values_of('"n, a",NA') == ("", "n, a", "NA")


@pytest.mark.parametrize("text", ['"NA', '"NA" x,None', "a\nb", "NA,a\tb"])
def test_a_malformed_list_is_refused(text):
    with pytest.raises(ParameterError, match="--na-values"):
        na_values_of(text)


@pytest.mark.parametrize(("mode", "figures"), [
    # column: (distinct, missing)
    ("value", {"country": (3, 1), "answer": (3, 0), "diag": (4, 0)}),
    ("default", {"country": (1, 5), "answer": (2, 3), "diag": (2, 2)}),
])
def test_describe_counts_na_as_a_value(table, mode, figures):
    out = _run("describe", table, *_na(mode)).stdout
    for column, (distinct, missing) in figures.items():
        (line,) = [line for line in out.splitlines() if f" {column} " in line]
        cells = [cell.strip() for cell in line.strip("│┃ ").split("│")]
        assert cells == [column, "categorical", str(distinct), str(missing)], line


@pytest.mark.parametrize("engine", ENGINES)
@pytest.mark.parametrize(("mode", "classes", "uniques", "highest", "homogeneous"), [
    # (NA,None) 2, (None,yes) 2, (US,no) 2, (missing,None) 1: the last one alone and its diag one value
    ("value", 4, 1, 1.0, 1),
    # (missing,missing) 3, (missing,yes) 2, (US,no) 2; a missing diag is a value of its own
    ("default", 3, 0, 0.5, 0),
])
def test_risk_counts_na_as_a_value(table, tmp_path, engine, mode, classes, uniques, highest, homogeneous):
    pytest.importorskip({"local": "veil", "duckdb": "duckdb", "spark": "pyspark"}[engine])
    out = tmp_path / "r.json"
    _run("risk", table, "--qi", "country,answer", "--sensitive", "diag", "--engine", engine, "--json", out, *_na(mode))
    report = json.loads(out.read_text())
    assert (report["classes"], report["sample_uniques_count"], report["prosecutor"]["highest"]) == (
        classes, uniques, highest)
    assert report["sensitive"]["diag"]["homogeneous_classes"] == homogeneous


@pytest.mark.parametrize(("mode", "figures"), [
    ("value", {"country": (1, 3), "answer": (0, 3), "diag": (0, 4)}),  # column: (missing, distinct)
    ("default", {"country": (5, 1), "answer": (3, 2), "diag": (2, 2)}),
])
def test_scan_counts_na_as_a_value(table, tmp_path, mode, figures):
    out = tmp_path / "s.json"
    _run("scan", table, "--json", out, *_na(mode))
    columns = json.loads(out.read_text())["columns"]
    assert {c: (columns[c]["missing"], columns[c]["distinct"]) for c in figures} == figures


@pytest.mark.parametrize("engine", ENGINES)
@pytest.mark.parametrize(("mode", "answers"), [
    ("value", [2, 1, {"None": 3, "yes": 2, "no": 2}]),
    ("default", [0, 0, {"None": 0, "yes": 2, "no": 2}]),  # a missing value matches no comparison
])
def test_query_counts_rows_that_read_na(table, engine, mode, answers):
    pytest.importorskip({"local": "veil", "duckdb": "duckdb", "spark": "pyspark"}[engine])
    # ε = 10^4 per query: the geometric noise is 0 but with probability below 1e-4000
    result = _run("query", table, "count where country == NA", "count where diag == None", "histogram answer",
                  "--categories", "None,yes,no", "--epsilon", "1e4", "--budget", "1e5", "--json", "--engine", engine,
                  *_na(mode))
    assert [json.loads(line)["value"] for line in result.stdout.splitlines()] == answers


@pytest.mark.parametrize(("mode", "k", "highest"), [
    ("value", 1, 1.0),  # NA 2, None 2, US 2, the empty cell 1
    ("default", 2, 0.5),  # missing 5 (NA, None, the empty cell), US 2
])
def test_explore_points_count_na_as_a_value(table, mode, k, highest):
    result = _run("explore", table, "--qi", "country", "--hierarchy", "country=mask:1", "-k", "1", "--json", "-",
                  "-q", *_na(mode))
    (point,) = json.loads(result.stdout)["points"]
    assert point["transformation"] == {"country": 0}
    assert (point["privacy"]["k"], point["privacy"]["highest_risk"]) == (k, highest)


def test_utility_reads_both_tables_with_the_words(tmp_path):
    # the target holds only the codes NA and None: values with --na-values "", else every one missing
    rows = ["country,sex,code"] + [f"{c},{s},{t}" for c, s, t in zip(
        ["NA", "US", "DE", "NA", "US", "DE"] * 3, ["f", "m"] * 9, ["NA", "None", "NA"] * 6)]
    original = tmp_path / "o.csv"
    original.write_text("\n".join(rows) + "\n")
    release = tmp_path / "r.csv"
    _run("anonymize", original, "--qi", "country", "--hierarchy", "country=mask:1", "--insensitive", "sex",
         "--sensitive", "code", "-k", "1", "--no-shuffle", "--na-values", "", "-o", release, "--json",
         tmp_path / "a.json", "-q")
    assert release.read_text().splitlines()[1:4] == ["NA,f,NA", "US,m,None", "DE,f,NA"]  # the identity, in order
    out = tmp_path / "u.json"
    _run("utility", original, release, "--target", "code", "--qi", "country", "--aligned", "--na-values", "",
         "--json", out)
    result = json.loads(out.read_text())
    for scores in result["classifiers"].values():  # the release is the original, read the same way
        assert scores["u_san"] == scores["u_max"]
    refused = CliRunner().invoke(app, ["utility", str(original), str(release), "--target", "code", "--qi", "country",
                                       "--aligned"])
    assert refused.exit_code == 2
    assert "(0 distinct values, 18 missing)" in refused.stderr
    # the release's report says which words it read: without --na-values, utility reads them
    _run("utility", original, release, "--target", "code", "--report", tmp_path / "a.json", "--aligned",
         "--json", out)
    assert json.loads(out.read_text()) == result


def _args(command: str, table, tmp_path) -> list[str]:
    """The arguments of ``command`` on ``table`` (a --json or -o output under ``tmp_path``)."""
    out = tmp_path / "out.json"
    args = {
        "risk": ["--qi", "country", "--json", out], "describe": [], "scan": ["--json", out],
        "utility": [table, "--target", "diag", "--qi", "country", "--json", out],
        "explore": ["--qi", "country", "--hierarchy", "country=mask:1", "-k", "1", "--json", out],
        "query": ["count", "--epsilon", "1", "--budget", "1", "--json-out", out],
        "check": ["--qi", "country", "--json", out],
        "anonymize": ["--qi", "country", "--hierarchy", "country=mask:1", "-k", "1", "-o", tmp_path / "r.csv",
                      "--json", out],
    }[command]
    return [command, str(table), *map(str, args)]


def _assert_refused(result, tmp_path, before: list[str], mention: str) -> None:
    """Exit 2, one ``error:`` line naming ``mention``, no traceback, nothing written."""
    assert result.exit_code == 2, (result.stdout, result.stderr)
    lines = [line for line in result.stderr.splitlines() if line.strip()]
    assert len(lines) == 1 and lines[0].startswith("error: ") and mention in lines[0], result.stderr
    assert "Traceback" not in result.stdout + result.stderr
    assert sorted(p.name for p in tmp_path.iterdir()) == before


@pytest.mark.parametrize("command", READING_COMMANDS)
@pytest.mark.parametrize("text", ['"NA,None', "NA,line\nbreak"])
def test_a_malformed_na_values_is_refused_in_one_line(table, tmp_path, command, text):
    before = sorted(p.name for p in tmp_path.iterdir())
    result = CliRunner().invoke(app, [*_args(command, table, tmp_path), "--na-values", text])
    _assert_refused(result, tmp_path, before, "error: --na-values")
    assert table.read_text() == TABLE


@pytest.mark.parametrize("command", READING_COMMANDS)
def test_na_values_on_parquet_alone_is_refused_not_ignored(tmp_path, command):
    # a Parquet column's missing values are its nulls: the words would change nothing
    import pandas as pd

    table = tmp_path / "t.parquet"
    pd.DataFrame({"country": ["NA", "US", "NA"], "diag": ["a", "b", "a"]}).to_parquet(table)
    before = sorted(p.name for p in tmp_path.iterdir())
    result = CliRunner().invoke(app, [*_args(command, table, tmp_path), "--na-values", "NA"])
    _assert_refused(result, tmp_path, before, "--na-values")
    assert "'t.parquet' is a Parquet file" in result.stderr


def test_na_values_applies_when_one_table_is_a_csv():
    from pathlib import Path

    assert na_values_of("", Path("o.csv"), Path("r.parquet")) == ("",)
    assert na_values_of(None, Path("r.parquet")) == DEFAULT_NA_VALUES


def test_explore_refuses_na_values_beside_a_configuration(tmp_path, table):
    config = tmp_path / "c.yaml"
    config.write_text(f"input: {{path: {table}}}\nattributes: {{country: {{role: quasi-identifier, hierarchy: "
                      "'mask:1'}}}\nmodels: [{type: k-anonymity, k: 2}]\n")
    result = CliRunner().invoke(app, ["explore", str(config), "-k", "1", "--na-values", ""])
    assert result.exit_code == 2
    assert "--na-values" in result.stderr and "input.na_values" in result.stderr


def test_query_ledger_key_does_not_change_with_the_words(table, tmp_path):
    # the ledger keys a dataset by its records read with the default words: another --na-values
    # reads the same file, and spends from the same budget
    ledger = tmp_path / "ledger.json"
    spent = []
    for words in (["--na-values", ""], [], ["--na-values", "NA"]):
        result = _run("query", table, "count", "--epsilon", "1", "--budget", "3", "--budget-file", ledger, "--json",
                      *words)
        spent.append(json.loads(result.stdout)["budget_remaining"]["epsilon"])
    assert spent == [2.0, 1.0, 0.0]


def test_anonymize_prints_the_auto_hierarchy_its_report_holds(table, tmp_path):
    # the printed choice was made on the file read with the default words ("1 value": US), the
    # release's on the file as --na-values reads it (NA, None, US: 3 values)
    report = tmp_path / "r.json"
    result = _run("anonymize", table, "--qi", "country", "--auto-hierarchies", "-k", "2", "--na-values", "",
                  "-o", tmp_path / "r.csv", "--json", report)
    chosen = json.loads(report.read_text())["hierarchies"]["country"]
    assert "3 values" in chosen
    assert f"country={chosen}" in " ".join((result.stdout + result.stderr).split())


@pytest.mark.parametrize(("words", "k"), [("[]", 1), ("null", 2)])
def test_explore_reads_a_configuration_with_its_words(tmp_path, table, words, k):
    # input.na_values: [] is --na-values "" (NA 2, None 2, US 2, the empty cell 1); null the default words
    config = tmp_path / "c.yaml"
    config.write_text(f"input: {{path: {table}, na_values: {words}}}\nattributes: {{country: "
                      "{role: quasi-identifier, hierarchy: 'mask:1'}}\nmodels: [{type: k-anonymity, k: 2}]\n")
    result = _run("explore", config, "-k", "1", "--json", "-", "-q")
    (point,) = json.loads(result.stdout)["points"]
    assert point["privacy"]["k"] == k
