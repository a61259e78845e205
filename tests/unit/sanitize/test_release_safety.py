"""The scanner and Safe Harbor defects of issue #13, each with a test that failed before the fix."""

from __future__ import annotations

import json

import numpy as np
import pandas as pd
from typer.testing import CliRunner

from veil.cli import app
from veil.sanitize import Plan, deidentify, safe_harbor, scan
from veil.sanitize._plan import Drop, Zip3

SECRET = "s3cr3t-key-material-0123456789abcdef"


def run(*args, env=None):
    return CliRunner().invoke(app, [str(a) for a in args], env=env)


def _rng_table(n: int = 120) -> pd.DataFrame:
    rng = np.random.default_rng(7)
    return pd.DataFrame({
        # a subject seen on three visits each: not unique per row, still an identifier
        "subject_id": [f"{i // 3:04d}" for i in range(n)],
        "pickup_latitude": [f"{x:.6f}" for x in rng.uniform(30, 50, n)],
        "patient_type": rng.choice(["inpatient", "outpatient", "day case"], n),
        "contact": rng.choice(["email", "phone", "none"], n),
        "age": [str(a) for a in rng.integers(18, 100, n)],
    })


def test_latitude_is_not_a_telephone_number():
    # "40.712776" is digits.digits: the phone pattern used to match 2-4 digits, a dot, then 3+3 digits
    report = scan(_rng_table())
    finding = report.columns["pickup_latitude"]
    assert finding.kind != "phone"
    assert not any(e.kind in ("phone", "fax") for e in finding.evidence if e.source == "pattern")
    # a real phone column is still found
    phones = pd.DataFrame({"phone": [f"555-{i:03d}-{1000 + i:04d}" for i in range(50)]})
    assert scan(phones).columns["phone"].kind == "phone"


def test_lowercase_word_column_is_not_a_person_name():
    # "patient_type" matched the name kind on its word "patient"; "contact" as a whole word
    report = scan(_rng_table())
    assert report.columns["patient_type"].kind == "none"
    assert report.columns["contact"].kind == "none"
    # a column called "name" stays a name even in lower case
    names = pd.DataFrame({"name": ["ann lee", "bob ray", "eve kim"] * 10})
    assert scan(names).columns["name"].kind == "name"


def test_safe_harbor_removes_a_subject_id_that_repeats():
    result = safe_harbor(_rng_table())
    assert "subject_id" not in result.frame.columns
    assert not any(u.column == "subject_id" for u in result.report.undecided)
    done = {a.column: a.action for a in result.report.done}
    assert done["subject_id"] == "drop"


def test_safe_harbor_random_ids_for_a_linked_subject_id():
    table = _rng_table()
    result = safe_harbor(table, link=["subject_id"], rng=1)
    assert set(result.frame["subject_id"]).isdisjoint(set(table["subject_id"]))


def test_safe_harbor_age_stays_numeric():
    table = pd.DataFrame({"age": ["34", "89", "90", "97", "104", ""] * 5})
    out = safe_harbor(table).frame["age"]
    numbers = pd.to_numeric(out[out.notna()])
    assert numbers.max() == 90 and (numbers[table["age"][out.notna()].astype(int) > 89] == 90).all()
    assert (numbers > 40).sum() == 20  # "count where age > 40" still works: 89, 90, 90, 90 per block of 6


def test_change_counts_ignore_missing_and_unchanged_values():
    table = pd.DataFrame({"zip": ["02139", "", "10001", None], "ssn": ["123-45-6789", "", None, "234-56-7890"]})
    result = deidentify(table, Plan({"zip": Zip3(), "ssn": Drop()}))
    counts = {a.column: a.changed for a in result.report.done}
    # zip: 2 present values truncated; the blank and the NA are not changes
    # ssn: dropping removes 2 values; the blank and NA held nothing
    assert counts == {"zip": 2, "ssn": 2}


def test_key_env_value_is_never_echoed(tmp_path):
    path = tmp_path / "t.csv"
    path.write_text("email,dx\n" + "".join(f"p{i}@x.org,a\n" for i in range(12)))
    cfg = tmp_path / "c.yaml"
    cfg.write_text("columns:\n  email: {action: pseudonymize, method: hmac}\n")
    out = tmp_path / "o.csv"
    report = tmp_path / "r.json"
    # the user pastes the key itself where the variable's name belongs
    res = run("deidentify", path, "--config", cfg, "-o", out, "--report", report, "--key-env", SECRET)
    assert res.exit_code == 2 and SECRET not in res.output and "NAME of an environment variable" in res.output
    assert not out.exists() and not report.exists()
    # a valid name that is not set is not echoed either
    res = run("deidentify", path, "--config", cfg, "-o", out, "--key-env", "MY_SECRET_HOLDER", env={})
    assert res.exit_code == 2 and "MY_SECRET_HOLDER" not in res.output
    # a key given the right way never appears in the outputs
    res = run("deidentify", path, "--config", cfg, "-o", out, "--report", report, "--key-env", "K",
              env={"K": SECRET})
    assert res.exit_code == 0, res.output
    assert SECRET not in res.output and SECRET not in out.read_text() and SECRET not in report.read_text()
    assert json.loads(report.read_text())["rows"] == 12


def test_safe_harbor_output_still_answers_numeric_queries(tmp_path):
    # before, "90+" turned age into text and "count where age > 40" failed on the release
    source = tmp_path / "p.csv"
    source.write_text("age,dx\n" + "".join(f"{a},{'ab'[a % 2]}\n" for a in (25, 45, 89, 90, 97, 104) * 4))
    out = tmp_path / "o.csv"
    assert run("deidentify", source, "--profile", "safe-harbor", "-o", out).exit_code == 0
    ages = pd.read_csv(out)["age"]
    assert pd.api.types.is_integer_dtype(ages) and ages.max() == 90
    res = run("query", out, "count where age > 40", "--epsilon", "1", "--budget", "1")
    assert res.exit_code == 0, res.output
    assert "count where age > 40:" in res.output


def test_boolean_words_are_not_person_names():
    report = scan(pd.DataFrame({"flag": ["True", "False"] * 15, "answer": ["Yes", "No", "None"] * 10}))
    for column in ("flag", "answer"):
        assert not any(e.kind == "name" for e in report.columns[column].evidence), column
