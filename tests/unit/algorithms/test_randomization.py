"""Tests of veil.algorithms.randomization: the αβ algorithm and PRAM.

Statistical tests use fixed seeds and tolerances derived from the exact
binomial / multinomial variances (stated next to each assertion), so a wrong
probability fails them while a correct one passes with probability
well above 1 − 1e-4.
"""

from __future__ import annotations

import json
import math
import time
import warnings

import numpy as np
import pandas as pd
import pytest
from scipy import stats

from veil.algorithms.randomization import (
    alpha_beta,
    alpha_beta_estimate,
    alpha_beta_parameters,
    alpha_beta_posterior,
    alpha_beta_query,
    alpha_beta_usefulness,
    alpha_beta_variance,
    invariant_transition,
    is_private,
    pram,
    pram_estimate,
    pram_transition,
)
from veil.algorithms._recoding import Recoding
from veil.dataset import Dataset
from veil.errors import ColumnNotFoundError, ParameterError


# ---------------------------------------------------------------------------- fixtures
def small_table() -> tuple[Dataset, dict[str, list[str]]]:
    """12 records, 7 distinct (a, b, c) tuples (5 records repeat one), over D of 4 x 5 x 6 = 120 tuples.

    I = {(a0,b0,c0), (a1,b1,c1), (a1,b2,c2), (a2,b3,c3), (a3,b4,c4), (a0,b1,c5), (a3,b0,c5)}.
    """
    frame = pd.DataFrame(
        {
            "a": ["a0", "a0", "a1", "a1", "a2", "a3", "a0", "a0", "a1", "a2", "a3", "a3"],
            "b": ["b0", "b0", "b1", "b2", "b3", "b4", "b1", "b0", "b1", "b3", "b4", "b0"],
            "c": ["c0", "c0", "c1", "c2", "c3", "c4", "c5", "c0", "c1", "c3", "c4", "c5"],
            "other": range(12),
        }
    )
    domains = {"a": [f"a{i}" for i in range(4)], "b": [f"b{i}" for i in range(5)],
               "c": [f"c{i}" for i in range(6)]}
    return Dataset.from_pandas(frame, quasi_identifiers=["a", "b", "c"]), domains


def tuples_of(frame: pd.DataFrame, columns) -> set[tuple]:
    return set(map(tuple, frame[list(columns)].astype(str).to_numpy().tolist()))


# ============================================================================ αβ: the release
def test_alpha_one_beta_zero_publishes_exactly_the_distinct_tuples():
    """α + β = 1 keeps every tuple of I, β = 0 inserts none: V = I as a set."""
    ds, domains = small_table()
    out = alpha_beta(ds, alpha=1.0, beta=0.0, domains=domains, seed=3)
    assert isinstance(out, Recoding) and out.algorithm == "alpha-beta"
    assert list(out.data.columns) == ["a", "b", "c"]  # only the released columns
    assert len(out.data) == 7 and not out.data.duplicated().any()
    assert tuples_of(out.data, "abc") == tuples_of(ds.frame, "abc")
    d = out.details
    assert d["row_aligned"] is False and d["semantics"] == "set"
    assert d["alpha"] == 1.0 and d["beta"] == 0.0
    assert d["domain_size"] == 120 and d["domain_sizes"] == {"a": 4, "b": 5, "c": 6}
    assert d["domains"] == domains and d["records_in"] == 12 and d["tuples_out"] == 7
    assert "seed" not in d
    assert json.loads(json.dumps(d)) == d  # JSON-serializable, for the report


def test_view_is_a_set_inside_the_domain():
    ds, domains = small_table()
    true = tuples_of(ds.frame, "abc")
    full = {(a, b, c) for a in domains["a"] for b in domains["b"] for c in domains["c"]}
    for seed in range(20):
        v = alpha_beta(ds, alpha=0.5, beta=0.3, domains=domains, seed=seed).data
        assert not v.duplicated().any()
        assert tuples_of(v, "abc") <= full
    assert true <= full


