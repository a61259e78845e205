"""Fault corpus: a configuration or a set of flags that says one thing and releases another.

Each case was reproduced on the command line (issue #32 items 3-5, #33 items 10-11): a key given twice
on one line, a flag beside a configuration, a column given two roles.  A release either does what every
input says or refuses with one line naming the input; it never picks one of two answers silently.
"""

from __future__ import annotations

import json
import re

import pandas as pd
from hypothesis import given
from hypothesis import strategies as st
import pytest

from veil.cli import app

from .conftest import CONFIG, invoke

# ---------------------------------------------------------------------------------------------
# #32.3: a key given twice, whatever the layout


def _models(ws, models: str):
    text = CONFIG.format(extra="output: {path: out/a.csv, report: out/a.json}").replace(
        "models:\n  - {type: k-anonymity, k: 3}\n  - {type: distinct-l-diversity, sensitive: disease, l: 2}\n",
        f"models: {models}\n")
    return ws.write_config(text=text)


@pytest.mark.parametrize("models", [
    "[{type: k-anonymity, k: 5, k: 1}]",                       # flow mapping, one line
    "[{type: k-anonymity, k: 5,\n    k: 1}]",                  # flow mapping over two lines
    "[{type: k-anonymity, k: 5, \"k\": 1}]",                   # the same key, quoted
    "[{type: k-anonymity, k: 5, ? k : 1}]",                    # an explicit key
])
def test_a_key_given_twice_in_a_flow_mapping_is_refused(ws, faults, models):
    config = _models(ws, models)
    before = faults.snapshot(ws.folder)
    outcome = faults.invoke("anonymize", config)
    faults.assert_refused(outcome, before, faults.snapshot(ws.folder), "'k'", "given twice")


def test_a_key_given_twice_in_a_nested_flow_mapping_is_refused(ws, faults):
    text = CONFIG.format(extra="").replace(
        "  disease: {role: sensitive}",
        "  disease: {role: sensitive}\n  note: {role: insensitive, role: identifier}")
    config = ws.write_config(text=text)
    before = faults.snapshot(ws.folder)
    outcome = faults.invoke("anonymize", config)
    faults.assert_refused(outcome, before, faults.snapshot(ws.folder), "'role'", "given twice")


def test_a_key_given_twice_on_one_line_of_json_is_refused(ws, faults):
    payload = ('{"input": {"path": "data.csv"}, "attributes": {"age": {"role": "quasi-identifier", '
               '"hierarchy": {"file": "age.csv"}}}, "models": [{"type": "k-anonymity", "k": 5, "k": 1}]}')
    config = ws.folder / "release.json"
    config.write_text(payload, encoding="utf-8")
    before = faults.snapshot(ws.folder)
    outcome = faults.invoke("anonymize", config)
    faults.assert_refused(outcome, before, faults.snapshot(ws.folder), "'k'", "given twice")


def test_a_key_given_twice_in_a_deidentify_plan_on_one_line_is_refused(ws, faults):
    plan = ws.folder / "plan.yaml"
    plan.write_text("columns: {name: {action: drop}, name: {action: keep}}\n", encoding="utf-8")
    before = faults.snapshot(ws.folder)
    outcome = faults.invoke("deidentify", ws.data, "--config", plan, "-o", ws.folder / "o.csv")
    faults.assert_refused(outcome, before, faults.snapshot(ws.folder), "'name'", "given twice")


@pytest.mark.parametrize("extra, mention", [
    (["--kind", "age=categorical"], "'age'"),                   # --kind age=numeric is in ws.flags already
    (["-l", "disease:1"], "'disease'"),                         # -l disease:2 is in ws.flags already
    (["--option", "strict=false", "--option", "strict=true"], "'strict'"),
])
def test_a_flag_naming_one_column_twice_is_refused(ws, faults, extra, mention):
    before = faults.snapshot(ws.folder)
    outcome = faults.invoke(*ws.flags(*extra, "-o", ws.out / "a.csv"))
    faults.assert_refused(outcome, before, faults.snapshot(ws.folder), mention, "twice")


