"""AIM (issue #36): workloads, the junction tree, the model fit, the budget and the command end to end."""

import itertools
import json
import math

import numpy as np
import pandas as pd
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from typer.testing import CliRunner

from veil.cli import app
from veil.dp import PrivacyAccountant, PrivacyBudget, synthesize
from veil.dp.synthesis._aim import AimSettings, aim, round_budget
from veil.dp.synthesis._aim_fit import Measurement, fit_model, sample_model
from veil.dp.synthesis._api import plan_budget
from veil.dp.synthesis._junction import calibrate, clique_marginal, junction_tree
from veil.dp.synthesis._workload import (candidate_weights, default_workload, marginal, parse_workload,
                                         workload_error)
from veil.errors import ColumnNotFoundError, ParameterError

COLUMNS = ["age", "sex", "education", "occupation"]
DOMAIN4 = {"sex": ["F", "M"], "edu": ["hs", "ba", "ms"], "job": ["prof", "sales", "craft"],
           "age": {"min": 0, "max": 100, "bins": 10}}


# --- workloads -------------------------------------------------------------------------------

def test_parse_workload_gives_positions_sorted_and_drops_a_repeated_marginal():
    assert parse_workload("age,sex;education, occupation;sex,age", COLUMNS) == ((0, 1), (2, 3))


@pytest.mark.parametrize("text, error, mention", [
    ("age,zip", ColumnNotFoundError, "'zip'"),
    ("age,sex;;education", ParameterError, "marginal 2 is empty"),
    ("age,,sex", ParameterError, "empty column name"),
    ("age,sex,age", ParameterError, "'age' twice"),
    ("  ", ParameterError, "empty"),
])
def test_parse_workload_refuses(text, error, mention):
    with pytest.raises(error, match=mention):
        parse_workload(text, COLUMNS)


def test_default_workload_is_all_three_way_else_two_way():
    assert default_workload(4) == ((0, 1, 2), (0, 1, 3), (0, 2, 3), (1, 2, 3))
    assert default_workload(2) == ((0, 1),)
    assert len(default_workload(9)) == 84


def test_candidates_are_the_downward_closure_weighted_by_overlap():
    # W = {ab, bc}: a overlaps ab once; b overlaps both; ab: 2 with ab + 1 with bc
    assert candidate_weights(((0, 1), (1, 2))) == {(0,): 1.0, (1,): 2.0, (2,): 1.0, (0, 1): 3.0, (1, 2): 3.0}


@settings(max_examples=40, deadline=None)
@given(st.lists(st.tuples(st.integers(0, 2), st.integers(0, 3), st.integers(1, 5)), min_size=1, max_size=30))
def test_weighted_counts_equal_the_counts_of_the_expanded_rows(rows):
    codes = np.array([r[:2] for r in rows])
    weights = np.array([r[2] for r in rows])
    expanded = np.repeat(codes, weights, axis=0)
    for cols in [(0,), (1,), (0, 1), ()]:
        assert np.array_equal(marginal(codes, weights, [3, 4], cols), marginal(expanded, None, [3, 4], cols))


def test_workload_error_is_a_total_variation_average():
    real = np.array([[0, 0], [0, 1], [1, 1], [1, 1]])
    assert workload_error(real, None, real.copy(), [2, 2], ((0,), (0, 1))) == 0.0
    # column 0: real (1/2, 1/2) vs synthetic (1, 0): TV 1/2; pair: cells 00 01 11 = 1/4 1/4 1/2 vs 1/2 1/2 0: TV 1/2
    synth = np.array([[0, 0], [0, 1]])
    assert workload_error(real, None, synth, [2, 2], ((0,), (0, 1))) == pytest.approx(0.5)
    assert workload_error(real, np.array([1, 1, 1, 1]), np.array([[1, 0]]), [2, 2], ((0, 1),)) == 1.0


# --- the junction tree -----------------------------------------------------------------------

@st.composite
def _models(draw):
    d = draw(st.integers(2, 6))
    sizes = draw(st.lists(st.integers(2, 3), min_size=d, max_size=d))
    cliques = draw(st.lists(st.lists(st.integers(0, d - 1), min_size=1, max_size=3, unique=True).map(
        lambda c: tuple(sorted(c))), min_size=1, max_size=6, unique=True))
    seed = draw(st.integers(0, 2 ** 16))
    return sizes, cliques, seed