def test_same_seed_same_release_and_rows_are_shuffled():
    ds, domains = small_table()
    a = alpha_beta(ds, alpha=0.6, beta=0.4, domains=domains, seed=11).data
    b = alpha_beta(ds, alpha=0.6, beta=0.4, domains=domains, seed=11).data
    c = alpha_beta(ds, alpha=0.6, beta=0.4, domains=domains, seed=12).data
    pd.testing.assert_frame_equal(a, b)
    assert not a.equals(c)
    # with alpha + beta = 1 every true tuple is in V; they must not all come first
    true = tuples_of(ds.frame, "abc")
    positions = []
    for seed in range(10):
        v = alpha_beta(ds, alpha=0.5, beta=0.5, domains=domains, seed=seed).data
        is_true = np.array([t in true for t in map(tuple, v.to_numpy().tolist())])
        positions.append(np.flatnonzero(is_true).max())
    assert max(positions) > 20  # 7 true tuples among ~63 rows: the last one is far from the front


def test_counts_follow_their_binomials():
    """Kept true tuples ~ Bin(|I|, α+β) = Bin(7, 0.5); inserted ~ Bin(|D|-|I|, β) = Bin(113, 0.3).

    Over R = 400 seeds the sample means must lie within 4 standard errors of
    7·0.5 = 3.5 (SE = sqrt(7·0.25/400) = 0.066) and of 113·0.3 = 33.9
    (SE = sqrt(113·0.21/400) = 0.244), and the sample variances within 25 %
    of 1.75 and 23.73 (the relative SE of a sample variance here is ≈ 7 %).
    """
    ds, domains = small_table()
    true = tuples_of(ds.frame, "abc")
    kept, inserted = [], []
    for seed in range(400):
        v = tuples_of(alpha_beta(ds, alpha=0.2, beta=0.3, domains=domains, seed=seed).data, "abc")
        kept.append(len(v & true))
        inserted.append(len(v - true))
    kept, inserted = np.array(kept), np.array(inserted)
    assert abs(kept.mean() - 3.5) < 4 * 0.066
    assert abs(inserted.mean() - 33.9) < 4 * 0.244
    assert 0.75 < kept.var(ddof=1) / 1.75 < 1.25
    assert 0.75 < inserted.var(ddof=1) / 23.73 < 1.25


def test_inserted_tuples_are_uniform_over_the_complement():
    """Each of the 113 tuples of D ∖ I is inserted independently with probability β = 0.3.

    Over R = 300 seeds its count is Bin(300, 0.3); the sum of squared
    standardized counts is approximately chi-square with 113 degrees of freedom (the
    indicators are independent across tuples). A bias toward low keys, or
    sampling with replacement, fails it.
    """
    ds, domains = small_table()
    true = tuples_of(ds.frame, "abc")
    full = sorted((a, b, c) for a in domains["a"] for b in domains["b"] for c in domains["c"])
    free = [t for t in full if t not in true]
    counts = dict.fromkeys(free, 0)
    runs = 300
    for seed in range(runs):
        for t in tuples_of(alpha_beta(ds, alpha=0.2, beta=0.3, domains=domains, seed=1000 + seed).data, "abc"):
            if t not in true:
                counts[t] += 1
    c = np.array(list(counts.values()), dtype=float)
    statistic = (((c - runs * 0.3) ** 2) / (runs * 0.3 * 0.7)).sum()
    assert stats.chi2.sf(statistic, df=len(free)) > 1e-4
    assert stats.chi2.cdf(statistic, df=len(free)) > 1e-4  # not suspiciously uniform either


def test_estimator_is_unbiased():
    """Mean of (n_V - β n_D)/α over R = 400 seeds is within 4 SE of the true count.

    Query: a ∈ {a0, a1}: Q(I) = 4 distinct true tuples (a0,b0,c0), (a1,b1,c1),
    (a1,b2,c2), (a0,b1,c5); n_D = 2·5·6 = 60.  SE = sqrt(Var / R) with Var from
    alpha_beta_variance.
    """
    ds, domains = small_table()
    distinct = ds.frame[["a", "b", "c"]].drop_duplicates()
    q_true = int(distinct["a"].isin(["a0", "a1"]).sum())
    assert q_true == 4
    alpha, beta = 0.4, 0.2
    estimates = np.array([
        alpha_beta_query(alpha_beta(ds, alpha=alpha, beta=beta, domains=domains, seed=s),
                         where={"a": ["a0", "a1"]})
        for s in range(400)
    ])
    var = alpha_beta_variance(q_true, 60, alpha, beta)
    # hand check of the variance: (4·0.6·0.4 + 56·0.2·0.8) / 0.16 = (0.96 + 8.96) / 0.16 = 62
    assert var == pytest.approx(62.0)
    assert abs(estimates.mean() - q_true) < 4 * math.sqrt(var / 400)
    assert 0.75 < estimates.var(ddof=1) / var < 1.25


