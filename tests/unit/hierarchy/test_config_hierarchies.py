"""Hierarchy specs and the deidentify section in a release config."""

import pandas as pd
import pytest

from veil.config import hierarchy_inputs, load_config
from veil.errors import ConfigError
from veil.release import run_config


def table(tmp_path, n=40):
    # ages 20..59 as text, a quarter top-coded as 90+, every 10th missing; two sexes
    ages = [("90+" if i % 4 == 3 else str(20 + i)) if i % 10 else "" for i in range(n)]
    rows = ["name,email,age,sex,visit,disease"] + [
        f"Person {i},p{i}@example.org,{ages[i]},{'MF'[i % 2]},2021-0{1 + i % 9}-1{i % 10},{'ab'[i % 3 == 0]}"
        for i in range(n)
    ]
    (tmp_path / "people.csv").write_text("\n".join(rows) + "\n")


def config(tmp_path, body):
    path = tmp_path / "release.yaml"
    path.write_text("input: {path: people.csv}\n" + body)
    return path


MODELS = "models:\n  - {type: k-anonymity, k: 3}\nsuppression_limit: 0.1\noutput: {path: out.csv, seed: 0}\n"


def test_spec_forms_in_a_config(tmp_path):
    table(tmp_path)
    path = config(tmp_path, """
attributes:
  age: {role: quasi-identifier, hierarchy: "interval:10,20"}
  sex: {role: quasi-identifier, hierarchy: {spec: suppress}}
  visit: {role: quasi-identifier, hierarchy: auto}
  disease: {role: sensitive}
deidentify: {columns: {name: {action: drop}, email: {action: drop}}}
""" + MODELS)
    result, written = run_config(load_config(path))
    out = pd.read_csv(written["data"], dtype=str, keep_default_na=False)
    assert len(out) == 40 and "name" not in out.columns
    assert result.report["achieved"]["k"] >= 3
    # every released age is a label of the interval hierarchy (or suppressed, or empty: missing)
    allowed = {"*", "", ">= 80", ">= 90"} | {f"[{a}, {a + 10})" for a in range(20, 60, 10)} \
        | {f"[{a}, {a + 20})" for a in range(20, 60, 20)} | {str(a) for a in range(20, 60)} | {"90+"}
    assert set(out["age"]) <= allowed


def test_bad_spec_names_the_key(tmp_path):
    table(tmp_path)
    path = config(tmp_path, "attributes:\n  age: {role: quasi-identifier, hierarchy: 'intervals:5'}\n" + MODELS)
    with pytest.raises(ConfigError, match=r"attributes\.age\.hierarchy.*Unknown hierarchy builder 'intervals'"):
        load_config(path)


def test_hierarchy_inputs_lists_files(tmp_path):
    table(tmp_path)
    path = config(tmp_path, """
attributes:
  age: {role: quasi-identifier, hierarchy: {file: h/age.csv}}
  sex: {role: quasi-identifier, hierarchy: "taxonomy:h/sex.csv"}
  visit: {role: quasi-identifier, hierarchy: auto}
""" + MODELS)
    assert hierarchy_inputs(load_config(path)) == [tmp_path / "h/age.csv", tmp_path / "h/sex.csv"]


def test_deidentify_profile_safe_harbor(tmp_path):
    # raw ages (not yet top-coded): Safe Harbor drops name and email and top-codes ages over 89
    rows = ["name,email,age,sex,disease"] + [
        f"Person {i},p{i}@example.org,{60 + i},{'MF'[i % 2]},{'ab'[i % 3 == 0]}" for i in range(40)
    ]
    (tmp_path / "people.csv").write_text("\n".join(rows) + "\n")
    path = config(tmp_path, """
attributes:
  age: {role: quasi-identifier, hierarchy: auto}
  sex: {role: quasi-identifier, hierarchy: suppress}
  disease: {role: sensitive}
deidentify: {profile: safe-harbor}
""" + MODELS)
    result, written = run_config(load_config(path))
    out = pd.read_csv(written["data"], dtype=str, keep_default_na=False)
    assert "name" not in out.columns and "email" not in out.columns
    assert not out["age"].isin([str(a) for a in range(90, 100)]).any()  # nobody over 89 shown as such
    assert result.report["achieved"]["k"] >= 3


@pytest.mark.parametrize("section, fragment", [
    ("{profile: hipaa}", "profile must be one of safe-harbor"),
    ("{profiles: safe-harbor}", "unknown key\\(s\\) 'profiles'"),
    ("{as_of: 2020-01-01}", "give a profile"),
])
def test_deidentify_section_errors(tmp_path, section, fragment):
    table(tmp_path)
    path = config(tmp_path, "attributes:\n  sex: {role: quasi-identifier, hierarchy: suppress}\n"
                  f"deidentify: {section}\n" + MODELS)
    with pytest.raises(ConfigError, match=r"deidentify.*" + fragment):
        load_config(path)


def test_build_hierarchies_sources_for_the_report(tmp_path):
    from veil.config import build_hierarchies
    from veil.release import dataset_from_config

    table(tmp_path)
    (tmp_path / "h").mkdir()
    (tmp_path / "h" / "sex.csv").write_text("M;*\nF;*\n")
    path = config(tmp_path, """
attributes:
  age: {role: quasi-identifier, hierarchy: "interval:10,20"}
  sex: {role: quasi-identifier, hierarchy: {file: h/sex.csv}}
  visit: {role: quasi-identifier, hierarchy: auto}
  disease: {role: sensitive, hierarchy: {flat: true}}
""" + MODELS)
    cfg = load_config(path)
    sources = build_hierarchies(cfg, dataset_from_config(cfg)).sources
    # a file is named without its folder; auto says what it chose and why (every visit is in 2021:
    # a year level would make one group, as the top does, so it is left out)
    assert sources == {"age": "interval:10,20", "sex": "sex.csv", "visit": "auto (date:month) because dates: to months",
                       "disease": "flat"}
