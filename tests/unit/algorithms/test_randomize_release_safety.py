"""``veil randomize`` publishes nothing the release policy would refuse, and PRAM refuses huge domains.

* A column that the identifier scan flags as a direct identifier (name, e-mail, ...) is refused
  whether PRAM copies it unchanged or either method randomizes it, unless ``--allow-identifier``
  names it; ``--identifier`` columns are dropped, never written.  A refusal exits 2, names the
  columns and writes nothing.
* PRAM's transition matrix is dense (K x K): a column of more than ``PRAM_MAX_CATEGORIES``
  categories is refused before any matrix is allocated.
"""

from __future__ import annotations

import json

import numpy as np
import pandas as pd
import pytest
from typer.testing import CliRunner

from veil import Dataset
from veil.algorithms.randomization import (
    PRAM_MAX_CATEGORIES,
    invariant_transition,
    pram,
    pram_transition,
)
from veil.algorithms.randomization import _pram
from veil.cli import _randomize_methods, app
from veil.errors import ParameterError

runner = CliRunner()
FIRST = ["Ann", "Bob", "Carla", "Dan", "Eve", "Frank", "Gina", "Hal", "Ines", "Jon", "Kim", "Lea"]
LAST = ["Smith", "Jones", "Brown", "Lee", "Garcia", "Miller", "Davis", "Wilson"]
ROWS = 40


@pytest.fixture
def small(tmp_path):
    """A table of real-looking names and e-mails, an age and a diagnosis (in its own folder)."""
    rng = np.random.default_rng(1)
    names = [f"{FIRST[rng.integers(len(FIRST))]} {LAST[rng.integers(len(LAST))]}" for _ in range(ROWS)]
    frame = pd.DataFrame({
        "name": names,
        "email": [f"{n.lower().replace(' ', '.')}{i}@example.org" for i, n in enumerate(names)],
        "age": [str(a) for a in rng.integers(20, 80, ROWS)],
        "diagnosis": [("flu", "asthma", "diabetes")[i % 3] for i in range(ROWS)],
    })
    folder = tmp_path / "in"
    folder.mkdir()
    path = folder / "small.csv"
    frame.to_csv(path, index=False)
    out = tmp_path / "out"
    out.mkdir()
    return path, frame, out


def _run(path, *args: str):
    return runner.invoke(app, ["randomize", str(path), *args])


def _text(result) -> str:
    return " ".join(result.output.split())


def _files(folder) -> set[str]:
    return {p.name for p in folder.iterdir()}


def _read(path) -> pd.DataFrame:
    return pd.read_csv(path, dtype=str, keep_default_na=False)


PRAM = ("--method", "pram", "--columns", "diagnosis", "--p", "0.8", "--seed", "3")
ALPHA_BETA = ("--method", "alpha-beta", "--alpha", "0.5", "--beta", "0.01", "--seed", "3")


# ---------------------------------------------------------------------- identifiers copied or randomized
def test_pram_refuses_identifiers_it_would_copy(small):
    path, _, out = small
    result = _run(path, *PRAM, "-o", str(out / "out.csv"), "--json", str(out / "out.json"))
    assert result.exit_code == 2, result.output
    text = _text(result)
    assert "'name'" in text and "'email'" in text and "unchanged" in text
    assert "--allow-identifier" in text and "--identifier" in text
    assert "diagnosis" not in text.split("direct identifier", 1)[1]  # only the flagged columns are named
    assert "@example.org" not in text  # never a value
    assert _files(out) == set()


def test_pram_publishes_allowed_identifiers(small):
    path, frame, out = small
    result = _run(path, *PRAM, "-o", str(out / "out.csv"), "--json", str(out / "out.json"),
                  "--allow-identifier", "name", "--allow-identifier", "email")
    assert result.exit_code == 0, result.output
    released = _read(out / "out.csv")
    assert list(released.columns) == list(frame.columns)
    pd.testing.assert_frame_equal(released[["name", "email", "age"]], frame[["name", "email", "age"]])
    report = json.loads((out / "out.json").read_text())
    assert report["identifiers_allowed"] == ["name", "email"]
    assert report["unchanged"] == ["name", "email", "age"]