def test_domain_of_a_trillion_tuples_is_never_enumerated():
    """4 columns of 1,000 values: |D| = 10^12. β = 1e-7 inserts ~10^5 tuples, in well under a second."""
    rng = np.random.default_rng(0)
    n = 5_000
    values = [f"v{i:03d}" for i in range(1000)]
    frame = pd.DataFrame({c: rng.choice(values, n) for c in "wxyz"})
    ds = Dataset.from_pandas(frame, quasi_identifiers=list("wxyz"))
    start = time.perf_counter()
    out = alpha_beta(ds, alpha=0.5, beta=1e-7, domains={c: values for c in "wxyz"}, seed=5)
    seconds = time.perf_counter() - start
    assert out.details["domain_size"] == 10**12
    true = tuples_of(ds.frame, "wxyz")
    v = tuples_of(out.data, "wxyz")
    assert len(v) == len(out.data)  # distinct
    inserted = len(v - true)
    expected = 1e-7 * (10**12 - len(true))  # ≈ 100,000, sd ≈ 316
    assert abs(inserted - expected) < 6 * math.sqrt(expected)
    assert seconds < 5.0


def test_adult_eight_qis_with_recommended_parameters(adult):
    """Adult's 8 QIs over their hierarchies' leaves: |D| = 2·100·5·7·16·41·8·14 = 514,304,000."""
    n_distinct = len(adult.frame[list(adult.quasi_identifiers)].drop_duplicates())
    params = alpha_beta_parameters(d=5 * n_distinct / 514_304_000, gamma=0.5)
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # every domain is public (hierarchy leaves): no warning
        out = alpha_beta(adult, alpha=params.alpha, beta=params.beta, seed=2)
    assert out.details["domain_size"] == 514_304_000
    assert set(out.details["domain_sources"].values()) == {"hierarchy"}
    assert list(out.data.columns) == list(adult.quasi_identifiers)
    # |V| ~ (α+β)|I| + β(|D|-|I|): mean and sd from the two binomials
    mean = (params.alpha + params.beta) * n_distinct + params.beta * (514_304_000 - n_distinct)
    sd = math.sqrt(n_distinct * 0.25 + params.beta * 514_304_000)
    assert abs(len(out.data) - mean) < 6 * sd
    estimate = alpha_beta_query(out)
    assert abs(estimate - n_distinct) < 6 * math.sqrt(alpha_beta_variance(n_distinct, 514_304_000,
                                                                          params.alpha, params.beta))


def test_duplicates_collapse_to_one_tuple():
    frame = pd.DataFrame({"a": ["x"] * 50, "b": ["y"] * 50})
    ds = Dataset.from_pandas(frame, quasi_identifiers=["a", "b"])
    out = alpha_beta(ds, alpha=1.0, beta=0.0, domains={"a": ["x", "z"], "b": ["y"]}, seed=0)
    assert out.data.values.tolist() == [["x", "y"]]


# ============================================================================ αβ: queries
def test_query_is_exact_without_randomization():
    ds, domains = small_table()
    out = alpha_beta(ds, alpha=1.0, beta=0.0, domains=domains, seed=0)
    distinct = ds.frame[["a", "b", "c"]].drop_duplicates()
    assert alpha_beta_query(out) == 7
    assert alpha_beta_query(out, where={"a": "a3"}) == 2
    assert alpha_beta_query(out, where={"a": ["a0", "a3"], "c": lambda v: np.isin(v, ["c0", "c5"])}) == int(
        (distinct["a"].isin(["a0", "a3"]) & distinct["c"].isin(["c0", "c5"])).sum()
    )


def test_query_domain_count_is_a_product():
    """n_V = 7, n_D = 2 · 5 · 3 = 30 for a ∈ {a0,a1}, c ∈ {c0,c1,c2}: estimate (7 - 0.1·30)/0.5 = 8."""
    ds, domains = small_table()
    out = alpha_beta(ds, alpha=0.5, beta=0.1, domains=domains, seed=0)
    sel = out.data["a"].isin(["a0", "a1"]) & out.data["c"].isin(["c0", "c1", "c2"])
    n_v = int(sel.sum())
    assert alpha_beta_query(out, where={"a": ["a0", "a1"], "c": ["c0", "c1", "c2"]}) == pytest.approx(
        (n_v - 0.1 * 30) / 0.5
    )


