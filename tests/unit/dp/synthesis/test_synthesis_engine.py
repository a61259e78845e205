"""``veil synthesize --engine``: the engines' class table and marginals equal the local path's, the
chunked writer writes what one write of the whole table writes, and a refusal reads the same on
every engine (issue #36, item 4)."""

from __future__ import annotations

import itertools
import os
import shutil
from dataclasses import replace

import numpy as np
import pandas as pd
import pyarrow.parquet as pq
import pytest

from veil.data import read_table, write_frame
from veil.dp.synthesis._api import column_domains, marginal_errors
from veil.dp.synthesis._chunks import ChunkWriter, decode_chunk, draw
from veil.dp.synthesis._domain import ColumnDomain, decode
from veil.dp.synthesis._engine import DuckDBSynthesisSource, MarginalQueries
from veil.dp.synthesis._fit import TreeModel
from veil.dp.synthesis._mst import compress, marginal
from veil.dp.synthesis._source import ClassTally, FrameSource, class_table

pytest.importorskip("duckdb")

GIVEN = {"age": {"min": 0, "max": 100, "bins": 10}, "sex": ["F", "M"], "zip": ["02139", "10001"]}


def _table(n: int = 3000, seed: int = 7) -> pd.DataFrame:
    """Numbers as text (``"40"``, ``"40.5"``, a blank, ``"n/a"``), a text domain missing a
    category and a missing value, a ZIP code with a leading zero, a text column without a domain."""
    rng = np.random.default_rng(seed)
    age = rng.integers(-5, 110, n).astype(float) + rng.choice([0.0, 0.5], n)
    age_text = np.array([f"{v:g}" for v in age], dtype=object)
    age_text[rng.random(n) < 0.05] = ""
    age_text[rng.random(n) < 0.02] = "n/a"  # not a number: the record is left out
    sex = rng.choice(["F", "M", "X", ""], n, p=[0.45, 0.45, 0.05, 0.05]).astype(object)
    return pd.DataFrame({"age": age_text, "sex": sex, "zip": rng.choice(["02139", "10001", "2139"], n),
                         "job": rng.choice(["clerk", "nurse", "o'neil, ltd", "pilot"], n)})


@pytest.fixture(scope="module")
def csv_file(tmp_path_factory):
    path = tmp_path_factory.mktemp("engine") / "people.csv"
    _table().to_csv(path, index=False)
    return path


@pytest.fixture(scope="module")
def parquet_file(tmp_path_factory):
    """The same people as Parquet, age a real number column (nulls for the blanks and ``n/a``)."""
    frame = _table()
    frame["age"] = pd.to_numeric(frame["age"], errors="coerce")
    frame["sex"] = frame["sex"].replace("", None)
    path = tmp_path_factory.mktemp("engine") / "people.parquet"
    frame.to_parquet(path, index=False)
    return path


def _domains(source) -> list[ColumnDomain]:
    doms = column_domains(source, GIVEN, None, (), 100)
    # the learned column's categories, as DP would choose them (one left out: it becomes (other))
    return [replace(d, categories=("clerk", "o'neil, ltd", "pilot")) if d.learned else d for d in doms]


def _canonical(table) -> tuple[np.ndarray, np.ndarray]:
    order = np.lexsort(table.codes.T[::-1])
    return table.codes[order], table.weights[order]


def _assert_same_marginals(actual, expected, d: int) -> None:
    for way in (1, 2, 3):
        for cols in itertools.combinations(range(d), way):
            np.testing.assert_array_equal(marginal(actual, None, list(expected.sizes), cols),
                                          expected.marginal(cols), err_msg=str(cols))


@pytest.mark.parametrize("which", ["csv", "parquet"])
def test_duckdb_gives_the_local_class_table_and_marginals(which, csv_file, parquet_file):
    path = csv_file if which == "csv" else parquet_file
    local = FrameSource(read_table(path, typed=False).to_pandas())
    engine = DuckDBSynthesisSource(path)
    doms = _domains(local)
    assert [(d.name, d.learned) for d in _domains(engine)] == [(d.name, d.learned) for d in doms]
    assert engine.value_counts("job") == local.value_counts("job")
    expected, actual = local.class_table(doms), engine.class_table(doms)
    assert 0 < expected.total < 3000  # the missing and out-of-domain records are left out
    for a, b in zip(_canonical(actual), _canonical(expected)):
        np.testing.assert_array_equal(a, b)
    _assert_same_marginals(actual, expected, len(doms))


