"""The engine's grouped counts and clamped sums (the exact aggregates of ``veil query``) equal pandas'."""

from __future__ import annotations

import math
import os
import shutil
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from veil.dp._sensitivity import clamped_fixed_point_sum, fixed_point_exponent
from veil.engines import DuckDBEngine, LocalEngine
from veil.errors import SchemaError, VeilError


@pytest.fixture()
def table(tmp_path: Path) -> Path:
    rng = np.random.default_rng(7)
    n = 5_000
    frame = pd.DataFrame({
        "ward": rng.choice(["A", "B", "C"], size=n),
        "sex": rng.choice(["f", "m"], size=n),
        "income": np.round(rng.normal(40, 30, size=n), 3),
    })
    frame.loc[rng.choice(n, 50, replace=False), "income"] = np.nan  # missing: the clamped 0
    path = tmp_path / "t.parquet"
    frame.to_parquet(path, index=False)
    frame.to_csv(tmp_path / "t.csv", index=False)
    return path


ENGINES = {"duckdb": DuckDBEngine, "local": LocalEngine}


@pytest.mark.parametrize("engine", sorted(ENGINES))
@pytest.mark.parametrize("suffix", [".parquet", ".csv"])
def test_grouped_counts_and_clamped_sums_equal_pandas(table: Path, suffix: str, engine: str) -> None:
    frame = pd.read_parquet(table)
    out = ENGINES[engine]().aggregate(table.with_suffix(suffix), ["ward", "sex"], {"income": (0.0, 100.0)})
    got = out.set_index(["ward", "sex"]).sort_index()
    # pandas: clamp to [0, 100] with NaN as 0, then sum per group (floats: compare to 1e-9)
    clamped = frame.assign(income=frame["income"].fillna(0.0).clip(0.0, 100.0))
    expected = clamped.groupby(["ward", "sex"]).agg(count=("income", "size"), income=("income", "sum"))
    assert got["count"].tolist() == expected["count"].tolist()
    assert sum(got["count"]) == 5_000
    np.testing.assert_allclose(got["income"].to_numpy(), expected["income"].to_numpy(), rtol=1e-9)
    # and to the bit: the local path's exact fixed-point sum of each group
    for (ward, sex), row in got.iterrows():
        values = frame.loc[(frame["ward"] == ward) & (frame["sex"] == sex), "income"].to_numpy()
        assert row["income"] == clamped_fixed_point_sum(values, 0.0, 100.0, 1)[0]


@pytest.mark.parametrize("engine", sorted(ENGINES))
def test_ungrouped_count_and_sum(table: Path, engine: str) -> None:
    frame = pd.read_parquet(table)
    out = ENGINES[engine]().aggregate(table, [], {"income": (-10.0, 10.0)})
    assert out["count"].tolist() == [5_000]
    expected = frame["income"].fillna(-10.0).clip(-10.0, 10.0).sum()  # missing: the lower bound
    # each value is rounded to the public grid 2**-k (k = fixed_point_exponent(-10, 10)):
    # the sum is within n * step / 2 of the float sum
    step = math.ldexp(1.0, -fixed_point_exponent(-10.0, 10.0))
    assert abs(out["income"].iloc[0] - expected) <= 5_000 * step / 2
    assert out["income"].iloc[0] == clamped_fixed_point_sum(frame["income"].to_numpy(), -10.0, 10.0, 1)[0]


def test_non_numeric_sum_column_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "t.csv"
    path.write_text("ward,income\nA,10\nB,lots\n")
    with pytest.raises(VeilError, match="income|lots|Conversion"):
        DuckDBEngine().aggregate(path, [], {"income": (0.0, 10.0)})
    with pytest.raises(SchemaError, match="'income' is not numeric"):
        LocalEngine().aggregate(path, [], {"income": (0.0, 10.0)})


@pytest.mark.spark
@pytest.mark.skipif(shutil.which("java") is None and not os.environ.get("JAVA_HOME"), reason="Spark needs Java 17+")
def test_spark_aggregate_equals_local_to_the_bit(table: Path) -> None:
    pytest.importorskip("pyspark")
    from veil.engines import SparkEngine

    local = LocalEngine().aggregate(table, ["ward", "sex"], {"income": (0.0, 100.0)})
    with SparkEngine(master="local[2]", config={"spark.sql.shuffle.partitions": "2", "spark.ui.enabled": "false"}) as spark:
        got = spark.aggregate(table, ["ward", "sex"], {"income": (0.0, 100.0)})
        whole = spark.aggregate(table.with_suffix(".csv"), [], {"income": (-10.0, 10.0)})
        # a text column: the clean SchemaError naming the column (Spark 4's ANSI cast would raise,
        # quoting the value)
        with pytest.raises(SchemaError, match="'sex' is not numeric") as caught:
            spark.aggregate(table, [], {"sex": (0.0, 1.0)})
        assert not set(local["sex"].astype(str)) & set(str(caught.value).replace("'sex'", "").split())
    key = ["ward", "sex"]
    pd.testing.assert_frame_equal(got.sort_values(key).reset_index(drop=True)[local.columns],
                                  local.sort_values(key).reset_index(drop=True), check_dtype=False)
    frame = pd.read_parquet(table)
    assert whole["income"].iloc[0] == clamped_fixed_point_sum(frame["income"].to_numpy(), -10.0, 10.0, 1)[0]
