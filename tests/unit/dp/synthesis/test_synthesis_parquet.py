"""``veil synthesize`` reads a Parquet file's stored types alike on every path (local, DuckDB,
Spark): a boolean column is a category of two values, ``True`` and ``False`` (as the engines write
them), never a number asking for bounds; a column of bytes is refused on every path with the same
one-line error (its bytes would read as different texts: DuckDB writes 0xFF as ``\\xFF``, Spark as
U+FFFD, the local path matched none), unless it is an identifier, left out (issue #36, item 4)."""

from __future__ import annotations

import datetime as dt
import decimal
import os
import shutil

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from veil.data import read_table
from veil.dp.synthesis._api import column_domains
from veil.dp.synthesis._domain import ColumnDomain, parse_bins, parse_domain
from veil.dp.synthesis._engine import DuckDBSynthesisSource
from veil.dp.synthesis._source import FrameSource
from veil.errors import ParameterError, SchemaError

pytest.importorskip("duckdb")

_JAVA = shutil.which("java") is not None or bool(os.environ.get("JAVA_HOME"))
N = 600
#: the bytes refusal, as every path words it
BYTES = "The column 'badge' holds bytes (a binary column)"


def _member(n: int = N) -> list:
    """Booleans with missing values: True on rows 0, 3, 6, ..., None on rows 1, 11, 21, ..., else False."""
    return [None if i % 10 == 1 else i % 3 == 0 for i in range(n)]


@pytest.fixture(scope="module")
def files(tmp_path_factory):
    folder = tmp_path_factory.mktemp("parquet_types")
    sex = pa.array(["F" if i % 2 else "M" for i in range(N)])
    member = pa.array(_member(), pa.bool_())
    always = pa.array([i % 4 == 0 for i in range(N)], pa.bool_())  # no missing value: a numpy bool column
    pq.write_table(pa.table({"sex": sex, "member": member, "always": always}), folder / "bools.parquet")
    badge = pa.array([b"\xff" if i % 2 else b"A1" for i in range(N)], pa.binary())
    pq.write_table(pa.table({"sex": sex, "badge": badge}), folder / "bytes.parquet")
    nothing = pa.array([None] * N, pa.binary())  # a bytes column without a present value
    pq.write_table(pa.table({"sex": sex, "badge": nothing}), folder / "no_bytes.parquet")
    pq.write_table(_types(), folder / "types.parquet")
    return {"bools": folder / "bools.parquet", "bytes": folder / "bytes.parquet",
            "no_bytes": folder / "no_bytes.parquet", "types": folder / "types.parquet"}


def _types() -> pa.Table:
    """Each stored type whose local reading differed: integers with a missing value (float64 in
    pandas: 40.0), floats, timestamps (numbers in pandas), dates, decimals; 6 rows repeated."""
    repeat = N // 6
    stamps = [dt.datetime(2021, 3, 4), dt.datetime(2021, 3, 4, 12, 30), None, dt.datetime(2021, 3, 4, 12, 30, 0, 250000),
              dt.datetime(2020, 1, 1), dt.datetime(2020, 1, 1)]
    return pa.table({
        "i": pa.array([1, 2, None, 4, 40, 40] * repeat, pa.int64()),
        "f": pa.array([1.0, 2.5, None, 4.0, float("nan"), 40.0] * repeat),
        "ts": pa.array(stamps * repeat, pa.timestamp("us")),
        "d": pa.array(([dt.date(2021, 3, 4), dt.date(2021, 3, 4), None] + [dt.date(2020, 1, 1)] * 3) * repeat),
        "dec": pa.array([decimal.Decimal("1.50"), decimal.Decimal("2.00"), None, decimal.Decimal("1.50"),
                         decimal.Decimal("1.50"), decimal.Decimal("1.50")] * repeat, pa.decimal128(5, 2)),
    })


#: by hand, each present label's count in the 6 rows (times N // 6)
TYPE_COUNTS = {"i": {"1": 1, "2": 1, "4": 1, "40": 2}, "f": {"1": 1, "2.5": 1, "4": 1, "40": 1},
               "ts": {"2021-03-04": 1, "2021-03-04 12:30:00": 1, "2021-03-04 12:30:00.250000": 1, "2020-01-01": 2},
               "dec": {"1.50": 4, "2.00": 1}}
#: text domains, the columns' labels
TYPE_DOMAIN = {"i": ["1", "2", "4", "40"], "f": ["1", "2.5", "4", "40"],
               "ts": ["2020-01-01", "2021-03-04", "2021-03-04 12:30:00", "2021-03-04 12:30:00.250000"],
               "d": ["2020-01-01", "2021-03-04"], "dec": ["1.50", "2.00"]}


@pytest.fixture(scope="module")
def spark_session():
    pytest.importorskip("pyspark")
    if not _JAVA:
        pytest.skip("Spark needs Java 17+")
    from veil.engines._spark import SparkEngine

    engine = SparkEngine(master="local[1]", config={"spark.sql.shuffle.partitions": "1"})
    yield engine.spark
    engine.close()