def test_query_errors():
    ds, domains = small_table()
    out = alpha_beta(ds, alpha=0.5, beta=0.1, domains=domains, seed=0)
    with pytest.raises(ColumnNotFoundError, match="'other'"):
        alpha_beta_query(out, where={"other": [1]})
    with pytest.raises(ParameterError, match="one boolean per domain value"):
        alpha_beta_query(out, where={"a": lambda v: np.array([True])})
    with pytest.raises(ParameterError, match="needs the result of alpha_beta"):
        alpha_beta_query(Recoding(data=pd.DataFrame(), algorithm="mdav"))


def test_estimate_and_variance_formulas():
    # (n_V - β n_D)/α = (30 - 0.1·200)/0.5 = 20
    assert alpha_beta_estimate(30, 200, 0.5, 0.1) == pytest.approx(20.0)
    np.testing.assert_allclose(alpha_beta_estimate([30, 10], [200, 100], 0.5, 0.1), [20.0, 0.0])
    # (10·0.6·0.4 + 190·0.1·0.9)/0.25 = (2.4 + 17.1)/0.25 = 78
    assert alpha_beta_variance(10, 200, 0.5, 0.1) == pytest.approx(78.0)
    with pytest.raises(ParameterError):
        alpha_beta_variance(10, 5, 0.5, 0.1)


# ============================================================================ αβ: Theorem 4.3
def test_theorem_4_3_hand_computed():
    """d = 0.1, γ = 0.5: β/(α+β) ≥ 0.1·0.5/(0.5·0.9) = 1/9 and α+β ≤ 1 - 0.1/0.5 = 0.8.

    The recommended corner is α = 0.8·(8/9) = 0.71111..., β = 0.8/9 = 0.08888...
    """
    p = alpha_beta_parameters(d=0.1, gamma=0.5)
    assert p.min_beta_share == pytest.approx(1 / 9, rel=1e-15)
    assert p.max_retention == pytest.approx(0.8, rel=1e-15)
    assert p.alpha == pytest.approx(6.4 / 9, rel=1e-15) and p.beta == pytest.approx(0.8 / 9, rel=1e-15)
    # tight on both sides
    assert is_private(p.alpha, p.beta, d=0.1, gamma=0.5) and p.contains(p.alpha, p.beta)
    assert not is_private(p.alpha, p.beta * (1 - 1e-6), d=0.1, gamma=0.5)  # share just below 1/9
    assert not is_private(p.alpha * (1 + 1e-6), p.beta * (1 + 1e-6), d=0.1, gamma=0.5)  # α+β just above 0.8
    assert is_private(0.5, 0.1, d=0.1, gamma=0.5)  # share 1/6 ≥ 1/9, α+β = 0.6 ≤ 0.8
    assert not is_private(0.7, 0.05, d=0.1, gamma=0.5)  # share 1/15 < 1/9
    # d = 0.01, γ = 0.5: share ≥ 0.005/0.495 = 1/99, α+β ≤ 0.98
    q = alpha_beta_parameters(d=0.01, gamma=0.5)
    assert q.min_beta_share == pytest.approx(1 / 99) and q.max_retention == pytest.approx(0.98)
    assert q.alpha == pytest.approx(0.98 * 98 / 99) and q.beta == pytest.approx(0.98 / 99)


def test_theorem_4_3_against_bayes():
    """At the corner the posterior of a published tuple with prior d is exactly γ:
    0.1·0.8 / (0.1·0.8 + 0.9·(0.8/9)) = 0.08/0.16 = 0.5; and the posterior/prior ratio
    of an unpublished tuple is at least d/γ = 0.2 for every prior in [0, d]."""
    p = alpha_beta_parameters(d=0.1, gamma=0.5)
    seen, unseen = alpha_beta_posterior(p.alpha, p.beta, 0.1)
    assert float(seen) == pytest.approx(0.5)
    priors = np.linspace(1e-9, 0.1, 1001)
    seen, unseen = alpha_beta_posterior(p.alpha, p.beta, priors)
    assert (seen <= 0.5 + 1e-12).all()
    assert (unseen / priors >= 0.2 - 1e-12).all()
    # just past the corner the positive-leakage bound breaks
    seen, _ = alpha_beta_posterior(p.alpha, p.beta * 0.99, 0.1)
    assert float(seen) > 0.5


