"""SafePub's whole-lattice search: every node scored at once, and one exponential-mechanism draw among them."""

from __future__ import annotations

import itertools
import json
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from scipy import stats
from typer.testing import CliRunner

import veil
import veil.algorithms.safepub._lattice as lattice_module
from veil.algorithms.safepub._lattice import lattice_fits, lattice_search, lattice_size, score_lattice
from veil.algorithms.safepub._search import GranularityScore
from veil.classes import ClassTable
from veil.cli import app
from veil.dp import ExponentialMechanism, PrivacyAccountant, PrivacyBudget
from veil.errors import ParameterError
from veil.hierarchy import Hierarchy
from veil.models.registry import build

from .test_safepub_release import _args, _hierarchies, _table, workspace  # noqa: F401  (the CLI's fixture)


def _hand_table() -> tuple[ClassTable, np.ndarray]:
    # 6 records, QIs a (leaves x, y -> *) and b (leaves p, q -> *); every record sampled
    frame = pd.DataFrame({"a": ["x", "x", "y", "y", "y", "x"], "b": ["p", "p", "p", "q", "q", "q"]})
    ha = Hierarchy.from_rows([["x", "*"], ["y", "*"]])
    hb = Hierarchy.from_rows([["p", "*"], ["q", "*"]])
    base = ClassTable.from_pandas(frame, quasi_identifiers=["a", "b"], hierarchies={"a": ha, "b": hb})
    return base, base.counts.copy()


def test_every_node_scored_by_hand() -> None:
    base, sampled = _hand_table()
    lattice = score_lattice(base, sampled, 2, (0, 0), (1, 1))
    got = {lattice.node(i): s for i, s in enumerate(lattice.scores)}
    # k = 2, d = 2, score = -(suppressed + (1/d) Σ released Σ_i share_i) / (k - 1); a leaf's share 1/2, '*' 1
    # (0,0): xp=2, yp=1, yq=2, xq=1 -> xp, yq released (4 records), 2 suppressed; shares 4·½ + 4·½ = 4 -> 2 + 4/2
    # (1,0): *p=3, *q=3 -> all released; shares a 6·1, b 6·½ -> 9/2
    # (0,1): x*=3, y*=3 -> all released; shares a 6·½, b 6·1 -> 9/2
    # (1,1): one class of 6; shares 6 + 6 -> 12/2
    assert got == {(0, 0): pytest.approx(-4.0), (1, 0): pytest.approx(-4.5), (0, 1): pytest.approx(-4.5),
                   (1, 1): pytest.approx(-6.0)}
    # fewer sampled records: x p has 1 of 2 sampled -> at (0,0) only yq released (2 records), 4 suppressed,
    # shares 2·½ + 2·½ = 2 -> 4 + 2/2 = 5; at (1,0): *p = 2 sampled, *q = 3 -> all 5 released, 1 suppressed,
    # shares a 5·1, b 5·½ -> 1 + 7.5/2 = 4.75
    fewer = sampled.copy()
    xp = int(np.flatnonzero((base.labels()["a"] == "x") & (base.labels()["b"] == "p"))[0])
    fewer[xp] -= 1
    lattice = score_lattice(base, fewer, 2, (0, 0), (1, 1))
    got = {lattice.node(i): s for i, s in enumerate(lattice.scores)}
    assert got[(0, 0)] == pytest.approx(-5.0) and got[(1, 0)] == pytest.approx(-4.75)


