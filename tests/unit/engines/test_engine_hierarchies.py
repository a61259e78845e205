"""An out-of-core engine builds the same hierarchies as the in-memory release: ``auto``'s choice
and ``group``'s frequency groups need each value's record count, which the engine's group-count
gives."""

from __future__ import annotations

import json

import numpy as np
import pandas as pd
import pytest

from veil.config import load_config
from veil.release import run_config

pytest.importorskip("duckdb")


def _table(tmp_path):
    # skewed frequencies: frequency groups depend on the counts, not only on the values
    rng = np.random.default_rng(3)
    n = 600
    frame = pd.DataFrame({
        "age": rng.integers(18, 90, n).astype(str),
        "job": rng.choice([f"job{i}" for i in range(12)], n, p=np.arange(12, 0, -1) / 78),
        "town": rng.choice([f"t{i}" for i in range(30)], n, p=np.r_[np.full(3, 0.2), np.full(27, 0.4 / 27)]),
        "illness": rng.choice(["a", "b", "c"], n),
    })
    frame.to_csv(tmp_path / "people.csv", index=False)


def _release(tmp_path, engine):
    config = tmp_path / f"release_{engine}.yaml"
    config.write_text(f"""input: {{path: people.csv}}
engine: {engine}
attributes:
  age: {{role: quasi-identifier, hierarchy: auto}}
  job: {{role: quasi-identifier, hierarchy: "group:2,4,8"}}
  town: {{role: quasi-identifier, hierarchy: auto}}
  illness: {{role: sensitive}}
models:
  - {{type: k-anonymity, k: 4}}
suppression_limit: 0.02
output: {{path: out_{engine}.csv, report: out_{engine}.json, seed: 1}}
""")
    run_config(load_config(config))
    return json.loads((tmp_path / f"out_{engine}.json").read_text()), tmp_path / f"out_{engine}.csv"


def test_duckdb_builds_the_hierarchies_of_the_in_memory_release(tmp_path):
    _table(tmp_path)
    memory, memory_csv = _release(tmp_path, "local")
    duckdb, duckdb_csv = _release(tmp_path, "duckdb")
    assert duckdb["hierarchies"] == memory["hierarchies"]
    assert duckdb["hierarchies"]["age"].startswith("auto (")
    assert duckdb["transformation"] == memory["transformation"]
    assert duckdb["suppressed"] == memory["suppressed"]

    def rows(path):
        frame = pd.read_csv(path, dtype=str, keep_default_na=False)
        return sorted(map(tuple, frame[sorted(frame.columns)].to_numpy().tolist()))

    assert rows(duckdb_csv) == rows(memory_csv)  # the same released rows, in another order