def test_by_hand_the_encoding_of_a_few_values(tmp_path):
    # age 0:100 in 10 bins: -3 -> bin 0 (clamped), 10 -> 1, 99.9 -> 9, 100 -> 9, 250 -> 9; "n/a" and "" left out
    frame = pd.DataFrame({"age": ["-3", "10", "99.9", "100", "250", "n/a", ""],
                          "sex": ["F", "M", "F", "M", "F", "F", "F"]})
    frame.to_csv(tmp_path / "t.csv", index=False)
    doms = [ColumnDomain("age", low=0, high=100, bins=10), ColumnDomain("sex", categories=("F", "M"))]
    table = DuckDBSynthesisSource(tmp_path / "t.csv").class_table(doms)
    assert dict(zip(map(tuple, table.codes.tolist()), table.weights.tolist())) == {
        (0, 0): 1, (1, 1): 1, (9, 0): 2, (9, 1): 1}
    assert table.total == 5


def test_the_per_marginal_fallback_counts_the_same(csv_file):
    local = FrameSource(read_table(csv_file, typed=False).to_pandas())
    doms = _domains(local)
    fallback = DuckDBSynthesisSource(csv_file, max_class_bytes=64).class_table(doms)  # past 64 bytes
    assert isinstance(fallback, MarginalQueries)
    expected = local.class_table(doms)
    assert fallback.total == expected.total
    _assert_same_marginals(fallback, expected, len(doms))
    # the report's errors against the same synthetic rows are the same either way
    rng = np.random.default_rng(0)
    synth = np.column_stack([rng.integers(0, d.size, 500) for d in doms])
    tally = fallback.tally()
    tally.add(synth)
    from veil.dp.synthesis._source import tv_errors

    assert tv_errors(fallback, tally, len(doms)) == pytest.approx(
        marginal_errors(expected.codes, synth, list(expected.sizes), real_weights=expected.weights))


def test_a_class_tally_over_chunks_is_the_class_table_of_all_rows():
    rng = np.random.default_rng(1)
    rows = rng.integers(0, 4, (1000, 3))
    tally = ClassTally([4, 4, 4])
    for chunk in np.array_split(rows, 7):
        tally.add(chunk)
    whole = class_table(rows, [4, 4, 4])
    for a, b in zip(_canonical(tally.table()), _canonical(whole)):
        np.testing.assert_array_equal(a, b)
    assert whole.total == 1000 and len(whole.codes) <= 64


def _model(doms):
    """A fixed tree model (no privacy noise: the writing is post-processing)."""
    sizes = [d.size for d in doms]
    nodes = [np.arange(1.0, k + 1.0) * 100.0 / (k * (k + 1) / 2) * 25 for k in sizes]  # totals 2500
    edges = {(0, 1): np.outer(nodes[0], nodes[1]) / 2500.0, (1, 2): np.outer(nodes[1], nodes[2]) / 2500.0}
    parts = [compress(np.full(k, 1000.0), 1.0) for k in sizes]
    return TreeModel(2500.0, nodes, edges), parts


@pytest.mark.parametrize("labels", ["plain", "quoted"])
@pytest.mark.parametrize("suffix", [".csv", ".parquet"])
def test_the_chunked_writer_writes_what_one_write_of_the_whole_table_writes(tmp_path, labels, suffix):
    doms = [ColumnDomain("age", low=0, high=100, bins=5),  # labels "[0, 20)": quoted in a CSV
            ColumnDomain("sex", categories=("F", "M")), ColumnDomain("city", categories=("Oslo", "Rome", "Nice"))]
    if labels == "plain":
        doms[0] = ColumnDomain("age", categories=("young", "adult", "middle", "old", "oldest"))
    tree, parts = _model(doms)
    codes, _ = draw(tree, parts, doms, 2500, np.random.default_rng(5), chunk_rows=400)
    write_frame(decode(codes, doms), tmp_path / f"whole{suffix}")
    with ChunkWriter(tmp_path / f"chunks{suffix}") as sink:
        again, tally = draw(tree, parts, doms, 2500, np.random.default_rng(5), chunk_rows=400, sink=sink)
    assert again is None and tally.table().total == 2500
    if suffix == ".csv":
        assert (tmp_path / f"chunks{suffix}").read_bytes() == (tmp_path / f"whole{suffix}").read_bytes()
    else:
        assert pq.ParquetFile(tmp_path / f"chunks{suffix}").num_row_groups == 7  # 6 chunks of 400 and one of 100
        pd.testing.assert_frame_equal(read_table(tmp_path / f"chunks{suffix}", typed=False).to_pandas(),
                                      read_table(tmp_path / f"whole{suffix}", typed=False).to_pandas())


