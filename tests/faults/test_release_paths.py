"""Fault corpus of the release path: clashing paths, bad configurations, bad
parameters.  Every case: exit 2, a one-line error, no traceback, no output,
no temporary file, every input byte-identical afterwards."""

from __future__ import annotations

import os

import pytest
from typer.testing import CliRunner

from veil.cli import app

from .conftest import assert_clean_failure

runner = CliRunner()


def _link(ws, kind: str, target):
    link = ws.folder / f"link-{kind}.csv"
    if kind == "symlink":
        link.symlink_to(target)
    else:
        os.link(target, link)
    return link


# each case: a function of the workspace giving the extra flags
CLASHES = {
    "output-is-input": lambda ws: ["-o", str(ws.data)],
    "output-is-hierarchy": lambda ws: ["-o", str(ws.hierarchies["zip"])],
    "output-is-other-hierarchy": lambda ws: ["-o", str(ws.hierarchies["sex"])],
    "json-is-input": lambda ws: ["--json", str(ws.data)],
    "json-is-hierarchy": lambda ws: ["--json", str(ws.hierarchies["age"])],
    "html-is-input": lambda ws: ["--html", str(ws.data)],
    "html-is-hierarchy": lambda ws: ["--html", str(ws.hierarchies["zip"])],
    "output-is-json": lambda ws: ["-o", str(ws.out / "x.csv"), "--json", str(ws.out / "x.csv")],
    "output-is-html": lambda ws: ["-o", str(ws.out / "x.csv"), "--html", str(ws.out / "x.csv")],
    "json-is-html": lambda ws: ["--json", str(ws.out / "r"), "--html", str(ws.out / "r")],
    "output-symlink-to-input": lambda ws: ["-o", str(_link(ws, "symlink", ws.data))],
    "output-hardlink-to-input": lambda ws: ["-o", str(_link(ws, "hardlink", ws.data))],
    "json-symlink-to-hierarchy": lambda ws: ["--json", str(_link(ws, "symlink", ws.hierarchies["age"]))],
    "json-hardlink-to-hierarchy": lambda ws: ["--json", str(_link(ws, "hardlink", ws.hierarchies["sex"]))],
    "output-relative-dots-to-input": lambda ws: ["-o", str(ws.folder / "out" / ".." / "data.csv")],
    "output-is-a-folder": lambda ws: ["-o", str(ws.folder)],
    "output-under-a-file": lambda ws: ["-o", str(ws.data / "x.csv")],
}


@pytest.mark.parametrize("case", sorted(CLASHES))
def test_clashing_paths_are_refused_before_work(ws, case):
    extra = CLASHES[case](ws)
    before = ws.hashes()
    result = runner.invoke(app, ws.flags(*extra))
    assert_clean_failure(result, ws, before, outputs=[ws.out / "x.csv", ws.out / "r"])


CONFIG_CLASHES = {
    "config-output-is-config": "output: {path: release.yaml}",
    "config-output-is-input": "output: {path: data.csv}",
    "config-report-is-input": "output: {report: data.csv}",
    "config-html-is-hierarchy": "output: {html: zip.csv}",
    "config-report-is-config": "output: {report: release.yaml}",
    "config-output-is-report": "output: {path: out/a.csv, report: out/a.csv}",
}


@pytest.mark.parametrize("case", sorted(CONFIG_CLASHES))
def test_config_clashes_are_refused(ws, case):
    ws.write_config(CONFIG_CLASHES[case])
    before = ws.hashes()
    result = runner.invoke(app, ["anonymize", str(ws.config)])
    assert_clean_failure(result, ws, before, outputs=[ws.out / "a.csv"])


def test_cli_output_equal_to_config_file_is_refused(ws):
    before = ws.hashes()
    result = runner.invoke(app, ["anonymize", str(ws.config), "-o", str(ws.config)])
    assert_clean_failure(result, ws, before)


BAD_CONFIGS = {
    "yaml-syntax": "input: [unclosed\n",
    "not-a-mapping": "- a\n- b\n",
    "unknown-key": None,  # filled below
    "no-models": "input: {path: data.csv}\nattributes: {zip: {role: quasi-identifier}}\nmodels: []\n",
    "missing-input-file": "input: {path: nowhere.csv}\nattributes: {zip: {role: quasi-identifier, hierarchy: {file: zip.csv}}}\nmodels: [{type: k-anonymity, k: 2}]\n",
    "bad-role": "input: {path: data.csv}\nattributes: {zip: {role: boss}}\nmodels: [{type: k-anonymity, k: 2}]\n",
}
EXTRA_BAD = {
    "unknown-key": "colour: blue",
    "suppressed-bogus": "suppressed: maybe",
    "algorithm-bogus": "algorithm: quantum",
    "engine-bogus": "engine: abacus",
    "allow-identifiers-not-list": "allow_identifiers: 3",
    "keep-unlisted-not-bool": "keep_unlisted: perhaps",
    "seed-negative": "seed: -1",
    "drop-vs-keep": "suppressed: keep\noutput: {drop_suppressed: true}",
    "metric-bogus": "metric: happiness",
    "label-is-qi": "label: zip",
    "options-for-lattice": "algorithm_options: {strict: false}",
    "suppression-limit-above-one": "suppression_limit: 2",
}