def test_an_algorithm_option_given_a_key_twice_is_refused(ws, faults):
    before = faults.snapshot(ws.folder)
    outcome = faults.invoke(*ws.flags("--algorithm", "mondrian", "--option", "x={a: 1, a: 2}", "-o", ws.out / "a.csv"))
    faults.assert_refused(outcome, before, faults.snapshot(ws.folder), "'a'", "given twice")


# ---------------------------------------------------------------------------------------------
# #32.4: a flag beside a configuration is refused, never ignored


def _options_of(command: str):
    """Every option of a ``veil`` command, as Click declares it (an option added later is here too)."""
    from typer.main import get_command

    return [p for p in get_command(app).commands[command].params if p.param_type_name == "option"]


def _argv(param) -> list[str]:
    """The option given once, with a value that an int, a float, a text and a path option all parse
    (the refusal comes before any use of it)."""
    return [param.opts[0]] if param.is_flag else [param.opts[0], "50"]


def test_a_flag_beside_a_configuration_is_refused_not_ignored(ws, faults):
    # the case: k=50 asked for, k=3 (the configuration's) released with exit 0
    ws.write_config("output: {path: out/a.csv, report: out/a.json}")
    before = faults.snapshot(ws.folder)
    outcome = faults.invoke("anonymize", ws.config, "-k", "50")
    faults.assert_refused(outcome, before, faults.snapshot(ws.folder), "-k", "release.yaml")


@pytest.mark.parametrize("param", [p for p in _options_of("anonymize")
                                   if p.name not in ("output", "json_out", "html_out", "quiet")],
                         ids=lambda p: p.opts[0])
def test_every_option_of_anonymize_beside_a_configuration_is_refused(ws, faults, param):
    ws.write_config("output: {path: out/a.csv, report: out/a.json}")
    before = faults.snapshot(ws.folder)
    outcome = faults.invoke("anonymize", ws.config, *_argv(param))
    faults.assert_refused(outcome, before, faults.snapshot(ws.folder), param.opts[0])


def test_an_option_given_at_its_default_beside_a_configuration_is_refused(ws, faults):
    # --suppression 0 is the flag's default, but the configuration says 0.1: the user asked for 0
    before = faults.snapshot(ws.folder)
    outcome = faults.invoke("anonymize", ws.config, "--suppression", "0", "--algorithm", "lattice")
    faults.assert_refused(outcome, before, faults.snapshot(ws.folder), "--suppression", "--algorithm")


def test_destinations_beside_a_configuration_are_applied_with_a_note(ws):
    ws.write_config("output: {path: out/a.csv, report: out/a.json}")
    outcome = invoke("anonymize", ws.config, "-o", ws.out / "b.csv", "--json", ws.out / "a.json", "-q")
    assert outcome.exit_code == 0, outcome.text
    assert (ws.out / "b.csv").exists() and not (ws.out / "a.csv").exists()
    assert "replaced the configuration's output.path (out/a.csv)" in outcome.stderr
    assert "output.report" not in outcome.stderr  # the same file: nothing replaced


@pytest.mark.parametrize("param", [p for p in _options_of("explore") if p.name in ("qi", "hierarchy", "kind", "sep")],
                         ids=lambda p: p.opts[0])
def test_a_data_flag_of_explore_beside_a_configuration_is_refused(ws, faults, param):
    before = faults.snapshot(ws.folder)
    outcome = faults.invoke("explore", ws.config, "-k", "2,3", *_argv(param))
    faults.assert_refused(outcome, before, faults.snapshot(ws.folder), param.opts[0], "release.yaml")


def test_an_option_added_to_explore_later_is_refused_beside_a_configuration():
    # the options explore lets through beside a configuration are named; any other one is refused
    from veil.cli.cmd_explore import _BESIDE_CONFIG

    data = {"qi", "hierarchy", "kind", "sep"}
    assert {p.name for p in _options_of("explore")} - set(_BESIDE_CONFIG) >= data
    assert not data & set(_BESIDE_CONFIG)


@pytest.mark.parametrize("flag, key, value", [
    ("--profile", "profile", "safe-harbor"),
    ("--as-of", "as_of", "2020-01-01"),
    ("--link", "link", "name"),
])
def test_a_deidentify_flag_beside_a_config_that_sets_it_is_refused(ws, faults, flag, key, value):
    plan = ws.folder / "plan.yaml"
    plan.write_text(f"profile: safe-harbor\n{key}: {json.dumps([value] if key == 'link' else value)}\n"
                    if key != "profile" else "profile: safe-harbor\n", encoding="utf-8")
    before = faults.snapshot(ws.folder)
    outcome = faults.invoke("deidentify", ws.data, "--config", plan, flag, value, "-o", ws.folder / "o.csv")
    faults.assert_refused(outcome, before, faults.snapshot(ws.folder), flag, repr(key))


