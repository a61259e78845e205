"""Column names from a CSV header never put control characters or Rich markup on the terminal or in the report.

Before, a header holding ESC (``age\\x1b[31mRED``) or a line break reached the
terminal raw: in the ``hierarchies:`` line and the summary's tables, and in
error messages ("its columns are: a, b, c.", joined with ``str``), where a
line break also split the one-line message.  The HTML report escaped markup but
held raw 0x1B bytes.
"""

from __future__ import annotations

import re

import pytest
from typer.testing import CliRunner

from veil.cli import app
from veil.cli._app import esc
from veil._text import printable

ESC_NAME = "age\x1b[31mRED\x1b[0m"
NL_NAME = "line\nbreak"
#: Control bytes no output may hold (line breaks checked apart: they lay out the output).
CONTROL = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f]")


def _runner() -> CliRunner:
    try:
        return CliRunner(mix_stderr=False)
    except TypeError:  # click >= 8.2: stderr is always apart
        return CliRunner()


@pytest.fixture
def hostile_csv(tmp_path):
    path = tmp_path / "mk.csv"
    rows = "".join(f"{a},{b},{c}\n" for a, b, c in [(30, 1, "x"), (31, 2, "y"), (45, 3, "x"), (47, 4, "y")])
    path.write_text(f'{ESC_NAME},"{NL_NAME}",diag\n' + rows, encoding="utf-8")
    return path


def _run(*args):
    result = _runner().invoke(app, [str(a) for a in args])
    return result, result.stdout, result.stderr


def test_printable_escapes_controls_and_keeps_text():
    assert printable(ESC_NAME) == "age\\x1b[31mRED\\x1b[0m"
    assert printable("a\nb\rc\td\x7fe\x9bf\u202eg") == "a\\nb\\rc\\td\\x7fe\\x9bf\\u202eg"
    assert printable("âge, 中文, naïve") == "âge, 中文, naïve"
    assert printable("a\nb\x1b", keep="\n") == "a\nb\\x1b"
    assert printable(12) == "12"


def test_esc_escapes_markup_and_controls():
    assert esc("[bold]x\x1b") == "\\[bold]x\\x1b"


def test_error_message_is_one_line_without_escape(hostile_csv, tmp_path):
    result, out, err = _run("anonymize", hostile_csv, "--qi", "nosuch\x1b[5m", "--sensitive", "diag",
                            "--auto-hierarchies", "-k", "1", "-o", tmp_path / "e.csv")
    assert result.exit_code == 2, err
    assert "\x1b" not in err and "\x1b" not in out
    assert not CONTROL.search(err)
    lines = [line for line in err.splitlines() if line.strip()]
    assert len(lines) == 1, err
    assert lines[0].startswith("error:")
    assert "nosuch\\x1b[5m" in lines[0]
    assert "age\\x1b[31mRED\\x1b[0m" in lines[0] and "line\\nbreak" in lines[0]


def test_summary_and_report_hold_no_control_byte(hostile_csv, tmp_path):
    html = tmp_path / "r.html"
    result, out, err = _run("anonymize", hostile_csv, "--qi", ESC_NAME, "--sensitive", "diag", "--keep-unlisted",
                            "--auto-hierarchies", "-k", "1", "-o", tmp_path / "e.csv", "--html", html, "-q")
    assert result.exit_code == 0, err
    for stream in (out, err):
        assert not CONTROL.search(stream), stream
    assert "hierarchies: age\\x1b[31mRED\\x1b[0m=" in out
    assert "line\\nbreak" in out  # the Columns table and the unlisted warning
    assert not any(line.rstrip() in ("line", "break") or line.startswith("break") for line in out.splitlines())
    page = html.read_bytes().decode("utf-8")
    assert not CONTROL.search(page)
    assert "age\\x1b[31mRED" in page


@pytest.mark.parametrize("name", ["[bold red]x[/]", "[link=http://evil]y[/link]", "[/]z"])
def test_rich_markup_in_a_name_is_printed_literally(tmp_path, name):
    path = tmp_path / "m.csv"
    quoted = '"' + name + '"'
    path.write_text(f"{quoted},diag\n" + "".join(f"{v},{d}\n" for v, d in [(1, "p"), (2, "q"), (3, "p"), (4, "q")]),
                    encoding="utf-8")
    result, out, err = _run("anonymize", path, "--qi", name, "--sensitive", "diag", "--auto-hierarchies",
                            "-k", "1", "-o", tmp_path / "e.csv", "-q")
    assert result.exit_code == 0, err
    assert f"hierarchies: {name}=" in out
    missing, merr = _run("anonymize", path, "--qi", "nosuch", "--sensitive", "diag", "--auto-hierarchies",
                         "-k", "1", "-o", tmp_path / "f.csv")[::2]
    assert missing.exit_code == 2
    assert name in merr


def test_console_escapes_what_a_print_did_not():
    """The CLI's consoles write no control character from the input even when a print forgot :func:`esc`."""
    from veil.cli import _app

    with _app.console.capture() as capture:
        _app.console.print(f"[bold]hierarchies:[/] {esc(ESC_NAME)}")
        _app.console.print(ESC_NAME, markup=False)
    text = capture.get()
    assert "\x1b" not in text
    assert text.count("age\\x1b[31mRED\\x1b[0m") == 2


def test_report_template_escapes_control_bytes():
    pytest.importorskip("jinja2")
    from veil.report import render_html

    page = render_html({"records": 2, "records_out": 2, "transformation": {ESC_NAME: 1, "\x9b2J": 0},
                        "title": "x"}, title="t\x1b]0;pwned\x07", plots=False)
    assert not CONTROL.search(page)
    assert "age\\x1b[31mRED\\x1b[0m" in page and "\\x9b2J" in page and "t\\x1b]0;pwned\\x07" in page
    assert "中文" in render_html({"records": 1, "records_out": 1, "transformation": {"中文": 0}}, plots=False)
