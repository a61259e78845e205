"""The terminal summary of a release by a randomizing algorithm (PRAM, the αβ algorithm) says what it
did: which columns, with which parameters, and that it forms no groups; never "local recoding into
0 groups".  The releases go through the one pipeline (:func:`veil.anonymize`) with the algorithms
registered as a registry entry would run them."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

import veil
from veil.algorithms import alpha_beta, pram
from veil.algorithms._registry import ALGORITHMS, AlgorithmSpec, Outcome
from veil.cli._summary import print_summary


def _registered(monkeypatch, name: str, run) -> None:
    def runner(problem):
        recoding = run(problem.dataset, list(problem.dataset.quasi_identifiers), seed=1, **problem.options)
        return Outcome(data=recoding.data, algorithm=recoding.algorithm, seconds=recoding.seconds, recoding=recoding)

    monkeypatch.setitem(ALGORITHMS, name, AlgorithmSpec(name, runner))


@pytest.fixture
def frame() -> pd.DataFrame:
    rng = np.random.default_rng(0)
    return pd.DataFrame({"sex": rng.choice(["F", "M"], 200), "race": rng.choice(["a", "b", "c"], 200)})


def _summary(capsys, report) -> str:
    print_summary(report)
    return " ".join(capsys.readouterr().out.split())


def test_pram_says_which_columns_with_which_keep_probability(monkeypatch, capsys, frame):
    _registered(monkeypatch, "pram", pram)
    _, report = veil.anonymize(frame, quasi_identifiers=["sex", "race"], k=1, algorithm="pram",
                               options={"p": 0.8})
    assert report["recoding"]["groups"] == 0
    text = _summary(capsys, report)
    assert "local recoding" not in text and "0 groups" not in text
    # pram_transition: the diagonal is p for every category of either column
    assert ("pram: PRAM (post-randomization) of sex (p = 0.8), race (p = 0.8): each value kept, or moved to "
            "another category by its column's transition matrix, record by record; no grouping; not differential "
            "privacy") in text


def test_invariant_pram_says_its_keep_probabilities_differ(monkeypatch, capsys, frame):
    _registered(monkeypatch, "pram", pram)
    _, report = veil.anonymize(frame, quasi_identifiers=["sex", "race"], k=1, algorithm="pram",
                               options={"p": 0.8, "invariant": True})
    diagonal = np.diag(report["recoding"]["details"]["transitions"]["race"]["matrix"])
    text = _summary(capsys, report)
    assert f"race (keep probability {diagonal.min():.4g} to {diagonal.max():.4g})" in text
    assert "by invariant matrices" in text and "local recoding" not in text


def test_alpha_beta_says_its_parameters_and_domain(monkeypatch, capsys, frame):
    _registered(monkeypatch, "alpha-beta", alpha_beta)
    domains = {"sex": ["F", "M"], "race": ["a", "b", "c"]}
    _, report = veil.anonymize(frame, quasi_identifiers=["sex", "race"], k=1, algorithm="alpha-beta",
                               options={"alpha": 0.5, "beta": 0.1, "domains": domains})
    out = report["recoding"]["details"]["tuples_out"]
    text = _summary(capsys, report)
    assert "local recoding" not in text and "0 groups" not in text
    # |D| = 2 x 3; α + β = 0.6
    assert ("alpha-beta: randomized response by the αβ algorithm over the tuples of sex, race: each distinct true "
            "tuple kept with probability α + β = 0.6 (α = 0.5, β = 0.1), each other tuple of the domain (|D| = 6) "
            f"added with probability β; 200 records in, {out} tuples out; no grouping; not differential "
            "privacy") in text


def test_a_local_recoding_still_counts_its_groups(capsys):
    ages = pd.DataFrame({"age": [str(20 + i % 40) for i in range(200)]})
    _, report = veil.anonymize(ages, quasi_identifiers=["age"], k=2, algorithm="mdav")
    assert report["recoding"]["groups"] > 0
    assert f"mdav: local recoding into {report['recoding']['groups']:,} groups" in _summary(capsys, report)
