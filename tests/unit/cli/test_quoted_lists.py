"""Comma-separated CLI lists name a column holding a comma with CSV-style quoting.

Before, ``--qi '"zip, code",age'`` was split at every comma (``'"zip'``, ``'code"'``,
``'age'``) and no column holding a comma could be named at all.
"""

from __future__ import annotations

import pandas as pd
import pytest
from typer.testing import CliRunner

from veil.cli import app
from veil.cli._app import parse_assignments, split_list
from veil.errors import ParameterError


def _old_split(value):
    """The parser before quoting: every comma splits, parts stripped, blanks dropped."""
    return [part.strip() for part in value.split(",") if part.strip()] if value else []


@pytest.mark.parametrize("value", ["age,sex", " age , sex ", ",,age,, ,sex,", "a\"b,c", "", "zip", "a b,c-d"])
def test_unquoted_lists_parse_as_before(value):
    assert split_list(value, "--qi") == _old_split(value)


@pytest.mark.parametrize(("value", "names"), [
    ('"zip, code",age', ["zip, code", "age"]),
    ('age, "zip, code"', ["age", "zip, code"]),
    (' "zip, code" , age ', ["zip, code", "age"]),
    ('"say ""hi"", twice",x', ['say "hi", twice', "x"]),
    ('"",age', ["age"]),
])
def test_quoted_names_keep_their_commas(value, names):
    assert split_list(value, "--qi") == names


@pytest.mark.parametrize("value", ['"zip, code,age', '"zip, code" x,age', 'age,"zip'])
def test_a_malformed_quote_names_the_option(value):
    with pytest.raises(ParameterError, match="--sensitive: malformed quoting"):
        split_list(value, "--sensitive")


def test_assignments_take_a_quoted_name():
    assert parse_assignments(['"zip, code"=categorical'], "--kind") == {"zip, code": "categorical"}
    assert parse_assignments(['"a,b"=ordinal,age=numeric'], "--kind") == {"a,b": "ordinal", "age": "numeric"}
    assert parse_assignments([" age = numeric "], "--kind") == {"age": "numeric"}  # as before
    with pytest.raises(ParameterError, match="--kind: malformed quoting"):
        parse_assignments(['"zip, code=categorical'], "--kind")


@pytest.fixture
def comma_file(tmp_path):
    path = tmp_path / "in.csv"
    rows = [("4767%d" % (i % 3), str(20 + i), ["flu", "cold"][i % 2]) for i in range(12)]
    pd.DataFrame(rows, columns=["zip, code", "age", "diag"]).to_csv(path, index=False)
    return path


def test_check_names_a_column_holding_a_comma(comma_file, tmp_path):
    out = tmp_path / "check.json"
    run = CliRunner().invoke(app, ["check", str(comma_file), "--qi", '"zip, code",age', "--sensitive", "diag",
                                   "--json", str(out)])
    assert run.exit_code == 0, run.output
    import json

    assert json.loads(out.read_text())["quasi_identifiers"] == ["zip, code", "age"]


def test_anonymize_with_quoted_qi_kind_hierarchy_and_l(comma_file, tmp_path):
    out = tmp_path / "out.csv"
    run = CliRunner().invoke(app, [
        "anonymize", str(comma_file), "--qi", '"zip, code",age', "--sensitive", "diag",
        "--kind", '"zip, code"=categorical', "--hierarchy", '"zip, code"=mask:1', "--hierarchy", "age=interval:5,10",
        "-k", "2", "-l", '"diag":2', "-o", str(out)])
    assert run.exit_code == 0, run.output
    released = pd.read_csv(out, dtype=str, keep_default_na=False)
    assert list(released.columns) == ["zip, code", "age", "diag"]
    assert released.groupby(["zip, code", "age"]).size().min() >= 2


@pytest.mark.parametrize(("command", "option"), [
    (["check", "{f}", "--qi", '"zip, code,age'], "--qi"),
    (["risk", "{f}", "--qi", "age", "--sensitive", '"diag'], "--sensitive"),
    (["anonymize", "{f}", "--qi", "age", "--identifier", '"x" y', "-k", "2", "-o", "{o}"], "--identifier"),
    (["anonymize", "{f}", "--qi", "age", "--hierarchy", '"age=interval:5', "-k", "2", "-o", "{o}"], "--hierarchy"),
    (["anonymize", "{f}", "--qi", "age", "--sensitive", "diag", "-l", '"diag:2', "-o", "{o}"], "-l"),
])
def test_a_malformed_quote_exits_2_with_no_output(comma_file, tmp_path, command, option):
    out = tmp_path / "out.csv"
    args = [a.format(f=comma_file, o=out) for a in command]
    run = CliRunner().invoke(app, args)
    assert run.exit_code == 2, run.output
    assert f"{option}: malformed quoting" in run.output
    assert not out.exists()
