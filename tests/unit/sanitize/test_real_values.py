"""Safe Harbor on the values real tables carry (issue #17): ``90+`` top codes, missing words, 4-digit ZIPs.

Every expected value is worked out by hand from the rules of 45 CFR 164.514(b)(2)(i):
(B) a ZIP code keeps its first three digits; (C) ages over 89 are aggregated
into one category, which veil writes as the number 90 ("90 or older").
"""

from __future__ import annotations

import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from typer.testing import CliRunner

from veil.cli import app
from veil.config import load_config
from veil.errors import ConfigError, SchemaError
from veil.release import run_config
from veil.sanitize import Age90Plus, Plan, Zip3, age_90_plus, deidentify, safe_harbor, zip3


def run(*args):
    return CliRunner().invoke(app, [str(a) for a in args])


# --------------------------------------------------------------------------- ages


def test_top_code_90_plus_reads_as_90_or_older():
    s = pd.Series(["34", "90+", "", "NA", "95", "n/a", " 90 + ", ">=90", "≥92", "91 or older", "89"],
                  index=range(1, 12), name="age")
    out = age_90_plus(s)
    # 90+, >=90, 90 + -> 90 (already "90 or older"); 95, ≥92, 91 or older -> over 89 -> 90; 34 and 89 kept;
    # blank, NA and n/a are missing and stay missing
    assert out.tolist()[:2] == ["34", "90"]
    assert out.isna().tolist() == [False, False, True, True, False, True, False, False, False, False, False]
    assert out.dropna().tolist() == ["34", "90", "90", "90", "90", "90", "90", "89"]
    assert out.name == "age" and list(out.index) == list(range(1, 12))
    assert s.tolist()[1] == "90+"  # the input is not changed


def test_top_code_output_is_numeric():
    out = age_90_plus(pd.Series(["34", "90+", "", "NA", "61.5"]))
    assert pd.to_numeric(out, errors="coerce").tolist()[:2] == [34.0, 90.0]
    assert pd.to_numeric(out.dropna(), errors="raise").tolist() == [34.0, 90.0, 61.5]


def test_column_already_top_coded_lower_keeps_its_top_code():
    # "85+" means 85 or older: 87 and 93 are in that category too, so they become 85; 84 is below it
    out = age_90_plus(pd.Series(["84", "85+", "87", "93", ""]))
    assert out.tolist()[:4] == ["84", "85", "85", "85"] and pd.isna(out.iloc[4])


def test_label_with_top_codes():
    out = age_90_plus(pd.Series(["34", "90+", "95", ""]), label="90+")
    assert out.tolist()[:3] == ["34", "90+", "90+"] and pd.isna(out.iloc[3])
    with pytest.raises(SchemaError, match=r"^age_90_plus: column 'age' is already top-coded at 85 .*label"):
        age_90_plus(pd.Series(["34", "85+"], name="age"), label="90+")


def test_other_text_in_an_age_column_is_refused_naming_rows_not_values():
    s = pd.Series(["34", "90+", "ninety", "+", "9O+"], index=[1, 2, 3, 4, 5], name="age")
    with pytest.raises(SchemaError, match=r"^age_90_plus: column 'age' has 3 non-numeric value\(s\) at rows 3, 4, 5\.") \
            as info:
        age_90_plus(s)
    assert "ninety" not in str(info.value)


def test_negative_and_integer_ages():
    # negative numbers are numbers (a data error for an age, but not Safe Harbor's to fix): kept
    assert age_90_plus(pd.Series(["-1", "90+"])).tolist() == ["-1", "90"]
    assert age_90_plus(pd.Series([-1, 34, 100])).tolist() == [-1, 34, 90]


@settings(max_examples=60, deadline=None)
@given(st.lists(st.one_of(st.integers(-5, 130).map(str), st.integers(90, 120).map(lambda a: f"{a}+"),
                          st.sampled_from(["", "NA", "na", "NULL"])), min_size=1, max_size=30))
def test_no_age_over_89_survives(values):
    out = pd.to_numeric(age_90_plus(pd.Series(values)), errors="raise")
    kept = out.dropna()
    assert (kept <= 90).all()
    # every cell that was a number of at most 89 is unchanged; every missing word stays missing
    plain = pd.to_numeric(pd.Series(values), errors="coerce")
    low = plain <= 89
    assert (out[low] == plain[low]).all()
    assert out.isna().sum() == sum(v.lower() in ("", "na", "null") for v in values)


