"""The duckdb engine reads the CSV files the local engine reads, and refuses the ones it refuses.

Three cases where it did not: line ends that mix CRLF and LF (a raw DuckDB
exception), a NUL byte (accepted by ``risk``/``check``/``query``), and a
header whose quoted column name holds a line break (misread header).
"""

from __future__ import annotations

import json
from pathlib import Path

import pandas as pd
import pytest
from typer.testing import CliRunner

from veil.cli import app
from veil.engines import DuckDBEngine, Source
from veil.errors import DataFormatError

from .conftest import canonical_counts

pytest.importorskip("duckdb")

QIS = ["age", "sex", "race"]


@pytest.fixture(scope="module")
def crlf_lines(adult_csv: str) -> list[bytes]:
    """The header and the first 199 rows of Adult, each ending in CRLF."""
    with open(adult_csv, "rb") as handle:
        lines = handle.read().split(b"\n")[:200]
    return [line.rstrip(b"\r") + b"\r\n" for line in lines]


def _write(path: Path, lines: list[bytes]) -> Path:
    path.write_bytes(b"".join(lines))
    return path


def _mixed(lines: list[bytes], *lf_lines: int) -> list[bytes]:
    """``lines`` with the (1-based) ``lf_lines`` ending in a bare LF."""
    return [line[:-2] + b"\n" if i in lf_lines else line for i, line in enumerate(lines, start=1)]


def _risk(path: Path, engine: str, out: Path) -> tuple[int, str]:
    result = CliRunner().invoke(app, ["risk", str(path), "--sep", ";", "--qi", ",".join(QIS),
                                      "--engine", engine, "--json", str(out)])
    return result.exit_code, result.output


# ---------------------------------------------------------------- mixed line ends
def test_mixed_line_ends_read_as_the_local_engine_reads_them(tmp_path: Path, crlf_lines: list[bytes]) -> None:
    path = _write(tmp_path / "mixed.csv", _mixed(crlf_lines, 31, 120))
    counts = DuckDBEngine().group_count(path, QIS, ["salary-class"])
    expected = pd.read_csv(path, sep=";", dtype=str, keep_default_na=False)
    expected = expected.groupby(QIS + ["salary-class"]).size().rename("count").reset_index()
    pd.testing.assert_frame_equal(canonical_counts(counts), canonical_counts(expected), check_dtype=False)
    assert int(counts["count"].sum()) == 199
    assert not any(str(v).endswith("\r") for v in counts["salary-class"])  # no CR left in the last column


@pytest.mark.parametrize("ending", [b"\r\n", b"\r\r\n", b"\r"])
def test_mixed_line_ends_same_report_as_local_through_the_cli(tmp_path: Path, crlf_lines: list[bytes],
                                                              ending: bytes) -> None:
    """Lines ending in ``ending`` but line 31 in LF; ``\\r\\r\\n`` is ``sed 's/$/\\r/'`` on a CRLF file."""
    lines = [line[:-2] + (b"\n" if i == 31 else ending) for i, line in enumerate(crlf_lines, start=1)]
    path = _write(tmp_path / "mixed.csv", lines)
    reports = {}
    for engine in ("local", "duckdb"):
        code, output = _risk(path, engine, tmp_path / f"{engine}.json")
        assert code == 0, output
        reports[engine] = json.loads((tmp_path / f"{engine}.json").read_text())
    assert reports["local"]["records"] == 199
    for key in ("records", "classes", "sample_uniques_count", "prosecutor", "journalist", "marketer"):
        assert reports["duckdb"][key] == reports["local"][key], key


@pytest.mark.parametrize("extra, found", [(b";EXTRA", "10"), (None, "4")])
def test_mixed_line_ends_with_a_ragged_row_name_its_line(tmp_path: Path, crlf_lines: list[bytes],
                                                         extra: bytes | None, found: str) -> None:
    lines = _mixed(crlf_lines, 20)  # the LF line comes before the ragged one
    lines[50] = (lines[50][:-2] + extra if extra else b"Male;39;White;x") + b"\r\n"  # line 51
    path = _write(tmp_path / "ragged.csv", lines)
    with pytest.raises(DataFormatError, match=r"line 51: expected 9 fields .* but found " + found):
        DuckDBEngine().group_count(path, QIS)
    code, output = _risk(path, "duckdb", tmp_path / "r.json")
    assert code == 2 and "line 51" in output and "Traceback" not in output, output