# ---------------------------------------------------------------------------------------------
# #32.5: a column given two roles is refused (CLI, configuration, Python API), one error naming it


@pytest.mark.parametrize("extra, mentions", [
    (["--sensitive", "sex"], ["'sex'", "--qi", "--sensitive"]),       # the case
    (["-l", "sex:2"], ["'sex'", "--qi", "-l"]),
    (["-t", "age:0.5"], ["'age'", "--qi", "-t"]),
    (["--require", "l[sex]>=2"], ["'sex'", "--qi", "--require"]),
    (["--identifier", "zip"], ["'zip'", "--qi", "--identifier"]),
    (["--insensitive", "disease"], ["'disease'", "--sensitive", "--insensitive"]),
    (["--insensitive", "name"], ["'name'", "--identifier", "--insensitive"]),
])
def test_a_column_given_two_roles_by_flags_is_refused(ws, faults, extra, mentions):
    before = faults.snapshot(ws.folder)
    outcome = faults.invoke(*ws.flags(*extra, "-o", ws.out / "a.csv"))
    faults.assert_refused(outcome, before, faults.snapshot(ws.folder), "two roles", *mentions)


def test_two_roles_are_refused_before_auto_hierarchies_read_the_data(ws, faults):
    args = ["anonymize", ws.data, "--qi", "zip,age,sex", "--sensitive", "sex", "--auto-hierarchies", "-k", "2",
            "-o", ws.out / "a.csv"]
    before = faults.snapshot(ws.folder)
    outcome = faults.invoke(*args)
    faults.assert_refused(outcome, before, faults.snapshot(ws.folder), "'sex'", "two roles")
    assert "hierarchies:" not in outcome.stdout  # nothing chosen, nothing printed


@pytest.mark.parametrize("extra, mention", [
    (["--hierarchy", "note=suppress"], "'note'"),     # a column with no role: the hierarchy did nothing
    (["--kind", "note=numeric"], "'note'"),
])
def test_a_hierarchy_or_kind_for_a_column_without_a_role_is_refused(ws, faults, extra, mention):
    before = faults.snapshot(ws.folder)
    outcome = faults.invoke(*ws.flags(*extra, "-o", ws.out / "a.csv"))
    faults.assert_refused(outcome, before, faults.snapshot(ws.folder), extra[0], mention)


def test_a_column_given_two_roles_in_a_configuration_is_refused(ws, faults):
    text = CONFIG.format(extra="").replace("  disease: {role: sensitive}",
                                            "  disease: {role: sensitive}\n  sex: {role: sensitive}")
    config = ws.write_config(text=text)
    before = faults.snapshot(ws.folder)
    outcome = faults.invoke("anonymize", config)
    faults.assert_refused(outcome, before, faults.snapshot(ws.folder), "'sex'", "given twice")


# ---------------------------------------------------------------------------------------------
# #33.11: -l L and -t T with one --sensitive


def test_a_bare_l_applies_to_the_one_sensitive_attribute(ws):
    args = [a for a in ws.flags("-o", ws.out / "a.csv", "--json", ws.out / "a.json", "-q") if a != "disease:2"]
    args[args.index("-l") + 1:args.index("-l") + 1] = ["2"]
    outcome = invoke(*args)
    assert outcome.exit_code == 0, outcome.text
    models = json.loads((ws.out / "a.json").read_text())["models"]
    assert any("2-diversity" in str(m) and "disease" in str(m) for m in models), models


def test_a_bare_l_with_two_sensitive_attributes_is_refused(ws, faults):
    args = [a for a in ws.flags("-o", ws.out / "a.csv") if a != "disease:2"]
    args[args.index("-l") + 1:args.index("-l") + 1] = ["2"]
    args[args.index("--sensitive") + 1] = "disease,note"
    before = faults.snapshot(ws.folder)
    outcome = faults.invoke(*args)
    faults.assert_refused(outcome, before, faults.snapshot(ws.folder), "-l 2", "SENSITIVE:2")
