"""SafePub end to end: the release, its guarantees, its report, its refusals."""

from __future__ import annotations

import json
import math
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from typer.testing import CliRunner

import veil
from veil.algorithms.safepub._run import sample_records
from veil.algorithms.safepub._search import GranularityScore, search, walk
from veil.classes import ClassTable
from veil.cli import app
from veil.errors import ParameterError
from veil.hierarchy import Hierarchy
from veil.models.registry import build

AGES = [str(a) for a in range(20, 60)]


def _hierarchies() -> dict[str, Hierarchy]:
    age = Hierarchy.from_rows([[a, f"{int(a) // 10 * 10}-{int(a) // 10 * 10 + 9}", "*"] for a in AGES])
    sex = Hierarchy.from_rows([["F", "*"], ["M", "*"]])
    zips = Hierarchy.from_rows([[z, z[:4] + "*", "*"] for z in ("47677", "47678", "47905", "47906")])
    return {"age": age, "sex": sex, "zip": zips}


def _table(n: int, rng: np.random.Generator) -> pd.DataFrame:
    return pd.DataFrame({"age": rng.choice(AGES, n), "sex": rng.choice(["F", "M"], n),
                         "zip": rng.choice(["47677", "47678", "47905", "47906"], n)})


def _release(frame: pd.DataFrame, epsilon: float, delta: float, **kw):
    model = build({"type": "dp", "epsilon": epsilon, "delta": delta})
    data, report = veil.anonymize(frame, [model], quasi_identifiers=["age", "sex", "zip"], hierarchies=_hierarchies(),
                                  algorithm="safepub", suppression=1.0, suppressed="drop", **kw)
    return model, data, report


