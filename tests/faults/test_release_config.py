"""Fault corpus: a configuration or a set of flags that says one thing and releases another.

Each case was reproduced on the command line (issue #32 items 3-5, #33 items 10-11): a key given twice
on one line, a flag beside a configuration, a column given two roles.  A release either does what every
input says or refuses with one line naming the input; it never picks one of two answers silently.
"""

from __future__ import annotations

import json

import pandas as pd
import pytest

from veil.cli import app

from .conftest import CONFIG

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
