"""Fault corpus: failures during the work (engines failing mid-write, a failed
verification, SIGKILL during a write, two concurrent runs to one destination)."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import textwrap
import time

import pandas as pd
import pytest
from typer.testing import CliRunner

import veil.release as release
from veil.cli import app
from veil.engines import DuckDBEngine, LocalEngine

from .conftest import NAMES, assert_clean_failure

runner = CliRunner()


def _half_then_fail(original):
    def apply(self, source, transformation, suppressed, output, **kwargs):
        def write(tmp):
            tmp.write_text("zip,age\n476**,20-29\n", encoding="utf-8")  # a partial file
            raise OSError(28, "No space left on device")

        from veil.engines._output import write_into

        write_into(output, write)

    return apply


@pytest.mark.parametrize("engine_class", [LocalEngine, DuckDBEngine])
def test_engine_failing_mid_write_leaves_nothing(ws, monkeypatch, engine_class):
    monkeypatch.setattr(engine_class, "apply", _half_then_fail(engine_class.apply))
    engine = "local" if engine_class is LocalEngine else "duckdb"
    ws.write_config(f"engine: {engine}\nsuppressed: drop\noutput: {{path: out/a.csv, report: out/a.json}}")
    text = ws.config.read_text().replace("  name: {role: identifier}\n", "")
    ws.write_config(text=text + "keep_unlisted: true\n")
    ws.frame.drop(columns=["name"]).to_csv(ws.data, index=False)
    before = ws.hashes()
    result = runner.invoke(app, ["anonymize", str(ws.config)])
    if engine == "local":  # the local path does not use Engine.apply: it must succeed
        assert result.exit_code == 0, result.output
        return
    assert_clean_failure(result, ws, before, outputs=[ws.out / "a.csv", ws.out / "a.json"])
    assert "No space left on device" in result.output


def test_duckdb_engine_release_publishes_a_verified_set(ws):
    text = ws.config.read_text().replace("  name: {role: identifier}\n", "")
    ws.write_config(text=text + "engine: duckdb\nsuppressed: drop\nkeep_unlisted: true\n"
                    "output: {path: out/a.csv, report: out/a.json}\n")
    ws.frame.drop(columns=["name"]).to_csv(ws.data, index=False)
    result = runner.invoke(app, ["anonymize", str(ws.config)])
    assert result.exit_code == 0, result.output
    report = json.loads((ws.out / "a.json").read_text())
    assert len(pd.read_csv(ws.out / "a.csv")) == report["records_out"]
    assert "seed" not in report["output_order"]
    assert not ws.temporaries()


def test_duckdb_engine_withholds_identifier_and_unlisted_and_runs_blank(ws):
    # the identifier is dropped and the unlisted column withheld, as in memory (they were refused before)
    ws.write_config("engine: duckdb\nsuppressed: drop\noutput: {path: out/a.csv}")
    result = runner.invoke(app, ["anonymize", str(ws.config)])
    assert result.exit_code == 0, result.output
    assert list(pd.read_csv(ws.out / "a.csv").columns) == ["zip", "age", "sex", "disease"]
    assert not any(n in ws.outputs_text() for n in NAMES) and not ws.temporaries()
    (ws.out / "a.csv").unlink()
    ws.frame.drop(columns=["name", "note"]).to_csv(ws.data, index=False)
    ws.write_config(text=ws.config.read_text().replace("  name: {role: identifier}\n", "").replace("suppressed: drop", ""))
    result = runner.invoke(app, ["anonymize", str(ws.config)])  # blank, the default, runs through the engine
    assert result.exit_code == 0, result.output
    assert (ws.out / "a.csv").exists()


@pytest.mark.parametrize("stage", ["json", "html", "data"])
def test_failure_of_one_output_publishes_none(ws, monkeypatch, stage):
    from veil.pipeline import Outputs

    real = Outputs.write

    def failing(self, role, write):
        if role == {"json": "report", "html": "html", "data": "data"}[stage]:
            def broken(path):
                path.write_text("partial")
                raise OSError(5, "Input/output error")

            return real(self, role, broken)
        return real(self, role, write)

    monkeypatch.setattr(Outputs, "write", failing)
    before = ws.hashes()
    result = runner.invoke(app, ws.flags("-o", str(ws.out / "a.csv"), "--json", str(ws.out / "a.json"),
                                         "--html", str(ws.out / "a.html")))
    assert_clean_failure(result, ws, before)
    assert "Input/output error" in result.output
    for name in ("a.csv", "a.json", "a.html"):
        assert not (ws.out / name).exists()
    assert ws.hashes() == before and not ws.temporaries()


def test_existing_outputs_survive_a_failed_run(ws):
    ws.out.mkdir()
    (ws.out / "a.csv").write_text("old\n")
    (ws.out / "a.json").write_text("{}\n")
    before = ws.hashes()
    result = runner.invoke(app, ws.flags("-k", "999", "-o", str(ws.out / "a.csv"), "--json", str(ws.out / "a.json")))
    assert result.exit_code == 2
    assert (ws.out / "a.csv").read_text() == "old\n" and (ws.out / "a.json").read_text() == "{}\n"
    assert ws.hashes() == before and not ws.temporaries()


# ------------------------------------------------------------ verification
def _tamper(monkeypatch, change):
    """Make the release write a table (or a report) that ``change`` altered."""
    real = release.table_writer

    def writer(frame, **kw):
        return real(change(frame.copy()), **kw)

    monkeypatch.setattr(release, "table_writer", writer)


def test_verification_catches_swapped_generalized_labels(ws, monkeypatch):
    def swap(frame):
        # two records with the same disease in different classes exchange their generalized
        # QI labels: every class keeps its size and its histogram, so only the per-record
        # check (each value is its record's generalization) can see it
        qis = ["zip", "age", "sex"]
        star = (frame[qis] == "*").all(axis=1)
        rows = frame.index[~star]
        key = frame.loc[rows, qis].astype(str).agg("|".join, axis=1)
        first = rows[0]
        other = next(r for r in rows if frame.at[r, "disease"] == frame.at[first, "disease"] and key[r] != key[first])
        frame.loc[[first, other], qis] = frame.loc[[other, first], qis].to_numpy()
        return frame

    _tamper(monkeypatch, swap)
    before = ws.hashes()
    result = runner.invoke(app, ws.flags("-o", str(ws.out / "a.csv"), "--json", str(ws.out / "a.json")))
    assert_clean_failure(result, ws, before, outputs=[ws.out / "a.csv", ws.out / "a.json"])
    assert "does not match its report" in result.output


def test_verification_catches_excess_suppression(ws, monkeypatch):
    def suppress(frame):  # 40% of the rows suppressed under a 10% limit
        frame = frame.astype(object)  # a released categorical may hold no '*' yet
        n = int(len(frame) * 0.4)
        frame.loc[: n - 1, ["zip", "age", "sex", "disease"]] = "*"
        return frame

    _tamper(monkeypatch, suppress)
    before = ws.hashes()
    result = runner.invoke(app, ws.flags("-o", str(ws.out / "a.csv")))
    assert_clean_failure(result, ws, before, outputs=[ws.out / "a.csv"])


@pytest.mark.parametrize("key", ["transformation", "records_out", "suppressed", "classes_released"])
def test_verification_catches_a_report_that_disagrees_with_the_file(ws, monkeypatch, key):
    real = release.anonymize

    def lying(*args, **kwargs):
        result = real(*args, **kwargs)
        if key == "transformation":
            result.report[key] = {q: (v + 1 if q == "zip" else v) for q, v in result.report[key].items()}
        else:
            result.report[key] += 1
        return result

    monkeypatch.setattr(release, "anonymize", lying)
    before = ws.hashes()
    result = runner.invoke(app, ws.flags("-k", "2", "-o", str(ws.out / "a.csv"), "--json", str(ws.out / "a.json")))
    assert_clean_failure(result, ws, before, outputs=[ws.out / "a.csv", ws.out / "a.json"])


# ------------------------------------------------------------ processes
_SLOW_WRITER = textwrap.dedent("""
    import sys, time
    from pathlib import Path
    import veil.release as release
    real = release.table_writer
    def writer(frame, **kw):
        inner = real(frame, **kw)
        def write(path):
            inner(path)
            Path(sys.argv[1]).write_text("writing")   # the temporary is written: now we wait to be killed
            time.sleep(60)
        return write
    release.table_writer = writer
    from veil.cli import app
    app(sys.argv[2:])
