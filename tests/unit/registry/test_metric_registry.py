"""The metrics' registry: a toy metric, registered inside the test, works from the CLI, the config and the report."""

from __future__ import annotations

import json

import pandas as pd
import pytest
from typer.testing import CliRunner

from veil.cli import app
from veil.cli._registry_help import metric_help
from veil.errors import ParameterError
from veil.utility import METRICS, Metric, get_metric, register_metric, registered_metric

runner = CliRunner()

# Toy: the share of records in the largest class (lower is better: it prefers fine classes).
TOY = Metric(
    "largest-class", "Share of the records in the largest class", lower_is_better=True, monotone=True,
    reference="a toy metric for the registry test",
    _value=lambda c, **_: float(c.counts.max() / c.n_records) if c.n_classes else 1.0,
)


@pytest.fixture
def table(tmp_path):
    # zip 476**/479** at level 1: 6 and 6 records; at level 0 six classes of 2
    zips = ["47677", "47602", "47678", "47905", "47909", "47906"] * 2
    data = tmp_path / "t.csv"
    pd.DataFrame({"zip": zips, "disease": ["flu", "cold", "hiv"] * 4}).to_csv(data, index=False)
    hierarchy = tmp_path / "zip.csv"
    hierarchy.write_text("".join(f"{z};{z[:3]}**;*\n" for z in sorted(set(zips))))
    return data, hierarchy


def test_toy_metric_from_the_cli_and_config_and_in_the_report(table, tmp_path):
    data, hierarchy = table
    with registered_metric(TOY):
        assert "largest-class" in metric_help(full=True)
        report = tmp_path / "r.json"
        result = runner.invoke(app, ["anonymize", str(data), "--qi", "zip", "--hierarchy", f"zip={hierarchy}",
                                     "-k", "2", "--metric", "largest-class", "--json", str(report)])
        assert result.exit_code == 0, result.output
        payload = json.loads(report.read_text())
        # k=2 holds at level 0 (classes of 2): the largest class holds 2 of 12 records
        assert payload["utility"]["largest-class"] == pytest.approx(2 / 12)
        config = tmp_path / "c.yaml"
        config.write_text(
            f"input: {{path: {data}}}\nattributes:\n  zip: {{role: quasi-identifier, hierarchy: {{file: {hierarchy}}}}}\n"
            f"models:\n  - {{type: k-anonymity, k: 3}}\nmetric: largest-class\noutput: {{report: {tmp_path / 'r2.json'}}}\n"
        )
        result = runner.invoke(app, ["anonymize", str(config)])
        assert result.exit_code == 0, result.output
        # k=3 needs level 1: two classes of 6, the largest holds 6 of 12
        assert json.loads((tmp_path / "r2.json").read_text())["utility"]["largest-class"] == pytest.approx(0.5)
    assert "largest-class" not in METRICS
    with pytest.raises(ParameterError, match="Got 'largest-class' instead"):
        get_metric("largest-class")


def test_register_metric_refuses_a_taken_name_and_inconsistent_facts():
    with pytest.raises(ParameterError, match="The metric name 'loss' is taken"):
        register_metric(Metric("loss", "x", lower_is_better=True, monotone=True, _value=lambda c, **_: 0.0))
    with pytest.raises(ParameterError, match="additive, so it must be bounded_by_unsuppressed"):
        register_metric(Metric("bad", "x", lower_is_better=True, monotone=True, additive=True, _value=lambda c, **_: 0.0))
    assert "bad" not in METRICS
