"""``veil query --engine duckdb``: the same mechanism, sensitivity and charge as the local path."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from veil.cli import app


@pytest.fixture()
def data(tmp_path: Path) -> Path:
    path = tmp_path / "d.csv"
    path.write_text("ward,income\nA,10\nB,20\nA,50\nB,\n")
    return path


def _answers(args: list[str]) -> list[dict]:
    result = CliRunner().invoke(app, [*args, "--json"])
    assert result.exit_code == 0, result.output
    return [json.loads(line) for line in result.output.splitlines() if line.startswith("{")]


def test_engine_answers_are_calibrated_like_local(data: Path) -> None:
    args = ["query", str(data), "count", "sum income", "--epsilon", "0.5", "--budget", "2",
            "--lower", "0", "--upper", "30"]
    local, duck = _answers(args), _answers([*args, "--engine", "duckdb"])
    for a, b in zip(local, duck):
        for key in ("query", "epsilon", "delta", "mechanism", "noise_scale", "sensitivity", "privacy_unit"):
            assert a[key] == b[key], key
    # count: geometric, sensitivity 1, scale 1/ε = 2; sum: Laplace, Δ = max(|0|, |30|) = 30, scale 30/0.5 = 60
    assert (duck[0]["sensitivity"], duck[0]["noise_scale"]) == (1, 2.0)
    assert (duck[1]["sensitivity"], duck[1]["noise_scale"]) == (30.0, 60.0)
    assert duck[1]["budget_remaining"]["epsilon"] == pytest.approx(1.0)  # 2 - 0.5 - 0.5


@pytest.mark.parametrize("extra, needle", [
    (["count where income = 'A'"], "'income' is numeric"),  # typed: text against a column of numbers
    (["count where ward > 3"], "'ward' holds text"),
    (["count", "--privacy-unit", "ward"], "--privacy-unit"),
    (["histogram ward"], "--categories"),  # no public keys and no --delta
    (["histogram ward, income", "--categories", "A,B"], "one-column"),
    (["count", "mean income", "--lower", "0", "--upper", "9"], "'mean'"),
    (["count", "--budget-file", "LEDGER"], "--dataset-name"),
])
def test_engine_refusals(data: Path, tmp_path: Path, extra: list[str], needle: str) -> None:
    extra = [str(tmp_path / "ledger.json") if e == "LEDGER" else e for e in extra]
    result = CliRunner().invoke(app, ["query", str(data), *extra, "--epsilon", "0.5", "--budget", "2",
                                      "--engine", "duckdb", "--json-out", str(tmp_path / "o.json")])
    assert result.exit_code == 2, result.output
    assert needle in result.output and "Traceback" not in result.output
    assert not (tmp_path / "o.json").exists() and not (tmp_path / "ledger.json").exists()


def test_a_refused_query_spends_nothing(data: Path, tmp_path: Path) -> None:
    ledger = tmp_path / "ledger.json"
    args = ["query", str(data), "count", "mean income", "--lower", "0", "--upper", "9", "--epsilon", "0.5",
            "--budget", "2", "--budget-file", str(ledger), "--dataset-name", "d", "--engine", "duckdb"]
    assert CliRunner().invoke(app, args).exit_code == 2
    # the count before the refused mean was not charged: the whole budget of 2 remains for 4 answers
    ok = CliRunner().invoke(app, ["query", str(data), "count", "count", "count", "count", "--epsilon", "0.5",
                                  "--budget", "2", "--budget-file", str(ledger), "--dataset-name", "d",
                                  "--engine", "duckdb", "--json"])
    assert ok.exit_code == 0, ok.output
    assert json.loads(ok.output.splitlines()[-1])["budget_remaining"]["epsilon"] == pytest.approx(0.0, abs=1e-9)