# --------------------------------------------------------------------------- ZIP codes


def test_four_digit_zips_that_lost_their_zero_are_padded():
    # 10001 has no leading zero to keep, so 2134 is 02134 stored as a number -> 021
    s = pd.Series(["2134", "10001", "", "NA", "94110-1234", "601"], name="zip")
    out = zip3(s)
    assert out.tolist()[:2] == ["021", "100"] and out.iloc[2:4].isna().all()
    assert out.tolist()[4:] == ["941", "601"]


def test_integer_typed_zips_are_padded():
    assert zip3(pd.Series([2134, 10001, 501])).tolist() == ["021", "100", "005"]


def test_four_digit_only_column_is_refused():
    s = pd.Series(["2000", "3000", "2600"], index=[1, 2, 3], name="postcode")
    with pytest.raises(SchemaError, match=r"^zip3: column 'postcode' has 3 four-digit value\(s\) at rows 1, 2, 3 "
                                          r"and no value has five digits, .*pad_four_digit: true.*'mask' or 'drop'\.$"):
        zip3(s)
    assert zip3(s, pad_four_digit=True).tolist() == ["020", "030", "026"]


def test_four_digit_beside_zips_that_keep_their_zero_is_refused():
    s = pd.Series(["02134", "2139", "10001"], index=[1, 2, 3], name="zip")
    with pytest.raises(SchemaError, match=r"four-digit value\(s\) at rows 2 and other ZIPs keep their leading zero"):
        zip3(s)
    with pytest.raises(SchemaError, match=r"at rows 1 and pad_four_digit is false"):
        zip3(pd.Series(["2134", "10001"], index=[1, 2], name="zip"), pad_four_digit=False)


def test_restricted_zip3_after_padding():
    # 2134 -> 02134 -> 021, restricted -> 000
    assert zip3(pd.Series(["2134", "10001"]), restricted_zip3=["021"]).tolist() == ["000", "100"]


def test_zip3_spec_from_config():
    plan = Plan.from_dict({"columns": {"zip": {"action": "zip3", "pad_four_digit": True}}})
    assert plan.columns["zip"] == Zip3((), True)
    with pytest.raises(ConfigError, match=r"^columns\.zip\.pad_four_digit: .*true, false or null"):
        Plan.from_dict({"columns": {"zip": {"action": "zip3", "pad_four_digit": "yes"}}})
    frame = pd.DataFrame({"zip": ["2000", "3000"], "age": ["34", "90+"]})
    result = deidentify(frame, Plan({"zip": Zip3(pad_four_digit=True), "age": Age90Plus()}))
    assert result.frame["zip"].tolist() == ["020", "030"] and result.frame["age"].tolist() == ["34", "90"]


def test_safe_harbor_on_a_hostile_table():
    frame = pd.DataFrame({
        "patient_name": ["Ann Lee", "Bob Roe", "Cy Doe", "Di Poe", "Ed Moe", "Flo Yu"],
        "age": ["34", "90+", "", "NA", "95", "41"],
        "zip": ["2134", "2139", "10001", "94110", "", "60601"],
    })
    result = safe_harbor(frame, restricted_zip3=["021"])
    assert result.frame["age"].tolist()[:2] == ["34", "90"] and result.frame["age"].tolist()[4:] == ["90", "41"]
    assert result.frame["zip"].tolist()[:4] == ["000", "000", "100", "941"]
    done = {a.column: a for a in result.report.done}
    assert done["age"].changed == 2  # 90+ -> 90 and 95 -> 90; the missing cells are not changes
    assert "90+" in done["age"].note and "leading zero" in done["zip"].note


# --------------------------------------------------------------------------- CLI end to end

HOSTILE = ("name,age,zip,diagnosis\nAnn Lee,34,2134,flu\nBob Roe,90+,2139,cold\nCy Doe,,10001,flu\n"
           "Di Poe,NA,94110,asthma\nEd Moe,95,2142,flu\nFlo Yu,41,60601,cold\nGus Ko,88,,flu\nHal Wu,67,30301,cold\n")


