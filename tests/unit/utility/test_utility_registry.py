"""The metric registry and the report: names, directions, needs, and Adult cross-checks."""

from __future__ import annotations

import json
import math

import numpy as np
import pandas as pd
import pytest

from veil.classes import ClassTable
from veil.errors import ParameterError
from veil.utility import METRICS, Metric, get_metric, precision, utility_report

NAMES = ["height", "precision", "loss", "discernibility", "avg-class-size", "entropy", "classification",
         "infogain", "kl", "arx-loss"]


@pytest.fixture(scope="module")
def adult_classes(adult):
    return ClassTable.from_dataset(adult)


@pytest.fixture
def small():
    frame = pd.DataFrame({"sex": ["F", "F", "M", "M", "M"], "y": ["a", "b", "b", "b", "a"]})
    return ClassTable.from_pandas(frame, quasi_identifiers=["sex"], sensitive=["y"])


def test_registry_keys_and_facts():
    assert list(METRICS) == NAMES
    assert all(isinstance(m, Metric) and m.name == key for key, m in METRICS.items())
    assert [n for n, m in METRICS.items() if not m.lower_is_better] == ["precision"]
    assert [n for n, m in METRICS.items() if m.needs_label] == ["classification", "infogain"]
    assert [n for n, m in METRICS.items() if m.needs_k] == ["avg-class-size"]
    assert [n for n, m in METRICS.items() if not m.monotone] == ["kl"]
    assert [n for n, m in METRICS.items() if m.monotone_with_suppression] == ["height"]
    assert [n for n, m in METRICS.items() if m.additive] == ["height", "precision", "loss", "entropy", "arx-loss"]
    assert [n for n, m in METRICS.items() if m.bounded_by_unsuppressed] == [
        "height", "precision", "loss", "discernibility", "entropy", "classification", "arx-loss"]
    with pytest.raises(TypeError):
        METRICS["x"] = METRICS["height"]  # read-only


def test_get_metric_lists_the_valid_names():
    assert get_metric("loss") is METRICS["loss"]
    with pytest.raises(ParameterError, match=r"^The metric must be one of \{'height', 'precision', .*'kl', 'arx-loss'\}\. Got 'dm' instead\.$"):
        get_metric("dm")


def test_loss_is_to_be_minimised(small):
    top = small.generalize((1,))
    assert METRICS["precision"].value(top) == precision(top) == 0.0
    assert METRICS["precision"].loss(top) == 1.0
    assert METRICS["precision"].loss(small) == 0.0
    everything = small.suppress(np.ones(small.n_classes, bool))
    assert METRICS["avg-class-size"].value(everything, k=2) is None
    assert METRICS["avg-class-size"].loss(everything, k=2) == math.inf


def test_missing_label_or_k_is_an_error(small):
    with pytest.raises(ParameterError, match=r"^The 'classification' metric needs a class label"):
        METRICS["classification"].loss(small)
    with pytest.raises(ParameterError, match=r"^The 'avg-class-size' metric needs the 'k' of k-anonymity\. Got None instead\.$"):
        METRICS["avg-class-size"].loss(small)
    with pytest.raises(ParameterError, match=r"^The 'k' parameter of the 'avg-class-size' metric must be an int in \[1, inf\)\. Got 0 instead\.$"):
        METRICS["avg-class-size"].loss(small, k=0)


def test_report_gives_none_where_a_metric_does_not_apply(small):
    report = utility_report(small)
    assert list(report) == NAMES
    assert report["classification"] is None and report["infogain"] is None and report["avg-class-size"] is None
    full = utility_report(small, label="y", k=2)
    assert all(isinstance(v, float) and math.isfinite(v) for v in full.values())
    # classes F: a, b (1 wrong), M: b, b, a (1 wrong): 2 / 5
    assert full["classification"] == 0.4
    # DM: 2^2 + 3^2
    assert full["discernibility"] == 13.0
    json.dumps(full)


def test_report_of_a_fully_suppressed_table_is_never_nan(small):
    everything = small.suppress(np.ones(small.n_classes, bool))
    report = utility_report(everything, label="y", k=2)
    assert report["avg-class-size"] is None
    assert all(v is None or math.isfinite(v) for v in report.values())
    assert report["precision"] == 0.0 and report["classification"] == 1.0


def test_adult_report_agrees_with_a_pandas_groupby(adult, adult_classes):
    node = (1,) * 8
    table = adult_classes.generalize(node)
    report = utility_report(table, label="salary-class", k=2)
    frame = adult.frame
    generalized = frame.copy()
    for name, h, level in zip(table.quasi_identifiers, table.hierarchies, node):
        generalized[name] = h.labels[level][h.maps[level][h.leaf_index(frame[name].to_numpy())]]
    sizes = generalized.groupby(list(table.quasi_identifiers)).size()
    assert report["discernibility"] == float((sizes**2).sum())
    assert report["avg-class-size"] == len(frame) / len(sizes) / 2
    assert report["height"] == 8.0
    # precision: each QI at level 1 of height H_i: 1 - mean(1 / H_i)
    assert report["precision"] == pytest.approx(1 - np.mean([1 / h.height for h in table.hierarchies]))
    majority = generalized.groupby(list(table.quasi_identifiers))["salary-class"].agg(
        lambda s: s.value_counts().iloc[0]
    )
    assert report["classification"] == pytest.approx((len(frame) - majority.sum()) / len(frame))
    assert 0 < report["kl"] and 0 < report["entropy"]


def test_generalizing_a_fully_suppressed_table_keeps_its_histograms(small):
    everything = small.suppress(np.ones(small.n_classes, bool))
    rolled = everything.generalize((1,))
    assert rolled.sensitive["y"].counts.shape == (0, 2)
