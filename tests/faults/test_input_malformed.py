"""Malformed input files, read by every command: each is refused the same way by the one reader.

Every case x every reading command: exit 2, a one-line error that names the
line or the column, no traceback, nothing written, the input unchanged.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

WIDE = 3000

#: name -> (file name, bytes, words the error must contain)
CASES: dict[str, tuple[str, bytes, tuple[str, ...]]] = {
    "ragged-short": ("t.csv", b"a,b\n1,2\n3\n", ("line 3", "expected 2 fields")),
    "ragged-long": ("t.csv", b"a,b\n1,2\n3,4\n5,6,7\n", ("line 4", "found 3")),
    "ragged-after-blank-lines": ("t.csv", b"a,b\n1,2\n\n\n3\n", ("line 5",)),
    "ragged-after-multiline-value": ("t.csv", b'a,b\n"x\ny",2\n3,4\n5\n', ("line 5",)),
    "ragged-crlf": ("t.csv", b"a,b\r\n1,2\r\n3\r\n", ("line 3",)),
    "ragged-semicolon": ("t.csv", b"a;b;c\n1;2;3\n4;5\n", ("line 3",)),
    "duplicate-names": ("t.csv", b"a,b,a\n1,2,3\n", ("duplicate column names: 'a'", "columns 1 and 3")),
    "empty-name": ("t.csv", b"a,,c\n1,2,3\n", ("column 2 has an empty name",)),
    "blank-name": ("t.csv", b"a, ,c\n1,2,3\n", ("column 2 has an empty name",)),
    "empty-file": ("t.csv", b"", ("is empty",)),
    "blank-lines-only": ("t.csv", b"\n \n\r\n", ("is empty",)),
    "header-only": ("t.csv", b"a,b\n", ("no data rows",)),
    "header-only-crlf": ("t.csv", b"a,b\r\n\r\n", ("no data rows",)),
    "bad-utf8": ("t.csv", b"a,b\n1,2\n3,\xff\xfe\n", ("line 3", "not valid utf-8")),
    "bad-utf8-header": ("t.csv", b"a\xe9,b\n1,2\n", ("line 1", "not valid utf-8")),
    "nul-byte": ("t.csv", b"a,b\n1,2\n3,\x004\n", ("line 3", "NUL byte")),
    "utf16-read-as-utf8": ("t.csv", "a,b\n1,2\n".encode("utf-16"), ("line 1", "--encoding utf-16")),
    "binary-garbage": ("t.csv", bytes(range(256)) * 16, ("NUL byte",)),
    "open-quote": ("t.csv", b'a,b\n"1,2\n3,4\n', ("line 2",)),
    "wide-ragged": ("t.csv", (",".join(f"c{i}" for i in range(WIDE)) + "\n"
                              + ",".join("1" * WIDE) + "\n" + ",".join("1" * (WIDE - 1)) + "\n").encode(),
                    ("line 3", f"expected {WIDE} fields")),
    "not-parquet": ("t.parquet", b"a,b\n1,2\n", ("Cannot read", "Parquet")),
    "truncated-parquet": ("t.parquet", b"PAR1" + b"\x01" * 40, ("Cannot read", "Parquet")),
}

#: command -> arguments after the file (outputs go to out.*, which must never appear)
COMMANDS: dict[str, tuple[str, ...]] = {
    "describe": (),
    "scan": ("--json", "out.json"),
    "deidentify": ("--profile", "safe-harbor", "-o", "out.csv", "--report", "out.json"),
    "risk": ("--qi", "a", "--json", "out.json"),
    "check": ("--qi", "a", "--json", "out.json"),
    "query": ("count", "--epsilon", "1"),
    "anonymize": ("--qi", "a", "--hierarchy", "a=HIERARCHY", "-k", "2", "-o", "out.csv", "--json", "out.json"),
}


def _args(command: str, file: Path, folder: Path) -> list[str]:
    hierarchy = folder / "h.csv"
    if command == "anonymize":
        hierarchy.write_text("1,*\n2,*\n3,*\n")
    out = [str(folder / a) if a.startswith("out.") else a for a in COMMANDS[command]]
    return [command, str(file), *(a.replace("HIERARCHY", str(hierarchy)) for a in out)]


@pytest.mark.parametrize("command", list(COMMANDS))
@pytest.mark.parametrize("case", list(CASES))
def test_malformed_file_is_refused(faults, tmp_path, case, command):
    name, content, mentions = CASES[case]
    file = tmp_path / name
    file.write_bytes(content)
    args = _args(command, file, tmp_path)
    before = faults.snapshot(tmp_path)
    outcome = faults.invoke(*args)
    if command == "check" and case.startswith("header-only"):
        # a header and no row is what `anonymize --suppressed drop` writes when every record is
        # suppressed: check reports it (no class, levels null), it does not refuse it
        assert outcome.exit_code == 0, outcome.text
        assert "0 records, 0 classes" in outcome.stdout
        return
    if command == "query" and case.startswith("header-only"):
        # a table of no row is answered like any other (docs/dp.md: nothing before the noise depends on
        # the rows); what is refused here is the missing --budget
        faults.assert_refused(outcome, before, faults.snapshot(tmp_path), "--budget")
        return
    faults.assert_refused(outcome, before, faults.snapshot(tmp_path), *mentions)


@pytest.mark.parametrize("command", ["describe", "scan", "risk", "check", "deidentify"])
def test_missing_file(faults, tmp_path, command):
    before = faults.snapshot(tmp_path)
    outcome = faults.invoke(*_args(command, tmp_path / "absent.csv", tmp_path))
    faults.assert_refused(outcome, before, faults.snapshot(tmp_path), "No such file", "absent.csv")


@pytest.mark.parametrize("command", ["describe", "scan", "risk", "check", "deidentify"])
def test_folder_given_as_the_file(faults, tmp_path, command):
    folder = tmp_path / "data.csv"
    folder.mkdir()
    before = faults.snapshot(tmp_path)
    outcome = faults.invoke(*_args(command, folder, tmp_path))
    faults.assert_refused(outcome, before, faults.snapshot(tmp_path), "is a folder")


@pytest.mark.parametrize("command", ["describe", "scan", "risk", "check", "deidentify"])
def test_unreadable_file(faults, tmp_path, command, monkeypatch):
    file = tmp_path / "t.csv"
    file.write_text("a,b\n1,2\n")
    file.chmod(0)
    if os.geteuid() == 0:  # root reads any file: the permission check is told the truth for others
        real_access = os.access
        monkeypatch.setattr(os, "access", lambda p, mode, **kw: False if Path(p) == file else real_access(p, mode, **kw))
    try:
        before = faults.snapshot(tmp_path)
        outcome = faults.invoke(*_args(command, file, tmp_path))
        # the CLI's argument check (click) may answer first, with its usage box instead of one line
        assert outcome.exit_code == 2 and "Traceback" not in outcome.text
        assert "permission denied" in outcome.stderr or "not readable" in outcome.stderr
        assert faults.snapshot(tmp_path) == before
    finally:
        file.chmod(0o600)


def test_wrong_encoding_is_read_with_the_right_one(faults, tmp_path):
    file = tmp_path / "t.csv"
    file.write_bytes("a,city\n1,Zürich\n2,Genève\n".encode("latin-1"))
    before = faults.snapshot(tmp_path)
    refused = faults.invoke("describe", file)
    faults.assert_refused(refused, before, faults.snapshot(tmp_path), "line 2", "--encoding")
    assert faults.invoke("describe", file, "--encoding", "latin-1").exit_code == 0


def test_unreadable_file_as_root_too(tmp_path, monkeypatch):
    # root reads any file, so the reader's permission check is exercised by denying it in its view
    # (the CLI's own argument check uses os.access too, and would answer first with a usage error)
    import veil.data._reader as reader
    from veil.data import read_table
    from veil.errors import DataFormatError

    file = tmp_path / "t.csv"
    file.write_text("a,b\n1,2\n")
    monkeypatch.setattr(reader.os, "access", lambda path, mode: False)
    with pytest.raises(DataFormatError, match="^Cannot read '.*t.csv': permission denied.$"):
        read_table(file)