def _brute(sizes, potentials, total):
    full = np.zeros(sizes)
    for cl, theta in potentials.items():
        full = full + theta.reshape([sizes[c] if c in cl else 1 for c in range(len(sizes))])
    p = np.exp(full - full.max())
    return total * p / p.sum()


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(_models())
def test_junction_tree_marginals_equal_brute_force(model):
    sizes, cliques, seed = model
    rng = np.random.default_rng(seed)
    potentials = {cl: rng.normal(scale=2.0, size=[sizes[c] for c in cl]) for cl in cliques}
    tree = junction_tree(sizes, cliques)
    # every measured clique sits in a maximal clique; separators hold the running intersection
    assert all(tree.home(cl) >= 0 for cl in cliques)
    for col in range(len(sizes)):
        holding = [i for i, c in enumerate(tree.cliques) if col in c]
        tops = [i for i in holding if tree.parent[i] not in holding]
        assert len(tops) == 1  # the cliques holding a column form one connected subtree
    table = [np.zeros([sizes[c] for c in cl]) for cl in tree.cliques]
    for cl, theta in potentials.items():
        h = tree.home(cl)
        table[h] = table[h] + theta.reshape([sizes[c] if c in cl else 1 for c in tree.cliques[h]])
    beliefs = calibrate(tree, table, 50.0)
    joint = _brute(sizes, potentials, 50.0)
    d = len(sizes)
    for r in range(1, min(d, 3) + 1):
        for q in itertools.combinations(range(d), r):
            expected = joint.sum(axis=tuple(c for c in range(d) if c not in q))
            np.testing.assert_allclose(clique_marginal(tree, beliefs, q), expected, rtol=1e-9, atol=1e-9)


def test_model_size_counts_the_cells_of_the_maximal_cliques():
    tree = junction_tree([10, 10, 10], [(0, 1), (1, 2)])
    assert set(tree.cliques) == {(0, 1), (1, 2)}
    assert tree.size_mb == 200 * 8 / 2 ** 20
    # a cycle a-b-c-a is triangulated into the one clique abc
    assert junction_tree([10, 10, 10], [(0, 1), (1, 2), (0, 2)]).cliques == ((0, 1, 2),)


# --- the fit ---------------------------------------------------------------------------------

def _table(n=3000, seed=1):
    rng = np.random.default_rng(seed)
    a = rng.integers(0, 3, n)
    b = (a + (rng.random(n) < 0.2)) % 3
    c = np.where(rng.random(n) < 0.8, b % 2, rng.integers(0, 2, n))
    d = rng.integers(0, 2, n)
    return np.column_stack([a, b, c, d]), [3, 3, 2, 2]


def test_fit_recovers_exact_marginals_when_the_noise_is_tiny():
    codes, sizes = _table()
    cliques = [(0, 1), (1, 2), (3,)]
    ms = [Measurement(cl, marginal(codes, None, sizes, cl), 1e-3) for cl in cliques]
    model = fit_model(sizes, ms, iters=1000)
    assert model.total == pytest.approx(len(codes))
    for m in ms:  # within one record of 3000 (the zero cells converge last, as 1/iterations)
        np.testing.assert_allclose(model.marginal(m.clique), m.y, atol=1.0)
    # sampling rounds the model's counts: the pairs it measured are reproduced to a few records
    synth = sample_model(model, len(codes), np.random.default_rng(0))
    for cl in cliques:
        assert np.abs(marginal(synth, None, sizes, cl) - marginal(codes, None, sizes, cl)).max() <= 3


def test_aim_at_a_huge_budget_reproduces_the_workload():
    codes, sizes = _table()
    work = ((0, 1), (1, 2))
    synth, info = aim(codes, None, sizes, work, 1e6, np.random.default_rng(0),
                      AimSettings(rounds=16, iters=50, final_iters=400))
    assert workload_error(codes, None, synth, sizes, work) < 0.01
    assert {(0, 1), (1, 2)} <= {r.clique for r in info["rounds"][1:]}


def test_a_model_over_the_size_limit_is_refused():
    codes, sizes = _table()
    with pytest.raises(ParameterError, match="maximum model size"):
        aim(codes, None, sizes, ((0, 1),), 1.0, np.random.default_rng(0), AimSettings(max_model_size=1e-6))


# --- the budget ------------------------------------------------------------------------------

def test_each_planned_round_costs_rho_over_rounds():
    sigma, eps = round_budget(0.5, 40)
    assert 0.5 / sigma ** 2 + eps ** 2 / 8 == pytest.approx(0.5 / 40)
    assert 0.5 / sigma ** 2 == pytest.approx(0.9 * 0.5 / 40)