def test_an_empty_synthesis_writes_the_header(tmp_path):
    doms = [ColumnDomain("sex", categories=("F", "M")), ColumnDomain("city", categories=("Oslo", "Rome"))]
    with ChunkWriter(tmp_path / "out.csv") as sink:
        sink(decode_chunk(np.zeros((0, 2), dtype=np.int64), doms))
    assert (tmp_path / "out.csv").read_text() == "sex,city\n"


@pytest.mark.spark
@pytest.mark.skipif(shutil.which("java") is None and not os.environ.get("JAVA_HOME"), reason="Spark needs Java 17+")
def test_spark_gives_the_local_class_table(csv_file, parquet_file):
    pytest.importorskip("pyspark")
    from veil.dp.synthesis._engine_spark import SparkSynthesisSource

    for path in (csv_file, parquet_file):
        local = FrameSource(read_table(path, typed=False).to_pandas())
        doms = _domains(local)
        spark = SparkSynthesisSource(path, master="local[1]", config={"spark.sql.shuffle.partitions": "1"})
        assert [(d.name, d.learned) for d in _domains(spark)] == [(d.name, d.learned) for d in doms]
        assert spark.value_counts("job") == local.value_counts("job")
        expected, actual = local.class_table(doms), spark.class_table(doms)
        for a, b in zip(_canonical(actual), _canonical(expected)):
            np.testing.assert_array_equal(a, b)
        spark.close()


from hypothesis import given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402

_LABEL = st.text(alphabet=st.sampled_from(list('ab ,;"\n\r\'é[)')), min_size=0, max_size=6)


@settings(max_examples=40, deadline=None)
@given(labels=st.lists(st.lists(_LABEL, min_size=1, max_size=4, unique=True), min_size=2, max_size=3),
       rows=st.integers(0, 30), chunk=st.integers(1, 12), seed=st.integers(0, 2**16))
def test_chunked_csv_is_write_frame_byte_for_byte_for_any_labels(tmp_path_factory, labels, rows, chunk, seed):
    doms = [ColumnDomain(f"c{j}", categories=tuple(cats)) for j, cats in enumerate(labels)]
    rng = np.random.default_rng(seed)
    codes = np.column_stack([rng.integers(0, d.size, rows) for d in doms]) if rows else \
        np.zeros((0, len(doms)), dtype=np.int64)
    folder = tmp_path_factory.mktemp("csv")
    write_frame(decode(codes, doms), folder / "whole.csv")
    with ChunkWriter(folder / "chunks.csv") as sink:
        for start in range(0, max(rows, 1), chunk):
            sink(decode_chunk(codes[start:start + chunk], doms))
    assert (folder / "chunks.csv").read_bytes() == (folder / "whole.csv").read_bytes()


@settings(max_examples=40, deadline=None)
@given(sizes=st.lists(st.integers(1, 5), min_size=1, max_size=4), rows=st.integers(0, 200),
       parts=st.integers(1, 6), seed=st.integers(0, 2**16))
def test_a_class_tally_over_any_chunking_is_the_class_table(sizes, rows, parts, seed):
    rng = np.random.default_rng(seed)
    codes = np.column_stack([rng.integers(0, k, rows) for k in sizes])
    tally = ClassTally(sizes)
    for chunk in np.array_split(codes, parts):
        tally.add(chunk)
    whole = class_table(codes, sizes)
    for a, b in zip(_canonical(tally.table()), _canonical(whole)):
        np.testing.assert_array_equal(a, b)
    for cols in itertools.combinations(range(len(sizes)), min(2, len(sizes))):
        np.testing.assert_array_equal(whole.marginal(cols), marginal(codes, None, sizes, cols))
