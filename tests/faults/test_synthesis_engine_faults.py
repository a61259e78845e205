"""Fault corpus of ``veil synthesize --engine`` (issue #36, item 4): a refusal is the same one line,
exit 2, nothing written, on every engine; an unknown engine, and an engine with a ledger but no
``--dataset-name``, are refused."""

from __future__ import annotations

import json
import os
import shutil

import numpy as np
import pandas as pd
import pytest

pytest.importorskip("duckdb")


def _table(n: int = 600, seed: int = 7) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    return pd.DataFrame({"age": rng.integers(0, 100, n).astype(str), "sex": rng.choice(["F", "M", ""], n),
                         "zip": rng.choice(["02139", "10001", "SW1A"], n), "job": rng.choice(list("abcde"), n)})


def _refusals(folder):
    _table().to_csv(folder / "people.csv", index=False)
    (folder / "domain.json").write_text('{"age": {"min": 0, "max": 100, "bins": 10}, "height": ["1"]}')
    (folder / "good.json").write_text('{"age": {"min": 0, "max": 100, "bins": 10}}')
    return {
        "domain names no column": (["--domain", folder / "domain.json"], "'height'"),
        "over --max-categories": (["--domain", folder / "good.json", "--max-categories", "3"], "--max-categories 3"),
        "numeric without bounds": ([], "--bins age=MIN:MAX:BINS"),
    }


NO_JAVA = shutil.which("java") is None and not os.environ.get("JAVA_HOME")


@pytest.mark.parametrize("case", ["domain names no column", "over --max-categories", "numeric without bounds"])
def test_a_refusal_is_the_same_line_on_every_engine(tmp_path, faults, case):
    args, mention = _refusals(tmp_path)[case]
    lines = {}
    for engine in ["local", "duckdb"]:
        before = faults.snapshot(tmp_path)
        out = faults.invoke("synthesize", tmp_path / "people.csv", "--epsilon", "1", *args, "-o",
                            tmp_path / "out.csv", "--json", tmp_path / "report.json", "--engine", engine)
        faults.assert_refused(out, before, faults.snapshot(tmp_path), mention)
        lines[engine] = out.stderr.strip()
    assert lines["duckdb"] == lines["local"]


def test_an_unknown_engine_and_an_engine_ledger_without_a_name_are_refused(tmp_path, faults):
    _refusals(tmp_path)
    base = ["synthesize", tmp_path / "people.csv", "--epsilon", "1", "--domain", tmp_path / "good.json",
            "-o", tmp_path / "out.csv"]
    for extra, mention in [(["--engine", "polars"], "--engine"),
                           (["--engine", "duckdb", "--budget-file", tmp_path / "ledger.json", "--budget", "3"],
                            "--dataset-name")]:
        before = faults.snapshot(tmp_path)
        faults.assert_refused(faults.invoke(*base, *extra), before, faults.snapshot(tmp_path), mention)


def test_the_cli_writes_the_synthetic_table_and_report_through_duckdb(tmp_path, faults):
    _refusals(tmp_path)
    out = faults.invoke("synthesize", tmp_path / "people.csv", "--epsilon", "1", "--domain", tmp_path / "good.json",
                        "--engine", "duckdb", "-o", tmp_path / "out.parquet", "--json", tmp_path / "report.json",
                        "--seed", "1")
    assert out.exit_code == 0, out.text
    written = pd.read_parquet(tmp_path / "out.parquet")
    report = json.loads((tmp_path / "report.json").read_text())
    assert len(written) == report["rows"] and list(written.columns) == ["age", "sex", "zip", "job"]
    assert report["domain_source"] == {"age": "user", "sex": "dp", "zip": "dp", "job": "dp"}
    assert set(written["age"]) <= {f"[{lo}, {lo + 10}{']' if lo == 90 else ')'}" for lo in range(0, 100, 10)}


@pytest.mark.spark
@pytest.mark.skipif(NO_JAVA, reason="Spark needs Java 17+")
def test_a_refusal_is_the_same_line_on_spark(tmp_path, faults):
    pytest.importorskip("pyspark")
    args, mention = _refusals(tmp_path)["over --max-categories"]
    lines = []
    for engine in ["local", "spark"]:
        before = faults.snapshot(tmp_path)
        out = faults.invoke("synthesize", tmp_path / "people.csv", "--epsilon", "1", *args, "-o",
                            tmp_path / "out.csv", "--engine", engine)
        faults.assert_refused(out, before, faults.snapshot(tmp_path), mention)
        lines.append(out.stderr.strip())
    assert lines[0] == lines[1]




def test_a_write_failing_after_the_first_chunk_publishes_nothing(tmp_path, faults, monkeypatch):
    from veil.dp.synthesis import _api, _chunks

    _refusals(tmp_path)
    monkeypatch.setattr(_api, "draw", _small_chunks(_chunks.draw))  # 600 rows: chunks of 100
    real = _chunks.ChunkWriter._write
    calls = []

    def failing(self, table):
        calls.append(len(table))
        if len(calls) == 2:
            raise OSError(28, "No space left on device")
        real(self, table)

    monkeypatch.setattr(_chunks.ChunkWriter, "_write", failing)
    before = faults.snapshot(tmp_path)
    out = faults.invoke("synthesize", tmp_path / "people.csv", "--epsilon", "1", "--domain", tmp_path / "good.json",
                        "--engine", "duckdb", "-o", tmp_path / "out.csv", "--json", tmp_path / "report.json")
    faults.assert_refused(out, before, faults.snapshot(tmp_path), "Cannot write", "out.csv", "No space left")
    assert calls == [100, 100]


def _small_chunks(draw):
    def small(*args, **kwargs):
        kwargs["chunk_rows"] = 100
        return draw(*args, **kwargs)
    return small