def test_recommended_pair_minimises_variance_over_the_region():
    p = alpha_beta_parameters(d=0.05, gamma=0.4)
    best = alpha_beta_variance(30, 1000, p.alpha, p.beta)
    for s in np.linspace(0.05, p.max_retention, 25):
        for r in np.linspace(p.min_beta_share, 0.95, 25):
            alpha, beta = s * (1 - r), s * r
            if is_private(alpha, beta, d=0.05, gamma=0.4):
                assert alpha_beta_variance(30, 1000, alpha, beta) >= best * (1 - 1e-12)


def test_usefulness_hand_computed_and_empirical():
    """α = 0.5, β = 0.1, n = 100, m = 1000, ε = 0.25:
    V_max = max(100·0.6·0.4 + 900·0.1·0.9, 1000·0.1·0.9)/0.25 = max(24 + 81, 90)/0.25 = 420,
    ρ = sqrt(420 / (100 · 0.25)) = sqrt(16.8)."""
    rho = alpha_beta_usefulness(0.5, 0.1, n=100, m=1000, epsilon=0.25)
    assert rho == pytest.approx(math.sqrt(16.8))
    # simulate the estimator of a query with Q(I) = 100, n_D = 1000 (the worst case here)
    rng = np.random.default_rng(0)
    n_v = rng.binomial(100, 0.6, 20_000) + rng.binomial(900, 0.1, 20_000)
    errors = np.abs(alpha_beta_estimate(n_v, 1000, 0.5, 0.1) - 100)
    assert (errors >= rho * 10).mean() <= 0.25


@pytest.mark.parametrize(
    "alpha, beta, message",
    [
        (0, 0.1, r"^The 'alpha' parameter of alpha_beta must be a float in \(0, 1\]\. Got 0 instead\.$"),
        (-0.1, 0.1, r"^The 'alpha' parameter of alpha_beta must be a float in \(0, 1\]\. Got -0\.1 instead\.$"),
        (1.5, 0.0, r"'alpha' parameter of alpha_beta must be a float in \(0, 1\]"),
        (0.5, -0.1, r"^The 'beta' parameter of alpha_beta must be a float in \[0, 1\)\. Got -0\.1 instead\.$"),
        (0.5, 1.0, r"'beta' parameter of alpha_beta must be a float in \[0, 1\)"),
        (0.8, 0.4, r"^The 'alpha' and 'beta' parameters of alpha_beta must satisfy alpha \+ beta <= 1"),
        (float("nan"), 0.1, r"'alpha' parameter"),
        (True, 0.1, r"'alpha' parameter"),
        ("0.5", 0.1, r"'alpha' parameter"),
    ],
)
def test_bad_alpha_beta(alpha, beta, message):
    ds, domains = small_table()
    with pytest.raises(ParameterError, match=message):
        alpha_beta(ds, alpha=alpha, beta=beta, domains=domains, seed=0)


def test_bad_d_gamma():
    with pytest.raises(ParameterError, match="'d' parameter of alpha_beta_parameters must be smaller than 'gamma'"):
        alpha_beta_parameters(d=0.5, gamma=0.5)
    with pytest.raises(ParameterError, match=r"'gamma' parameter of is_private must be a float in \(0, 1\]"):
        is_private(0.5, 0.1, d=0.1, gamma=0.0)
    with pytest.raises(ParameterError, match=r"'d' parameter of is_private must be a float in \[0, 1\)"):
        is_private(0.5, 0.1, d=-0.1, gamma=0.5)
    with pytest.raises(ParameterError, match="'prior'"):
        alpha_beta_posterior(0.5, 0.1, 1.5)
    with pytest.raises(ParameterError, match=r"'n' parameter of alpha_beta_usefulness"):
        alpha_beta_usefulness(0.5, 0.1, n=2000, m=1000, epsilon=0.1)


def test_domain_problems():
    ds, domains = small_table()
    with pytest.raises(ParameterError, match=r"Column 'a' has the value 'a3'.*not in its domain"):
        alpha_beta(ds, alpha=0.5, beta=0.1, domains={**domains, "a": ["a0", "a1", "a2"]}, seed=0)
    with pytest.raises(ParameterError, match="gives a domain for 'other'"):
        alpha_beta(ds, alpha=0.5, beta=0.1, domains={**domains, "other": [1]}, seed=0)
    with pytest.raises(ParameterError, match="lists a value twice"):
        alpha_beta(ds, alpha=0.5, beta=0.1, domains={**domains, "a": ["a0", "a0", "a1", "a2", "a3"]}, seed=0)
    with pytest.raises(ColumnNotFoundError, match="'nope'"):
        alpha_beta(ds, ["a", "nope"], alpha=0.5, beta=0.1, seed=0)
    with pytest.raises(ParameterError, match="lists 'a' twice"):
        alpha_beta(ds, ["a", "a"], alpha=0.5, beta=0.1, seed=0)
    with pytest.raises(ParameterError, match="more than max_inserted=10"):
        alpha_beta(ds, alpha=0.5, beta=0.5, domains=domains, max_inserted=10, seed=0)
    with pytest.raises(ParameterError, match=r"'seed' parameter of alpha_beta"):
        alpha_beta(ds, alpha=0.5, beta=0.1, domains=domains, seed=-1)