""")


def test_sigkill_during_a_write_leaves_the_destination_and_no_temporaries(ws, tmp_path):
    ws.out.mkdir()
    (ws.out / "a.csv").write_text("previous release\n")
    script = tmp_path / "slow.py"
    script.write_text(_SLOW_WRITER)
    flag = tmp_path / "flag"
    before = ws.hashes()
    proc = subprocess.Popen([sys.executable, str(script), str(flag), *ws.flags("-o", str(ws.out / "a.csv"))],
                            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    deadline = time.time() + 120
    while not flag.exists() and time.time() < deadline and proc.poll() is None:
        time.sleep(0.1)
    assert flag.exists(), proc.stderr.read().decode()
    os.kill(proc.pid, signal.SIGKILL)
    proc.wait()
    assert (ws.out / "a.csv").read_text() == "previous release\n"
    assert ws.temporaries()  # the killed run's temporary is there ...
    result = runner.invoke(app, ws.flags("-o", str(ws.out / "a.csv")))
    assert result.exit_code == 0, result.output
    assert not ws.temporaries()  # ... and the next run swept it
    assert ws.hashes() == before


def test_two_concurrent_runs_leave_one_complete_verified_set(ws):
    from veil.hierarchy import from_csv

    procs = []
    for k in ("2", "12"):
        args = ws.flags("-k", k, "--suppression", "0.5", "-o", str(ws.out / "a.csv"), "--json", str(ws.out / "a.json"))
        procs.append(subprocess.Popen([sys.executable, "-m", "veil.cli", *args[0:]] if False else
                                      [sys.executable, "-c", "from veil.cli import app; import sys; app(sys.argv[1:])",
                                       *args], stdout=subprocess.DEVNULL, stderr=subprocess.PIPE))
    codes = [p.wait(timeout=300) for p in procs]
    assert codes == [0, 0], [p.stderr.read().decode() for p in procs]
    report = json.loads((ws.out / "a.json").read_text())
    released = pd.read_csv(ws.out / "a.csv", dtype=str, keep_default_na=False)
    assert len(released) == report["records_out"]
    star = (released[["zip", "age", "sex"]] == "*").all(axis=1)
    assert int(star.sum()) == report["suppressed"]
    # the data file is the one the report describes: its labels are at the reported levels
    for name, level in report["transformation"].items():
        h = from_csv(ws.hierarchies[name], name=name)
        assert set(released.loc[~star, name]) <= set(map(str, h.labels[level])), name
    sizes = released.loc[~star].groupby(["zip", "age", "sex"]).size()
    assert sizes.min() >= report["achieved"]["k"]
    assert not ws.temporaries()


@pytest.mark.parametrize("damage", ["ragged", "latin-1", "empty"])
def test_duckdb_release_of_a_damaged_file_is_refused(ws, damage):
    text = ws.config.read_text().replace("  name: {role: identifier}\n", "")
    ws.write_config(text=text + "engine: duckdb\nsuppressed: drop\nkeep_unlisted: true\noutput: {path: out/a.csv}\n")
    body = ws.frame.drop(columns=["name"]).to_csv(index=False)
    if damage == "ragged":
        body += "47677,30,F,flu,a,EXTRA,FIELDS\n"
        ws.data.write_text(body, encoding="utf-8")
    elif damage == "latin-1":
        ws.data.write_bytes((body + "47677,30,F,flu,caf\xe9\n").encode("latin-1"))
    else:
        ws.data.write_text("", encoding="utf-8")
    before = ws.hashes()
    result = runner.invoke(app, ["anonymize", str(ws.config)])
    assert_clean_failure(result, ws, before, outputs=[ws.out / "a.csv"])
