"""The one output writer: clashes refused before work, all-or-nothing publication."""

from __future__ import annotations

import os

import pytest

from veil.errors import OutputError
from veil.pipeline import Outputs, publishing, remove_stale_temporaries


def test_destination_equal_to_an_input_is_refused(tmp_path):
    data = tmp_path / "data.csv"
    data.write_text("a\n1\n")
    with pytest.raises(OutputError, match="is an input"):
        Outputs({"json": data}, inputs=[data])
    assert data.read_text() == "a\n1\n"


def test_destination_linked_to_an_input_is_refused(tmp_path):
    data = tmp_path / "data.csv"
    data.write_text("a\n1\n")
    link = tmp_path / "link.csv"
    os.link(data, link)
    with pytest.raises(OutputError, match="is an input"):
        Outputs({"data": link}, inputs=[data])


def test_two_outputs_on_one_file_are_refused(tmp_path):
    with pytest.raises(OutputError, match="same file"):
        Outputs({"data": tmp_path / "x.csv", "json": tmp_path / "sub" / ".." / "x.csv"})


def test_failure_leaves_no_output_and_no_temporary(tmp_path):
    with pytest.raises(RuntimeError):
        with publishing({"data": tmp_path / "out.csv", "json": tmp_path / "out.json"}) as out:
            out.write_text("data", "a\n")
            raise RuntimeError("verification failed")
    assert list(tmp_path.iterdir()) == []


def test_commit_publishes_every_output(tmp_path):
    with publishing({"data": tmp_path / "out.csv", "json": tmp_path / "out.json", "html": None}) as out:
        out.write_text("data", "a\n")
        out.write_json("json", {"rows": 1})
    assert sorted(p.name for p in tmp_path.iterdir()) == ["out.csv", "out.json"]
    assert (tmp_path / "out.csv").read_text() == "a\n"


def test_an_unwritten_output_publishes_nothing(tmp_path):
    with pytest.raises(OutputError, match="never written"):
        with publishing({"data": tmp_path / "out.csv", "json": tmp_path / "out.json"}) as out:
            out.write_text("data", "a\n")
    assert list(tmp_path.iterdir()) == []


def test_temporaries_of_dead_processes_are_swept(tmp_path):
    # pid 2**22 + 1 is above Linux's pid_max ceiling, so no such process runs
    stale = tmp_path / f".out.csv.veil-{2**22 + 1}-0123456789ab.csv"
    stale.write_text("partial")
    mine = tmp_path / f".out.csv.veil-{os.getpid()}-0123456789ab.csv"
    mine.write_text("in progress")
    remove_stale_temporaries(tmp_path)
    assert not stale.exists() and mine.exists()
