"""Mondrian with ``categorical=ordered`` needs no hierarchy for a categorical QI (it splits in label
order), through the CLI flags and a configuration file as through ``veil.anonymize``.

Reproduction: ``veil anonymize t.csv --qi job --algorithm mondrian --option categorical=ordered -k 2``
was refused before any work ("No hierarchy for quasi-identifier 'job'"), and so was a configuration
with ``algorithm_options: {categorical: ordered}`` ("attributes.job.hierarchy: a quasi-identifier
needs a hierarchy."), although the library releases it.  Without the option a hierarchy is still
required, refused in one line.
"""

from __future__ import annotations

import pandas as pd

JOBS = ["lawyer", "dancer", "engineer", "writer", "dancer", "lawyer", "engineer", "writer"]


def _table(tmp_path):
    path = tmp_path / "t.csv"
    pd.DataFrame({"job": JOBS, "s": ["a", "b"] * 4}).to_csv(path, index=False)
    return path


def _released(path) -> list[str]:
    return pd.read_csv(path, dtype=str, keep_default_na=False)["job"].tolist()


def test_flags_release_ordered_categories_without_a_hierarchy(faults, tmp_path):
    """Label order dancer < engineer < lawyer < writer, k = 4: {dancer, engineer} x 2 | {lawyer, writer} x 2."""
    out = tmp_path / "o.csv"
    result = faults.invoke("anonymize", _table(tmp_path), "--qi", "job", "--sensitive", "s", "-k", "4",
                           "--algorithm", "mondrian", "--option", "categorical=ordered", "--no-shuffle", "-o", out)
    assert result.exit_code == 0, result.text
    assert _released(out) == ["[lawyer-writer]", "[dancer-engineer]", "[dancer-engineer]", "[lawyer-writer]",
                              "[dancer-engineer]", "[lawyer-writer]", "[dancer-engineer]", "[lawyer-writer]"]


def test_a_configuration_releases_ordered_categories_without_a_hierarchy(faults, tmp_path):
    data, out = _table(tmp_path), tmp_path / "o.csv"
    config = tmp_path / "release.yaml"
    config.write_text(f"input: {{path: {data}}}\nattributes:\n  job: {{role: quasi-identifier}}\n"
                      "  s: {role: sensitive}\nmodels: [{type: k-anonymity, k: 4}]\nalgorithm: mondrian\n"
                      f"algorithm_options: {{categorical: ordered}}\noutput: {{path: {out}}}\n", encoding="utf-8")
    result = faults.invoke("anonymize", config)
    assert result.exit_code == 0, result.text
    assert sorted(set(_released(out))) == ["[dancer-engineer]", "[lawyer-writer]"]


def test_without_the_option_a_hierarchy_is_still_required(faults, tmp_path):
    data = _table(tmp_path)
    before = faults.snapshot(tmp_path)
    result = faults.invoke("anonymize", data, "--qi", "job", "--sensitive", "s", "-k", "4", "--algorithm",
                           "mondrian", "--option", "strict=false", "-o", tmp_path / "o.csv")
    faults.assert_refused(result, before, faults.snapshot(tmp_path), "No hierarchy for quasi-identifier 'job'")
