"""Unit tests of veil.marginals: hand-computed IPF, KL identities, k-link anonymity on Adult, errors."""

from __future__ import annotations

import math
import warnings

import numpy as np
import pandas as pd
import pytest

from veil.classes import ClassTable
from veil.dataset import Dataset
from veil.errors import ColumnNotFoundError, ParameterError
from veil.hierarchy import Hierarchy
from veil.marginals import (
    Marginal,
    achieved_k_link,
    check_marginals,
    kl_to_original,
    marginal,
    maxent_estimate,
)
from veil.utility import kl_divergence


@pytest.fixture
def two_by_two():
    # counts: (x,p)=3, (x,q)=1, (y,p)=2, (y,q)=2; N = 8
    frame = pd.DataFrame({"a": list("xxxxyyyy"), "b": list("pppqppqq")})
    return ClassTable.from_pandas(frame, quasi_identifiers=["a", "b"])


@pytest.fixture(scope="module")
def adult_classes():
    from veil.datasets import load_adult

    return ClassTable.from_dataset(load_adult())


def _entropy(p):
    p = np.asarray(p, dtype=float)
    p = p[p > 0]
    return float(-(p * np.log2(p)).sum())


# ------------------------------------------------------------------ marginal
def test_marginal_table_counts_and_dense(two_by_two):
    m = marginal(two_by_two, ["b", "a"])
    assert m.attributes == ("b", "a") and m.levels == (0, 0)
    table = m.table.sort_values(["b", "a"]).reset_index(drop=True)
    assert table.to_dict("list") == {"b": ["p", "p", "q", "q"], "a": ["x", "y", "x", "y"], "count": [3, 2, 1, 2]}
    assert m.n_records == 8
    dense = m.dense()
    assert dense.sum() == 8 and dense.shape == (2, 2)


def test_marginal_levels_as_sequence_or_mapping_agree(adult_classes):
    by_seq = marginal(adult_classes, ["age", "sex"], [2, 0])
    by_map = marginal(adult_classes, ["age", "sex"], {"age": 2})
    assert by_seq.levels == by_map.levels == (2, 0)
    np.testing.assert_array_equal(by_seq.dense(), by_map.dense())
    # ten decades x two sexes, every record counted
    assert by_seq.shape == (10, 2) and by_seq.n_records == adult_classes.n_retained


def test_marginal_from_dataset_matches_class_table(adult, adult_classes):
    a = marginal(adult, ["education", "race"], [1, 0])
    b = marginal(adult_classes, ["education", "race"], [1, 0])
    np.testing.assert_array_equal(a.dense(), b.dense())


def test_marginal_counts_match_pandas_groupby(adult, adult_classes):
    m = marginal(adult_classes, ["race", "sex"])
    expected = adult.frame.groupby(["race", "sex"]).size()
    got = m.table.set_index(["race", "sex"])["count"]
    assert got.sort_index().to_dict() == expected.sort_index().to_dict()


def test_unknown_attribute_is_named(adult, adult_classes):
    with pytest.raises(ColumnNotFoundError, match="'zodiac'"):
        marginal(adult_classes, ["sex", "zodiac"])
    with pytest.raises(ColumnNotFoundError, match="'zodiac'"):
        marginal(adult, ["zodiac"])
    with pytest.raises(ColumnNotFoundError, match="'race'"):
        marginal(adult_classes, ["sex"], {"race": 1})


def test_bad_levels_and_attributes_are_refused(adult_classes):
    with pytest.raises(ParameterError, match=r"level of 'age' in marginal must be an int in \[0, 4\]. Got 5"):
        marginal(adult_classes, ["age"], [5])
    with pytest.raises(ParameterError, match="one level per attribute"):
        marginal(adult_classes, ["age", "sex"], [1])
    with pytest.raises(ParameterError, match="'sex' twice"):
        marginal(adult_classes, ["sex", "sex"])
    with pytest.raises(ParameterError, match="at least one attribute"):
        marginal(adult_classes, [])
    with pytest.raises(ParameterError, match="ClassTable or a Dataset"):
        marginal(pd.DataFrame({"a": [1]}), ["a"])


# ------------------------------------------------------------------ k-link anonymity
def test_age_decade_and_sex_is_5_anonymous_on_adult(adult_classes):
    m = marginal(adult_classes, ["age", "sex"], {"age": 2})
    assert check_marginals([m], 5)
    # tight: the smallest decade x sex cell holds 24 records
    k = achieved_k_link(m)
    assert k == int(m.counts.min()) == 24
    assert check_marginals([m], k) and not check_marginals([m], k + 1)


