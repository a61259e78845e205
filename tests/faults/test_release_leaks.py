"""Fault corpus: identifier leaks, secrets and hostile column names in the release path."""

from __future__ import annotations

import json

import pandas as pd
import pytest
from typer.testing import CliRunner

from veil.cli import app

from .conftest import EMAILS, NAMES, assert_clean_failure

runner = CliRunner()


def _released(ws):
    return pd.read_csv(ws.out / "a.csv", dtype=str, keep_default_na=False)


def _report(ws):
    return json.loads((ws.out / "a.json").read_text())


def _ok(result, ws):
    assert result.exit_code == 0, result.output
    assert "Traceback" not in result.output
    assert not ws.temporaries()
    text = ws.outputs_text()
    assert not any(n in text for n in NAMES), "an identifier value was published"


def test_identifier_by_flag_is_dropped_never_copied(ws):
    result = runner.invoke(app, ws.flags("-o", str(ws.out / "a.csv"), "--json", str(ws.out / "a.json")))
    _ok(result, ws)
    assert "name" not in _released(ws).columns
    columns = {c["name"]: c for c in _report(ws)["columns"]}
    assert columns["name"] == {"name": "name", "role": "identifier", "treatment": "dropped"}


def test_identifier_by_config_role_is_dropped(ws):
    ws.write_config("output: {path: out/a.csv, report: out/a.json}")
    result = runner.invoke(app, ["anonymize", str(ws.config)])
    _ok(result, ws)
    assert list(_released(ws).columns) == ["zip", "age", "sex", "disease"]


def test_unlisted_column_is_withheld_by_default(ws):
    result = runner.invoke(app, ws.flags("-o", str(ws.out / "a.csv"), "--json", str(ws.out / "a.json")))
    _ok(result, ws)
    assert "note" not in _released(ws).columns
    columns = {c["name"]: c for c in _report(ws)["columns"]}
    assert columns["note"]["treatment"] == "dropped" and columns["note"]["role"] == "unlisted"


def test_keep_unlisted_releases_it_unchanged_and_says_so(ws):
    result = runner.invoke(app, ws.flags("--keep-unlisted", "-o", str(ws.out / "a.csv"), "--json", str(ws.out / "a.json")))
    _ok(result, ws)
    assert "released unchanged" in result.output
    assert sorted(_released(ws)["note"]) == sorted(ws.frame["note"])
    report = _report(ws)
    assert {"name": "note", "role": "unlisted", "treatment": "unchanged"} in report["columns"]
    assert any("note" in w for w in report["warnings"])


@pytest.mark.parametrize("how", ["keep-unlisted", "insensitive", "sensitive"])
def test_scanner_refuses_a_published_email_column(ws, how):
    ws.frame["contact_email"] = EMAILS
    ws.frame.to_csv(ws.data, index=False)
    before = ws.hashes()
    extra = {"keep-unlisted": ["--keep-unlisted"], "insensitive": ["--insensitive", "contact_email"],
             "sensitive": ["--sensitive", "disease,contact_email"]}[how]
    result = runner.invoke(app, ws.flags(*extra, "-o", str(ws.out / "a.csv")))
    assert_clean_failure(result, ws, before, outputs=[ws.out / "a.csv"])
    assert "contact_email" in result.output and "--allow-identifier" in result.output
    assert not any(e in result.output for e in EMAILS)


def test_scanner_refusal_is_lifted_by_name(ws):
    ws.frame["contact_email"] = EMAILS
    ws.frame.to_csv(ws.data, index=False)
    result = runner.invoke(app, ws.flags("--insensitive", "contact_email", "--allow-identifier", "contact_email",
                                         "-o", str(ws.out / "a.csv")))
    assert result.exit_code == 0, result.output
    assert "contact_email" in _released(ws).columns


def test_scanner_refusal_in_config(ws):
    ws.frame["ssn"] = [f"{100 + i:03d}-{10 + i % 80:02d}-{1000 + i:04d}" for i in range(60)]
    ws.frame.to_csv(ws.data, index=False)
    ws.write_config("keep_unlisted: true")
    before = ws.hashes()
    result = runner.invoke(app, ["anonymize", str(ws.config), "-o", str(ws.out / "a.csv")])
    assert_clean_failure(result, ws, before, outputs=[ws.out / "a.csv"])
    ws.write_config("keep_unlisted: true\nallow_identifiers: [ssn]")
    result = runner.invoke(app, ["anonymize", str(ws.config), "-o", str(ws.out / "a.csv")])
    assert result.exit_code == 0, result.output


def test_report_has_no_seed_unless_asked(ws):
    result = runner.invoke(app, ws.flags("-o", str(ws.out / "a.csv"), "--json", str(ws.out / "a.json")))
    _ok(result, ws)
    text = (ws.out / "a.json").read_text()
    assert '"seed"' not in text
    assert _report(ws)["output_order"] == {"shuffled": True, "reproducible": False}


def test_seed_on_request_is_reported_with_a_warning(ws):
    result = runner.invoke(app, ws.flags("--seed", "11", "-o", str(ws.out / "a.csv"), "--json", str(ws.out / "a.json")))
    _ok(result, ws)
    report = _report(ws)
    assert report["output_order"]["seed"] == 11
    assert any("seed" in w for w in report["warnings"])
    assert "warning:" in result.output