def test_pram_allowing_one_identifier_still_refuses_the_other(small):
    path, _, out = small
    result = _run(path, *PRAM, "-o", str(out / "out.csv"), "--allow-identifier", "name")
    assert result.exit_code == 2, result.output
    text = _text(result)
    assert "'email'" in text and "'name'" not in text
    assert _files(out) == set()


@pytest.mark.parametrize("given", [["--identifier", "name,email"], ["--identifier", "name", "--identifier", "email"]])
def test_identifier_columns_are_dropped(small, given):
    path, frame, out = small
    result = _run(path, *PRAM, "-o", str(out / "out.csv"), "--json", str(out / "out.json"), *given)
    assert result.exit_code == 0, result.output
    released = _read(out / "out.csv")
    assert list(released.columns) == ["age", "diagnosis"]
    assert len(released) == ROWS
    written = (out / "out.csv").read_text() + (out / "out.json").read_text()
    assert "@example.org" not in written and not any(name in written for name in frame["name"])
    report = json.loads((out / "out.json").read_text())
    assert report["identifiers_dropped"] == ["name", "email"]
    assert report["published"] == ["age", "diagnosis"]
    assert report["columns"] == ["diagnosis"]


def test_identifier_and_allow_identifier_combine(small):
    path, _, out = small
    result = _run(path, *PRAM, "-o", str(out / "out.csv"), "--identifier", "name", "--allow-identifier", "email")
    assert result.exit_code == 0, result.output
    assert list(_read(out / "out.csv").columns) == ["email", "age", "diagnosis"]


@pytest.mark.parametrize("method", ["pram", "alpha-beta"])
def test_a_randomized_identifier_is_refused_unless_allowed(small, method):
    path, frame, out = small
    flags = ("--method", "pram", "--p", "0.8", "--seed", "3") if method == "pram" else ALPHA_BETA
    columns = ("--columns", "name,diagnosis")
    extra = ("--identifier", "email") if method == "pram" else ()
    result = _run(path, *flags, *columns, *extra, "-o", str(out / "out.csv"), "--json", str(out / "out.json"))
    assert result.exit_code == 2, result.output
    text = _text(result)
    assert "'name'" in text and "randomized" in text and "--allow-identifier name" in text
    assert _files(out) == set()
    result = _run(path, *flags, *columns, *extra, "-o", str(out / "out.csv"), "--json", str(out / "out.json"),
                  "--allow-identifier", "name")
    assert result.exit_code == 0, result.output
    assert _files(out) == {"out.csv", "out.json"}
    if method == "alpha-beta":  # the user's explicit choice: the domain is then published
        report = json.loads((out / "out.json").read_text())
        assert set(report["domains"]["name"]) == set(frame["name"])
        assert list(_read(out / "out.csv").columns) == ["name", "diagnosis"]


def test_alpha_beta_publishes_only_its_columns_without_a_scan_refusal(small):
    path, _, out = small
    result = _run(path, *ALPHA_BETA, "--columns", "diagnosis,age", "-o", str(out / "out.csv"))
    assert result.exit_code == 0, result.output
    assert list(_read(out / "out.csv").columns) == ["diagnosis", "age"]  # the order of --columns


@pytest.mark.parametrize(
    "args, message",
    [
        (["--identifier", "diagnosis"], "in both --identifier and --columns"),
        (["--identifier", "name,email", "--allow-identifier", "email"], "in both --identifier and --allow-identifier"),
        (["--identifier", "nope"], "Column 'nope' (in --identifier) is not in 'small.csv'"),
        (["--identifier", "name,email", "--allow-identifier", "nope"],
         "Column 'nope' (in --allow-identifier) is not in 'small.csv'"),
    ],
)
def test_bad_identifier_options_exit_2_and_write_nothing(small, args, message):
    path, _, out = small
    result = _run(path, *PRAM, "-o", str(out / "out.csv"), "--json", str(out / "out.json"), *args)
    assert result.exit_code == 2, result.output
    assert message in _text(result)
    assert _files(out) == set()


