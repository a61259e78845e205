"""One registry line adds an algorithm: veil.anonymize, the config and the CLI all find it."""

import json

import numpy as np
import pytest
from typer.testing import CliRunner

import veil
from veil.algorithms import ALGORITHMS, Outcome, get_algorithm, register_algorithm
from veil.cli import app
from veil.errors import ParameterError

from faults.conftest import Workspace  # tests/ is on the path (its conftest)

runner = CliRunner()


def _below_top(problem):
    """A toy recoding: every QI value replaced by its ancestor just below ``*`` (at least level 1)."""
    data = problem.dataset.frame.copy()
    for name in problem.dataset.quasi_identifiers:
        h = problem.dataset.hierarchies[name]
        level = max(1, h.height - 1)
        leaf = h.leaf_index(data[name].astype(str).to_numpy(), column=name)
        data[name] = np.asarray(h.labels[level], dtype=object)[h.maps[level][leaf]]
    return Outcome(data=data, algorithm="below-top", seconds=0.0)


@pytest.fixture
def toy(monkeypatch):
    monkeypatch.setitem(ALGORITHMS, "below-top", ALGORITHMS["lattice"])  # restored after the test
    register_algorithm("below-top", _below_top)
    return "below-top"


def test_a_registered_algorithm_runs_from_the_api_config_and_cli(tmp_path, toy):
    ws = Workspace(tmp_path)
    # from the configuration
    ws.write_config(f"algorithm: {toy}\noutput: {{path: out/c.csv, report: out/c.json}}")
    result = runner.invoke(app, ["anonymize", str(ws.config)])
    assert result.exit_code == 0, result.output
    report = json.loads((ws.out / "c.json").read_text())
    assert report["search"]["algorithm"] == toy and report["transformation"] == {}
    # from the command line
    result = runner.invoke(app, ws.flags("--algorithm", toy, "-o", str(ws.out / "f.csv"), "--json", str(ws.out / "f.json")))
    assert result.exit_code == 0, result.output
    assert json.loads((ws.out / "f.json").read_text())["search"]["algorithm"] == toy


def test_an_unknown_algorithm_names_the_registered_ones():
    with pytest.raises(ParameterError, match="must be one of lattice, datafly, mondrian, tds, mdav"):
        get_algorithm("quantum")
    with pytest.raises(ParameterError, match="must be one of"):
        veil.anonymize(veil.datasets.load_lkc_patients(), [veil.models.KAnonymity(k=2)], algorithm="quantum")
