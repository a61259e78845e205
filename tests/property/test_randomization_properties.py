"""Property tests of the randomizing algorithms (αβ, PRAM) and their helpers.

* PRAM keeps the row count and alignment, never touches other columns or
  missing values, releases only categories of the column, and p = 1 is the
  identity;
* the αβ view is a set of domain tuples that contains every true tuple when
  α + β = 1 and equals I when moreover β = 0;
* Theorem 4.3: every (α, β) accepted by ``is_private`` keeps Bayes' posterior
  within (d, γ) for every prior up to d;
* the invariant matrix has the original counts as a fixed point, and the
  PRAM estimator inverts the expected counts exactly.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from veil.algorithms.randomization import (
    alpha_beta,
    alpha_beta_posterior,
    invariant_transition,
    is_private,
    pram,
    pram_estimate,
)
from veil.dataset import Dataset

SETTINGS = settings(max_examples=80, deadline=None, suppress_health_check=[HealthCheck.too_slow])


@st.composite
def categorical_tables(draw, with_missing=True):
    n = draw(st.integers(min_value=1, max_value=50))
    n_cols = draw(st.integers(min_value=1, max_value=3))
    columns = {}
    for j in range(n_cols):
        n_values = draw(st.integers(min_value=1, max_value=5))
        values = [f"v{i}" for i in range(n_values)] + ([None] if with_missing else [])
        columns[f"c{j}"] = draw(st.lists(st.sampled_from(values), min_size=n, max_size=n))
    columns["other"] = list(range(n))
    return pd.DataFrame(columns)


@SETTINGS
@given(categorical_tables(), st.floats(min_value=0.0, max_value=1.0), st.integers(0, 2**32 - 1))
def test_pram_keeps_rows_and_alignment(frame, p, seed):
    columns = [c for c in frame.columns if c != "other"]
    ds = Dataset.from_pandas(frame, quasi_identifiers=columns, insensitive=["other"])
    out = pram(ds, columns, p=p, seed=seed)
    assert len(out.data) == len(frame)
    assert list(out.data.columns) == list(frame.columns)
    assert out.data["other"].tolist() == frame["other"].tolist()
    for column in columns:
        released = out.data[column]
        assert (released.isna() == frame[column].isna()).all()
        assert set(released.dropna()) <= set(frame[column].dropna())
        assert out.details["transitions"][column]["categories"] == sorted(set(frame[column].dropna()))
    identity = pram(ds, columns, p=1.0, seed=seed)
    for column in columns:
        assert identity.data[column].fillna("<na>").tolist() == frame[column].fillna("<na>").tolist()


@st.composite
def transition_matrices(draw, k):
    rows = []
    for _ in range(k):
        weights = draw(st.lists(st.floats(min_value=0.0, max_value=1.0), min_size=k, max_size=k))
        weights = np.array(weights)
        if weights.sum() == 0:
            weights[0] = 1.0
        rows.append(weights / weights.sum())
    return np.array(rows)


@SETTINGS
@given(st.data(), st.integers(0, 2**32 - 1))
def test_pram_with_any_valid_matrix_keeps_rows(data, seed):
    k = data.draw(st.integers(min_value=1, max_value=5))
    n = data.draw(st.integers(min_value=1, max_value=60))
    values = data.draw(st.lists(st.integers(0, k - 1), min_size=n, max_size=n))
    frame = pd.DataFrame({"c": [f"v{v}" for v in values]})
    ds = Dataset.from_pandas(frame, quasi_identifiers=["c"])
    categories = sorted(set(frame["c"]))
    matrix = data.draw(transition_matrices(len(categories)))
    out = pram(ds, transition={"c": matrix}, seed=seed)
    assert len(out.data) == n
    # a value only moves to a category its row gives positive probability
    index = {c: i for i, c in enumerate(categories)}
    for before, after in zip(frame["c"], out.data["c"]):
        assert matrix[index[before], index[after]] > 0


@SETTINGS
@given(categorical_tables(with_missing=False), st.integers(0, 2**32 - 1),
       st.floats(min_value=0.01, max_value=1.0), st.floats(min_value=0.0, max_value=1.0))
def test_alpha_beta_view_is_a_set_of_domain_tuples(frame, seed, alpha, share):
    columns = [c for c in frame.columns if c != "other"]
    ds = Dataset.from_pandas(frame, quasi_identifiers=columns)
    domains = {c: [f"v{i}" for i in range(6)] for c in columns}
    beta = (1.0 - alpha) * share
    out = alpha_beta(ds, columns, alpha=alpha, beta=beta, domains=domains, seed=seed)
    view = list(map(tuple, out.data[columns].to_numpy().tolist()))
    assert len(view) == len(set(view))
    assert all(all(v in domains[c] for v, c in zip(t, columns)) for t in view)
    true = set(map(tuple, frame[columns].to_numpy().tolist()))
    everything = alpha_beta(ds, columns, alpha=1.0 - beta, beta=beta, domains=domains, seed=seed)
    assert true <= set(map(tuple, everything.data[columns].to_numpy().tolist()))
    exact = alpha_beta(ds, columns, alpha=1.0, beta=0.0, domains=domains, seed=seed)
    assert set(map(tuple, exact.data[columns].to_numpy().tolist())) == true and len(exact.data) == len(true)


@SETTINGS
@given(
    st.floats(min_value=1e-6, max_value=0.9),
    st.floats(min_value=0.01, max_value=1.0),
    st.floats(min_value=0.01, max_value=1.0),
    st.floats(min_value=0.0, max_value=1.0),
)
def test_theorem_4_3_conditions_bound_the_posterior(d, gamma, keep, share):
    """Any private (α, β) gives, for every prior p ≤ d: Pr[t|t∈V] ≤ γ (no positive
    leakage) and Pr[t|t∉V]/p ≥ d/γ (no negative leakage), by Bayes' rule.

    The tolerance is absolute (1e-12): ``is_private`` accepts α + β within 1e-12
    of 1 − d/γ, so that the pair computed from the bounds passes despite rounding.
    """
    assume(d < gamma)
    alpha, beta = keep * (1 - share), keep * share
    assume(alpha > 0)
    if not is_private(alpha, beta, d=d, gamma=gamma):
        return
    priors = np.linspace(0, d, 201)[1:]
    seen, unseen = alpha_beta_posterior(alpha, beta, priors)
    assert (seen <= gamma + 1e-12).all()
    assert (unseen / priors >= d / gamma - 1e-12).all()


@SETTINGS
@given(st.lists(st.integers(min_value=0, max_value=1000), min_size=1, max_size=12),
       st.floats(min_value=0.0, max_value=1.0))
def test_invariant_matrix_fixed_point(counts, p):
    counts = np.array(counts, dtype=float)
    assume(counts.sum() > 0)
    matrix = invariant_transition(counts, p)
    assert (matrix >= 0).all()
    np.testing.assert_allclose(matrix.sum(axis=1), 1.0, atol=1e-12)
    np.testing.assert_allclose(counts @ matrix, counts, rtol=1e-9, atol=1e-9)


@SETTINGS
@given(st.data())
def test_pram_estimate_inverts_expected_counts(data):
    k = data.draw(st.integers(min_value=1, max_value=6))
    diag = data.draw(st.floats(min_value=0.6, max_value=1.0))
    matrix = data.draw(transition_matrices(k))
    matrix = diag * np.eye(k) + (1 - diag) * matrix  # diagonally dominant: invertible
    true = np.array(data.draw(st.lists(st.integers(0, 500), min_size=k, max_size=k)), dtype=float)
    np.testing.assert_allclose(pram_estimate(matrix.T @ true, matrix), true, atol=1e-6)
