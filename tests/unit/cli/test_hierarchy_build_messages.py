"""``veil hierarchy build``: the command it prints is quoted for a shell, and an error names the column."""

from __future__ import annotations

import shlex

from typer.testing import CliRunner

from veil.cli import app


def test_the_printed_command_quotes_every_name_for_a_shell(tmp_path):
    table = tmp_path / "t.csv"
    table.write_text("x>file;age\na;30\nb;40\na;50\nb;60\n")
    result = CliRunner().invoke(app, ["hierarchy", "build", str(table), "--qi", "x>file,age", "-o",
                                      str(tmp_path / "hh")], terminal_width=400)
    assert result.exit_code == 0, result.output
    line = next(line for line in result.output.splitlines() if line.strip().startswith("veil anonymize"))
    lexer = shlex.shlex(line, posix=True, punctuation_chars=True)  # as a shell reads it: '>' unquoted is a token
    words = list(lexer)
    assert ">" not in words  # no redirection
    assert words[words.index("--qi") + 1] == "x>file,age"
    assert any(w.startswith("x>file=") for w in words)


def test_a_declared_numeric_kind_names_the_column_in_its_error(tmp_path):
    table = tmp_path / "k.csv"
    table.write_text("age;sex\nx;M\ny;F\n30;M\n")
    result = CliRunner().invoke(app, ["hierarchy", "build", str(table), "--qi", "age", "--kind", "age=numeric",
                                      "-o", str(tmp_path / "hk")])
    assert result.exit_code == 2 and "numeric hierarchy of 'age'" in result.output
