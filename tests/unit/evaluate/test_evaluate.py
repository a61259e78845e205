"""The attacks on releases of every kind, and their control comparison."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from veil.errors import ColumnNotFoundError, ParameterError, SchemaError
from veil.evaluate import evaluate, split


def population(n: int, rng: np.random.Generator) -> pd.DataFrame:
    """Six nominal columns of 60 values and one continuous: nearly every record is unique."""
    frame = pd.DataFrame({f"c{i}": np.char.add("v", rng.integers(0, 60, n).astype(str)) for i in range(6)})
    frame["x"] = rng.normal(50, 10, n).round(3)
    return frame


def leaky(p: float, seed: int = 7) -> tuple[pd.DataFrame, pd.DataFrame, pd.DataFrame]:
    """An original, a control and a synthetic table of independent records with a share ``p``
    of the original's records copied in (Anonymeter's calibration)."""
    rng = np.random.default_rng(seed)
    original, control, synthetic = population(3000, rng), population(1500, rng), population(3000, rng)
    k = int(round(p * len(synthetic)))
    synthetic.iloc[:k] = original.iloc[rng.choice(len(original), k, replace=False)].to_numpy()
    return original, control, synthetic.sample(frac=1, random_state=1).reset_index(drop=True)


@pytest.mark.slow
@pytest.mark.parametrize("p", [0.0, 0.1, 0.25, 0.5, 1.0])
def test_calibration_risk_follows_the_share_of_copied_records(p):
    original, control, synthetic = leaky(p)
    result = evaluate(original, synthetic, control, attacks=["singling-out", "linkability"],
                      aux=[f"c{i}" for i in range(6)], link_aux=(["c0", "c1", "c2"], ["c3", "c4", "c5"]), seed=3)
    assert result["singling_out"]["multivariate"]["risk"] == pytest.approx(p, abs=0.05)
    assert result["linkability"]["risk"] == pytest.approx(p, abs=0.05)


def test_a_copy_leaks_and_a_column_shuffle_does_not():
    original, control, _ = leaky(0.0)
    copy = original.sample(frac=1, random_state=2).reset_index(drop=True)
    shuffled = original.copy()
    rng = np.random.default_rng(5)
    for name in shuffled.columns:
        shuffled[name] = shuffled[name].to_numpy()[rng.permutation(len(shuffled))]
    kw = dict(secret=["x"], aux=[f"c{i}" for i in range(6)], n_attacks=300, seed=1)
    high, low = evaluate(original, copy, control, **kw), evaluate(original, shuffled, control, **kw)
    for attack in (lambda r: r["singling_out"]["multivariate"], lambda r: r["linkability"],
                   lambda r: r["inference"]["x"]):
        assert attack(high)["risk"] > 0.9
        assert attack(low)["risk"] < 0.1


def test_a_release_equal_to_the_original_is_risk_one_not_an_error():
    original, control, _ = leaky(0.0)
    result = evaluate(original, original, control, attacks=["singling-out", "linkability"], n_attacks=200,
                      aux=[f"c{i}" for i in range(6)], seed=0)
    assert result["singling_out"]["multivariate"]["risk"] > 0.95
    assert result["linkability"]["risk"] > 0.95


def test_generalized_values_match_what_they_cover_and_suppressed_records_nothing():
    original = pd.DataFrame({"age": [23, 27, 35, 38, 51], "sex": ["F", "M", "F", "M", "F"], "d": list("abcde")})
    release = pd.DataFrame({"age": ["[20, 30)", "[20, 30)", "[30, 40)", "[30, 40)", "*"],
                            "sex": ["*", "*", "*", "*", "*"], "d": ["a", "a", "c", "d", "*"]})
    result = evaluate(original, release, None, attacks=["linkage", "homogeneity"], n_attacks=5, secret=["d"],
                      quasi_identifiers=["age", "sex"], confidence=0.0, seed=0)
    # each target's age is covered by the two records of its band (sex '*' covers both sexes), so
    # none is linked to one record; the 51-year-old matches nothing (that record is suppressed)
    assert result["attacks"]["linkage"]["main"] == 0.0
    assert result["parameters"]["suppressed_records"] == 1
    # the band [20, 30) holds one secret, 'a': right for the 23-year-old, wrong for the 27-year-old
    assert result["attacks"]["homogeneity"]["d"]["main"] == pytest.approx(1 / 5)


def test_split_holds_out_a_share_and_keeps_every_record_once():
    frame = pd.DataFrame({"a": range(1000)})
    train, held = split(frame, 0.2, seed=4)
    assert len(held) == 200 and len(train) == 800
    assert sorted(pd.concat([train, held])["a"]) == list(range(1000))
    again, _ = split(frame, 0.2)  # OS randomness: not the seeded draw
    assert len(again) == 800


@pytest.mark.parametrize(("change", "error", "match"), [
    ("empty", SchemaError, "no records"),
    ("extra column", ColumnNotFoundError, "not a column of the original"),
    ("small control", ParameterError, "fewer than"),
    ("overlap", ParameterError, "also records of the original"),
    ("secret known", ParameterError, "unknown to the attacker"),
])
def test_bad_input_is_refused(change, error, match):
    original, control, synthetic = leaky(0.0)
    kw: dict = dict(n_attacks=100, seed=0)
    if change == "empty":
        synthetic = synthetic.iloc[:0]
    elif change == "extra column":
        synthetic = synthetic.assign(name="x")
    elif change == "small control":
        control = control.iloc[:50]
    elif change == "overlap":
        control = original.iloc[:1000]
    else:
        kw.update(secret=["x"], aux=["x", "c0"])
    with pytest.raises(error, match=match):
        evaluate(original, synthetic, control, **kw)
