"""Every multivariate singling-out candidate counted on the class tables, against a plain count."""

from __future__ import annotations

from itertools import combinations

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from veil.evaluate import evaluate
from veil.evaluate._candidates import draw_singling_out, singling_out_candidates
from veil.evaluate._columns import encode_tables
from veil.evaluate._predicates import EQ, GE, ISNULL, LE, match_counts
from veil.evaluate._singling_out import distinct_rows, draw_in_batches, release_medians, univariate_predicates

RELEASE = pd.DataFrame({"age": ["[20, 40)", "[20, 40)", "[40, 60)", "[40, 60)", "[20, 40)"],
                        "sex": ["M", "F", "M", "M", "M"], "zip": ["130**", "130**", "130**", "148**", "130**"]})
ORIGINAL = pd.DataFrame({"age": [25, 33, 45, 52, 27, 41], "sex": ["M", "F", "M", "M", "M", "M"],
                         "zip": [13053, 13012, 13067, 14850, 14812, 13001]})


def test_a_generalized_release_by_hand():
    # distinct released records r0..r3 (the fifth repeats r0); pairs of columns:
    #   {age, sex}: r0 ([20,40), M) and r1 ([20,40), F) are alone; r2, r3 share ([40,60), M)
    #   {age, zip}: r0, r1 share ([20,40), 130**); r2 ([40,60), 130**) and r3 ([40,60), 148**) are alone
    #   {sex, zip}: r0, r2 share (M, 130**); r1 (F, 130**) and r3 (M, 148**) are alone
    tables = encode_tables(ORIGINAL, None, RELEASE, ["age", "sex", "zip"])
    rows = distinct_rows(tables, "release", ["age", "sex", "zip"])
    assert rows.tolist() == [0, 1, 2, 3]
    sets, single = singling_out_candidates(tables, ["age", "sex", "zip"], rows, 2, np.full(3, np.nan))
    assert sets.tolist() == [[0, 1], [0, 2], [1, 2]]
    assert single.astype(int).tolist() == [[1, 1, 0, 0], [0, 0, 1, 1], [0, 1, 0, 1]]
    # the six predicates on the original (labels cover: [20, 40) the ages 20..39, 130** the zips 130xx):
    #   [20,40) & M: 25, 27 (2)   [20,40) & F: 33 (1)   [40,60) & 130**: 45, 41 (2)
    #   [40,60) & 148**: 52 (1)   F & 130**: 13012 (1)   M & 148**: 14850, 14812 (2)
    # three of six single out an original record; without a control and at confidence 0 the
    # risk is the rate, 3 / 6
    result = evaluate(ORIGINAL, RELEASE, None, attacks=["singling-out"], aux=["age", "sex", "zip"], n_cols=2,
                      n_attacks=6, confidence=0.0, seed=0)["singling_out"]["multivariate"]
    assert result["n_attacks"] == 6
    assert result["main"] == pytest.approx(0.5)
    assert result["risk"] == pytest.approx(0.5)


def test_fewer_attacks_than_candidates_draws_a_sample_of_them():
    result = evaluate(ORIGINAL, RELEASE, None, attacks=["singling-out"], aux=["age", "sex", "zip"], n_cols=2,
                      n_attacks=4, confidence=0.0, seed=0)["singling_out"]["multivariate"]
    assert result["n_attacks"] == 4
    assert result["main"] in {k / 4 for k in range(1, 4)}  # 3 of the 6 succeed: 1 to 3 of any 4


def random_tables(seed: int, n: int):
    rng = np.random.default_rng(seed)
    frame = pd.DataFrame({"a": rng.choice(["x", "y", "z"], n), "b": rng.choice(["p", "q"], n),
                          "c": rng.choice(["u", "v", "w", "t"], n),
                          "x": np.where(rng.random(n) < 0.15, np.nan, rng.integers(0, 6, n).astype(float))})
    return encode_tables(frame, frame, frame, list(frame.columns)), list(frame.columns)


