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


def _failing_replace(monkeypatch, name, error=PermissionError(1, "Operation not permitted")):
    """os.replace in the writer fails when it renames onto a destination called ``name``."""
    real = os.replace

    def replace(src, dst, *args, **kwargs):
        if os.path.basename(dst) == name and ".veil-" in os.path.basename(src):
            raise error
        return real(src, dst, *args, **kwargs)

    monkeypatch.setattr("veil.pipeline._writer.os.replace", replace)


def _publish_new_set(folder):
    """Publish a new out.csv and out.json into ``folder``."""
    with publishing({"data": folder / "out.csv", "json": folder / "out.json"}) as out:
        out.write_text("data", "new data\n")
        out.write_json("json", {"rows": 1})


@pytest.mark.parametrize("existed", [True, False])
def test_a_rename_that_fails_undoes_the_renames_made(tmp_path, monkeypatch, existed):
    # out.csv is renamed first and succeeds; out.json's rename fails: out.csv is put back
    if existed:
        (tmp_path / "out.csv").write_text("old data\n")
    (tmp_path / "out.json").write_text("old json\n")
    _failing_replace(monkeypatch, "out.json")
    with pytest.raises(OutputError, match="out.json.*nothing was published"):
        _publish_new_set(tmp_path)
    assert (tmp_path / "out.json").read_text() == "old json\n"
    if existed:
        assert (tmp_path / "out.csv").read_text() == "old data\n"
    assert sorted(p.name for p in tmp_path.iterdir()) == (["out.csv", "out.json"] if existed else ["out.json"])


def test_an_interrupt_while_renaming_undoes_the_renames_made(tmp_path, monkeypatch):
    (tmp_path / "out.csv").write_text("old data\n")
    _failing_replace(monkeypatch, "out.json", KeyboardInterrupt())
    with pytest.raises(KeyboardInterrupt):
        _publish_new_set(tmp_path)
    assert (tmp_path / "out.csv").read_text() == "old data\n"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["out.csv"]


def test_a_destination_that_cannot_be_linked_is_kept_by_a_copy(tmp_path, monkeypatch):
    (tmp_path / "out.csv").write_text("old data\n")
    (tmp_path / "out.json").write_text("old json\n")

    def no_link(*args, **kwargs):
        raise PermissionError(1, "Operation not permitted")

    monkeypatch.setattr("veil.pipeline._writer.os.link", no_link)
    _failing_replace(monkeypatch, "out.json")
    with pytest.raises(OutputError, match="nothing was published"):
        _publish_new_set(tmp_path)
    assert (tmp_path / "out.csv").read_text() == "old data\n"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["out.csv", "out.json"]


def test_a_committed_set_replaces_old_outputs_and_leaves_no_kept_copy(tmp_path):
    (tmp_path / "out.csv").write_text("old data\n")
    with publishing({"data": tmp_path / "out.csv", "json": tmp_path / "out.json"}) as out:
        out.write_text("data", "new data\n")
        out.write_json("json", {"rows": 1})
    assert (tmp_path / "out.csv").read_text() == "new data\n"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["out.csv", "out.json"]


def test_a_temporary_is_private_until_it_is_published(tmp_path):
    seen = {}

    def write(tmp):
        seen["mode"] = os.stat(tmp).st_mode & 0o777  # what a killed run would leave: unverified, private
        tmp.write_text("a\n")

    old = os.umask(0o022)
    try:
        with publishing({"data": tmp_path / "out.csv"}) as out:
            out.write("data", write)
    finally:
        os.umask(old)
    assert seen["mode"] == 0o600
    assert os.stat(tmp_path / "out.csv").st_mode & 0o777 == 0o644  # as a new file under the umask


def test_a_temporary_of_a_temporary_stays_private(tmp_path):
    from veil.pipeline._writer import temporary_name

    inner = tmp_path / temporary_name("out.csv")  # an engine writing into the release's temporary
    with publishing({"data": inner}) as out:
        out.write_text("data", "a\n")
    assert os.stat(inner).st_mode & 0o777 == 0o600