def test_smoothed_score_by_hand() -> None:
    # one QI a, leaves w x y z (a leaf's share 1/4) -> *; records x x x y, all sampled; k = 3
    h = Hierarchy.from_rows([[v, "*"] for v in "wxyz"])
    base = ClassTable.from_pandas(pd.DataFrame({"a": ["x", "x", "x", "y"]}), quasi_identifiers=["a"],
                                  hierarchies={"a": h})
    smooth = score_lattice(base, base.counts.copy(), 3, (0,), (1,), smooth=True)
    arx = score_lattice(base, base.counts.copy(), 3, (0,), (1,))
    got = {smooth.node(i): (s, arx.scores[i]) for i, s in enumerate(smooth.scores)}
    # (0): x released (3 >= k), y suppressed (1). ARX: 1 + 3·¼ = 1.75, / (k - 1) = 2 -> -0.875.
    #      smoothed: x counts max(3·¼, 2(k - 1) - 3) = max(0.75, 1) = 1 -> 1 + 1 = 2 -> -2
    # (1): one class * of 4, share 1. ARX: 4 / 2 -> -2; smoothed: max(4, 0) = 4 -> -4
    assert got == {(0,): (pytest.approx(-2.0), pytest.approx(-0.875)), (1,): (pytest.approx(-4.0), pytest.approx(-2.0))}
    assert GranularityScore(base, base.counts.copy(), 3, smooth=True)((0,)) == pytest.approx(-2.0)


@st.composite
def _hierarchy(draw: st.DrawFn, name: str) -> Hierarchy:
    """A random hierarchy: 1-6 leaves, 1-3 levels above them, each level a function of the one below, '*' on top."""
    leaves = [f"{name}{i}" for i in range(draw(st.integers(1, 6)))]
    height = draw(st.integers(1, 3))
    rows = [[leaf] for leaf in leaves]
    values = leaves
    for level in range(1, height):
        groups = {v: f"{name}L{level}g{draw(st.integers(0, max(len(set(values)) - 1, 0)))}" for v in sorted(set(values))}
        for row in rows:
            row.append(groups[row[-1]])
        values = [groups[v] for v in values]
    for row in rows:
        row.append("*")
    return Hierarchy.from_rows(rows)


@st.composite
def _problem(draw: st.DrawFn) -> tuple[ClassTable, np.ndarray, int, tuple[int, ...], tuple[int, ...]]:
    names = ["a", "b", "c"][:draw(st.integers(1, 3))]
    hierarchies = {n: draw(_hierarchy(n)) for n in names}
    n = draw(st.integers(1, 80))
    rng = np.random.default_rng(draw(st.integers(0, 2**32 - 1)))
    frame = pd.DataFrame({q: rng.choice(list(h.leaves), n) for q, h in hierarchies.items()})
    base = ClassTable.from_pandas(frame, quasi_identifiers=names, hierarchies=hierarchies)
    sampled = rng.binomial(base.counts, draw(st.sampled_from([0.0, 0.5, 0.9, 1.0])))
    low, high = [], []
    for h in base.hierarchies:
        lo = draw(st.integers(0, h.height))
        low.append(lo)
        high.append(draw(st.integers(lo, h.height)))
    return base, sampled, draw(st.integers(1, 8)), tuple(low), tuple(high)


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(problem=_problem())
@pytest.mark.parametrize("smooth", [False, True])
def test_every_node_scores_as_granularity_score(problem, smooth: bool) -> None:
    base, sampled, k, low, high = problem
    lattice = score_lattice(base, sampled, k, low, high, smooth=smooth)
    one_by_one = GranularityScore(base, sampled, k, smooth=smooth)
    expected = sorted(itertools.product(*[range(lo, h + 1) for lo, h in zip(low, high)]))
    assert sorted(lattice.node(i) for i in range(len(lattice.scores))) == expected  # each node once
    assert len(lattice.scores) == lattice_size(low, high)
    for i, score in enumerate(lattice.scores):
        assert score == pytest.approx(one_by_one(lattice.node(i)), rel=1e-12, abs=1e-12)