def reference(tables, names, rows, n_cols):
    """A plain count: each distinct record's predicate on each set of columns against every record."""
    numeric = [tables.columns[n].numeric for n in names]
    data = [[tables.release[n][r] for n in names] for r in rows]
    medians = [np.nanmedian([d[c] for d in data]) if numeric[c] and any(d[c] == d[c] for d in data) else np.nan
               for c in range(len(names))]

    def matches(target, other, chosen):
        for c in chosen:
            v, w = target[c], other[c]
            if not numeric[c]:
                if v != w:
                    return False
            elif v != v:  # missing: ISNULL
                if w == w:
                    return False
            elif w != w or not (w >= v if v > medians[c] else w <= v):
                return False
        return True

    out = []
    for chosen in combinations(range(len(names)), n_cols):
        out.append([sum(matches(t, o, chosen) for o in data) == 1 for t in data])
    return out


@settings(max_examples=60, deadline=None)
@given(seed=st.integers(0, 2**31 - 1), n=st.integers(1, 40), n_cols=st.integers(1, 4))
def test_grouped_candidates_equal_a_plain_count(seed, n, n_cols):
    tables, names = random_tables(seed, n)
    rows = distinct_rows(tables, "release", names)
    medians = release_medians(tables, names, rows)
    _, single = singling_out_candidates(tables, names, rows, n_cols, medians)
    assert single.tolist() == reference(tables, names, rows, n_cols)


@settings(max_examples=10, deadline=None)
@given(seed=st.integers(0, 2**31 - 1), n=st.integers(2, 20))
def test_counting_every_candidate_finds_what_drawing_them_finds(seed, n):
    # drawing stops after 32 draws per candidate (at most 20 records × 4 sets of columns): each
    # candidate is missed with probability e^-32, any of the 80 with probability below 1e-12
    tables, names = random_tables(seed, n)
    rows = distinct_rows(tables, "release", names)
    medians = release_medians(tables, names, rows)
    counted = draw_singling_out(tables, names, rows, 1000, 3, np.random.default_rng(seed), medians)
    drawn = draw_in_batches(tables, names, rows, 1000, 3, np.random.default_rng(seed), 20_000, medians)
    assert sorted(counted.keys()) == sorted(drawn.keys())


def plain_univariate(tables, names, rows):
    """The univariate predicates, each counted against every distinct released record by hand."""
    out = []
    for c, name in enumerate(names):
        xs = [tables.release[name][r] for r in rows]
        if tables.columns[name].numeric:
            finite = [x for x in xs if x == x]
            cands = [(EQ, v) for v in set(finite) if finite.count(v) == 1]
            cands += [(LE, min(finite)), (GE, max(finite))] if finite else []
            cands += [(ISNULL, np.nan)] if len(xs) - len(finite) == 1 else []
            hits = {EQ: lambda x, v: x == v, LE: lambda x, v: x <= v, GE: lambda x, v: x >= v,
                    ISNULL: lambda x, v: x != x}
            out += [f"{c}:{op}:-1:{v}" for op, v in cands if sum(bool(hits[op](x, v)) for x in xs) == 1]
        else:
            out += [f"{c}:{EQ}:{v}:nan" for v in set(xs) if xs.count(v) == 1]
    return sorted(out)


@settings(max_examples=60, deadline=None)
@given(seed=st.integers(0, 2**31 - 1), n=st.integers(1, 40))
def test_univariate_predicates_are_those_a_plain_count_finds(seed, n):
    tables, names = random_tables(seed, n)
    rows = distinct_rows(tables, "release", names)
    found = univariate_predicates(tables, names, rows, 10_000, np.random.default_rng(seed))
    assert sorted(found.keys()) == plain_univariate(tables, names, rows)
    assert (match_counts(tables, "release", found, rows) == 1).all()