def _local(path):
    return FrameSource(read_table(path, typed=False).to_pandas())


def _spark(path, session):
    from veil.dp.synthesis._engine_spark import SparkSynthesisSource

    return SparkSynthesisSource(path, spark=session)


# by hand: rows 0..599; True on multiples of 3 (200), missing on 1, 11, ..., 591 (60, none a multiple
# of 3 ... except 21, 51, 81, ...: i = 1 (mod 10) and i = 0 (mod 3), i.e. i = 21 (mod 30): 20 rows)
TRUE, MISSING = 200 - 20, 60
COUNTS = {"member": {"True": TRUE, "False": N - TRUE - MISSING}, "always": {"True": 150, "False": 450}}


def test_the_counts_by_hand():
    values = _member()
    assert sum(v is True for v in values) == TRUE and sum(v is None for v in values) == MISSING


def _check_booleans(source) -> None:
    """Without a domain a boolean column is a category learned under DP (no bounds asked), its values
    ``True``/``False``; with the domain ["False", "True"] its counts are the values' counts."""
    learned = column_domains(source, {}, None, (), 100)
    assert [(d.name, d.learned, d.numeric) for d in learned] == [("sex", True, False), ("member", True, False),
                                                                  ("always", True, False)]
    for name in ("member", "always"):
        assert source.value_counts(name) == COUNTS[name]
    given = parse_domain({"sex": ["F", "M"], "member": ["False", "True"], "always": ["False", "True"]})
    doms = column_domains(source, given, None, (), 100)
    table = source.class_table(doms)
    assert table.total == N - MISSING  # a missing boolean leaves its record out, as a missing category does
    np.testing.assert_array_equal(table.marginal([1]), [COUNTS["member"]["False"], COUNTS["member"]["True"]])
    # "always" among the records kept: rows 0 (mod 4), less those missing a member (i = 1 (mod 10): odd, never)
    np.testing.assert_array_equal(table.marginal([2]), [450 - MISSING, 150])


def _check_bounds_refused(source) -> None:
    with pytest.raises(ParameterError, match=r"The column 'member' holds booleans.*\[\"False\", \"True\"\]"):
        column_domains(source, {"sex": ColumnDomain("sex", ("F", "M")), **parse_bins({"member": "0:1:2"})},
                       None, (), 100)


def _check_bytes_refused(files, make) -> None:
    for given in ({}, parse_domain({"badge": ["A1", "\ufffd"]})):  # with or without a domain
        with pytest.raises(SchemaError, match=r"^The column 'badge' holds bytes \(a binary column\).*store it as "
                                              r"text \(a UTF-8 string column\).*--identifiers"):
            column_domains(make(files["bytes"]), given, None, (), 100)
    # an identifier is never read: accepted; a bytes column with no present value is an empty column
    assert [d.name for d in column_domains(make(files["bytes"]), {}, None, ("badge",), 100)] == ["sex"]
    doms = column_domains(make(files["no_bytes"]), {}, None, (), 100)
    assert [(d.name, d.learned) for d in doms] == [("sex", True), ("badge", True)]


