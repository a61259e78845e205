"""A sensitive column with missing values, through the CLI: the CSV writes a missing value as an
empty cell, and the check of the written file reads it back as missing (before, every such
release was refused: "A released value of 'diag' is not one of the input's"). A value that
reads like the missing-value label is refused up front, with the rows named."""

from __future__ import annotations

import json

import numpy as np
import pandas as pd
import pytest
from typer.testing import CliRunner

from veil.cli import app
from veil.dataset import Dataset
from veil.errors import SchemaError

DIAGNOSES = ["flu", "cold", 'a "quoted", value', "<b>x</b>", "line\nbreak"]


def _table(tmp_path, *, missing: bool, literal: bool = False):
    rng = np.random.default_rng(5)
    n = 3000
    frame = pd.DataFrame({"age": rng.integers(18, 90, n).astype(str), "sex": rng.choice(["F", "M"], n),
                          "zip": np.char.add("13", rng.integers(100, 999, n).astype(str)),
                          "diag": rng.choice(DIAGNOSES + (["<missing>"] if literal else []), n)})
    if missing:
        frame.loc[rng.random(n) < 0.1, "diag"] = None
    path = tmp_path / "in.csv"
    frame.to_csv(path, index=False)
    return path, frame


def _anonymize(path, out, mode, engine="local"):
    return CliRunner().invoke(app, ["anonymize", str(path), "--engine", engine, "--qi", "age,sex,zip", "--sensitive", "diag",
                                    "--auto-hierarchies", "-k", "5", "-l", "diag:2", "--suppression", "0.1",
                                    "--suppressed", mode, "--seed", "3", "-o", str(out),
                                    "--json", str(out.with_suffix(".json"))])


@pytest.mark.parametrize("engine", ["local", "duckdb"])
@pytest.mark.parametrize("mode", ["blank", "drop", "keep"])
def test_missing_sensitive_values_are_released_and_checked(tmp_path, mode, engine):
    path, frame = _table(tmp_path, missing=True)
    out = tmp_path / "release.csv"
    result = _anonymize(path, out, mode, engine)
    assert result.exit_code == 0, result.output
    released = pd.read_csv(out, dtype=str, keep_default_na=False)
    report = json.loads(out.with_suffix(".json").read_text())
    assert report["suppressed"] > 0  # the check then compares the released values with the input's
    # every missing input value is an empty cell of the release (blank: unless its record was suppressed)
    empty = int((released["diag"] == "").sum())
    if mode == "keep":
        assert empty == int(frame["diag"].isna().sum())
    else:
        assert 0 < empty <= int(frame["diag"].isna().sum())
    check = CliRunner().invoke(app, ["check", str(out), "--qi", "age,sex,zip", "--sensitive", "diag",
                                     "--require", "k>=5"])
    assert check.exit_code == 0, check.output


def test_the_missing_value_label_as_a_value_is_refused(tmp_path):
    path, _ = _table(tmp_path, missing=True, literal=True)
    out = tmp_path / "release.csv"
    result = _anonymize(path, out, "blank")
    assert result.exit_code == 2
    assert "'<missing>'" in result.output and "could not be told apart" in result.output
    assert not out.exists()


def test_the_label_alone_or_missing_values_alone_are_values():
    for cells in (["a", "<missing>", "a"], ["a", None, "a"]):
        encoded = Dataset.from_pandas(pd.DataFrame({"c": pd.Series(cells, dtype="str")}), sensitive=["c"]).encode("c")
        assert len(encoded.labels) == 2
    both = Dataset.from_pandas(pd.DataFrame({"c": pd.Series(["a", "<missing>", None], dtype="str")}), sensitive=["c"])
    with pytest.raises(SchemaError, match=r"first rows, 0-based: \[2\]\) and also the value '<missing>' \(first rows: \[1\]"):
        both.encode("c")