@pytest.mark.parametrize("case", sorted(set(BAD_CONFIGS) | set(EXTRA_BAD)))
def test_bad_configurations_are_refused(ws, case):
    if case in EXTRA_BAD:
        text = ws.config.read_text().replace("suppression_limit: 0.1\n", "") if case == "suppression-limit-above-one" else None
        if text is not None:
            ws.write_config(text=text + EXTRA_BAD[case] + "\n")
        else:
            ws.write_config(EXTRA_BAD[case])
    else:
        ws.write_config(text=BAD_CONFIGS[case])
    before = ws.hashes()
    result = runner.invoke(app, ["anonymize", str(ws.config), "-o", str(ws.out / "a.csv")])
    assert_clean_failure(result, ws, before, outputs=[ws.out / "a.csv"])


BAD_MODELS = {
    "k-zero": "{type: k-anonymity, k: 0}",
    "k-text": "{type: k-anonymity, k: five}",
    "k-above-table": "{type: k-anonymity, k: 1000}",
    "unknown-model": "{type: magic, k: 2}",
    "l-on-non-sensitive": "{type: distinct-l-diversity, sensitive: note, l: 2}",
    "t-negative": "{type: equal-t-closeness, sensitive: disease, t: -1}",
}


@pytest.mark.parametrize("case", sorted(BAD_MODELS))
def test_bad_models_are_refused(ws, case):
    text = ws.config.read_text().replace("  - {type: k-anonymity, k: 3}", "  - " + BAD_MODELS[case])
    ws.write_config(text=text)
    before = ws.hashes()
    result = runner.invoke(app, ["anonymize", str(ws.config), "-o", str(ws.out / "a.csv")])
    assert_clean_failure(result, ws, before, outputs=[ws.out / "a.csv"])


BAD_FLAGS = {
    "k-zero": ["-k", "0"],
    "k-above-table": ["-k", "999"],
    "suppression-above-one": ["--suppression", "1.5"],
    "suppression-negative": ["--suppression", "-0.5"],
    "suppressed-bogus": ["--suppressed", "sometimes"],
    "algorithm-bogus": ["--algorithm", "quantum"],
    "metric-bogus": ["--metric", "happiness"],
    "l-no-colon": ["-l", "disease"],
    "l-not-int": ["-l", "disease:two"],
    "t-not-number": ["-t", "disease:abc"],
    "option-for-lattice": ["--option", "strict=false"],
    "option-no-equals": ["--algorithm", "mondrian", "--option", "strict"],
    "identifier-also-qi": ["--identifier", "zip"],
    "drop-and-keep": ["--drop-suppressed", "--suppressed", "keep"],
    "unknown-qi": ["--qi", "zip,shoe-size"],
    "hierarchy-file-missing": ["--hierarchy", "zip=/nonexistent/zip.csv"],
    "hierarchy-no-equals": ["--hierarchy", "zip"],
    "label-is-qi": ["--metric", "classification", "--label", "zip"],
    "engine-bogus": ["--engine", "abacus"],
}


@pytest.mark.parametrize("case", sorted(BAD_FLAGS))
def test_bad_parameters_are_refused(ws, case):
    before = ws.hashes()
    out = ws.out / "a.csv"
    result = runner.invoke(app, ws.flags(*BAD_FLAGS[case], "-o", str(out), "--json", str(ws.out / "a.json")))
    assert_clean_failure(result, ws, before, outputs=[out, ws.out / "a.json"])


def test_missing_input_file_is_refused(ws):
    before = ws.hashes()
    args = ws.flags("-o", str(ws.out / "a.csv"))
    args[1] = str(ws.folder / "missing.csv")
    result = runner.invoke(app, args)
    assert_clean_failure(result, ws, before, outputs=[ws.out / "a.csv"])


def test_config_flags_in_config_mode_are_refused(ws):
    before = ws.hashes()
    result = runner.invoke(app, ["anonymize", str(ws.config), "--suppressed", "keep"])
    assert_clean_failure(result, ws, before)