@pytest.mark.slow
def test_adult_lattice_scores_as_granularity_score() -> None:
    adult = veil.datasets.load_adult()
    qis = list(adult.quasi_identifiers)
    base = ClassTable.from_pandas(adult.frame[qis], quasi_identifiers=qis,
                                  hierarchies={q: adult.hierarchies[q] for q in qis})
    rng = np.random.default_rng(11)
    sampled = rng.binomial(base.counts, 0.83)
    low = (0,) * len(qis)
    high = tuple(h.height for h in base.hierarchies)
    lattice = score_lattice(base, sampled, 92, low, high)
    assert len(lattice.scores) == lattice_size(low, high) and lattice_fits(base, low, high)
    one_by_one = GranularityScore(base, sampled, 92)
    for i in rng.choice(len(lattice.scores), 40, replace=False):
        assert lattice.scores[i] == pytest.approx(one_by_one(lattice.node(int(i))), rel=1e-12)


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(problem=_problem(), data=st.data())
def test_one_record_moves_every_score_by_at_most_one(problem, data) -> None:
    """The sensitivity the exponential mechanism is given (1), for both scores: one record added to a
    table (sampled or not, in a class that exists or a new one) moves no node's score by more than 1."""
    base, _, k, low, high = problem
    frame = base.labels().loc[np.repeat(np.arange(base.n_classes), base.counts)].reset_index(drop=True)
    rng = np.random.default_rng(data.draw(st.integers(0, 2**32 - 1)))
    sampled = rng.random(len(frame)) < 0.7
    extra = {q: data.draw(st.sampled_from(list(h.leaves))) for q, h in zip(base.quasi_identifiers, base.hierarchies)}
    bigger = pd.concat([frame, pd.DataFrame([extra])], ignore_index=True)
    more = np.append(sampled, data.draw(st.booleans()))
    hierarchies = dict(zip(base.quasi_identifiers, base.hierarchies))
    scores = []
    for rows, mask in ((frame, sampled), (bigger, more)):
        table = ClassTable.from_pandas(rows, quasi_identifiers=list(base.quasi_identifiers), hierarchies=hierarchies)
        classes = table.row_classes()
        per_class = np.bincount(classes[mask], minlength=table.n_classes)
        scores.append([score_lattice(table, per_class, max(k, 2), low, high, smooth=smooth) for smooth in (False, True)])
    for before, after in zip(*scores):
        order = {n: i for i, n in enumerate(map(tuple, after.nodes.tolist()))}
        moved = np.abs(before.scores - after.scores[[order[n] for n in map(tuple, before.nodes.tolist())]])
        assert moved.max() <= 1.0 + 1e-9


def _chi_square_p(draws: list[tuple[int, ...]], nodes: list[tuple[int, ...]], expected: np.ndarray) -> float:
    observed = np.array([draws.count(n) for n in nodes], dtype=float)
    return float(stats.chisquare(observed, expected * len(draws)).pvalue)


@pytest.mark.slow
def test_the_draw_follows_the_exponential_mechanism() -> None:
    """4,000 releases of the 4-node lattice of the hand example: their frequencies against
    exp(ε u / 2) normalised (a chi-square test at p = 1e-6, so a correct draw fails it once in
    a million runs), and against exp(ε u), which a draw at twice the ε would follow."""
    base, sampled = _hand_table()
    epsilon = 2.0
    lattice = score_lattice(base, sampled, 2, (0, 0), (1, 1))
    nodes = [lattice.node(i) for i in range(len(lattice.scores))]
    right = ExponentialMechanism(epsilon=epsilon).probabilities(lattice.scores)  # .43 .26 .26 .06
    twice = ExponentialMechanism(epsilon=2 * epsilon).probabilities(lattice.scores)
    draws = [lattice_search(base, sampled, 2, (0, 0), (1, 1), epsilon=epsilon)[0] for _ in range(4000)]
    assert _chi_square_p(draws, nodes, right) > 1e-6
    assert _chi_square_p(draws, nodes, twice) < 1e-6  # the test can tell ε from 2ε at this size