def test_cli_deidentify_then_query(tmp_path):
    data, out, rep = tmp_path / "in.csv", tmp_path / "out.csv", tmp_path / "rep.json"
    data.write_text(HOSTILE)
    res = run("deidentify", data, "--profile", "safe-harbor", "-o", out, "--report", rep)
    assert res.exit_code == 0, res.output
    frame = pd.read_csv(out, dtype=str, keep_default_na=False)
    # ages: 34, 90+ -> 90, blank, NA -> blank, 95 -> 90, 41, 88, 67
    assert frame["age"].tolist() == ["34", "90", "", "", "90", "41", "88", "67"]
    # zips: 2134, 2139, 2142 lost their zero (10001 ... keep none) -> 021
    assert frame["zip"].tolist() == ["021", "021", "100", "941", "021", "606", "", "303"]
    assert data.read_text() == HOSTILE
    # ages over 40: 90, 90, 41, 88, 67 = 5; epsilon 1000 makes the geometric noise 0 but with
    # probability about 2 exp(-1000)
    res = run("query", out, "count where age > 40", "--epsilon", "1000", "--budget", "2000",
              "--budget-file", tmp_path / "ledger.json")
    assert res.exit_code == 0, res.output
    assert "count where age > 40: 5 " in res.output.replace("\n", " ")


def test_cli_refuses_four_digit_postcodes_and_writes_nothing(tmp_path):
    data, out = tmp_path / "au.csv", tmp_path / "out.csv"
    data.write_text("postcode,age\n2000,34\n3000,41\n2600,55\n")
    res = run("deidentify", data, "--profile", "safe-harbor", "-o", out)
    assert res.exit_code == 2 and "Traceback" not in res.output
    assert "column 'postcode' has 3 four-digit value(s)" in res.output and "pad_four_digit" in res.output
    assert not out.exists()
    cfg = tmp_path / "pad.yaml"
    cfg.write_text("deidentify:\n  profile: safe-harbor\n  columns:\n    postcode: {action: zip3, pad_four_digit: true}\n")
    res = run("deidentify", data, "--config", cfg, "-o", out)
    assert res.exit_code == 0, res.output
    assert pd.read_csv(out, dtype=str)["postcode"].tolist() == ["020", "030", "026"]


def test_release_config_with_safe_harbor_on_hostile_values(tmp_path):
    # the hostile rows three times each: every (age, zip) pair after Safe Harbor occurs 3 >= k times,
    # so the optimal node is the bottom one and the release shows the Safe Harbor values themselves
    body = HOSTILE.split("\n", 1)[1]
    (tmp_path / "people.csv").write_text(HOSTILE + body + body)
    config = tmp_path / "release.yaml"
    config.write_text("""
input: {path: people.csv}
attributes:
  age: {role: quasi-identifier, kind: numeric, hierarchy: {intervals: {widths: [10, 20]}}}
  zip: {role: quasi-identifier, hierarchy: {spec: "mask:1"}}
  diagnosis: {role: sensitive}
deidentify:
  profile: safe-harbor
models:
  - {type: k-anonymity, k: 2}
output: {path: out.csv, seed: 0}
""")
    result, written = run_config(load_config(config))
    out = pd.read_csv(written["data"], dtype=str, keep_default_na=False)
    assert list(out.columns) == ["age", "zip", "diagnosis"] and result.report["verified"] is True
    missing = ""  # a missing value is released empty, as it came
    expected = [("34", "021"), ("90", "021"), (missing, "100"), (missing, "941"), ("90", "021"), ("41", "606"),
                ("88", missing), ("67", "303")]
    assert sorted(zip(out["age"], out["zip"])) == sorted(expected * 3)


def test_release_config_deidentify_errors_count_rows_from_one(tmp_path):
    # `veil deidentify` counts rows from 1 (the first data row); the release config's
    # deidentify: section used to count from 0
    (tmp_path / "people.csv").write_text("age,zip,diagnosis\n34,1234,flu\n41,02134,cold\n")
    config = tmp_path / "release.yaml"
    config.write_text("""
input: {path: people.csv}
attributes:
  age: {role: quasi-identifier, kind: numeric, hierarchy: {intervals: {widths: [10, 20]}}}
  zip: {role: quasi-identifier, hierarchy: {spec: "mask:1"}}
  diagnosis: {role: sensitive}
deidentify:
  columns:
    zip: {action: zip3, pad_four_digit: false}
models:
  - {type: k-anonymity, k: 1}
output: {path: out.csv}
""")
    with pytest.raises(SchemaError, match=r"at rows 1 and pad_four_digit is false"):
        run_config(load_config(config))
    assert not (tmp_path / "out.csv").exists()