def _check_types(source) -> None:
    """Numbers are numeric and ask for bounds; dates and timestamps are text; every label is as the
    engines write it; with text domains the same records are kept."""
    names = ["i", "f", "ts", "d", "dec"]
    facts = source.column_facts(names, 100)
    assert {n: f.numeric for n, f in facts.items()} == {"i": True, "f": True, "ts": False, "d": False, "dec": True}
    for name, counts in TYPE_COUNTS.items():
        assert source.value_counts(name) == {k: v * (N // 6) for k, v in counts.items()}, name
    table = source.class_table(column_domains(source, parse_domain(TYPE_DOMAIN), None, (), 100))
    # rows 0, 1, 3, 5 of each 6 have every value (row 2 misses every value; row 4 has a NaN f)
    assert table.total == 4 * (N // 6)
    np.testing.assert_array_equal(table.marginal([0]), np.array([1, 1, 1, 1]) * (N // 6))  # i: 1, 2, 4, 40
    np.testing.assert_array_equal(table.marginal([2]), np.array([1, 1, 1, 1]) * (N // 6))  # ts: one of each
    # numbers binned from the stored values: i in [0, 50) by 10 (1, 2, 4 in the first bin, 40 in the fifth)
    binned = column_domains(source, {**parse_domain(TYPE_DOMAIN), **parse_bins({"i": "0:50:5"})}, None, (), 100)
    np.testing.assert_array_equal(source.class_table(binned).marginal([0]), np.array([3, 0, 0, 0, 1]) * (N // 6))


def test_local_reads_every_stored_type_as_duckdb(files):
    _check_types(_local(files["types"]))
    _check_types(DuckDBSynthesisSource(files["types"]))


def test_local_reads_a_boolean_as_the_engines_do(files):
    _check_booleans(_local(files["bools"]))


def test_duckdb_reads_a_boolean_as_a_category(files):
    _check_booleans(DuckDBSynthesisSource(files["bools"]))


def test_local_and_duckdb_count_the_same_classes(files):
    given = parse_domain({"sex": ["F", "M"], "member": ["False", "True"], "always": ["False", "True"]})
    local, duck = _local(files["bools"]), DuckDBSynthesisSource(files["bools"])
    ours, theirs = local.class_table(column_domains(local, given, None, (), 100)), \
        duck.class_table(column_domains(duck, given, None, (), 100))
    for cols in ([0], [1], [2], [0, 1], [1, 2], [0, 1, 2]):
        np.testing.assert_array_equal(ours.marginal(cols), theirs.marginal(cols), err_msg=str(cols))


@pytest.mark.parametrize("make", [_local, DuckDBSynthesisSource], ids=["local", "duckdb"])
def test_bounds_for_a_boolean_are_refused(files, make):
    _check_bounds_refused(make(files["bools"]))


@pytest.mark.parametrize("make", [_local, DuckDBSynthesisSource], ids=["local", "duckdb"])
def test_a_bytes_column_is_refused(files, make):
    _check_bytes_refused(files, make)


def test_a_frame_of_bytes_is_refused_through_the_python_api():
    import pandas as pd

    from veil.dp.synthesis import synthesize

    frame = pd.DataFrame({"sex": ["F", "M"] * 50, "badge": [b"A1", bytearray(b"\xff")] * 50})
    with pytest.raises(SchemaError, match=BYTES.replace("(", r"\(").replace(")", r"\)")):
        synthesize(frame, epsilon=1.0)


@pytest.mark.spark
@pytest.mark.slow
def test_spark_reads_stored_types_as_local_and_duckdb(files, spark_session):
    source = _spark(files["bools"], spark_session)
    _check_booleans(source)
    _check_bounds_refused(source)
    given = parse_domain({"sex": ["F", "M"], "member": ["False", "True"], "always": ["False", "True"]})
    duck = DuckDBSynthesisSource(files["bools"])
    ours, theirs = source.class_table(column_domains(source, given, None, (), 100)), \
        duck.class_table(column_domains(duck, given, None, (), 100))
    np.testing.assert_array_equal(ours.marginal([0, 1, 2]), theirs.marginal([0, 1, 2]))
    _check_bytes_refused(files, lambda path: _spark(path, spark_session))
    _check_types(_spark(files["types"], spark_session))


def _synthesize_cli(path, engine, folder) -> tuple[dict, set]:
    """``veil synthesize`` of the booleans file without a domain: the report and the member values written."""
    import json

    import pandas as pd
    from typer.testing import CliRunner

    from veil.cli import app

    out, report = folder / f"out_{engine}.csv", folder / f"report_{engine}.json"
    result = CliRunner().invoke(app, ["synthesize", str(path), "--epsilon", "30", "--seed", "1", "-o", str(out),
                                      "--json", str(report), "--engine", engine])
    assert result.exit_code == 0, result.output
    written = pd.read_csv(out, dtype=str, keep_default_na=False)
    return json.loads(report.read_text()), set(written["member"]) | set(written["always"])


@pytest.mark.parametrize("engine", ["local", "duckdb", pytest.param("spark", marks=[pytest.mark.spark,
                                                                                    pytest.mark.slow])])
def test_veil_synthesize_learns_a_booleans_categories_on_every_engine(files, engine, tmp_path):
    if engine == "spark" and not _JAVA:
        pytest.skip("Spark needs Java 17+")
    report, values = _synthesize_cli(files["bools"], engine, tmp_path)
    assert report["domain_source"] == {"sex": "dp", "member": "dp", "always": "dp"}
    assert values <= {"False", "True", "(other)"} and {"False", "True"} <= values


def test_the_evaluation_publishes_a_real_value_as_the_synthesis_encodes_it(files):
    """``--holdout`` matches the real records to the published labels by the same reading: the integer
    40 of a column with missing values (40.0 in pandas) is the learned category ``40``."""
    from veil.dp.synthesis._domain import encode
    from veil.dp.synthesis._evaluation import published_labels

    frame = read_table(files["types"], typed=False).to_pandas()
    learned = ColumnDomain("i", categories=("40",), learned=True)
    published = published_labels(frame["i"], learned, learned.labels)
    assert list(published[:6]) == ["(other)", "(other)", "(other)", "(other)", "40", "40"]
    assert [learned.labels[c] for c in encode(frame[["i"]][:6], [learned])[:, 0]] == list(published[:6])
    binned = parse_bins({"i": "0:50:5"})["i"]
    assert list(published_labels(frame["i"], binned, binned.labels)[:6]) == ["[0, 10)", "[0, 10)", None, "[0, 10)",
                                                                             "[40, 50]", "[40, 50]"]