def test_k_link_is_the_weakest_marginal(adult_classes):
    coarse = marginal(adult_classes, ["age", "sex"], {"age": 2})
    fine = marginal(adult_classes, ["age", "sex"])  # single years: some cell of 1
    assert achieved_k_link(fine) == 1
    assert not check_marginals([coarse, fine], 2)
    assert achieved_k_link([coarse, fine]) == 1
    assert check_marginals([coarse, marginal(adult_classes, ["race"])], 5)


def test_check_marginals_refuses_bad_k_and_items(two_by_two):
    m = marginal(two_by_two, "a")
    with pytest.raises(ParameterError, match=r"^The 'k' parameter of KLinkAnonymity must be an int in \[1, inf\). Got 0 instead.$"):
        check_marginals([m], 0)
    with pytest.raises(ParameterError, match="at least one Marginal"):
        check_marginals([], 2)
    with pytest.raises(ParameterError, match="Item 0 is a ClassTable"):
        check_marginals([two_by_two], 2)


# ------------------------------------------------------------------ MaxEnt by IPF
def test_two_one_way_marginals_give_the_independence_product(two_by_two):
    est = maxent_estimate([marginal(two_by_two, "a"), marginal(two_by_two, "b")])
    # margins a: (4/8, 4/8), b: (5/8, 3/8); product: 5/16 3/16 / 5/16 3/16
    a_labels = list(est.hierarchies[0].labels[0])
    b_labels = list(est.hierarchies[1].labels[0])
    p = est.probabilities
    assert p[a_labels.index("x"), b_labels.index("p")] == pytest.approx(5 / 16, abs=1e-15)
    assert p[a_labels.index("x"), b_labels.index("q")] == pytest.approx(3 / 16, abs=1e-15)
    assert p[a_labels.index("y"), b_labels.index("p")] == pytest.approx(5 / 16, abs=1e-15)
    assert p[a_labels.index("y"), b_labels.index("q")] == pytest.approx(3 / 16, abs=1e-15)
    assert est.converged and est.iterations == 1  # non-overlapping margins: one cycle is exact
    # KL = 3/8 log2(6/5) + 1/8 log2(2/3) + 2/8 log2(4/5) + 2/8 log2(4/3)
    expected = 3 / 8 * math.log2(6 / 5) + 1 / 8 * math.log2(2 / 3) + 2 / 8 * math.log2(4 / 5) + 2 / 8 * math.log2(4 / 3)
    assert kl_to_original(est, two_by_two) == pytest.approx(expected, rel=1e-12)
    assert expected > 0


def test_full_two_way_marginal_reproduces_the_table(two_by_two):
    est = maxent_estimate([marginal(two_by_two, "a"), marginal(two_by_two, ["a", "b"])])
    frame = est.to_frame().set_index(["a", "b"])["probability"]
    assert frame.to_dict() == pytest.approx({("x", "p"): 3 / 8, ("x", "q"): 1 / 8, ("y", "p"): 2 / 8, ("y", "q"): 2 / 8})
    assert kl_to_original(est, two_by_two) == pytest.approx(0.0, abs=1e-12)


def test_seed_003_age_interval_constraints_spread_uniformly():
    # seed 003: "23% of tuples have the age attribute between [46-50] while 77% appear
    # between [50-55]" (the seed's overlapping 50 read as [51-55]).  The MaxEnt
    # distribution under these two constraints spreads each share uniformly over the
    # five ages of its interval: 0.23 / 5 = 0.046 and 0.77 / 5 = 0.154.
    ages = [str(a) for a in range(46, 56)]
    h = Hierarchy.from_rows([[a, "46-50" if int(a) <= 50 else "51-55", "*"] for a in ages], name="age")
    records = ["47"] * 20 + ["50"] * 3 + ["52"] * 70 + ["55"] * 7
    classes = ClassTable.from_pandas(pd.DataFrame({"age": records}), quasi_identifiers=["age"], hierarchies={"age": h})
    m = marginal(classes, "age", [1])
    assert m.table.set_index("age")["count"].to_dict() == {"46-50": 23, "51-55": 77}
    est = maxent_estimate(m)
    got = est.to_frame(nonzero=False).set_index("age")["probability"]
    for a in ages:
        assert got[a] == pytest.approx(0.046 if int(a) <= 50 else 0.154, abs=1e-15)