def test_a_column_given_two_roles_in_python_is_refused(ws):
    import veil
    from veil.errors import SchemaError

    with pytest.raises(SchemaError, match="'sex'.*one role"):
        veil.anonymize(ws.frame, quasi_identifiers=["zip", "age", "sex"], sensitive=["sex"], k=3,
                       auto_hierarchies=True)



# ---------------------------------------------------------------------------------------------
# #33.10: the Python API is one call on a DataFrame


def test_a_dataframe_is_anonymized_in_one_call(ws):
    import veil

    data, report = veil.anonymize(ws.frame, quasi_identifiers=["zip", "age", "sex"], sensitive=["disease"],
                                  identifiers=["name"], kinds={"age": "numeric"}, k=3, l=2, suppression=0.1,
                                  auto_hierarchies=True)
    assert isinstance(data, pd.DataFrame) and list(data.columns) == ["zip", "age", "sex", "disease"]
    assert report["models"] == ["3-anonymity", "distinct 2-diversity (disease)"]
    assert report["achieved"]["k"] >= 3 and report["verified"] is True
    assert set(report["hierarchies"]) == {"zip", "age", "sex"}
    # the column given no role is withheld, and the report says so
    assert any("withheld" in w and "note" in w for w in report["warnings"]), report["warnings"]
    # the released classes, counted by hand from the released rows
    sizes = data[data["zip"] != "*"].groupby(["zip", "age", "sex"]).size()
    assert sizes.min() >= 3


def test_a_hierarchy_spec_and_t_as_keywords(ws):
    import veil

    result = veil.anonymize(ws.frame, quasi_identifiers=["zip", "age", "sex"], sensitive=["disease"],
                            hierarchies={"age": "interval:10,20", "zip": "mask:1,2,3", "sex": "suppress"},
                            kinds={"age": "numeric"}, k=2, t={"disease": 0.5}, suppression_limit=0.1)
    assert result.report["hierarchies"]["age"] == "interval:10,20"
    assert result.report["models"][1].startswith("0.5-closeness")


@pytest.mark.parametrize("keywords, message", [
    (dict(quasi_identifiers="age", k=3), "list of column names"),                           # read letter by letter
    (dict(quasi_identifiers=["age"], hierarchies={"note": "suppress"}, k=3), "'note'"),      # would do nothing
    (dict(quasi_identifiers=["age"], auto_hierarchies=True), "No privacy model"),
    (dict(quasi_identifiers=["age"], sensitive=["disease", "sex"], auto_hierarchies=True, l=2), "l={SENSITIVE"),
    (dict(quasi_identifiers=["age"], auto_hierarchies=True, k=2, suppression=0.1, suppression_limit=0.1), "not both"),
])
def test_a_dataframe_call_that_asks_for_nothing_or_twice_is_refused(ws, keywords, message):
    import veil
    from veil.errors import ParameterError

    with pytest.raises(ParameterError, match=re.escape(message)):
        veil.anonymize(ws.frame, **keywords)


def test_a_frame_keyword_with_a_dataset_is_refused_not_ignored(ws):
    import veil
    from veil.dataset import Dataset
    from veil.errors import ParameterError

    dataset = Dataset.from_pandas(ws.frame, quasi_identifiers=["sex"])
    with pytest.raises(ParameterError, match="'auto_hierarchies' describe a DataFrame"):
        veil.anonymize(dataset, k=2, auto_hierarchies=True)


def test_the_dataset_form_still_works():
    import veil
    from veil.models import KAnonymity

    adult = veil.datasets.load_adult()
    result = veil.anonymize(adult, [KAnonymity(k=5)], suppression_limit=0.05, seed=0)
    assert result.report["achieved"]["k"] >= 5 and len(result.data) == adult.n_records


def test_dir_lists_the_public_api():
    import veil

    names = dir(veil)
    assert {"anonymize", "Dataset", "AnonymizationResult", "datasets", "risk", "dp", "models"} <= set(names)
    assert not {"Any", "annotations", "importlib"} & set(names)
    assert set(veil.__all__) <= set(names)


# ---------------------------------------------------------------------------------------------
# #33.11: --help and the summary


