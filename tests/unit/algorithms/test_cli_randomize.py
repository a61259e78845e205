"""``veil randomize``: PRAM and αβ releases from the command line, and refused flag combinations.

Every run uses the bundled Adult table (30,162 records, ``;``-separated).
"""

from __future__ import annotations

import hashlib
import json
import shutil

import numpy as np
import pandas as pd
import pytest
from typer.testing import CliRunner

from veil.algorithms.randomization import alpha_beta_parameters, is_private
from veil.cli import app
from veil.datasets import adult_path

runner = CliRunner()
ADULT_ROWS = 30162


def _adult() -> pd.DataFrame:
    return pd.read_csv(adult_path(), sep=";", dtype=str, keep_default_na=False)


def _read(path) -> pd.DataFrame:
    return pd.read_csv(path, dtype=str, keep_default_na=False)


def _run(*args: str):
    return runner.invoke(app, ["randomize", adult_path(), "--sep", ";", *args])


def _files(folder) -> set[str]:
    return {p.name for p in folder.iterdir()}


# ---------------------------------------------------------------------- PRAM
def test_pram_changes_only_the_chosen_columns(tmp_path):
    out, report = tmp_path / "out.csv", tmp_path / "report.json"
    result = _run("--method", "pram", "--columns", "sex,race", "--p", "0.8", "-o", str(out),
                  "--json", str(report), "--seed", "7")
    assert result.exit_code == 0, result.output
    before, after = _adult(), _read(out)
    assert len(after) == len(before) == ADULT_ROWS
    assert list(after.columns) == list(before.columns)
    others = [c for c in before.columns if c not in ("sex", "race")]
    pd.testing.assert_frame_equal(after[others], before[others])
    for column in ("sex", "race"):
        changed = (after[column] != before[column]).mean()
        # p = 0.8: a value moves with probability 0.2 (sd of the share ≈ sqrt(.16/30162) ≈ 0.0023)
        assert 0.18 < changed < 0.22
        assert set(after[column]) <= set(before[column])
    assert "not differential privacy" in result.output.lower()
    assert "veil query" in result.output


def test_pram_report_keys_and_stochastic_matrices(tmp_path):
    out, report = tmp_path / "out.csv", tmp_path / "report.json"
    result = _run("--method", "pram", "--columns", "sex,education", "--p", "0.8", "-o", str(out),
                  "--json", str(report), "--seed", "1")
    assert result.exit_code == 0, result.output
    payload = json.loads(report.read_text())
    for key in ("method", "columns", "rows_in", "rows_out", "parameters", "transitions", "differential_privacy"):
        assert key in payload
    assert payload["method"] == "pram"
    assert payload["rows_in"] == payload["rows_out"] == ADULT_ROWS
    assert payload["differential_privacy"] is False
    assert payload["parameters"] == {"p": 0.8, "invariant": False, "transition_files": {}}
    assert set(payload["transitions"]) == {"sex", "education"}
    for column, spec in payload["transitions"].items():
        matrix = np.array(spec["matrix"])
        assert matrix.shape == (len(spec["categories"]),) * 2
        assert sorted(spec["categories"]) == sorted(_adult()[column].unique())
        np.testing.assert_allclose(matrix.sum(axis=1), 1.0, rtol=0, atol=1e-12)
        np.testing.assert_allclose(np.diag(matrix), 0.8)
        assert spec["invertible"] is True
    # education: K = 16, off-diagonal (1 - 0.8) / 15
    assert payload["transitions"]["education"]["matrix"][0][1] == pytest.approx(0.2 / 15)
    assert "seed" not in report.read_text()


def test_pram_invariant_keeps_the_frequencies(tmp_path):
    out, report = tmp_path / "out.csv", tmp_path / "report.json"
    result = _run("--method", "pram", "--columns", "race", "--p", "0.5", "--invariant", "-o", str(out),
                  "--json", str(report), "--seed", "11")
    assert result.exit_code == 0, result.output
    payload = json.loads(report.read_text())
    assert payload["parameters"]["invariant"] is True
    spec = payload["transitions"]["race"]
    counts = _adult()["race"].value_counts().reindex(spec["categories"]).to_numpy(dtype=float)
    matrix = np.array(spec["matrix"])
    np.testing.assert_allclose(counts @ matrix, counts, rtol=1e-12)  # t P = t
    released = _read(out)["race"].value_counts().reindex(spec["categories"], fill_value=0).to_numpy()
    # Var of a released count = sum_k T_k P_kl (1 - P_kl); allow 5 sd
    sd = np.sqrt((counts[:, None] * matrix * (1 - matrix)).sum(axis=0))
    assert (np.abs(released - counts) <= 5 * sd + 1).all()
    assert "disclose" in result.output


def test_pram_seed_reproduces_the_release(tmp_path):
    paths = [tmp_path / f"{name}.csv" for name in ("a", "b", "c")]
    for path, seed in zip(paths, ("5", "5", "6")):
        result = _run("--method", "pram", "--columns", "occupation", "--p", "0.7", "-o", str(path), "--seed", seed)
        assert result.exit_code == 0, result.output
    a, b, c = (path.read_bytes() for path in paths)
    assert a == b
    assert a != c