@settings(max_examples=8, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(n=st.integers(300, 3000), seed=st.integers(0, 2**32 - 1),
       pair=st.sampled_from([(1.0, 1e-3), (0.5, 1e-3), (2.0, 1e-2)]))
def test_every_released_class_holds_k_records(n: int, seed: int, pair: tuple[float, float]) -> None:
    frame = _table(n, np.random.default_rng(seed))  # the table only; the mechanism's draws are the OS's
    model, data, report = _release(frame, *pair)
    sizes = data.groupby(["age", "sex", "zip"], observed=True).size()
    assert (sizes >= model.k).all()
    top = report["transformation"] == {"age": 2, "sex": 1, "zip": 2}  # one class of '*': released, not suppressed
    assert top or "*" not in set(data["age"]) or (data[["age", "sex", "zip"]] == "*").all(axis=1).sum() == 0
    assert len(data) <= n


def test_sample_rate_is_beta_in_expectation() -> None:
    n, beta = 400_000, 0.6321205588285574
    share = sample_records(n, beta).mean()
    assert abs(share - beta) < 5 * math.sqrt(beta * (1 - beta) / n)
    assert sample_records(0, beta).shape == (0,)
    assert not sample_records(1000, 1e-300).any()


def test_release_samples_beta_of_the_records() -> None:
    frame = _table(20_000, np.random.default_rng(3))
    model, data, report = _release(frame, 1.0, 1e-3)
    details = report.to_dict()["recoding"]["details"] if hasattr(report, "to_dict") else report["recoding"]["details"]
    beta = details["beta"]
    assert details["k"] == model.k and beta == model.beta
    assert abs(details["sampled"] / 20_000 - beta) < 5 * math.sqrt(beta * (1 - beta) / 20_000)
    assert len(data) <= details["sampled"]


def test_granularity_score_by_hand() -> None:
    # 6 records, QIs a (leaves x, y; x,y -> *) and b (leaves p, q). All sampled, k = 2.
    frame = pd.DataFrame({"a": ["x", "x", "y", "y", "y", "x"], "b": ["p", "p", "p", "q", "q", "q"]})
    ha = Hierarchy.from_rows([["x", "*"], ["y", "*"]])
    hb = Hierarchy.from_rows([["p", "*"], ["q", "*"]])
    base = ClassTable.from_pandas(frame, quasi_identifiers=["a", "b"], hierarchies={"a": ha, "b": hb})
    sampled = base.counts.copy()
    score = GranularityScore(base, sampled, k=2)
    # node (0,0): classes xp=2, yp=1, yq=2, xq=1 -> released xp, yq (4 records), suppressed 2;
    # shares 1/2 per QI per released record: sum over QIs = 4*0.5 + 4*0.5 = 4, /d=2 -> 2; loss 2 + 2 = 4; /(k-1)=1
    assert score((0, 0)) == pytest.approx(-4.0)
    # node (1,0): classes *p=3, *q=3 -> all released; shares a: 1 each (6), b: 1/2 each (3) -> 9/2 = 4.5; S = 0
    assert score((1, 0)) == pytest.approx(-4.5)
    # node (1,1): one class of 6, every share 1 -> 12/2 = 6
    assert score((1, 1)) == pytest.approx(-6.0)


def test_walk_follows_the_selection_from_the_top() -> None:
    scores = {(1, 1): -4.0, (0, 0): -1.0, (1, 0): -2.0, (0, 1): -3.0}
    picked = []

    def best(values):  # a deterministic stand-in for the exponential mechanism: argmax
        picked.append(list(values))
        return int(np.argmax(values))

    # step 1: the top's predecessors (0,1), (1,0) -> (1,0); step 2: + (0,0) -> (0,0); step 3: (0,0) has none,
    # leaves -> (0,1); step 4: (0,0) comes back as (0,1)'s predecessor (ARX re-adds a former pivot) -> (0,0);
    # step 5: no candidate left: the walk stops at (0,0), having scored the top and 3 nodes (each once)
    node, scored = walk(lambda n: scores[tuple(n)], (0, 0), (1, 1), steps=5, select=best)
    assert (node, scored) == ((0, 0), scores)
    assert picked[:3] == [[-3.0, -2.0], [-3.0, -1.0], [-3.0]]
    node, scored = walk(lambda n: scores[tuple(n)], (0, 0), (1, 1), steps=1, select=best)
    assert node == (1, 0) and set(scored) == {(1, 1), (0, 1), (1, 0)}


def test_search_spends_exactly_the_search_budget(monkeypatch) -> None:
    """The walk's draws (ε·walk_share/steps each) and the final draw (ε·(1 - walk_share)) add up to ε."""
    import veil.dp

    scores = {(1, 1): -4.0, (0, 0): -1.0, (1, 0): -2.0, (0, 1): -3.0}
    spent: list[float] = []

    class Recording(veil.dp.ExponentialMechanism):
        def select(self, values):
            spent.append(self.epsilon)
            return super().select(values)

    monkeypatch.setattr(veil.dp, "ExponentialMechanism", Recording)
    node, scored = search(lambda n: scores[tuple(n)], (0, 0), (1, 1), steps=3, epsilon=0.3, walk_share=0.1)
    assert scored == 4 and node in scores
    assert spent[:3] == [pytest.approx(0.01)] * 3 and spent[3] == pytest.approx(0.27) and len(spent) == 4
    assert sum(spent) == pytest.approx(0.3)
    spent.clear()
    search(lambda n: scores[tuple(n)], (0, 0), (1, 1), steps=3, epsilon=0.3, walk_share=1.0)  # the last pivot
    assert spent == [pytest.approx(0.1)] * 3


def test_search_releases_the_best_scored_node_when_epsilon_is_large() -> None:
    scores = {(1, 1): -40.0, (0, 0): -10.0, (1, 0): -20.0, (0, 1): -30.0}
    for _ in range(20):  # two steps score every node; the final draw at ε = 9,900 gives any other node
        node, n = search(lambda n: scores[tuple(n)], (0, 0), (1, 1), steps=2, epsilon=1e4, walk_share=0.01)
        assert (node, n) == ((0, 0), 4)  # probability below e^-49,000


def test_dp_model_needs_safepub() -> None:
    frame = _table(500, np.random.default_rng(1))
    model = build({"type": "dp", "epsilon": 1, "delta": 1e-3})
    with pytest.raises(ParameterError, match="safepub"):
        veil.anonymize(frame, [model], quasi_identifiers=["age", "sex", "zip"], hierarchies=_hierarchies(),
                       algorithm="lattice", suppression=1.0)


# ---------------------------------------------------------------------------------------------- CLI
@pytest.fixture
def workspace(tmp_path: Path) -> Path:
    frame = _table(3000, np.random.default_rng(5))
    frame.to_csv(tmp_path / "data.csv", index=False)
    for name, h in _hierarchies().items():
        h.to_csv(tmp_path / f"{name}.csv")
    return tmp_path


def _args(folder: Path, *extra: str) -> list[str]:
    args = ["anonymize", str(folder / "data.csv"), "--qi", "age,sex,zip", "-o", str(folder / "out" / "o.csv"),
            "--json", str(folder / "out" / "r.json"), "-q"]
    for name in ("age", "sex", "zip"):
        args += ["--hierarchy", f"{name}={folder / f'{name}.csv'}"]
    return args + list(extra)


def test_cli_releases_under_epsilon_delta(workspace: Path) -> None:
    result = CliRunner().invoke(app, _args(workspace, "--algorithm", "safepub", "--epsilon", "2", "--delta", "1e-3",
                                           "--search-budget", "0.2"))
    assert result.exit_code == 0, result.output
    report = json.loads((workspace / "out" / "r.json").read_text())
    details = report["recoding"]["details"]
    model = build({"type": "dp", "epsilon": 2, "delta": 1e-3, "search_budget": 0.2})
    assert (details["epsilon"], details["delta"], details["search_budget"]) == (2.0, 1e-3, 0.2)
    assert (details["beta"], details["k"]) == (model.beta, model.k)
    assert report["verified"] is True
    assert "seed" not in json.dumps(report).lower()
    released = pd.read_csv(workspace / "out" / "o.csv", dtype=str)
    assert (released.groupby(list(released.columns)).size() >= model.k).all()


def test_cli_require_dp_selects_safepub(workspace: Path) -> None:
    result = CliRunner().invoke(app, _args(workspace, "--require", "dp(epsilon=2, delta=1e-3)"))
    assert result.exit_code == 0, result.output
    report = json.loads((workspace / "out" / "r.json").read_text())
    assert report["search"]["algorithm"] == "safepub"


@pytest.mark.parametrize(("extra", "mention"), [
    (["--epsilon", "0", "--delta", "1e-5"], "--epsilon"),
    (["--epsilon", "-2", "--delta", "1e-5"], "--epsilon"),
    (["--epsilon", "2", "--delta", "0"], "--delta"),
    (["--epsilon", "2", "--delta", "1"], "--delta"),
    (["--epsilon", "2", "--delta", "1e-5", "--search-budget", "0"], "--search-budget"),
    (["--epsilon", "2", "--delta", "1e-5", "--search-budget", "1.5"], "--search-budget"),
    (["--epsilon", "2"], "--delta"),
    (["--search-budget", "0.1"], "--epsilon"),
    (["--require", "dp(epsilon=2, delta=1e-5)", "--algorithm", "datafly"], "safepub"),
    (["--epsilon", "2", "--delta", "1e-5", "--suppression", "0.5"], "suppression"),
    (["--epsilon", "2", "--delta", "1e-5", "--suppressed", "keep"], "keep"),
    (["--epsilon", "2", "--delta", "1e-5", "--keep-unlisted"], "--keep-unlisted"),
    (["--epsilon", "2", "--delta", "1e-5", "--seed", "7"], "--seed"),
])
def test_cli_bad_input_one_line_exit_2(workspace: Path, extra: list[str], mention: str) -> None:
    before = sorted(p.name for p in workspace.rglob("*"))
    result = CliRunner().invoke(app, _args(workspace, *extra))
    assert result.exit_code == 2, result.output
    lines = [line for line in result.stderr.splitlines() if line.strip()]
    assert len(lines) == 1 and lines[0].startswith("error: ") and mention in lines[0], result.stderr
    assert "Traceback" not in result.output
    assert sorted(p.name for p in workspace.rglob("*")) == before