def test_release_by_the_whole_lattice_verifies() -> None:
    frame = _table(3000, np.random.default_rng(8))
    model = build({"type": "dp", "epsilon": 2.0, "delta": 1e-3})
    data, report = veil.anonymize(frame, [model], quasi_identifiers=["age", "sex", "zip"], hierarchies=_hierarchies(),
                                  algorithm="safepub", suppression=1.0, suppressed="drop")
    details = report["recoding"]["details"]
    assert details["search"] == "lattice" and details["nodes_scored"] == 3 * 2 * 3 == report["search"]["nodes_total"]
    assert details["steps"] is None and details["walk_share"] is None
    assert report["verified"] is True
    assert (data.groupby(["age", "sex", "zip"], observed=True).size() >= model.k).all()


def _details(**options) -> dict:
    frame = _table(2000, np.random.default_rng(9))
    model = build({"type": "dp", "epsilon": 2.0, "delta": 1e-3})
    _, report = veil.anonymize(frame, [model], quasi_identifiers=["age", "sex", "zip"], hierarchies=_hierarchies(),
                               algorithm="safepub", suppression=1.0, suppressed="drop", options=options)
    return report["recoding"]["details"]


def test_the_score_option() -> None:
    assert _details()["score"] == "smooth"
    assert _details(score="granularity")["score"] == "granularity"
    assert _details(score="granularity", search="walk")["score"] == "granularity"


def test_the_walks_options_choose_the_walk() -> None:
    assert _details(walk_share=1.0)["search"] == "walk"
    walked = _details(search="walk")
    assert (walked["search"], walked["steps"], walked["walk_share"]) == ("walk", 100, 0.01)
    assert _details(steps="3")["steps"] == 3
    assert _details(search="lattice")["search"] == "lattice"


def test_a_lattice_above_the_bound_is_walked(monkeypatch) -> None:
    monkeypatch.setattr(lattice_module, "MAX_LATTICE_NODES", 17)  # the test lattice has 18 nodes
    assert _details()["search"] == "walk"
    accountant = PrivacyAccountant(budget=PrivacyBudget(epsilon=3.0, delta=1e-2))
    with pytest.raises(ParameterError, match="at most 17 nodes"):  # refused before anything is charged
        _details(search="lattice", accountant=accountant)
    assert accountant.spent.epsilon == 0.0
    monkeypatch.setattr(lattice_module, "MAX_LATTICE_NODES", 18)
    assert _details()["search"] == "lattice"


@pytest.mark.parametrize(("options", "mention"), [
    ({"search": "everything"}, "'search' option"),
    ({"score": "loss"}, "'score' option"),
    ({"search": "lattice", "steps": 10}, "'steps' option"),
    ({"search": "lattice", "walk_share": 0.5}, "'walk_share' option"),
])
def test_bad_search_options_refused(options: dict, mention: str) -> None:
    with pytest.raises(ParameterError, match=mention):
        _details(**options)


def test_cli_summary_says_global_recoding(workspace: Path) -> None:  # noqa: F811
    args = [a for a in _args(workspace, "--algorithm", "safepub", "--epsilon", "2", "--delta", "1e-3") if a != "-q"]
    result = CliRunner().invoke(app, [*args, "--html", str(workspace / "out" / "r.html")])
    assert result.exit_code == 0, result.output
    report = json.loads((workspace / "out" / "r.json").read_text())
    details = report["recoding"]["details"]
    text = " ".join(result.stdout.split())
    assert "local recoding" not in text
    assert "local recoding" not in (workspace / "out" / "r.html").read_text()  # the report's lattice section
    levels = report["transformation"]
    assert report["lattice"]["chosen"] == {"levels": levels, "height": sum(levels.values())}
    assert report["lattice"]["nodes_total"] == 3 * 2 * 3
    assert (f"safepub: global recoding (full-domain generalization: the levels above) of a random sample of "
            f"{details['sampled']:,} of 3,000 records (β = {details['beta']:.4g}); {report['recoding']['groups']:,} "
            f"classes of at least k = {details['k']} sampled records released, every other record suppressed") in text