def test_estimate_meets_every_marginal_and_maximises_entropy(adult_classes):
    ms = [
        marginal(adult_classes, ["age", "sex"], {"age": 2}),
        marginal(adult_classes, ["sex", "race"]),
        marginal(adult_classes, ["race", "age"], {"age": 3}),
    ]  # a cycle of overlapping margins: IPF needs several cycles
    est = maxent_estimate(ms, tol=1e-12)
    assert est.converged and est.iterations > 1 and est.max_error <= 1e-12
    assert est.probabilities.sum() == pytest.approx(1.0, abs=1e-12)
    frame = est.to_frame(nonzero=False)
    for m in ms:
        # an independent check of each margin: roll the estimate's labels up with pandas
        cols = {}
        for name, level, h in zip(m.attributes, m.levels, m.hierarchies):
            leaf = pd.Series(range(h.n_values(0)), index=h.labels[0])
            cols[name] = h.labels[level][h.maps[level][leaf[frame[name]].to_numpy()]]
        fitted = frame.assign(**cols).groupby(list(m.attributes))["probability"].sum()
        target = m.table.set_index(list(m.attributes))["count"] / m.n_records
        joined = pd.concat([fitted, target], axis=1).fillna(0.0)
        np.testing.assert_allclose(joined.iloc[:, 0], joined.iloc[:, 1], atol=1e-10)
    # the empirical distribution meets the same margins, so it cannot have more entropy
    original = adult_classes.project(["age", "sex", "race"])
    assert est.entropy >= _entropy(original.counts / original.n_retained) - 1e-9


def test_kl_is_nonnegative_and_never_increases_when_a_marginal_is_added(adult_classes):
    chain = [
        marginal(adult_classes, ["age"], {"age": 2}),
        marginal(adult_classes, ["sex"]),
        marginal(adult_classes, ["marital-status"]),
        marginal(adult_classes, ["age", "sex"], {"age": 2}),
        marginal(adult_classes, ["sex", "marital-status"]),
        marginal(adult_classes, ["age", "marital-status"], {"age": 1}),
    ]
    original = adult_classes.project(["age", "sex", "marital-status"])
    h1 = _entropy(original.counts / original.n_retained)
    values = []
    for i in range(1, len(chain) + 1):
        est = maxent_estimate(chain[:i])  # domain: the marginals' attributes at level 0
        kl = kl_to_original(est, adult_classes)
        assert kl >= 0
        if len(est.attributes) == 3:
            # Pythagorean identity of the log-linear fit: KL(F1 || F2) = H(F2) - H(F1)
            assert kl == pytest.approx(est.entropy - h1, abs=1e-8)
            values.append(kl)
    assert len(values) == 4
    assert all(b <= a + 1e-9 for a, b in zip(values, values[1:]))
    assert values[-1] < values[0]  # the 2-way margins carry real information


def test_kl_matches_utility_kl_divergence_for_one_generalized_marginal(adult_classes):
    # one marginal over all the estimate's attributes: MaxEnt spreads each cell uniformly
    # over its leaves, exactly the estimate veil.utility.kl_divergence scores
    base = adult_classes.project(["age", "education"])
    for levels in [(2, 1), (1, 0), (3, 2)]:
        est = maxent_estimate(marginal(adult_classes, ["age", "education"], levels))
        assert est.iterations == 1
        expected = kl_divergence(base, base.generalize(levels))
        assert expected > 0
        assert kl_to_original(est, adult_classes) == pytest.approx(expected, rel=1e-10)


def test_domain_can_be_coarser_than_the_leaves(adult_classes):
    ms = [marginal(adult_classes, ["age", "sex"], {"age": 2}), marginal(adult_classes, ["sex", "race"])]
    est = maxent_estimate(ms, domain={"age": 2, "sex": 0, "race": 0})
    assert est.probabilities.shape == (10, 2, 5) and est.levels == (2, 0, 0)
    # decomposable (age, sex) + (sex, race): one cycle, and the estimate is
    # p(age, sex) p(race | sex), checked at one cell
    a, s = ms[0].dense() / ms[0].n_records, ms[1].dense() / ms[1].n_records
    expected = a[:, :, None] * s[None, :, :] / s.sum(axis=1)[None, :, None]
    np.testing.assert_allclose(est.probabilities, expected, atol=1e-14)
    assert est.iterations == 1


