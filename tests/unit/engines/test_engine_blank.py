"""``suppressed: blank`` through the engines, as in memory: the suppressed records read ``*``
in every QI and every sensitive attribute; every other record keeps its values."""

from __future__ import annotations

import os
import shutil

import pandas as pd
import pytest

import veil
from veil.datasets import ADULT_QUASI_IDENTIFIERS, adult_path, load_adult
from veil.engines import anonymize_file
from veil.errors import ParameterError
from veil.models import DistinctLDiversity, KAnonymity

MODELS = [KAnonymity(k=5), DistinctLDiversity(sensitive="salary-class", l=2)]


def _blank_release(tmp_path, engine):
    adult = load_adult()
    out = tmp_path / f"{engine}.csv"
    report = anonymize_file(adult_path(), engine=engine, quasi_identifiers=list(ADULT_QUASI_IDENTIFIERS),
                            sensitive=["salary-class"], hierarchies=dict(adult.hierarchies), models=MODELS,
                            suppression_limit=0.05, output=out, sep=";", suppressed="blank", seed=1)
    return report, pd.read_csv(out, dtype=str, keep_default_na=False)


@pytest.mark.parametrize("engine", ["local", "duckdb"])
def test_engine_blank_equals_the_in_memory_blank_release(tmp_path, engine):
    memory = veil.anonymize(load_adult(), MODELS, suppression_limit=0.05, suppressed="blank", seed=1)
    report, released = _blank_release(tmp_path, engine)
    assert report["verified"] is True and report["transformation"] == memory.report["transformation"]
    assert report["suppressed"] == memory.report["suppressed"] > 0
    qis = list(ADULT_QUASI_IDENTIFIERS)
    suppressed = (released[qis] == "*").all(axis=1) & (released["salary-class"] == "*")
    assert len(released) == 30162 and int(suppressed.sum()) == report["suppressed"]
    # nobody else lost a value: the same rows as the in-memory release, up to order
    key = [*qis, "salary-class"]
    assert sorted(map(tuple, released[key].to_numpy())) == sorted(map(tuple, memory.data[key].astype(str).to_numpy()))


def test_blank_and_drop_exclude_each_other(tmp_path):
    from veil.engines import LocalEngine

    data = tmp_path / "in.csv"
    data.write_text("zip,disease\n47677,flu\n47678,cold\n")
    with pytest.raises(ParameterError, match="exclude each other"):
        LocalEngine().apply(data, {"zip": {"47677": "4767*", "47678": "4767*"}}, [], tmp_path / "o.csv",
                            drop_suppressed=True, blank=["disease"])
    with pytest.raises(ParameterError, match="is a quasi-identifier"):
        LocalEngine().apply(data, {"zip": {"47677": "4767*", "47678": "4767*"}}, [], tmp_path / "o.csv",
                            blank=["zip"])
    assert not (tmp_path / "o.csv").exists()


@pytest.mark.spark
@pytest.mark.skipif(shutil.which("java") is None and not os.environ.get("JAVA_HOME"), reason="Spark needs Java 17+")
def test_spark_blank_equals_local(tmp_path):
    pytest.importorskip("pyspark")
    from veil.engines import SparkEngine

    _, local = _blank_release(tmp_path, "local")
    with SparkEngine(master="local[2]", config={"spark.sql.shuffle.partitions": "2", "spark.ui.enabled": "false"}) as spark:
        report, released = _blank_release(tmp_path, spark)
    assert report["verified"] is True
    key = [*ADULT_QUASI_IDENTIFIERS, "salary-class"]
    assert sorted(map(tuple, released[key].to_numpy())) == sorted(map(tuple, local[key].to_numpy()))


def test_an_engine_that_does_not_blank_is_caught(tmp_path):
    from veil.engines import LocalEngine
    from veil.errors import VerificationError

    class Forgetful(LocalEngine):  # publishes the suppressed records' sensitive values
        def _write_released(self, source, qis, mappings, rows, out, seed, drop, blank=()):
            return super()._write_released(source, qis, mappings, rows, out, seed, drop)

    with pytest.raises(VerificationError, match="blanked records"):
        _blank_release(tmp_path, Forgetful())
    assert not (tmp_path / "Forgetful().csv").exists() and list(tmp_path.iterdir()) == []