def test_help_shows_no_type_on_a_flag_in_any_command():
    from typer.main import get_command

    for name in get_command(app).commands:
        outcome = invoke(name, "--help")
        assert outcome.exit_code == 0, (name, outcome.text)
        assert "<bool>" not in outcome.stdout and "list[" not in outcome.stdout, (name, outcome.stdout)
    anonymize = invoke("anonymize", "--help").stdout
    assert "<int>" in anonymize and "--quiet" in anonymize  # types stay where a value is taken


def test_the_summary_shows_every_column_name_whole_at_80_columns(tmp_path, monkeypatch):
    from veil.cli._app import console

    names = [f"respondent-{what}-category" for what in ("marital", "education", "occupation", "region",
                                                         "household", "employment", "citizenship")]
    frame = pd.DataFrame({name: [str(i % (j + 2)) for i in range(60)] for j, name in enumerate(names)})
    frame.to_csv(tmp_path / "wide.csv", index=False)
    monkeypatch.setattr(console, "width", 80)
    outcome = invoke("anonymize", tmp_path / "wide.csv", "--qi", ",".join(names), "--auto-hierarchies", "-k", "2",
                     "--suppression", "1", "-o", tmp_path / "out.csv", "-q")
    assert outcome.exit_code == 0, outcome.text
    assert "…" not in outcome.stdout
    lines = outcome.stdout.splitlines()
    for name in names:
        assert any(name in line for line in lines), name


# ---------------------------------------------------------------------------------------------
# the same class elsewhere: an input that would do nothing is refused, not ignored


@pytest.mark.parametrize("extra, mentions", [
    (["--seed", "3", "--no-shuffle"], ["seed", "shuffle"]),                 # the seed ordered nothing
    (["--allow-identifier", "name"], ["'name'", "identifier"]),            # name is --identifier: dropped anyway
    (["--allow-identifier", "age"], ["'age'", "quasi-identifier"]),        # QIs are never scanned
    (["--allow-identifier", "note"], ["'note'", "withheld"]),              # unlisted: withheld
    (["--allow-identifier", "nosuch"], ["'nosuch'", "not a column"]),
])
def test_a_flag_that_would_do_nothing_is_refused(ws, faults, extra, mentions):
    before = faults.snapshot(ws.folder)
    outcome = faults.invoke(*ws.flags(*extra, "-o", ws.out / "a.csv"))
    faults.assert_refused(outcome, before, faults.snapshot(ws.folder), *mentions)


def test_a_seed_beside_shuffle_false_in_a_configuration_is_refused(ws, faults):
    config = ws.write_config("seed: 3\noutput: {path: out/a.csv, shuffle: false}")
    before = faults.snapshot(ws.folder)
    outcome = faults.invoke("anonymize", config)
    faults.assert_refused(outcome, before, faults.snapshot(ws.folder), "seed", "output.shuffle: false")


def test_an_allowance_that_would_do_nothing_in_python_is_refused(ws):
    import veil
    from veil.errors import ParameterError

    with pytest.raises(ParameterError, match="'zip', a quasi-identifier"):
        veil.anonymize(ws.frame, quasi_identifiers=["zip", "age", "sex"], auto_hierarchies=True, k=2,
                       allow_identifiers=["zip"])


_FLAGS = {"--qi": "quasi-identifier", "--sensitive": "sensitive", "-l": "sensitive", "-t": "sensitive",
          "--require": "sensitive", "--identifier": "identifier", "--insensitive": "insensitive"}


@given(st.lists(st.tuples(st.sampled_from(["a", "b", "c", "d"]), st.sampled_from(sorted(_FLAGS))), max_size=10))
def test_check_roles_refuses_exactly_the_columns_given_two_roles(named):
    from veil.cli.cmd_anonymize import check_roles
    from veil.errors import ParameterError

    roles: dict[str, set[str]] = {}
    for column, flag in named:
        roles.setdefault(column, set()).add(_FLAGS[flag])
    conflicted = sorted(c for c, r in roles.items() if len(r) > 1)
    try:
        check_roles([(column, _FLAGS[flag], flag) for column, flag in named])
    except ParameterError as exc:
        assert conflicted and any(f"Column {c!r} is given two roles" in str(exc) for c in conflicted)
    else:
        assert not conflicted
