"""``veil hierarchy build|check`` and the --hierarchy / --auto-hierarchies options."""

import hashlib

import pytest
from typer.testing import CliRunner

from veil.cli import app
from veil.hierarchy import from_csv

runner = CliRunner()


@pytest.fixture
def data(tmp_path):
    rows = ["age,zip,job,disease"] + [
        f"{'90+' if i % 7 == 0 else 20 + i % 50},{['02139', '02142', '10001', '10002'][i % 4]},"
        f"{['Nurse', 'nurse', 'Chef', 'Pilot'][i % 4]},{'ab'[i % 2]}"
        for i in range(60)
    ]
    path = tmp_path / "data.csv"
    path.write_text("\n".join(rows) + "\n")
    return path


def run(*args):
    result = runner.invoke(app, [str(a) for a in args])
    assert "Traceback" not in result.output
    return result


def test_build_writes_arx_csvs_and_previews(data, tmp_path):
    out = tmp_path / "hier"
    result = run("hierarchy", "build", data, "--qi", "age,zip,job", "--spec", "age=interval:10,20", "-o", out)
    assert result.exit_code == 0, result.output
    assert sorted(p.name for p in out.iterdir()) == ["age.csv", "job.csv", "zip.csv"]
    lines = (out / "zip.csv").read_text().splitlines()
    # one row per value, ';'-separated, the value then 5 masked levels ("*****" is the single top)
    assert sorted(lines) == ["02139;0213*;021**;02***;0****;*****", "02142;0214*;021**;02***;0****;*****",
                             "10001;1000*;100**;10***;1****;*****", "10002;1000*;100**;10***;1****;*****"]
    assert from_csv(out / "age.csv").height == 3
    assert "zip: auto (mask:1)" in result.output and "age: interval:10,20" in result.output
    assert "--hierarchy age=" in result.output  # the command to use them


def test_build_refuses_to_overwrite_its_input(data, tmp_path):
    before = hashlib.sha256(data.read_bytes()).hexdigest()
    result = run("hierarchy", "build", data, "--qi", "data", "-o", tmp_path)
    assert result.exit_code == 2 and "never overwrites an input" in result.output
    assert hashlib.sha256(data.read_bytes()).hexdigest() == before


def test_check_ok_and_clear_errors(data, tmp_path):
    ok = run("hierarchy", "check", data, "--hierarchy", "age=interval:10", "--hierarchy", "job=suppress")
    assert ok.exit_code == 0 and "age: ok" in ok.output and "job: ok" in ok.output
    (tmp_path / "zip.csv").write_text("02139;021*;*\n02142;021*;*\n")
    missing = run("hierarchy", "check", data, "--hierarchy", f"zip={tmp_path / 'zip.csv'}")
    assert missing.exit_code == 2 and "does not cover the value '10001'" in missing.output
    (tmp_path / "bad.csv").write_text("02139;021*;*\n02142;021*;*\n10001;021*;x\n")
    bad = run("hierarchy", "check", data, "--hierarchy", f"zip={tmp_path / 'bad.csv'}")
    assert bad.exit_code == 2 and "not monotone" in bad.output
    typo = run("hierarchy", "check", data, "--hierarchy", "age=intervals:5")
    assert typo.exit_code == 2 and "Unknown hierarchy builder 'intervals'" in typo.output


def test_anonymize_auto_hierarchies_says_what_it_chose(data, tmp_path):
    out = tmp_path / "out.csv"
    result = run("anonymize", data, "--qi", "age,zip,job", "--hierarchy", "age=interval:10,20",
                 "--auto-hierarchies", "-k", "3", "--suppression", "0.1", "-o", out)
    assert result.exit_code == 0, result.output
    # job: Nurse, nurse, Chef, Pilot are four categories without an order: straight to *, with the reason
    assert "hierarchies: zip=auto (mask:1) because codes of 5 digits" in result.output
    assert "; job=auto (suppress) because 4 categories without an order" in result.output
    assert out.is_file()


@pytest.mark.parametrize("args, fragment", [
    (["--hierarchy", "age"], "--hierarchy expects COL=SPEC"),
    (["--hierarchy", "age=interval:x"], "--hierarchy age: The hierarchy spec 'interval:x' needs numbers"),
    (["--hierarchy", "age=interval:10", "--hierarchy", "age=mask:1"], "gives column 'age' twice"),
    ([], "add --hierarchy age=SPEC"),
])
def test_anonymize_hierarchy_option_errors(data, tmp_path, args, fragment):
    result = run("anonymize", data, "--qi", "age", "-k", "2", "-o", tmp_path / "o.csv", *args)
    assert result.exit_code == 2 and fragment in " ".join(result.output.split())
    assert not (tmp_path / "o.csv").exists()


def test_auto_hierarchies_not_with_a_config(tmp_path):
    (tmp_path / "r.yaml").write_text("input: {path: x.csv}\n")
    result = run("anonymize", tmp_path / "r.yaml", "--auto-hierarchies")
    assert result.exit_code == 2 and "--auto-hierarchies cannot be given beside the configuration" in result.output


def test_risk_and_check_take_the_same_options(data):
    risk = run("risk", data, "--qi", "age,zip", "--auto-hierarchies", "--max-qi-size", "0")
    assert risk.exit_code == 0 and "hierarchies: age=auto (interval:" in risk.output
    check = run("check", data, "--qi", "age,zip", "--hierarchy", "zip=mask:1", "--auto-hierarchies")
    assert check.exit_code == 0 and "zip=mask:1" in check.output


def test_several_assignments_in_one_option_as_before():
    from veil.cli._hierarchy_options import parse_hierarchy_options

    assert parse_hierarchy_options(["a=x.csv,b=mask:1", "age=interval:5,10", "q=interval:quantiles=4,2"]) == {
        "a": "x.csv", "b": "mask:1", "age": "interval:5,10", "q": "interval:quantiles=4,2"}
