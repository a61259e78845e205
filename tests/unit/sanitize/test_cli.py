from __future__ import annotations

import json

import pandas as pd
import pytest
from typer.testing import CliRunner

from veil.cli import app

KEY = "cli-test-key-0123456789abcdef"


@pytest.fixture
def csv(tmp_path, identifiers):
    path = tmp_path / "people.csv"
    identifiers.to_csv(path, index=False)
    return path


def run(*args, env=None):
    return CliRunner().invoke(app, [str(a) for a in args], env=env)


def test_scan_json_contract(csv, tmp_path):
    out = tmp_path / "scan.json"
    res = run("scan", csv, "--json", out)
    assert res.exit_code == 0, res.output
    data = json.loads(out.read_text())
    assert data["columns"]["c_email"]["kind"] == "email"
    assert data["columns"]["c_email"]["category"] == "direct-identifier"
    assert data["columns"]["diagnosis"] == {**data["columns"]["diagnosis"], "kind": "none", "category": "none"}
    for entry in data["columns"].values():
        assert isinstance(entry["evidence"], list) and 0 <= entry["confidence"] <= 1
    assert "person.0@mail-0.example.org" not in out.read_text()


def test_scan_keeps_leading_zeros(tmp_path):
    path = tmp_path / "z.csv"
    path.write_text("zip\n" + "\n".join(["02139", "00501", "01002"] * 5) + "\n")
    out = tmp_path / "s.json"
    assert run("scan", path, "--json", out).exit_code == 0
    assert json.loads(out.read_text())["columns"]["zip"]["kind"] == "zip"


def test_deidentify_safe_harbor(csv, tmp_path):
    out, rep, zips = tmp_path / "out.csv", tmp_path / "rep.json", tmp_path / "zip3.txt"
    zips.write_text("021\n")
    res = run("deidentify", csv, "--profile", "safe-harbor", "-o", out, "--report", rep,
              "--restricted-zip3", zips, "--as-of", "2025-01-01")
    assert res.exit_code == 0, res.output
    frame = pd.read_csv(out, dtype=str, keep_default_na=False)
    assert "c_email" not in frame.columns and set(frame["zip_code"]) == {"000"}
    report = json.loads(rep.read_text())
    assert report["profile"] == "safe-harbor" and report["undecided"]


def test_deidentify_config_with_key_env(csv, tmp_path):
    cfg = tmp_path / "release.yaml"
    cfg.write_text("deidentify:\n  columns:\n    c_ssn: {action: pseudonymize}\n    mrn: {action: pseudonymize, "
                   "method: random}\n    zip_code: {action: mask, keep: 3}\n")
    out, mapping = tmp_path / "out.csv", tmp_path / "map.csv"
    res = run("deidentify", csv, "--config", cfg, "-o", out, "--mapping-out", mapping,
              env={"VEIL_PSEUDONYM_KEY": KEY})
    assert res.exit_code == 0, res.output
    frame = pd.read_csv(out, dtype=str, keep_default_na=False)
    assert frame["c_ssn"].str.fullmatch(r"[0-9a-f]{16}").all()
    assert KEY not in out.read_text() + mapping.read_text() + res.output
    assert set(pd.read_csv(mapping, dtype=str)["column"]) == {"mrn"}
    again = tmp_path / "again.csv"
    key_file = tmp_path / "key.txt"
    key_file.write_text(KEY + "\n")
    assert run("deidentify", csv, "--config", cfg, "-o", again, "--key-file", key_file).exit_code == 0
    assert pd.read_csv(again, dtype=str)["c_ssn"].equals(frame["c_ssn"])


@pytest.mark.parametrize("env, message", [({}, "VEIL_PSEUDONYM_KEY"), ({"VEIL_PSEUDONYM_KEY": "short"}, "16 bytes")])
def test_deidentify_key_errors(csv, tmp_path, env, message):
    cfg = tmp_path / "c.yaml"
    cfg.write_text("columns:\n  c_ssn: {action: pseudonymize}\n")
    out = tmp_path / "o.csv"
    res = run("deidentify", csv, "--config", cfg, "-o", out, env={"VEIL_PSEUDONYM_KEY": "", **env})
    assert res.exit_code == 2 and message in res.output and not out.exists()
    secret = env.get("VEIL_PSEUDONYM_KEY")
    if secret:
        assert f"'{secret}'" not in res.output and f" {secret} " not in res.output


def test_deidentify_errors(csv, tmp_path):
    res = run("deidentify", csv, "--profile", "safe-harbor", "-o", csv)
    assert res.exit_code == 2 and "is an input of this command" in res.output
    cfg = tmp_path / "c.yaml"
    cfg.write_text("columns:\n  nope: {action: drop}\n")
    out = tmp_path / "o.csv"
    res = run("deidentify", csv, "--config", cfg, "-o", out)
    assert res.exit_code == 2 and "'nope' not in the table" in res.output and not out.exists()
    cfg.write_text("columns:\n  c_ssn: {action: mask, keep: -2}\n")
    res = run("deidentify", csv, "--config", cfg, "-o", out)
    assert res.exit_code == 2 and "columns.c_ssn.keep" in res.output
    res = run("deidentify", csv, "-o", out)
    assert res.exit_code == 2 and "Nothing to do" in res.output


def test_bad_dates_name_rows_in_cli(tmp_path):
    path = tmp_path / "d.csv"
    path.write_text("pid,admit\na,2020-01-01\nb,yesterday\n")
    cfg = tmp_path / "c.yaml"
    cfg.write_text("columns:\n  admit: {action: truncate_dates}\n")
    out = tmp_path / "o.csv"
    res = run("deidentify", path, "--config", cfg, "-o", out)
    assert res.exit_code == 2 and "at rows 2" in res.output and not out.exists()


@pytest.mark.parametrize("option", ["--restricted-zip3", "--config"])
def test_the_key_file_given_as_another_input_is_refused_without_its_content(csv, tmp_path, option):
    key_file = tmp_path / "key.txt"
    key_file.write_text(KEY + "\n")
    out = tmp_path / "o.csv"
    res = run("deidentify", csv, "--profile", "safe-harbor", option, key_file, "--key-file", key_file, "-o", out)
    assert res.exit_code == 2 and f"{option} is the key file" in res.output
    assert KEY not in res.output and not out.exists()
    assert key_file.read_text() == KEY + "\n"


def test_deidentify_writes_parquet_for_a_parquet_name(csv, tmp_path):
    out = tmp_path / "out.parquet"
    res = run("deidentify", csv, "--profile", "safe-harbor", "-o", out)
    assert res.exit_code == 0, res.output
    frame = pd.read_parquet(out)  # a real Parquet file, which the other commands read
    assert "c_email" not in frame.columns and len(frame) == len(pd.read_csv(csv))
