"""``veil anonymize --algorithm``'s help names the algorithms of the registry, generated from it
(:func:`veil.algorithms._registry.names`), not written by hand: a registered algorithm is listed
and an unregistered one is not."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

from veil.algorithms._registry import ALGORITHMS, names, register_algorithm
from veil.cli._registry_help import algorithm_help

SRC = Path(__file__).resolve().parents[3] / "src"


def _listed(text: str) -> list[str]:
    match = re.search(r"An algorithm of the registry \(default lattice[^)]*\): ([a-z, -]+)\.", text)
    assert match is not None, text
    return [name.strip() for name in match.group(1).split(",")]


def test_the_help_lists_the_registry_in_registration_order_and_a_dummy_once_registered():
    assert _listed(algorithm_help(full=True)) == list(names())
    register_algorithm("dummy-partitioner", lambda problem: None)
    try:
        assert _listed(algorithm_help(full=True)) == [*names()[:-1], "dummy-partitioner"]
    finally:
        ALGORITHMS.pop("dummy-partitioner")
    assert "dummy-partitioner" not in algorithm_help(full=True)


def test_the_help_without_help_asked_for_names_the_default_only():
    """Every other run keeps a fast start: the registry is read only for ``--help``."""
    assert algorithm_help(full=False) == "An algorithm of the registry (default lattice: optimal full-domain generalization)."


def test_veil_anonymize_help_lists_exactly_the_registry():
    env = {**os.environ, "PYTHONPATH": str(SRC), "COLUMNS": "400", "NO_COLOR": "1", "TERM": "dumb"}
    out = subprocess.run([sys.executable, "-m", "veil", "anonymize", "--help"], capture_output=True, text=True,
                         env=env, timeout=120, check=True).stdout
    line = next(line for line in out.splitlines() if "--algorithm" in line)
    assert _listed(line) == list(names())