def test_domain_above_int64_is_refused():
    frame = pd.DataFrame({f"c{j}": ["v0"] for j in range(7)})
    ds = Dataset.from_pandas(frame, quasi_identifiers=list(frame.columns))
    values = [f"v{i}" for i in range(1000)]  # 1000^7 = 10^21 > 2^63
    with pytest.raises(ParameterError, match="more than alpha_beta handles"):
        alpha_beta(ds, alpha=0.5, beta=0.0, domains={c: values for c in frame.columns}, seed=0)


def test_domain_from_data_warns_and_missing_is_a_value():
    frame = pd.DataFrame({"a": ["x", None, "y"], "b": ["1", "2", "2"]})
    ds = Dataset.from_pandas(frame, quasi_identifiers=["a", "b"])
    with pytest.warns(UserWarning, match="discloses which values occur"):
        out = alpha_beta(ds, alpha=1.0, beta=0.0, seed=0)
    assert out.details["domain_sources"] == {"a": "data", "b": "data"}
    assert out.details["domains"]["a"] == ["x", "y", "<missing>"]
    assert out.data["a"].isna().sum() == 1  # the missing value comes back as missing
    assert alpha_beta_query(out, where={"a": ["<missing>"]}) == 1


# ============================================================================ PRAM
def test_pram_p_one_leaves_data_unchanged(adult):
    out = pram(adult, ["sex", "race", "education"], p=1.0, seed=0)
    assert out.algorithm == "pram" and out.details["row_aligned"] is True
    assert len(out.data) == adult.n_records and list(out.data.columns) == adult.columns
    for column in adult.columns:
        assert out.data[column].astype(str).tolist() == adult.frame[column].astype(str).tolist()


def test_pram_changes_only_the_chosen_columns_at_the_right_rate(adult):
    """With p = 0.8 each value changes with probability 0.2: over 30,162 records the
    changed share is within 5 SE (SE = sqrt(0.16/30162) = 0.0023) of 0.2."""
    out = pram(adult, ["education"], p=0.8, seed=1)
    changed = (out.data["education"] != adult.frame["education"]).mean()
    assert abs(changed - 0.2) < 5 * math.sqrt(0.16 / adult.n_records)
    for column in adult.columns:
        if column != "education":
            assert out.data[column].tolist() == adult.frame[column].tolist()
    matrix = np.array(out.details["transitions"]["education"]["matrix"])
    np.testing.assert_allclose(matrix, pram_transition(16, 0.8))
    json.dumps(out.details)


def test_pram_draws_follow_the_matrix():
    """200,000 records of 3 categories through a matrix with a zero entry: the empirical
    transition frequencies of each row pass a chi-square test, and the zero entry is never drawn."""
    n = 200_000
    rng = np.random.default_rng(0)
    frame = pd.DataFrame({"c": rng.choice(["a", "b", "c"], n, p=[0.5, 0.3, 0.2])})
    ds = Dataset.from_pandas(frame, quasi_identifiers=["c"])
    matrix = np.array([[0.7, 0.0, 0.3], [0.1, 0.6, 0.3], [0.25, 0.25, 0.5]])
    out = pram(ds, transition={"c": matrix}, seed=7)
    orig = frame["c"].to_numpy()
    new = out.data["c"].to_numpy()
    cats = ["a", "b", "c"]
    for i, k in enumerate(cats):
        rows = new[orig == k]
        observed = np.array([(rows == l).sum() for l in cats])
        if i == 0:
            assert observed[1] == 0
        nonzero = matrix[i] > 0
        _, pvalue = stats.chisquare(observed[nonzero], matrix[i][nonzero] * len(rows))
        assert pvalue > 1e-4


