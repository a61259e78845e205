"""A configuration that gives a key twice is refused: YAML and JSON would keep the last silently,
and a later ``ref: {role: insensitive}`` would publish a column declared an identifier."""

from __future__ import annotations

import pytest
from typer.testing import CliRunner

from veil.cli import app
from veil.config import load_config
from veil.errors import ConfigError

ROWS = "ref,age,dx\n" + "".join(f"r{i},{20 + i % 5},{'ab'[i % 2]}\n" for i in range(40))
YAML = """input: {path: people.csv}
attributes:
  ref: {role: identifier}
  age: {role: quasi-identifier, hierarchy: "interval:5"}
  dx: {role: sensitive}
  ref: {role: insensitive}
models:
  - {type: k-anonymity, k: 2}
output: {path: out.csv}
"""


def test_a_column_given_twice_is_refused_with_its_lines(tmp_path):
    (tmp_path / "people.csv").write_text(ROWS)
    (tmp_path / "release.yaml").write_text(YAML)
    with pytest.raises(ConfigError, match=r"line 6: the key 'ref' is given twice in one mapping \(also on line 3\)"):
        load_config(tmp_path / "release.yaml")
    result = CliRunner().invoke(app, ["anonymize", str(tmp_path / "release.yaml")])
    assert result.exit_code == 2 and "given twice" in result.output
    assert not (tmp_path / "out.csv").exists()


def test_a_top_level_key_given_twice_in_json_is_refused(tmp_path):
    (tmp_path / "people.csv").write_text(ROWS)
    text = ('{"input": {"path": "people.csv"}, "attributes": {"age": {"role": "quasi-identifier"}}, '
            '"models": [{"type": "k-anonymity", "k": 20}], "models": [{"type": "k-anonymity", "k": 2}]}')
    (tmp_path / "release.json").write_text(text)
    with pytest.raises(ConfigError, match=r"release\.json': the key 'models' is given twice"):
        load_config(tmp_path / "release.json")


def test_a_merge_key_may_still_be_overridden():
    from veil._config_text import parse_config_text

    text = "base: &b {role: quasi-identifier, hierarchy: 'interval:5'}\nage: {<<: *b, hierarchy: 'interval:10'}\n"
    parsed = parse_config_text(text, json_format=False, name="'c.yaml'")
    assert parsed["age"] == {"role": "quasi-identifier", "hierarchy": "interval:10"}


def test_deidentify_config_given_a_key_twice_is_refused(tmp_path):
    (tmp_path / "people.csv").write_text(ROWS)
    (tmp_path / "plan.yaml").write_text("columns:\n  ref: {action: drop}\n  ref: {action: keep}\n")
    result = CliRunner().invoke(app, ["deidentify", str(tmp_path / "people.csv"), "--config",
                                      str(tmp_path / "plan.yaml"), "-o", str(tmp_path / "o.csv")])
    assert result.exit_code == 2 and "given twice" in result.output
    assert not (tmp_path / "o.csv").exists()


def test_a_number_with_an_exponent_and_no_dot_is_a_float():
    """YAML 1.1 reads `1e-5` as text; a configuration reads it as JSON and YAML 1.2 do."""
    from veil._config_text import parse_config_text

    parsed = parse_config_text("delta: 1e-5\nbig: 2E3\nneg: -3e+2\nzip: '1e5'\nint: 7\ntext: 1e5x\n",
                               json_format=False, name="c.yaml")
    assert parsed == {"delta": 1e-5, "big": 2000.0, "neg": -300.0, "zip": "1e5", "int": 7, "text": "1e5x"}
    assert isinstance(parsed["big"], float) and isinstance(parsed["int"], int)
