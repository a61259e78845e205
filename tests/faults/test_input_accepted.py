"""Unusual but valid files: every reading command accepts them, and reads what the file says."""

from __future__ import annotations

import pytest

from veil.data import read_table

WIDE = 2000

#: name -> (bytes, expected columns, expected rows as lists of cells)
CASES: dict[str, tuple[bytes, list[str], list[list[str | None]]]] = {
    "utf8-bom": (b"\xef\xbb\xbfa,b\n1,2\n3,4\n", ["a", "b"], [["1", "2"], ["3", "4"]]),
    "crlf": (b"a,b\r\n1,2\r\n3,4\r\n", ["a", "b"], [["1", "2"], ["3", "4"]]),
    "bom-and-crlf": (b"\xef\xbb\xbfa;b\r\n1;2\r\n", ["a", "b"], [["1", "2"]]),
    "blank-lines": (b"a,b\n1,2\n\n3,4\n\n", ["a", "b"], [["1", "2"], ["3", "4"]]),
    "no-final-newline": (b"a,b\n1,2\n3,4", ["a", "b"], [["1", "2"], ["3", "4"]]),
    "semicolon": (b"a;b\n1;2\n3;4\n", ["a", "b"], [["1", "2"], ["3", "4"]]),
    "tab": (b"a\tb\n1\t2\n", ["a", "b"], [["1", "2"]]),
    "pipe": (b"a|b\n1|2\n", ["a", "b"], [["1", "2"]]),
    "one-column": (b"name\nann\nbob\n", ["name"], [["ann"], ["bob"]]),
    # the old reader split this file on the comma of a value
    "one-column-with-commas": (b"name\nSmith, John\nLee, Ann\nBob\n", ["name"],
                               [["Smith, John"], ["Lee, Ann"], ["Bob"]]),
    "quoted-newline": (b'note,b\n"line one\nline two",1\nx,2\n', ["note", "b"], [["line one\nline two", "1"], ["x", "2"]]),
    "quoted-separator": (b'a,b\n"1,5",2\n', ["a", "b"], [["1,5", "2"]]),
    "leading-zeros": (b"zip,n\n07401,1\n00501,2\n", ["zip", "n"], [["07401", "1"], ["00501", "2"]]),
    "missing-cells": (b"a,b\n1,\nNA,2\n", ["a", "b"], [["1", None], [None, "2"]]),
    "wide": ((",".join(f"c{i}" for i in range(WIDE)) + "\n" + ",".join(["7"] * WIDE) + "\n").encode(),
             [f"c{i}" for i in range(WIDE)], [["7"] * WIDE]),
    # a header longer than the 64 KiB sample: every column is still read as text ("007" stays "007")
    "header-wider-than-sample": ((",".join(f"column_number_{i:05d}" for i in range(5000)) + "\n"
                                  + ",".join(["007"] * 5000) + "\n").encode(),
                                 [f"column_number_{i:05d}" for i in range(5000)], [["007"] * 5000]),
    "markup-names": (b"[bold]x,[/]\n1,2\n", ["[bold]x", "[/]"], [["1", "2"]]),
    # wide enough to cross the sniffer's sample; scan judges each column, so the commands get 200
    "wide-200": ((",".join(f"c{i}" for i in range(200)) + "\n" + ",".join(["7"] * 200) + "\n").encode(),
                 [f"c{i}" for i in range(200)], [["7"] * 200]),
}


@pytest.mark.parametrize("case", list(CASES))
def test_read_as_written(tmp_path, case):
    content, columns, rows = CASES[case]
    path = tmp_path / "t.csv"
    path.write_bytes(content)
    table = read_table(path)
    assert table.column_names == columns
    assert [list(r.values()) for r in table.to_pylist()] == rows


@pytest.mark.parametrize("command", [["describe"], ["scan"], ["risk", "--qi", "{first}"], ["check", "--qi", "{first}"]])
@pytest.mark.parametrize("case", ["utf8-bom", "crlf", "blank-lines", "one-column-with-commas", "wide-200"])
def test_commands_accept(faults, tmp_path, case, command):
    content, columns, _ = CASES[case]
    path = tmp_path / "t.csv"
    path.write_bytes(content)
    before = faults.snapshot(tmp_path)
    args = [command[0], path, *(a.replace("{first}", columns[0]) for a in command[1:])]
    outcome = faults.invoke(*args)
    assert outcome.exit_code == 0, outcome.text
    assert faults.snapshot(tmp_path) == before  # read only