def test_pram_estimator_recovers_frequencies_in_expectation():
    """Mean of pram_estimate over R = 300 seeds is within 4.5 SE of the true counts.

    The observed counts o = sum over records of independent one-hot draws have
    Cov(o) = sum_k T_k (diag(P_k) - P_k P_k^T); the estimate is A o with A = (P^T)^-1,
    so Cov(estimate) = A Cov(o) A^T, and SE = sqrt(diag / R).
    """
    frame = pd.DataFrame({"c": ["a"] * 60 + ["b"] * 30 + ["c"] * 10})
    ds = Dataset.from_pandas(frame, quasi_identifiers=["c"])
    true = np.array([60.0, 30.0, 10.0])
    P = pram_transition(3, 0.7)
    estimates = []
    for seed in range(300):
        released = pram(ds, p=0.7, seed=seed).data["c"]
        observed = released.value_counts().reindex(["a", "b", "c"], fill_value=0).to_numpy()
        estimates.append(pram_estimate(observed, P))
    estimates = np.array(estimates)
    cov_o = sum(t * (np.diag(row) - np.outer(row, row)) for t, row in zip(true, P))
    A = np.linalg.inv(P.T)
    se = np.sqrt(np.diag(A @ cov_o @ A.T) / 300)
    assert (np.abs(estimates.mean(axis=0) - true) < 4.5 * se).all()
    # the naive observed shares are biased toward uniform: the estimator is not a no-op
    assert abs(estimates.mean(axis=0)[2] - 10) < abs(P.T @ true - true)[2]


def test_pram_estimate_exact_and_singular():
    P = np.array([[0.8, 0.2], [0.3, 0.7]])
    t = np.array([70.0, 30.0])
    np.testing.assert_allclose(pram_estimate(P.T @ t, P), t)
    with pytest.raises(ParameterError, match="singular"):
        pram_estimate([10, 10, 10], pram_transition(3, 1 / 3))
    with pytest.raises(ParameterError, match="must be 2 x 2"):
        pram_estimate([1, 2], np.eye(3))


def test_pram_transition_shape():
    P = pram_transition(4, 0.7)
    np.testing.assert_allclose(np.diag(P), 0.7)
    np.testing.assert_allclose(P[0, 1:], 0.1)
    np.testing.assert_allclose(P.sum(axis=1), 1.0)
    np.testing.assert_array_equal(pram_transition(1, 0.3), [[1.0]])


def test_invariant_transition_hand_computed():
    """counts (10, 20, 40), p = 0.5: T_min = 10, ratios (1, 1/2, 1/4).
    Rows: (0.5, 0.25, 0.25), (0.125, 0.75, 0.125), (0.0625, 0.0625, 0.875);
    column 0 of counts @ P = 10·0.5 + 20·0.125 + 40·0.0625 = 5 + 2.5 + 2.5 = 10."""
    P = invariant_transition([10, 20, 40], 0.5)
    np.testing.assert_allclose(P, [[0.5, 0.25, 0.25], [0.125, 0.75, 0.125], [0.0625, 0.0625, 0.875]])
    np.testing.assert_allclose(np.array([10, 20, 40]) @ P, [10, 20, 40])


def test_invariant_transition_fixed_point_and_zero_counts():
    rng = np.random.default_rng(3)
    for _ in range(50):
        counts = rng.integers(0, 100, rng.integers(1, 12)).astype(float)
        if not (counts > 0).any():
            continue
        p = rng.random()
        P = invariant_transition(counts, p)
        np.testing.assert_allclose(counts @ P, counts, atol=1e-9)
        assert (P >= 0).all()
        np.testing.assert_allclose(P.sum(axis=1), 1.0)
        positive = counts > 0
        if positive.sum() > 1:
            assert np.diag(P)[positive].min() == pytest.approx(p)
        zero = ~positive
        np.testing.assert_allclose(P[zero][:, zero], np.eye(int(zero.sum())))
        assert (P[:, zero][positive] == 0).all()
    with pytest.raises(ParameterError, match="at least one positive"):
        invariant_transition([0, 0], 0.5)
    with pytest.raises(ParameterError, match="'p' parameter of invariant_transition"):
        invariant_transition([1, 2], 1.5)


