"""The Spark engine in local mode: few tests, one session for the module (see the ``spark`` marker)."""

from __future__ import annotations

import os
import shutil

import pandas as pd
import pytest

import veil
from veil.anonymization import verify
from veil.dataset import Dataset
from veil.engines import LocalEngine, FullDomainRecoding, SparkEngine, anonymize_file
from veil.classes import ClassTable
from veil.errors import HierarchyError
from veil.models import DistinctLDiversity, KAnonymity

from .conftest import KINDS, QIS, SENSITIVE, canonical_counts

pytest.importorskip("pyspark")
pytestmark = [
    pytest.mark.spark,
    pytest.mark.skipif(
        shutil.which("java") is None and not os.environ.get("JAVA_HOME"), reason="Spark needs Java 17+"
    ),
]

SAMPLE_ROWS = 3_000


@pytest.fixture(scope="module")
def spark_engine():
    """One local Spark session for the module: 2 cores, 2 shuffle partitions, no UI.

    Tuned for a short-lived JVM on tiny data (about half the time of the defaults):
    no whole-stage code generation, the C1 JIT only, the serial collector.
    """
    engine = SparkEngine(
        master="local[2]",
        config={
            "spark.sql.shuffle.partitions": "2",
            "spark.default.parallelism": "2",
            "spark.ui.enabled": "false",
            "spark.sql.adaptive.enabled": "false",
            "spark.sql.codegen.wholeStage": "false",
            "spark.sql.codegen.factoryMode": "NO_CODEGEN",
            "spark.driver.extraJavaOptions": "-XX:TieredStopAtLevel=1 -XX:+UseSerialGC",
        },
    )
    yield engine
    engine.close()


@pytest.fixture(scope="module")
def adult_sample(tmp_path_factory, adult_csv):
    """The first 3,000 rows of Adult, as a comma-separated CSV."""
    path = tmp_path_factory.mktemp("spark") / "adult-sample.csv"
    frame = pd.read_csv(adult_csv, sep=";", dtype=str, keep_default_na=False).head(SAMPLE_ROWS)
    frame.to_csv(path, index=False)
    return path


def test_group_count_equals_local_on_adult(spark_engine, adult_csv):
    spark = spark_engine.group_count(adult_csv, QIS, SENSITIVE)
    assert len(spark) == 19_502 and spark["count"].sum() == 30_162
    pd.testing.assert_frame_equal(
        canonical_counts(spark), canonical_counts(LocalEngine().group_count(adult_csv, QIS, SENSITIVE))
    )


def test_anonymize_file_matches_in_memory(spark_engine, adult, adult_sample, tmp_path):
    """3,000 Adult rows, k=5 + distinct 2-diversity, 5% suppression: the transformation and
    suppressed count of veil.anonymize, and an output that passes verification."""
    models = [KAnonymity(k=5), DistinctLDiversity(sensitive="salary-class", l=2)]
    dataset = Dataset.read(adult_sample, quasi_identifiers=QIS, sensitive=SENSITIVE, kinds=KINDS)
    dataset = dataset.with_hierarchies(adult.hierarchies)
    expected = veil.anonymize(dataset, models, suppression_limit=0.05, seed=5).report
    out = tmp_path / "released.csv"
    report = anonymize_file(
        adult_sample, engine=spark_engine, quasi_identifiers=QIS, sensitive=SENSITIVE,
        hierarchies=adult.hierarchies, models=models, suppression_limit=0.05, output=out, seed=5, kinds=KINDS,
    )
    assert report["transformation"] == expected["transformation"]
    assert report["suppressed"] == expected["suppressed"] > 0
    assert report["records_out"] == SAMPLE_ROWS and report["engine"] == "spark" and report["verified"]
    assert os.listdir(tmp_path) == ["released.csv"]
    released = pd.read_csv(out, dtype=str, keep_default_na=False)
    verify(released, dataset, models)


def test_apply_uncovered_value_leaves_no_file(spark_engine, adult, adult_sample, tmp_path):
    node = ClassTable.from_dataset(adult).generalize((0, 2, 0, 1, 1, 1, 1, 1))
    mappings = {name: dict(m) for name, m in FullDomainRecoding.from_classes(node).mappings.items()}
    del mappings["age"]["39"]
    with pytest.raises(HierarchyError, match=r"^The hierarchy of column 'age' does not cover the value '39'; "):
        spark_engine.apply(adult_sample, mappings, [], tmp_path / "out.parquet")
    assert os.listdir(tmp_path) == []


@pytest.mark.parametrize("column", ["t_us", "t_tz", "d"])
def test_spark_labels_timestamps_as_the_local_engine(spark_engine, tmp_path, column):
    from .test_engine_timestamps import timestamp_table

    path = timestamp_table(tmp_path / "t.parquet", nanoseconds=False)
    local = LocalEngine().group_count(path, [column], [])
    spark = spark_engine.group_count(path, [column], [])
    pd.testing.assert_frame_equal(canonical_counts(local), canonical_counts(spark), check_dtype=False)


def test_spark_reads_a_quoted_line_break_as_the_local_engine(spark_engine, tmp_path):
    rows = ['a,b,"c\nq"'] + [f"{i % 3},x,y{i}" for i in range(19)]
    rows[4] = '0,x,"y\nq"'  # a value over two lines
    path = tmp_path / "quoted.csv"
    path.write_text("\n".join(rows) + "\n")
    local = LocalEngine().group_count(path, ["a"], ["c\nq"])
    spark = spark_engine.group_count(path, ["a"], ["c\nq"])
    assert int(spark["count"].sum()) == 19  # 19 records, not one more for the broken line
    pd.testing.assert_frame_equal(canonical_counts(local), canonical_counts(spark), check_dtype=False)
