"""Mondrian's ``seed`` in the report's ``recoding.details``.

The release report drops an algorithm's seed (no secret in any output) unless the
algorithm's registry fact ``public_seed`` says its seed only breaks ties.  Mondrian's
does: without a seed Mondrian is deterministic, so anyone holding the input can replay
it anyway, and the seed undoes neither the row shuffle nor any privacy mechanism.
"""

from __future__ import annotations

import dataclasses
import json

import pandas as pd
from typer.testing import CliRunner

from veil.algorithms._registry import ALGORITHMS, register_algorithm
from veil.anonymization import anonymize
from veil.cli import app

FRAME = pd.DataFrame({"age": [str(20 + i % 9) for i in range(40)], "s": ["a", "b"] * 20})


def _details(algorithm: str = "mondrian", **options) -> dict:
    result = anonymize(FRAME, quasi_identifiers=["age"], sensitive=["s"], kinds={"age": "numeric"}, k=4,
                       algorithm=algorithm, options=options)
    return result.report["recoding"]["details"]


def test_the_report_shows_mondrians_seed_as_given():
    assert _details(seed=7, strict=False)["seed"] == 7
    assert _details()["seed"] is None  # no randomness asked for
    assert _details(seed=7)["strict"] is True  # the other facts of the call stay


def test_veil_anonymize_writes_the_seed_of_option_seed(tmp_path):
    data = tmp_path / "t.csv"
    FRAME.to_csv(data, index=False)
    result = CliRunner().invoke(app, ["anonymize", str(data), "--qi", "age", "--kind", "age=numeric",
                                      "--sensitive", "s", "-k", "4", "--algorithm", "mondrian", "--option", "seed=11",
                                      "-o", str(tmp_path / "o.csv"), "--json", str(tmp_path / "r.json")])
    assert result.exit_code == 0, result.output
    report = json.loads((tmp_path / "r.json").read_text(encoding="utf-8"))
    assert report["recoding"]["details"]["seed"] == 11
    assert report["output_order"] == {"shuffled": True, "reproducible": False}  # the shuffle's seed is another


def test_a_seed_is_withheld_unless_its_algorithm_declares_it_public():
    """Two dummies run Mondrian under their own names: only the one registered with
    ``public_seed=True`` gets its seed reported."""
    mondrian = ALGORITHMS["mondrian"]

    def renamed(name):
        def run(problem):
            outcome = mondrian.run(problem)
            recoding = dataclasses.replace(outcome.recoding, algorithm=name)
            return dataclasses.replace(outcome, algorithm=name, recoding=recoding)
        return run

    register_algorithm("dummy-secret-seed", renamed("dummy-secret-seed"))
    register_algorithm("dummy-tie-seed", renamed("dummy-tie-seed"), public_seed=True)
    try:
        secret = _details("dummy-secret-seed", seed=5)
        assert "seed" not in secret and secret["partitions"] > 1
        assert _details("dummy-tie-seed", seed=5)["seed"] == 5
    finally:
        ALGORITHMS.pop("dummy-secret-seed")
        ALGORITHMS.pop("dummy-tie-seed")
    assert not ALGORITHMS["safepub"].public_seed