def test_another_invalid_input_of_duckdb_is_a_data_format_error() -> None:
    import duckdb

    exc = duckdb.InvalidInputException("Invalid Input Error: The CSV Parser state machine reached an invalid state.\n"
                                       "Possible fixes: ...")
    source = Source(Path("/x/f.csv"), "csv", ("a",))
    error = DuckDBEngine._translate(exc, source)
    assert isinstance(error, DataFormatError)
    assert "'/x/f.csv'" in str(error) and "\n" not in str(error)


# ---------------------------------------------------------------- NUL byte
@pytest.mark.parametrize("command", ["risk", "check", "query", "anonymize"])
def test_a_nul_byte_is_refused_by_every_engine_command(tmp_path: Path, crlf_lines: list[bytes],
                                                       command: str) -> None:
    lines = [line[:-2] + b"\n" for line in crlf_lines]
    lines[30] = lines[30][:2] + b"\x00" + lines[30][2:]  # line 31
    path = _write(tmp_path / "nul.csv", lines)
    args = {
        "risk": ["risk", str(path), "--sep", ";", "--qi", "age,sex,race"],
        "check": ["check", str(path), "--sep", ";", "--qi", "age,sex,race"],
        "query": ["query", str(path), "count", "--sep", ";", "--epsilon", "1", "--budget", "10"],
        "anonymize": ["anonymize", str(path), "--sep", ";", "--qi", "age,sex", "-k", "2", "--auto-hierarchies",
                      "--output", str(tmp_path / "out.csv")],
    }[command]
    result = CliRunner().invoke(app, [*args, "--engine", "duckdb"])
    assert result.exit_code == 2, result.output
    assert "line 31: a NUL byte" in result.output


def test_a_nul_byte_past_the_identifier_scan_is_refused(tmp_path: Path, crlf_lines: list[bytes]) -> None:
    rows = [line[:-2] + b"\n" for line in crlf_lines]
    lines = rows[:1] + rows[1:] * 60  # 11,941 rows: more than the 10,000 the anonymize scan reads
    lines[11_000] = lines[11_000][:2] + b"\x00" + lines[11_000][2:]
    path = _write(tmp_path / "nul.csv", lines)
    with pytest.raises(DataFormatError, match=r"line 11001: a NUL byte"):
        DuckDBEngine().group_count(path, QIS)


# ---------------------------------------------------------------- header with a line break
@pytest.mark.parametrize("inner", [b"\r\n", b"\n"])  # b"\n": a quoted LF in a CRLF file
def test_a_quoted_line_break_in_a_header_name(tmp_path: Path, inner: bytes) -> None:
    rows = [b"x,v,p", b"y,v,q", b"x,w,q", b"z,v,p"] * 3
    path = _write(tmp_path / "nlhdr.csv", [b'a,"b' + inner + b'c",d\r\n'] + [r + b"\r\n" for r in rows])
    assert Source.from_path(path).columns == ("a", "b" + inner.decode() + "c", "d")
    counts = DuckDBEngine().group_count(path, ["a"], ["d"])
    assert int(counts["count"].sum()) == 12
    assert set(counts["a"]) == {"x", "y", "z"} and set(counts["d"]) == {"p", "q"}
    result = CliRunner().invoke(app, ["check", str(path), "--qi", "a", "--sensitive", "d", "--engine", "duckdb"])
    assert result.exit_code == 0, result.output


# ---------------------------------------------------------------- a quote left open
def test_a_quote_left_open_is_named_by_line_without_duckdbs_text(tmp_path: Path, crlf_lines: list[bytes]) -> None:
    lines = [line.replace(b"\r\n", b"\n") for line in crlf_lines]
    lines[60] = b'"' + lines[60]  # line 61 opens a quote that never closes
    path = _write(tmp_path / "open.csv", lines)
    with pytest.raises(DataFormatError, match=r"line 61: a malformed line \(a quote left open") as caught:
        DuckDBEngine().group_count(path, QIS, [])
    assert "Invalid Input Error" not in str(caught.value) and "Original Line" not in str(caught.value)