def test_joint_domain_size_limit(adult_classes):
    ms = [marginal(adult_classes, [q]) for q in adult_classes.quasi_identifiers]
    with pytest.raises(ParameterError, match=r"more than max_cells=10000000\. Use coarser domain levels"):
        maxent_estimate(ms)
    with pytest.raises(ParameterError, match=r"has 4 cells \(a=2 x b=2\), more than max_cells=3"):
        frame = pd.DataFrame({"a": list("xy"), "b": list("pq")})
        c = ClassTable.from_pandas(frame, quasi_identifiers=["a", "b"])
        maxent_estimate([marginal(c, "a"), marginal(c, "b")], max_cells=3)


def test_domain_errors_name_the_attribute(adult_classes):
    ms = [marginal(adult_classes, ["age", "sex"], {"age": 2})]
    with pytest.raises(ColumnNotFoundError, match="'race', which no marginal covers"):
        maxent_estimate(ms, domain=["age", "sex", "race"])
    with pytest.raises(ParameterError, match="lacks 'sex'"):
        maxent_estimate(ms, domain=["age"])
    with pytest.raises(ParameterError, match="level of 'age' .* must be at most 2"):
        maxent_estimate(ms, domain={"age": 3, "sex": 0})


def test_marginals_of_different_totals_are_refused(adult_classes):
    node = adult_classes.project(["age", "sex"])
    suppressed = node.suppress(node.counts < 3)
    with pytest.raises(ParameterError, match="must count the same records: marginal 0 counts 30162"):
        maxent_estimate([marginal(adult_classes, "race"), marginal(suppressed, ["age", "sex"])])


def test_non_convergence_warns_and_is_reported(adult_classes):
    ms = [
        marginal(adult_classes, ["age", "sex"], {"age": 2}),
        marginal(adult_classes, ["sex", "race"]),
        marginal(adult_classes, ["race", "age"], {"age": 2}),
    ]
    with pytest.warns(RuntimeWarning, match="did not converge in max_iter=1"):
        est = maxent_estimate(ms, domain={"age": 2, "sex": 0, "race": 0}, max_iter=1, tol=1e-15)
    assert not est.converged and est.iterations == 1 and est.max_error > 1e-15
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert maxent_estimate(ms, domain={"age": 2, "sex": 0, "race": 0}).converged


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"tol": 0.0}, r"^The 'tol' parameter of maxent_estimate must be a float in \(0, inf\)\. Got 0\.0 instead\.$"),
        ({"max_iter": 0}, r"^The 'max_iter' parameter of maxent_estimate must be an int in \[1, inf\)\. Got 0 instead\.$"),
        ({"max_cells": 0}, r"^The 'max_cells' parameter of maxent_estimate must be an int in \[1, inf\)\. Got 0 instead\.$"),
    ],
)
def test_maxent_parameters_are_validated(two_by_two, kwargs, message):
    with pytest.raises(ParameterError, match=message):
        maxent_estimate(marginal(two_by_two, "a"), **kwargs)


def test_kl_to_original_errors(two_by_two, adult_classes):
    est = maxent_estimate(marginal(two_by_two, "a"))
    with pytest.raises(ColumnNotFoundError, match="'a' is not a quasi-identifier"):
        kl_to_original(est, adult_classes)
    with pytest.raises(ParameterError, match="must be a MaxEntEstimate"):
        kl_to_original(marginal(two_by_two, "a"), two_by_two)
    other = ClassTable.from_pandas(pd.DataFrame({"a": list("xyz")}), quasi_identifiers=["a"])
    with pytest.raises(ParameterError, match="another hierarchy for 'a'"):
        kl_to_original(est, other)


def test_kl_uses_the_original_records_of_a_derived_table(adult_classes):
    est = maxent_estimate(marginal(adult_classes, ["sex", "race"]))
    node = adult_classes.generalize({"age": 3}).project(["sex", "race", "age"])
    assert kl_to_original(est, node) == pytest.approx(0.0, abs=1e-12)
    assert kl_to_original(est, adult_classes) == pytest.approx(0.0, abs=1e-12)


def test_marginal_is_a_value_over_its_class_table(two_by_two):
    m = marginal(two_by_two, "a")
    assert isinstance(m, Marginal)
    assert repr(m) == "Marginal({'a': 0}, 2 cells, 8 records)"


# ------------------------------------------------------------------ greedy choice
from veil.marginals import choose_marginals  # noqa: E402
from veil.marginals._selection import _candidates  # noqa: E402

_ATTRS = ["age", "sex", "race", "marital-status"]


