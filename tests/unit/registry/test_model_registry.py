"""The models' registry: one fact, one place.

A meta-test feeds invalid parameters to every registered model; a toy model,
registered inside the test with one line, is usable from the configuration,
from ``--require`` (``veil check`` and ``veil anonymize``) and shows in the
report, with no other edit.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from typing import ClassVar

import numpy as np
import pandas as pd
import pytest
from typer.testing import CliRunner

from veil.cli import app
from veil.cli._registry_help import require_help
from veil.config import MODEL_TYPES, build_model
from veil.errors import ConfigError, ParameterError
from veil.models import Param, PrivacyModel, RequirementKey, registry

runner = CliRunner()


def _valid(param: Param):
    if param.kind == "int":
        return int(param.low) + (0 if param.closed in ("both", "left") else 1) if param.low is not None else 1
    if param.kind == "float":
        if param.low is not None and param.high is not None:
            return (param.low + param.high) / 2
        return (param.low + 1.0) if param.low is not None else 0.5
    return True if param.kind == "bool" else "s"


CASES = [
    (cls, param, bad)
    for cls in registry.MODELS.values()
    for param in cls.parameters
    for bad in registry.invalid_values(param)
]


def test_every_registered_model_declares_its_facts():
    assert len(registry.MODELS) == 22  # 19, the population uniques and estimated k-map of issue 34, dp of issue 36
    for key, cls in registry.MODELS.items():
        assert cls.config_key == key and cls.reference and cls.label and cls.parameters, cls.__name__


@pytest.mark.parametrize(("cls", "param", "bad"), CASES, ids=lambda v: getattr(v, "__name__", getattr(v, "name", repr(v))))
def test_invalid_parameters_one_message_shape(cls, param, bad):
    kwargs = {p.name: _valid(p) for p in cls.parameters}
    kwargs[param.name] = bad
    expected = re.escape(f"The {param.name!r} parameter of {cls.__name__} must be {param.rule}. Got {bad!r} instead.")
    with pytest.raises(ParameterError, match=f"^{expected}$"):
        cls(**kwargs)


def test_the_example_message_of_the_style_guide():
    with pytest.raises(ParameterError, match=r"^The 'k' parameter of KAnonymity must be an int in \[1, inf\)\. Got 0 instead\.$"):
        registry.build({"type": "k-anonymity", "k": 0})


def test_config_schema_lists_every_registered_model():
    assert set(MODEL_TYPES) == set(registry.MODELS)  # 19, where config.py listed 15 by hand
    assert MODEL_TYPES["k-link-anonymity"] == "KLinkAnonymity"
    with pytest.raises(ConfigError, match=r"^models\[0\] \(k-anonymity\): KAnonymity takes the parameters k\. Got 'kk' instead\.$"):
        build_model({"type": "k-anonymity", "kk": 5}, "models[0]")


def test_help_lists_every_requirement_key():
    text = require_help(full=True)
    for key in registry.requirement_keys():
        assert re.search(rf"(^|[ ;]){key}[\[(<>=]", text), key
    assert "Keys:" not in require_help(full=False)


def test_cli_help_shows_the_keys_as_written():
    import subprocess
    import sys

    out = subprocess.run([sys.executable, "-c", "from veil.cli import main; main()", "check", "--help"],
                         capture_output=True, text=True, env={**__import__("os").environ, "COLUMNS": "200"})
    assert out.returncode == 0, out.stderr
    text = " ".join(out.stdout.replace("│", " ").split())
    assert "l_entropy[diagnosis]>=2" in text and "lkc(L=N,K=N,C=N)" in text and "records_at_risk<=N" in text


def test_register_refuses_taken_keys():
    @dataclass(frozen=True)
    class Clash(PrivacyModel):
        k: int
        config_key: ClassVar[str] = "k-anonymity"

        def violating(self, classes):
            return np.zeros(classes.n_classes, dtype=bool)

        def achieved_level(self, classes):
            return 0

    with pytest.raises(ParameterError, match="taken by KAnonymity"):
        registry.register(Clash)
    assert registry.MODELS["k-anonymity"].__name__ == "KAnonymity"


# --- the toy model: one class and one registry line, nothing else -------------------------------------------


@dataclass(frozen=True)
class LargestClassShare(PrivacyModel):
    """Toy: no class holds more than a share ``s`` of the retained records (for the test only)."""

    s: float

    config_key: ClassVar[str] = "largest-class-share"
    label: ClassVar[str] = "largest class share <= {s:g}"
    reference: ClassVar[str] = "a toy model for the registry test"
    parameters: ClassVar[tuple[Param, ...]] = (Param("s", "float", low=0, high=1, closed="right"),)
    requirement_keys: ClassVar[tuple[RequirementKey, ...]] = (
        RequirementKey("largest_share", "s", "<=", "share of the largest class"),
    )

    def violating(self, classes):
        return classes.counts > self.s * classes.counts.sum()

    def achieved_level(self, classes):
        return float(classes.counts.max() / classes.counts.sum()) if classes.n_classes else 0.0


@pytest.fixture
def toy():
    with registry.registered(LargestClassShare):  # the one registry line
        yield


@pytest.fixture
def table(tmp_path):
    # 12 records; zip 476**/479**: at level 1 two classes of 6 (share 0.5 each); at level 0 classes of 2
    zips = ["47677", "47602", "47678", "47905", "47909", "47906"] * 2
    frame = pd.DataFrame({"zip": zips, "disease": ["flu", "cold", "hiv"] * 4})
    data = tmp_path / "t.csv"
    frame.to_csv(data, index=False, sep=";")
    hierarchy = tmp_path / "zip.csv"
    hierarchy.write_text("".join(f"{z};{z[:3]}**;*\n" for z in sorted(set(zips))))
    return data, hierarchy


def test_toy_model_from_check_require(toy, table, tmp_path):
    data, _ = table
    out = tmp_path / "c.json"
    result = runner.invoke(app, ["check", str(data), "--qi", "zip", "--sensitive", "disease", "--sep", ";",
                                 "--require", "largest_share<=0.2, k>=2", "--json", str(out)])
    assert result.exit_code == 0, result.output
    payload = json.loads(out.read_text())
    # six classes of 2 records among 12: the largest holds 2/12
    assert payload["requirements"][0] == {"clause": "largest_share<=0.2", "met": True, "actual": pytest.approx(2 / 12)}
    assert payload["largest_share"] == pytest.approx(2 / 12)
    result = runner.invoke(app, ["check", str(data), "--qi", "zip", "--sep", ";", "--require", "largest_share<=0.1"])
    assert result.exit_code == 1


def test_toy_model_from_anonymize_require_and_config(toy, table, tmp_path):
    data, hierarchy = table
    report = tmp_path / "r.json"
    # share <= 0.5 holds at zip level 1 (two classes of 6); k>=3 rules out level 0 (classes of 2)
    result = runner.invoke(app, ["anonymize", str(data), "--qi", "zip", "--hierarchy", f"zip={hierarchy}", "--sep", ";",
                                 "--require", "largest_share<=0.5, k>=3", "--json", str(report)])
    assert result.exit_code == 0, result.output
    text = report.read_text()
    assert "largest class share <= 0.5" in text and "3-anonymity" in text
    config = tmp_path / "c.yaml"
    config.write_text(
        f"input: {{path: {data}, sep: ';'}}\n"
        f"attributes:\n  zip: {{role: quasi-identifier, hierarchy: {{file: {hierarchy}}}}}\n"
        "  disease: {role: sensitive}\n"
        "models:\n  - {type: largest-class-share, s: 0.5}\n"
        f"output: {{report: {tmp_path / 'r2.json'}}}\n"
    )
    result = runner.invoke(app, ["anonymize", str(config)])
    assert result.exit_code == 0, result.output
    assert "largest class share <= 0.5" in (tmp_path / "r2.json").read_text()


def test_toy_model_gone_after_the_test(table):
    assert "largest-class-share" not in registry.MODELS
    with pytest.raises(ParameterError, match="Unknown requirement 'largest_share'"):
        from veil.models import parse_requirements

        parse_requirements("largest_share<=0.5")


def test_class_local_fact_agrees_with_mondrian():
    # Mondrian keeps its own list today; the registry's fact must name the same classes.
    from veil.algorithms.mondrian import CLASS_LOCAL_MODELS

    assert set(registry.class_local_models()) == set(CLASS_LOCAL_MODELS)
