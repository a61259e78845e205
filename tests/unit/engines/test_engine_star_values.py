"""A sensitive value that reads ``*`` through an engine with ``suppressed: blank``.

The engine's check group-counts the written file, and a blanked value is written as ``*``:
a record whose own value is ``*`` could not be told from a blanked one.  It is refused
before any work with what to do (it used to fail the written file's check as "a bug in
veil"); drop and keep release it, and so does the in-memory path (its check follows each row).
"""

import numpy as np
import pandas as pd
import pytest
from typer.testing import CliRunner

from veil.cli import app


@pytest.fixture()
def data(tmp_path):
    rng = np.random.default_rng(4)
    n = 600
    frame = pd.DataFrame({"zip": rng.choice(["12345", "12346", "22345", "22346"], n),
                          "age": rng.integers(20, 70, n).astype(str),
                          "disease": rng.choice(["flu", "cold", "*"], n)})
    path = tmp_path / "data.csv"
    frame.to_csv(path, index=False)
    return path


def _run(data, engine, mode):
    out = data.parent / f"out-{engine}-{mode}.csv"
    result = CliRunner().invoke(app, [
        "anonymize", str(data), "--qi", "zip,age", "--sensitive", "disease", "--hierarchy", "zip=mask:1,2,5",
        "--hierarchy", "age=interval:10,20", "-k", "5", "--suppression", "0.05", "--engine", engine,
        "--suppressed", mode, "-o", str(out), "--seed", "1"])
    return result, out


def test_blank_through_duckdb_is_refused_before_any_work(data):
    result, out = _run(data, "duckdb", "blank")
    assert result.exit_code == 2
    assert "'disease' has the value '*'" in result.output and "--suppressed drop or keep" in result.output
    assert "bug in veil" not in result.output
    assert not out.exists() and sorted(p.name for p in data.parent.iterdir()) == ["data.csv"]


@pytest.mark.parametrize(("engine", "mode"), [("duckdb", "drop"), ("duckdb", "keep"), ("local", "blank")])
def test_other_modes_and_the_in_memory_path_release_it(data, engine, mode):
    result, out = _run(data, engine, mode)
    assert result.exit_code == 0, result.output
    released = pd.read_csv(out, dtype=str, keep_default_na=False)
    assert (released["disease"] == "*").any()