def test_two_unseeded_runs_give_different_orders(ws):
    orders = []
    for name in ("a", "b"):
        result = runner.invoke(app, ws.flags("--suppressed", "keep", "-o", str(ws.out / f"{name}.csv")))
        assert result.exit_code == 0, result.output
        orders.append((ws.out / f"{name}.csv").read_text())
    # 60 rows: two OS-random permutations agree with probability 1/60!
    assert orders[0] != orders[1]


@pytest.mark.parametrize("mode", ["blank", "drop", "keep"])
def test_suppressed_modes_publish_what_they_say(ws, mode):
    result = runner.invoke(app, ws.flags("--suppressed", mode, "-k", "7", "--suppression", "0.2",
                                         "-o", str(ws.out / "a.csv"), "--json", str(ws.out / "a.json")))
    _ok(result, ws)
    released, report = _released(ws), _report(ws)
    star = (released[["zip", "age", "sex"]] == "*").all(axis=1)
    assert report["suppressed_records"] == mode
    if mode == "drop":
        assert not star.any() and len(released) == 60 - report["suppressed"]
    else:
        assert int(star.sum()) == report["suppressed"] and len(released) == 60
    if mode == "blank":
        assert (released.loc[star, "disease"] == "*").all()


HOSTILE = ["[bold]x", "[red]alarm[/red]", 'say "hi"', "a,b", "x" * 300, "naïve ✓", "tab\there", "$(rm -rf)"]


@pytest.mark.parametrize("column", HOSTILE)
def test_hostile_column_names_are_handled(ws, column):
    ws.frame = ws.frame.rename(columns={"sex": column})
    ws.frame.to_csv(ws.data, index=False)
    hierarchy = ws.hierarchies.pop("sex")
    ws.hierarchies[column] = hierarchy
    args = ws.flags("-o", str(ws.out / "a.csv"), "--json", str(ws.out / "a.json"))
    qi = args.index("--qi") + 1
    args[qi] = f"zip,age,{column}" if "," not in column else None
    if args[qi] is None:  # a comma in a name cannot be given in a comma-separated list: use a config
        ws.write_config(text=ws.config.read_text().replace("  sex:", f"  '{column}':")
                        + "output: {path: out/a.csv, report: out/a.json}\n")
        args = ["anonymize", str(ws.config)]
    result = runner.invoke(app, args)
    assert "Traceback" not in result.output
    assert result.exit_code == 0, result.output
    assert column in _released(ws).columns
    assert any(c["name"] == column for c in _report(ws)["columns"])


def test_newline_in_a_column_name_is_handled(ws):
    ws.frame = ws.frame.rename(columns={"note": "line\nbreak"})
    ws.frame.to_csv(ws.data, index=False)
    result = runner.invoke(app, ws.flags("--keep-unlisted", "-o", str(ws.out / "a.csv")))
    assert "Traceback" not in result.output
    assert result.exit_code in (0, 2), result.output
    assert not ws.temporaries()


def test_identifier_pseudonymized_by_an_explicit_action_is_published_as_such(ws):
    ws.write_config("deidentify: {columns: {name: {action: pseudonymize, method: random}}}\n"
                    "output: {path: out/a.csv, report: out/a.json}")
    result = runner.invoke(app, ["anonymize", str(ws.config)])
    _ok(result, ws)  # no real name in any output
    columns = {c["name"]: c for c in _report(ws)["columns"]}
    assert columns["name"] == {"name": "name", "role": "identifier", "treatment": "pseudonymized"}
    released = _released(ws)
    assert "name" in released.columns and released["name"].nunique() == len(released)


@pytest.mark.parametrize("suffix", [".parquet", ".csv"])
def test_a_suppressed_rare_value_is_not_named_by_the_released_columns_metadata(tmp_path, suffix):
    """The released QIs are categoricals: their categories (a Parquet file's dictionary)
    list only the labels some released row shows, never the value of a suppressed record.
    (Two records suppressed: a published group of one would be smaller than k, issue #32.)"""
    import veil
    from veil import Dataset
    from veil.models import KAnonymity
    from veil.release import write_table

    frame = pd.DataFrame({"city": ["Oslo"] * 5 + ["Bergen"] * 5 + ["Tromsø", "Narvik"], "disease": ["flu"] * 12})
    from veil.hierarchy import Hierarchy

    dataset = Dataset.from_pandas(frame, quasi_identifiers=["city"], sensitive=["disease"],
                                  hierarchies={"city": Hierarchy.flat(["Oslo", "Bergen", "Tromsø", "Narvik"]).renamed("city")})
    result = veil.anonymize(dataset, [KAnonymity(k=2)], suppression_limit=0.2, seed=1)
    assert result.transformation == {"city": 0} and result.report["suppressed"] == 2
    assert not {"Tromsø", "Narvik"} & set(result.data["city"].cat.categories)
    path = tmp_path / f"out{suffix}"
    write_table(result.data, path)
    assert "Tromsø".encode() not in path.read_bytes() and b"Narvik" not in path.read_bytes()
