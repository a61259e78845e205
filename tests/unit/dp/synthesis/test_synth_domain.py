"""Public domains: parsing, encoding, and no metadata read from the data for free."""

import json

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from veil.dp.synthesis import parse_bins, parse_domain, synthesize
from veil.dp.synthesis._domain import ColumnDomain, decode, encode, resolve_domains
from veil.dp.synthesis._learn import OTHER, learn_categories
from veil.errors import ColumnNotFoundError, ParameterError, SchemaError


def test_bins_are_user_edges_by_hand():
    dom = parse_bins({"age": "0:100:10"})["age"]
    frame = pd.DataFrame({"age": [0, 9.99, 10, 100, 150, -5]})
    assert encode(frame, [dom])[:, 0].tolist() == [0, 0, 1, 9, 9, 0]  # clamped into [0, 100]
    assert dom.labels[0] == "[0, 10)" and dom.labels[-1] == "[90, 100]"


def test_values_outside_a_user_domain_drop_their_row():
    doms = [ColumnDomain("c", categories=("a", "b")), ColumnDomain("n", low=0.0, high=1.0, bins=2)]
    frame = pd.DataFrame({"c": ["a", "z", "b", None], "n": [0.1, 0.2, float("nan"), 0.9]})
    assert encode(frame, doms).tolist() == [[0, 0]]  # 'z', a missing c and a missing n: left out


def test_parse_domain_file(tmp_path):
    path = tmp_path / "d.json"
    path.write_text(json.dumps({"sex": ["F", "M"], "age": {"min": 0, "max": 90, "bins": 9}}))
    doms = parse_domain(path)
    assert doms["sex"].categories == ("F", "M") and doms["age"].size == 9


@pytest.mark.parametrize("spec", [{"a": []}, {"a": {"min": 0, "max": 1}}, {"a": {"min": 2, "max": 1, "bins": 3}},
                                  {"a": {"min": 0, "max": 1, "bins": 0}}, {"a": ["x", "x"]}, {"a": "x"}])
def test_bad_domains_are_refused(spec):
    with pytest.raises(ParameterError, match="'a'"):
        parse_domain(spec)


@pytest.mark.parametrize("text", ["0:100", "a:b:c", "0:100:1.5", "0:100:10:2"])
def test_bad_bins_are_refused(text):
    with pytest.raises(ParameterError, match="MIN:MAX:BINS"):
        parse_bins({"age": text})


def test_resolve_refuses_numbers_without_bounds_and_unknown_columns():
    frame = pd.DataFrame({"age": [1, 2], "sex": ["F", "M"]})
    with pytest.raises(SchemaError, match="--bins age=MIN:MAX:BINS"):
        resolve_domains(frame, {})
    with pytest.raises(ColumnNotFoundError, match="'zip'"):
        resolve_domains(frame, {"zip": ColumnDomain("zip", categories=("1",))})
    with pytest.raises(SchemaError, match="--max-categories 1"):
        resolve_domains(frame, {}, identifiers=("age",), max_categories=1)
    with pytest.raises(ParameterError, match="--max-categories 1"):
        resolve_domains(frame, {"sex": ColumnDomain("sex", categories=("F", "M"))}, identifiers=("age",),
                        max_categories=1)


def test_learned_categories_never_include_a_category_seen_once():
    column = pd.Series(["common"] * 5000 + ["rare"])
    for _ in range(20):
        assert learn_categories(column, epsilon=1.0, delta=1e-9) == ("common",)


def _frame(n=3000, seed=0):
    rng = np.random.default_rng(seed)
    return pd.DataFrame({"sex": rng.choice(["F", "M"], n), "city": rng.choice(["Oslo", "Rome"], n),
                         "age": rng.integers(23, 77, n)})


def _published(result) -> str:
    return result.frame.to_csv(index=False) + json.dumps(result.report)


def test_a_once_seen_category_never_reaches_the_output_or_the_report():
    frame = _frame()
    frame.loc[7, "city"] = "Xylophone-Town"        # seen once, not in the user's domain
    frame.loc[8, "sex"] = "Qwertyuiop"             # seen once, in a column learned under DP
    for seed in range(3):
        result = synthesize(frame, epsilon=1.0, domain={"city": ["Oslo", "Rome", "Paris"]},
                            bins={"age": "0:100:10"}, seed=seed)
        text = _published(result)
        assert "Xylophone" not in text and "Qwertyuiop" not in text
        assert result.report["domain_source"] == {"sex": "dp", "city": "user", "age": "user"}
        assert set(result.frame["sex"]) <= {"F", "M", OTHER}


def test_no_data_derived_bin_edge_or_bound_reaches_the_output_or_the_report():
    frame = _frame().astype({"age": float})  # the data's own min and max must not show up anywhere
    frame.loc[0, "age"] = 23.4567
    frame.loc[1, "age"] = 76.8912
    result = synthesize(frame, epsilon=1.0, domain={"sex": ["F", "M"], "city": ["Oslo", "Rome"]},
                        bins={"age": "0:100:10"}, seed=1)
    labels = set(result.frame["age"])
    assert labels <= {f"[{lo}, {lo + 10})" for lo in range(0, 90, 10)} | {"[90, 100]"}
    text = _published(result)
    for derived in ("23.4", "76.8", "23.5", "76.9"):
        assert derived not in text


@settings(max_examples=15, deadline=None)
@given(st.lists(st.tuples(st.sampled_from(["a", "b", "zz-rare", "", "Q"]), st.floats(-50, 250)),
                min_size=1, max_size=60))
def test_every_published_value_is_a_public_label(rows):
    frame = pd.DataFrame(rows, columns=["c", "x"])
    doms = {"c": ["a", "b", "c"], "x": {"min": 0, "max": 100, "bins": 4}}
    result = synthesize(frame, epsilon=2.0, domain=doms, seed=0)
    assert set(result.frame["c"]) <= {"a", "b", "c"}
    assert set(result.frame["x"]) <= {"[0, 25)", "[25, 50)", "[50, 75)", "[75, 100]"}
    assert "zz-rare" not in json.dumps(result.report) and "Q" not in set(result.frame["c"])