@settings(max_examples=12, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(rho=st.floats(1e-4, 5.0), n=st.integers(0, 200), d=st.integers(1, 3), seed=st.integers(0, 1000),
       rounds=st.one_of(st.none(), st.integers(3, 12)))
def test_the_rounds_never_spend_more_than_the_plan(rho, n, d, seed, rounds):
    rng = np.random.default_rng(seed)
    sizes = [2, 3, 2][:d]
    codes = np.column_stack([rng.integers(0, k, n) for k in sizes]) if n else np.zeros((0, d), dtype=np.int64)
    _, info = aim(codes, None, sizes, default_workload(d), rho, rng, AimSettings(rounds=rounds, iters=3,
                                                                              final_iters=3))
    spent = sum(r.rho for r in info["rounds"])
    assert spent <= rho
    assert spent >= rho * (1 - 1e-6)  # and the plan is spent, up to the shaved margin


def test_a_too_large_one_way_model_is_refused_before_the_budget_is_charged(monkeypatch):
    import functools

    import veil.dp.synthesis._api as api
    from veil.dp.synthesis._aim import check_model_size

    check_model_size([1000] * 10)  # 10,000 cells: 0.08 MB
    with pytest.raises(ParameterError, match="152.6 MB, more than the maximum model size of 80 MB"):
        check_model_size([1000] * 20000)  # 2e7 cells × 8 bytes
    monkeypatch.setattr(api, "check_model_size", functools.partial(check_model_size, limit=1e-6))
    acc = PrivacyAccountant(budget=PrivacyBudget(epsilon=3.0, delta=1e-6))
    with pytest.raises(ParameterError, match="maximum model size"):
        synthesize(_frame(), epsilon=1.0, algorithm="aim", domain=DOMAIN4, accountant=acc)
    assert len(acc.ledger) == 0


def test_fewer_rounds_than_columns_is_refused():
    codes, sizes = _table()
    with pytest.raises(ParameterError, match="rounds=3"):
        aim(codes, None, sizes, ((0, 1),), 1.0, np.random.default_rng(0), AimSettings(rounds=3))


# --- the command -----------------------------------------------------------------------------

def _frame(n=1500, seed=4):
    rng = np.random.default_rng(seed)
    sex = rng.choice(["F", "M"], n)
    edu = rng.choice(["hs", "ba", "ms"], n)
    job = np.where(edu == "ms", "prof", rng.choice(["prof", "sales", "craft"], n))
    return pd.DataFrame({"sex": sex, "edu": edu, "job": job, "age": rng.integers(18, 80, n)})


def test_aim_end_to_end_through_the_command(tmp_path):
    _frame().to_csv(tmp_path / "data.csv", index=False)
    (tmp_path / "domain.json").write_text(json.dumps({"sex": ["F", "M"], "edu": ["hs", "ba", "ms"],
                                                      "job": ["prof", "sales", "craft"]}))
    args = ["synthesize", tmp_path / "data.csv", "--epsilon", "2", "--algorithm", "aim",
            "--workload", "edu,job;sex,age", "--bins", "age=0:100:10", "--domain", tmp_path / "domain.json",
            "-o", tmp_path / "out.csv", "--json", tmp_path / "report.json", "--seed", "3",
            "--budget-file", tmp_path / "ledger.json", "--budget", "5", "--budget-delta", "1e-6",
            "--dataset-name", "toy"]
    result = CliRunner().invoke(app, [str(a) for a in args])
    assert result.exit_code == 0, result.output
    rep = json.loads((tmp_path / "report.json").read_text())
    assert rep["algorithm"] == "aim" and rep["delta"] == 1e-9 and rep["epsilon"] <= 2.0 + 1e-12
    assert rep["marginals"]["workload"] == [["edu", "job"], ["sex", "age"]]
    assert 0.0 <= rep["workload_error"] < 0.1
    assert sum(r["rho"] for r in rep["noise"]["rounds"]) + rep["noise"]["rho_1way"] <= rep["rho"]
    assert rep["ledger"]["spends"] == 1 and rep["ledger"]["spent"]["epsilon"] == 2.0
    out = pd.read_csv(tmp_path / "out.csv")
    assert list(out.columns) == ["sex", "edu", "job", "age"] and len(out) == rep["rows"]
    # the measured dependence (ms -> prof) survives
    assert (out.loc[out["edu"] == "ms", "job"] == "prof").mean() > 0.8


def test_aim_is_charged_once_to_the_accountant_and_reports_the_workload_error():
    acc = PrivacyAccountant(budget=PrivacyBudget(epsilon=3.0, delta=1e-6))
    rep = synthesize(_frame(), epsilon=1.0, algorithm="aim", domain=DOMAIN4, accountant=acc, seed=0).report
    assert len(acc.ledger) == 1 and acc.spent == PrivacyBudget(epsilon=1.0, delta=1e-9)
    assert len(rep["marginals"]["workload"]) == 4  # all 3-way marginals of 4 columns
    assert 0.0 <= rep["workload_error"] <= 1.0
    plan = plan_budget(1.0, 1e-9)
    assert rep["rho"] == plan.rho
    assert sum(r["rho"] for r in rep["noise"]["rounds"]) + rep["noise"]["rho_1way"] <= plan.rho


def test_mst_reports_the_workload_error_of_the_default_workload():
    rep = synthesize(_frame(), epsilon=1.0, domain=DOMAIN4, seed=0).report
    assert rep["algorithm"] == "mst"
    assert rep["workload_error"] == pytest.approx(rep["marginal_error"]["3way"])
    assert not math.isnan(rep["workload_error"])