def test_seed_help_warns_to_keep_it_secret():
    result = runner.invoke(app, ["randomize", "--help"])
    assert result.exit_code == 0
    assert "SECRET" in result.output


@pytest.mark.parametrize("labelled", [False, True])
def test_pram_transition_file(tmp_path, labelled):
    matrix = tmp_path / "sex.csv"
    if labelled:  # rows carry their category, in another order than the header
        matrix.write_text(",Female,Male\nMale,0.25,0.75\nFemale,0.9,0.1\n")
    else:
        matrix.write_text("Female,Male\n0.9,0.1\n0.25,0.75\n")
    out, report = tmp_path / "out.csv", tmp_path / "report.json"
    result = _run("--method", "pram", "--columns", "sex", "--transition", f"sex={matrix}", "-o", str(out),
                  "--json", str(report), "--seed", "2")
    assert result.exit_code == 0, result.output
    spec = json.loads(report.read_text())["transitions"]["sex"]
    assert spec["categories"] == ["Female", "Male"]
    assert spec["matrix"] == [[0.9, 0.1], [0.25, 0.75]]
    assert len(_read(out)) == ADULT_ROWS


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("Female,Male\n0.9,0.2\n0.25,0.75\n", "The row of 'Female' sums to 1.1"),
        ("Female,Mail\n0.9,0.1\n0.25,0.75\n", "'Mail' is not a category of column 'sex'"),
        ("Female,Male\n0.9,0.1\n", "Got 2 categories and 1 rows instead"),
        ("Female,Male\n1.1,-0.1\n0.25,0.75\n", "must be a finite number in [0, 1]"),
    ],
)
def test_pram_bad_transition_file(tmp_path, text, message):
    matrix = tmp_path / "sex.csv"
    matrix.write_text(text)
    out = tmp_path / "out.csv"
    result = _run("--method", "pram", "--columns", "sex", "--transition", f"sex={matrix}", "-o", str(out))
    assert result.exit_code == 2, result.output
    assert message in " ".join(result.output.split())
    assert _files(tmp_path) == {"sex.csv"}


def test_pram_singular_matrix_is_flagged(tmp_path):
    out, report = tmp_path / "out.csv", tmp_path / "report.json"
    result = _run("--method", "pram", "--columns", "sex", "--p", "0.5", "-o", str(out), "--json", str(report))
    assert result.exit_code == 0, result.output
    assert json.loads(report.read_text())["transitions"]["sex"]["invertible"] is False  # p = 1/K
    assert "singular" in result.output


# ---------------------------------------------------------------------- αβ
def test_alpha_beta_with_d_gamma_uses_the_recommended_pair(tmp_path):
    out, report = tmp_path / "view.parquet", tmp_path / "report.json"
    columns = ["sex", "race", "education"]
    hierarchies = [arg for c in columns for arg in ("--hierarchy", f"{c}={adult_path(f'adult_hierarchy_{c}.csv')}")]
    result = _run("--method", "alpha-beta", "--columns", ",".join(columns), "--d", "0.1", "--gamma", "0.5",
                  *hierarchies, "-o", str(out), "--json", str(report), "--seed", "3")
    assert result.exit_code == 0, result.output
    payload = json.loads(report.read_text())
    region = alpha_beta_parameters(d=0.1, gamma=0.5)  # r = 1/9, s = 0.8: alpha = 0.7111..., beta = 0.0888...
    assert payload["private"] is True
    assert payload["parameters"] == {"alpha": region.alpha, "beta": region.beta, "d": 0.1, "gamma": 0.5,
                                     "pair": "recommended"}
    assert is_private(region.alpha, region.beta, d=0.1, gamma=0.5)
    assert payload["domain_size"] == 2 * 5 * 16  # hierarchy leaves of sex, race, education
    assert payload["domain_sources"] == {c: "hierarchy" for c in columns}
    view = pd.read_parquet(out)
    assert list(view.columns) == columns
    assert payload["view_size"] == payload["rows_out"] == len(view)
    assert payload["rows_in"] == ADULT_ROWS
    assert not view.duplicated().any()  # set semantics
    assert payload["row_aligned"] is False
    assert "seed" not in report.read_text()
    assert "--alpha 0.711111 --beta 0.0888889" in result.output  # the pair is printed
    assert "not differential privacy" in result.output.lower()


def test_alpha_beta_explicit_pair_is_not_assessed_without_d_gamma(tmp_path):
    out, report = tmp_path / "view.csv", tmp_path / "report.json"
    result = _run("--method", "alpha-beta", "--columns", "sex,race", "--alpha", "0.6", "--beta", "0.2",
                  "-o", str(out), "--json", str(report), "--seed", "4")
    assert result.exit_code == 0, result.output
    payload = json.loads(report.read_text())
    assert payload["private"] is None
    assert payload["parameters"]["alpha"] == 0.6 and payload["parameters"]["beta"] == 0.2
    assert payload["domain_sources"] == {"sex": "data", "race": "data"}
    output = " ".join(result.output.split())
    assert "taken from the values present in the data" in output
    assert "not assessed" in output