def test_choose_marginals_is_k_link_anonymous_and_lowers_kl(adult_classes):
    sel = choose_marginals(adult_classes, _ATTRS, k=10)
    assert 1 <= len(sel.marginals) <= 5 and len(sel.kl) == len(sel.marginals) + 1
    assert check_marginals(sel.marginals, 10)
    assert all(b < a for a, b in zip(sel.kl, sel.kl[1:]))
    assert all(len(m.attributes) <= 2 for m in sel.marginals)
    assert kl_to_original(sel.estimate, adult_classes) == pytest.approx(sel.kl[-1], abs=1e-12)
    assert sel.estimate.attributes == tuple(_ATTRS)


def test_choose_marginals_first_pick_is_the_best_single_candidate(adult_classes):
    sel = choose_marginals(adult_classes, _ATTRS, k=10, max_marginals=1)
    tops = [marginal(adult_classes, [a], [adult_classes.hierarchy(a).height]) for a in _ATTRS]
    domain = {a: 0 for a in _ATTRS}
    cands = _candidates(adult_classes, tuple(_ATTRS), domain, 10, 2)
    assert cands and all(int(c.counts.min()) >= 10 for c in cands)
    best = min(kl_to_original(maxent_estimate(tops + [c], domain), adult_classes) for c in cands)
    assert sel.kl[1] == pytest.approx(best, abs=1e-12)
    # the uniform distribution over the domain: KL = log2 |domain| - H(F1)
    original = adult_classes.project(_ATTRS)
    assert sel.kl[0] == pytest.approx(math.log2(100 * 2 * 5 * 7) - _entropy(original.counts / original.n_retained))


def test_choose_marginals_width_one_and_parameters(adult_classes):
    sel = choose_marginals(adult_classes, ["sex", "race"], k=5, max_width=1)
    assert all(len(m.attributes) == 1 for m in sel.marginals)
    with pytest.raises(ParameterError, match=r"'max_width' parameter of choose_marginals must be an int in \[1, 2\]"):
        choose_marginals(adult_classes, ["sex"], k=5, max_width=3)
    with pytest.raises(ColumnNotFoundError, match="'zodiac'"):
        choose_marginals(adult_classes, ["sex", "zodiac"], k=5)


# ------------------------------------------------------------------ k-combinatorial, MaxEnt l-diversity
def test_k_combinatorial_on_adult_equals_the_frechet_bounds(adult_classes):
    from veil.datasets import load_adult
    from veil.marginals import k_combinatorial

    frame = load_adult().frame
    ms = [marginal(adult_classes, ["sex", "race"]), marginal(adult_classes, ["race", "marital-status"])]
    # decomposable (they share race only): given race, sex and marital-status form a transportation
    # problem, so max T(s, r, m) = min(M1(s, r), M2(r, m)), computed here from pandas cross tables
    m1 = frame.groupby(["sex", "race"]).size()
    m2 = frame.groupby(["race", "marital-status"]).size()
    bounds = [min(m1[(s, r)], m2[(r, m)]) for (s, r) in m1.index for (r2, m) in m2.index if r2 == r]
    result = k_combinatorial(ms)
    assert result.k == min(bounds)
    assert int(result.most.sum()) == sum(bounds)


def test_marginal_privacy_errors():
    from veil.marginals import check_maxent_l_diversity, k_combinatorial, maxent_l_diversity

    frame = pd.DataFrame({"a": list("xxyy"), "b": list("pqpq"), "s": list("ABAB")})
    classes = ClassTable.from_pandas(frame, quasi_identifiers=["a", "b"])
    with pytest.raises(ParameterError, match="max_cells=3"):
        k_combinatorial([marginal(classes, ["a", "b"])], max_cells=3)
    with pytest.raises(ParameterError, match="declare 0"):
        maxent_l_diversity([marginal(classes, "a")])
    data = Dataset.from_pandas(frame, quasi_identifiers=["a", "b"], sensitive=["s"])
    with pytest.raises(ParameterError, match="in no marginal"):
        maxent_l_diversity([marginal(data, "a")], sensitive="s")
    with pytest.raises(ParameterError, match="needs c"):
        check_maxent_l_diversity([marginal(data, ["a", "s"])], 2, measure="recursive")
    with pytest.raises(ParameterError, match="not one of its attributes"):
        marginal(data, ["a"], sensitive=["s"])
    # sensitive=[] overrides the schema: the (a, s) marginal is then judged on all its cells
    assert achieved_k_link([marginal(data, ["a", "s"], sensitive=[])]) == 1
    assert achieved_k_link([marginal(data, ["a", "s"])]) == 2
