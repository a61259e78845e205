"""Attacker models and QI discovery on small hand-computed tables."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from veil.classes import ClassTable
from veil.errors import ParameterError, SchemaError
from veil.risk import (
    assess,
    distinction,
    journalist_risk,
    marketer_risk,
    population_class_sizes,
    prosecutor_risk,
    quasi_identifier_ranking,
    separation,
)


def _table(sizes, *, name="q"):
    values = np.repeat([f"v{i}" for i in range(len(sizes))], sizes)
    return ClassTable.from_pandas(pd.DataFrame({name: values}), quasi_identifiers=[name])


def test_average_is_per_record_not_per_class():
    # classes of sizes 1 and 99: per record 2/100 = 0.02 (per class it would be (1 + 1/99)/2 = 0.505)
    risk = prosecutor_risk(_table([1, 99]))
    assert risk.average == 0.02
    assert risk.highest == 1.0 and risk.lowest == 1 / 99
    assert marketer_risk(_table([1, 99])).average == 0.02


def test_records_at_risk_is_strictly_above_threshold():
    # sizes 1, 4, 5: risks 1, 0.25, 0.2; above 0.2 -> the 1 + 4 = 5 records of the first two classes
    risk = prosecutor_risk(_table([1, 4, 5]), threshold=0.2)
    assert risk.records_at_risk_count == 5 and risk.records_at_risk == 0.5
    assert prosecutor_risk(_table([1, 4, 5]), threshold=0.25).records_at_risk_count == 1


def test_threshold_out_of_range():
    with pytest.raises(ParameterError, match=r"^The 'threshold' parameter of prosecutor_risk must be a float in \[0, 1\]\. Got 1\.5 instead\.$"):
        prosecutor_risk(_table([1]), threshold=1.5)


def test_input_suppressed_records_are_counted_apart():
    frame = pd.DataFrame({"a": ["x", "x", "y", "*", "*", "*"], "b": ["1", "1", "2", "*", "*", "*"]})
    classes = ClassTable.from_pandas(frame, quasi_identifiers=["a", "b"])
    report = assess(classes).to_dict()
    # the three all-* rows are not a class of size 3: 2 classes over 3 assessed records
    assert report["input_suppressed_records"] == 3 and report["suppressed_records"] == 3
    assert report["classes"] == 2 and report["records_assessed"] == 3 and report["records"] == 6
    assert report["prosecutor"]["average"] == 2 / 3 and report["prosecutor"]["lowest"] == 0.5


def test_journalist_with_a_population_table():
    sample = pd.DataFrame({"g": ["a", "a", "b", "c"]})
    population = pd.DataFrame({"g": ["a"] * 4 + ["b"] * 2 + ["c"] * 10 + ["d"] * 3})
    classes = ClassTable.from_pandas(sample, quasi_identifiers=["g"])
    # F = (4, 2, 10): highest 1/min F = 1/2; average (2/4 + 1/2 + 1/10) / 4 = 1.1 / 4 = 0.275
    j = journalist_risk(classes, population=population)
    assert j.case == "population" and j.highest == 0.5 and j.average == pytest.approx(0.275, abs=1e-15)
    assert marketer_risk(classes, population=population).average == pytest.approx(0.275, abs=1e-15)
    # the prosecutor still uses the sample: highest 1/1
    assert prosecutor_risk(classes).highest == 1.0
    report = assess(classes, population=population).to_dict()
    assert report["journalist"]["case"] == "population"
    # population: no class of size 1 among 19 records
    assert report["population_uniques"]["observed"] == 0.0
    assert report["population_uniques"]["population_size"] == 19


def test_population_through_the_sample_generalization():
    from veil.datasets import load_din_table

    din = load_din_table()
    decades = ClassTable.from_dataset(din).generalize({"YOB": 1})
    population = pd.concat([din.frame] * 3, ignore_index=True)  # every raw value three times
    sizes, _, big_n = population_class_sizes(decades, population)
    assert big_n == 33 and sorted(sizes.tolist()) == [6, 6, 6, 6, 9]


def test_population_smaller_than_sample():
    classes = ClassTable.from_pandas(pd.DataFrame({"g": ["a", "a", "b"]}), quasi_identifiers=["g"])
    with pytest.raises(ParameterError, match="fewer than the sample"):
        journalist_risk(classes, population=pd.DataFrame({"g": ["a", "b"]}))


def test_population_not_containing_sample():
    classes = ClassTable.from_pandas(pd.DataFrame({"g": ["a", "a", "b"]}), quasi_identifiers=["g"])
    with pytest.raises(ParameterError, match="must contain the sample"):
        journalist_risk(classes, population=pd.DataFrame({"g": ["a", "b", "b", "c"]}))


def test_population_missing_qi():
    classes = ClassTable.from_pandas(pd.DataFrame({"g": ["a", "b"]}), quasi_identifiers=["g"])
    with pytest.raises(SchemaError, match="lacks the quasi-identifier 'g'"):
        journalist_risk(classes, population=pd.DataFrame({"h": ["a", "b"]}))


def test_zero_rows_is_a_clear_error():
    from veil.dataset import Dataset

    empty = Dataset.from_pandas(pd.DataFrame({"g": pd.Series([], dtype=str)}), quasi_identifiers=["g"])
    with pytest.raises(SchemaError, match="no records"):
        prosecutor_risk(empty)
    with pytest.raises(SchemaError, match="no records"):
        assess(empty)


def test_dataframe_needs_quasi_identifiers():
    with pytest.raises(SchemaError, match="quasi_identifiers"):
        prosecutor_risk(pd.DataFrame({"g": ["a"]}))


def test_all_records_suppressed_gives_zero_not_nan():
    classes = _table([2, 3])
    gone = classes.suppress(np.array([True, True]))
    data = assess(gone).to_dict()
    assert data["prosecutor"] == {"highest": 0.0, "lowest": 0.0, "average": 0.0, "records_at_risk": 0.0,
                                  "records_at_risk_count": 0, "threshold": 0.2}
    assert data["records_assessed"] == 0 and data["suppressed_records"] == 5


def test_separation_single_class_and_single_record():
    assert separation(_table([4])) == 0.0  # all 6 pairs together
    assert separation(_table([1])) == 0.0  # no pairs at all
    assert separation(_table([1, 1, 1])) == 1.0
    assert distinction(_table([2, 2])) == 0.5


def test_ranking_order_and_max_size():
    frame = pd.DataFrame({"a": ["1", "1", "2", "2"], "b": ["x", "y", "x", "y"], "c": ["k"] * 4})
    classes = ClassTable.from_pandas(frame, quasi_identifiers=["a", "b", "c"])
    ranking = quasi_identifier_ranking(classes, max_size=2)
    assert len(ranking) == 6  # 3 singletons + 3 pairs
    # (a,b) separates all 6 pairs; a and b alone 4/6; c 0
    assert ranking[0].attributes == ("a", "b") and ranking[0].separation == 1.0
    assert ranking[-1].attributes == ("c",) and ranking[-1].separation == 0.0
    assert [s.separation for s in ranking] == sorted((s.separation for s in ranking), reverse=True)
    with pytest.raises(ParameterError):
        quasi_identifier_ranking(classes, max_size=0)


def test_assess_ranking_options():
    frame = pd.DataFrame({"a": ["1", "1", "2"], "b": ["x", "y", "x"], "c": ["k", "k", "m"]})
    classes = ClassTable.from_pandas(frame, quasi_identifiers=["a", "b", "c"])
    assert len(assess(classes).quasi_identifiers) == 4  # default: each QI alone + all together
    assert assess(classes, qi_subsets_max_size=0).quasi_identifiers == ()
    assert len(assess(classes, qi_subsets_max_size=3).quasi_identifiers) == 7


def test_assess_rejects_both_population_forms():
    with pytest.raises(ParameterError, match="not both"):
        assess(_table([1, 2]), population_fraction=0.5, population=pd.DataFrame({"q": ["v0"]}))


@pytest.mark.parametrize("fraction", [0.0, -0.1, 1.01])
def test_sampling_fraction_out_of_range(fraction):
    with pytest.raises(ParameterError, match=r"must be a float in \(0, 1\]"):
        assess(_table([1, 2]), population_fraction=fraction)