def test_invariant_pram_keeps_frequencies_in_expectation():
    """Released counts average to the original counts (60, 30, 10) over 300 seeds (within 4.5 SE)."""
    frame = pd.DataFrame({"c": ["a"] * 60 + ["b"] * 30 + ["c"] * 10})
    ds = Dataset.from_pandas(frame, quasi_identifiers=["c"])
    true = np.array([60.0, 30.0, 10.0])
    P = invariant_transition(true, 0.6)
    runs = np.array([
        pram(ds, p=0.6, invariant=True, seed=s).data["c"].value_counts().reindex(["a", "b", "c"], fill_value=0)
        .to_numpy() for s in range(300)
    ])
    cov_o = sum(t * (np.diag(row) - np.outer(row, row)) for t, row in zip(true, P))
    se = np.sqrt(np.diag(cov_o) / 300)
    assert (np.abs(runs.mean(axis=0) - true) < 4.5 * se).all()
    out = pram(ds, p=0.6, invariant=True, seed=0)
    np.testing.assert_allclose(out.details["transitions"]["c"]["matrix"], P)
    assert out.details["invariant"] is True


def test_pram_missing_values_stay_missing():
    frame = pd.DataFrame({"c": ["a", None, "b", "c", None, "a"] * 50})
    ds = Dataset.from_pandas(frame, quasi_identifiers=["c"])
    out = pram(ds, p=0.2, seed=0)
    assert (out.data["c"].isna() == frame["c"].isna()).all()
    assert set(out.data["c"].dropna()) <= {"a", "b", "c"}
    assert out.details["transitions"]["c"]["categories"] == ["a", "b", "c"]


def test_pram_labelled_matrix_is_reordered():
    frame = pd.DataFrame({"c": ["a", "b", "b"] * 100})
    ds = Dataset.from_pandas(frame, quasi_identifiers=["c"])
    # a -> b always, b -> b always; given with rows and columns in reverse order
    labelled = pd.DataFrame([[1.0, 0.0], [1.0, 0.0]], index=["b", "a"], columns=["b", "a"])
    out = pram(ds, transition={"c": labelled}, seed=0)
    assert (out.data["c"] == "b").all()
    with pytest.raises(ParameterError, match="labelled, rows and columns"):
        pram(ds, transition={"c": pd.DataFrame(np.eye(2), index=["a", "z"], columns=["a", "z"])}, seed=0)


def test_pram_same_seed_same_output():
    frame = pd.DataFrame({"c": list("abcde") * 40})
    ds = Dataset.from_pandas(frame, quasi_identifiers=["c"])
    a = pram(ds, p=0.5, seed=3).data
    b = pram(ds, p=0.5, seed=3).data
    c = pram(ds, p=0.5, seed=4).data
    pd.testing.assert_frame_equal(a, b)
    assert not a.equals(c)


@pytest.mark.parametrize(
    "kwargs, message",
    [
        ({}, r"exactly one of 'p'.*Got neither instead"),
        ({"p": 0.5, "transition": {"c": np.eye(3)}}, r"Got both instead"),
        ({"p": 1.5}, r"^The 'p' parameter of pram must be a float in \[0, 1\]\. Got 1\.5 instead\.$"),
        ({"p": {"other": 0.5}}, r"'p' parameter of pram names 'other'"),
        ({"transition": {"c": np.ones((3, 2)) / 2}}, r"must be square"),
        ({"transition": {"c": np.eye(2)}}, r"must be 3 x 3"),
        ({"transition": {"c": [[0.5, 0.5, 0.5], [0, 1, 0], [0, 0, 1]]}}, r"Row 0 sums to 1\.5"),
        ({"transition": {"c": [[1.2, -0.2, 0], [0, 1, 0], [0, 0, 1]]}}, r"nonnegative"),
        ({"transition": {"c": [["x", 0, 0], [0, 1, 0], [0, 0, 1]]}}, r"square array of floats"),
        ({"transition": {}}, r"has no matrix for column 'c'"),
        ({"transition": {"c": np.eye(3)}, "invariant": True}, r"'invariant' parameter of pram"),
        ({"p": 0.5, "seed": "x"}, r"'seed' parameter of pram"),
    ],
)
def test_pram_bad_parameters(kwargs, message):
    frame = pd.DataFrame({"c": ["a", "b", "c"] * 3})
    ds = Dataset.from_pandas(frame, quasi_identifiers=["c"])
    with pytest.raises(ParameterError, match=message):
        pram(ds, **kwargs)


def test_pram_unknown_column():
    frame = pd.DataFrame({"c": ["a", "b"]})
    ds = Dataset.from_pandas(frame, quasi_identifiers=["c"])
    with pytest.raises(ColumnNotFoundError, match="'d'"):
        pram(ds, ["d"], p=0.5)