def test_help_documents_the_identifier_options():
    result = runner.invoke(app, ["randomize", "--help"], terminal_width=200)
    assert result.exit_code == 0
    assert "--identifier" in result.output and "--allow-identifier" in result.output


# ---------------------------------------------------------------------- PRAM's domain limit
def test_the_limit_keeps_the_matrix_under_200_mb():
    assert PRAM_MAX_CATEGORIES == _pram.PRAM_MAX_CATEGORIES
    assert 8 * PRAM_MAX_CATEGORIES ** 2 <= 200_000_000


def _no_matrix(*args, **kwargs):
    raise AssertionError("a PRAM matrix was built for a column above the limit")


def test_pram_refuses_a_column_of_too_many_categories_before_allocating(monkeypatch):
    monkeypatch.setattr(_pram, "PRAM_MAX_CATEGORIES", 4)
    monkeypatch.setattr(_pram, "_pram_matrix", _no_matrix)
    frame = pd.DataFrame({"uid": [f"u{i}" for i in range(6)], "sex": list("MFMFMF")})
    ds = Dataset.from_pandas(frame, quasi_identifiers=["sex", "uid"])
    with pytest.raises(ParameterError) as info:
        pram(ds, ["sex", "uid"], p=0.8, seed=0)  # the small column first: nothing is built for it either
    message = str(info.value)
    assert "'uid'" in message and "6 distinct values" in message and "(4)" in message
    assert "generalize or bin" in message.lower()
    assert "\n" not in message


def test_matrix_builders_refuse_too_many_categories(monkeypatch):
    monkeypatch.setattr(_pram, "PRAM_MAX_CATEGORIES", 4)
    with pytest.raises(ParameterError, match="5 categories"):
        pram_transition(5, 0.8)
    with pytest.raises(ParameterError, match="5 categories"):
        invariant_transition([1, 2, 3, 4, 5], 0.8)
    assert pram_transition(4, 0.8).shape == (4, 4)


def test_the_real_limit_message_gives_the_size():
    with pytest.raises(ParameterError) as info:
        _pram.check_pram_categories(100_000, "uid")
    assert "100,000 distinct values" in str(info.value) and "74.5 GiB" in str(info.value)
    assert _pram.check_pram_categories(PRAM_MAX_CATEGORIES, "c") == PRAM_MAX_CATEGORIES


@pytest.mark.parametrize("transition", [False, True])
def test_cli_refuses_a_large_pram_column_exit_2_nothing_written(tmp_path, monkeypatch, transition):
    monkeypatch.setattr(_pram, "PRAM_MAX_CATEGORIES", 10)
    monkeypatch.setattr(_pram, "_pram_matrix", _no_matrix)
    monkeypatch.setattr(_randomize_methods, "_read_transition", _no_matrix)
    data = tmp_path / "ids.csv"
    pd.DataFrame({"uid": [f"u{i:03d}" for i in range(25)], "sex": list("MF" * 12) + ["M"]}).to_csv(data, index=False)
    out = tmp_path / "out"
    out.mkdir()
    flags = ["--transition", f"uid={data}"] if transition else ["--p", "0.8"]
    result = _run(data, "--method", "pram", "--columns", "uid", *flags, "-o", str(out / "out.csv"),
                  "--json", str(out / "out.json"))
    assert result.exit_code == 2, result.output
    text = _text(result)
    assert "'uid'" in text and "25 distinct values" in text and "(10)" in text
    assert "identifier" not in text  # the limit comes first: allowing the column would not help
    assert "Traceback" not in result.output
    assert _files(out) == set()