def test_alpha_beta_explicit_pair_inside_the_region(tmp_path):
    out, report = tmp_path / "view.csv", tmp_path / "report.json"
    # d = 0.1, gamma = 0.5 need beta/(alpha+beta) >= 1/9 and alpha+beta <= 0.8: 0.1/0.6 and 0.6 pass
    result = _run("--method", "alpha-beta", "--columns", "sex", "--alpha", "0.5", "--beta", "0.1",
                  "--d", "0.1", "--gamma", "0.5", "-o", str(out), "--json", str(report))
    assert result.exit_code == 0, result.output
    payload = json.loads(report.read_text())
    assert payload["private"] is True
    assert payload["parameters"]["pair"] == "given"


# ---------------------------------------------------------------------- refusals
@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--method", "pram", "--p", "0.8"], "--columns is required with --method pram"),
        (["--method", "pram", "--columns", "sex,salary", "--p", "0.8"], "Column 'salary' (in --columns)"),
        (["--method", "alpha-beta", "--columns", "nope", "--alpha", "0.5", "--beta", "0.1"], "Column 'nope'"),
        (["--method", "pram", "--columns", "sex", "--p", "0"], "must be a float in (0, 1]. Got 0.0 instead"),
        (["--method", "pram", "--columns", "sex", "--p", "1.5"], "must be a float in (0, 1]. Got 1.5 instead"),
        (["--method", "pram", "--columns", "sex", "--p", "-0.2"], "must be a float in (0, 1]. Got -0.2 instead"),
        (["--method", "pram", "--columns", "sex"], "needs --p"),
        (["--method", "pram", "--columns", "sex", "--p", "0.8", "--alpha", "0.5"],
         "--alpha applies to --method alpha-beta only"),
        (["--method", "alpha-beta", "--columns", "sex", "--alpha", "0.5", "--beta", "0.1", "--p", "0.8"],
         "--p applies to --method pram only"),
        (["--method", "alpha-beta", "--columns", "sex", "--alpha", "0.5"], "--alpha and --beta go together"),
        (["--method", "alpha-beta", "--columns", "sex", "--beta", "0.1", "--d", "0.1", "--gamma", "0.5"],
         "--alpha and --beta go together"),
        (["--method", "alpha-beta", "--columns", "sex", "--d", "0.1"], "--d and --gamma go together"),
        (["--method", "alpha-beta", "--columns", "sex"], "needs --alpha and --beta, or --d and --gamma"),
        (["--method", "alpha-beta", "--columns", "sex", "--alpha", "0.9", "--beta", "0.05", "--d", "0.1",
          "--gamma", "0.5"], "contradict --d 0.1 --gamma 0.5"),
        (["--method", "alpha-beta", "--columns", "sex", "--d", "0.5", "--gamma", "0.5"],
         "must be smaller than 'gamma'"),
    ],
)
def test_refused_flags_exit_2_and_write_nothing(tmp_path, args, message):
    out, report = tmp_path / "out.csv", tmp_path / "report.json"
    result = _run(*args, "-o", str(out), "--json", str(report))
    assert result.exit_code == 2, result.output
    assert message in " ".join(result.output.split())
    assert _files(tmp_path) == set()


def test_invariant_with_transition_is_refused(tmp_path):
    matrix = tmp_path / "sex.csv"
    matrix.write_text("Female,Male\n0.9,0.1\n0.25,0.75\n")
    result = _run("--method", "pram", "--columns", "sex", "--transition", f"sex={matrix}", "--invariant",
                  "-o", str(tmp_path / "out.csv"))
    assert result.exit_code == 2, result.output
    assert "--invariant" in result.output
    assert _files(tmp_path) == {"sex.csv"}


def test_output_over_the_input_is_refused(tmp_path):
    data = tmp_path / "adult.csv"
    shutil.copy(adult_path(), data)
    digest = hashlib.sha256(data.read_bytes()).hexdigest()
    for target in (data, tmp_path / "." / "adult.csv"):
        result = runner.invoke(app, ["randomize", str(data), "--sep", ";", "--method", "pram", "--columns", "sex",
                                     "--p", "0.8", "-o", str(target)])
        assert result.exit_code == 2, result.output
        assert "never overwrites" in " ".join(result.output.split())
    result = runner.invoke(app, ["randomize", str(data), "--sep", ";", "--method", "pram", "--columns", "sex",
                                 "--p", "0.8", "-o", str(tmp_path / "out.csv"), "--json", str(data)])
    assert result.exit_code == 2, result.output
    assert hashlib.sha256(data.read_bytes()).hexdigest() == digest
    assert _files(tmp_path) == {"adult.csv"}


@pytest.mark.parametrize("name", ["out.txt", "same"])
def test_output_must_be_a_table_apart_from_the_report(tmp_path, name):
    out = tmp_path / ("out.csv" if name == "same" else name)
    report = out if name == "same" else tmp_path / "report.json"
    result = _run("--method", "pram", "--columns", "sex", "--p", "0.8", "-o", str(out), "--json", str(report))
    assert result.exit_code == 2, result.output
    assert _files(tmp_path) == set()
