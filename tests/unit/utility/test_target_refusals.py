"""Workload targets the classifiers cannot train on: refused before any fit, naming counts, never a value.

A single-valued (or all-missing) target made scikit-learn raise "contains only
one class: 'HIV-POSITIVE'" through ``veil utility``, ``veil anonymize
--target`` and ``veil explore --target`` (a traceback quoting the sensitive
value); an identifier-like target asked for tens of GiB.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from typer.testing import CliRunner

from veil.cli import app
from veil.dataset import Dataset
from veil.errors import ParameterError
from veil.utility import MAX_TARGET_CLASSES, Workload, workload
from veil.utility import _target, _workload

runner = CliRunner()
SECRET = "HIV-POSITIVE"


def _frame(dx):
    n = len(dx)
    return pd.DataFrame({
        "age": [str(21 + i % 40) for i in range(n)],
        "sex": ["F" if i % 2 == 0 else "M" for i in range(n)],
        "dx": dx,
    })


def _write(tmp_path, frame):
    data = tmp_path / "data.csv"
    frame.to_csv(data, index=False)
    hierarchy = tmp_path / "sexh.csv"
    hierarchy.write_text("M;*\nF;*\n")
    return data, hierarchy


def _assert_refused(result, *fragments):
    assert result.exit_code == 2, result.output
    assert isinstance(result.exception, SystemExit), result.exception  # a veil error, no traceback
    assert "Traceback" not in result.output
    assert SECRET not in result.output
    message = " ".join(result.output.split())
    for fragment in fragments:
        assert fragment in message, message


CONSTANT = [SECRET] * 60
MISSING = [None] * 60
ONE_AND_MISSING = [SECRET if i % 3 else None for i in range(60)]


@pytest.mark.parametrize(("dx", "counts"), [
    (CONSTANT, "1 distinct value, 0 missing"),
    (MISSING, "0 distinct values, 60 missing"),
    (ONE_AND_MISSING, "1 distinct value, 20 missing"),
])
def test_utility_refuses_a_target_with_fewer_than_two_values(tmp_path, dx, counts):
    data, _ = _write(tmp_path, _frame(dx))
    result = runner.invoke(app, ["utility", str(data), str(data), "--target", "dx", "--qi", "age", "--aligned"])
    _assert_refused(result, "'dx'", "fewer than two values", "60 records", counts, "at least two classes")


def test_anonymize_target_refuses_a_constant_target_and_writes_nothing(tmp_path):
    data, hierarchy = _write(tmp_path, _frame(CONSTANT))
    out = tmp_path / "out.csv"
    result = runner.invoke(app, ["anonymize", str(data), "--qi", "sex", "--hierarchy", f"sex={hierarchy}", "-k", "2",
                                 "--sensitive", "dx", "--target", "dx", "-o", str(out)])
    _assert_refused(result, "'dx'", "fewer than two values", "60 records")
    assert not out.exists()


def test_anonymize_target_is_refused_before_the_anonymization(tmp_path, monkeypatch):
    import veil.release

    def no_anonymization(*args, **kwargs):
        raise AssertionError("the anonymization ran before the target was checked")

    monkeypatch.setattr(veil.release, "anonymize", no_anonymization)
    data, hierarchy = _write(tmp_path, _frame(CONSTANT))
    result = runner.invoke(app, ["anonymize", str(data), "--qi", "sex", "--hierarchy", f"sex={hierarchy}", "-k", "2",
                                 "--sensitive", "dx", "--target", "dx", "-o", str(tmp_path / "out.csv")])
    _assert_refused(result, "'dx'", "fewer than two values", "60 records")


def test_explore_target_refuses_a_constant_target(tmp_path):
    data, hierarchy = _write(tmp_path, _frame(CONSTANT))
    result = runner.invoke(app, ["explore", str(data), "--qi", "sex", "--hierarchy", f"sex={hierarchy}", "--k", "2",
                                 "--target", "dx", "--classifier", "logistic-regression"])
    _assert_refused(result, "'dx'", "fewer than two values", "60 records")


@pytest.mark.parametrize("dx", [CONSTANT, MISSING, ONE_AND_MISSING])
def test_api_refuses_before_any_classifier_is_built(monkeypatch, dx):
    data = Dataset.from_pandas(_frame(dx), quasi_identifiers=["age"])

    def no_fit(*args, **kwargs):
        raise AssertionError("a classifier was trained")

    monkeypatch.setattr(_workload, "_accuracy", no_fit)
    with pytest.raises(ParameterError, match="fewer than two values among its 60 records") as info:
        workload(data, data.frame, target="dx", aligned=True)
    assert SECRET not in str(info.value) and "\n" not in str(info.value)


def _split_seed(y, *, singleton_in_test):
    """A random_state whose (unstratified) split puts the one 'rare' record in the test rows, or in the train rows."""
    from sklearn.model_selection import train_test_split

    rare = int(np.flatnonzero(np.asarray(y) == "rare")[0])
    for seed in range(200):
        _, test = train_test_split(np.arange(len(y)), test_size=1 / 3, random_state=seed)
        if (rare in test) == singleton_in_test:
            return seed
    raise AssertionError("no such seed")


def test_a_training_split_with_one_class_is_refused():
    y = [SECRET] * 59 + ["rare"]  # the rare value once: the split is not stratified
    data = Dataset.from_pandas(_frame(y), quasi_identifiers=["age"])
    seed = _split_seed(y, singleton_in_test=True)
    with pytest.raises(ParameterError, match="among the 40 training records of its split") as info:
        Workload(data, target="dx", random_state=seed)
    assert SECRET not in str(info.value) and "rare" not in str(info.value)
    # the same table with the rare record trained on is scored
    prepared = Workload(data, target="dx", random_state=_split_seed(y, singleton_in_test=False))
    assert set(prepared.u_max) == {"decision-tree", "naive-bayes", "logistic-regression"}


def test_too_many_classes_are_refused_through_the_cli(tmp_path):
    frame = _frame([f"U{i:07d}" for i in range(1000)])
    data, _ = _write(tmp_path, frame)
    result = runner.invoke(app, ["utility", str(data), str(data), "--target", "dx", "--qi", "age", "--aligned"])
    _assert_refused(result, "'dx'", "1000 distinct values", f"the {MAX_TARGET_CLASSES} classes", "coarser target")
    assert "U0000" not in result.output


def test_the_class_limit_is_inclusive(monkeypatch):
    monkeypatch.setattr(_target, "MAX_TARGET_CLASSES", 3)  # the limit lives with the target checks
    three = Dataset.from_pandas(_frame(["a", "b", "c"] * 20), quasi_identifiers=["age"])
    assert Workload(three, target="dx", classifiers=["decision-tree"]).u_max["decision-tree"] >= 0
    four = Dataset.from_pandas(_frame(["a", "b", "c", "d"] * 15), quasi_identifiers=["age"])
    with pytest.raises(ParameterError, match="4 distinct values, more than the 3 classes"):
        Workload(four, target="dx", classifiers=["decision-tree"])


def test_the_limit_keeps_the_classifiers_small():
    # the decision tree's prediction array alone is test rows x classes float64: 100,000 records at the
    # limit stay far under 200 MB (the uid target of 100,000 values asked for 16.6 GiB)
    assert MAX_TARGET_CLASSES == 100
    assert 34_000 * MAX_TARGET_CLASSES * 8 < 200e6 / 4
