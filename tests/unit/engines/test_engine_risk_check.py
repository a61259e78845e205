"""``veil risk`` and ``veil check`` with ``--engine``: the same figures as the local path on Adult x10.

The engines only group and count; the models and risk measures run on the
class table.  So the JSON reports must equal the local ones: integers exactly,
floats up to the order of a floating-point sum (the engine's class table lists
the classes in another order, so a mean over classes may differ in its last bit).
"""

from __future__ import annotations

import json
import math
import os
import shutil
from pathlib import Path

import pandas as pd
import pytest
from typer.testing import CliRunner

from veil.cli import app
from veil.classes import ClassTable
from veil.dataset import Dataset
from veil.engines import class_table
from veil.errors import ParameterError
from veil.models import evaluate
from veil.risk import assess

from .conftest import QIS, SENSITIVE

RISK_QIS = ["age", "sex", "race", "education"]


def assert_same_figures(actual: object, expected: object, path: str = "") -> None:
    """Equal JSON values: ints, strings and structure exactly, floats to 1e-12 relative."""
    if isinstance(expected, dict):
        assert isinstance(actual, dict) and list(actual) == list(expected), path
        for key in expected:
            assert_same_figures(actual[key], expected[key], f"{path}/{key}")
    elif isinstance(expected, list):
        assert isinstance(actual, list) and len(actual) == len(expected), path
        for i, (a, b) in enumerate(zip(actual, expected)):
            assert_same_figures(a, b, f"{path}[{i}]")
    elif isinstance(expected, float) and not isinstance(actual, bool):
        assert isinstance(actual, (int, float)), path
        assert math.isclose(actual, expected, rel_tol=1e-12, abs_tol=1e-15), f"{path}: {actual} != {expected}"
    else:
        assert type(actual) is type(expected) and actual == expected, f"{path}: {actual!r} != {expected!r}"


@pytest.fixture(scope="module")
def adult_x10(tmp_path_factory: pytest.TempPathFactory, adult_csv: str) -> dict[str, Path]:
    """Adult ten times over (301,620 rows) as a CSV and as a Parquet file."""
    folder = tmp_path_factory.mktemp("adult10")
    frame = pd.read_csv(adult_csv, sep=";", dtype=str, keep_default_na=False)
    big = pd.concat([frame] * 10, ignore_index=True)
    csv, parquet = folder / "adult10.csv", folder / "adult10.parquet"
    big.to_csv(csv, index=False)
    big.to_parquet(parquet, index=False)
    return {"csv": csv, "parquet": parquet}


def _cli_json(args: list[str], out: Path) -> dict:
    result = CliRunner().invoke(app, [*args, "--json", str(out)])
    assert result.exit_code == 0, result.output
    return json.loads(out.read_text())


@pytest.mark.parametrize("fmt", ["csv", "parquet"])
def test_risk_duckdb_equals_local_on_adult_x10(adult_x10: dict[str, Path], tmp_path: Path, fmt: str) -> None:
    args = ["risk", str(adult_x10[fmt]), "--qi", ",".join(RISK_QIS), "--sensitive", ",".join(SENSITIVE)]
    local = _cli_json(args, tmp_path / "local.json")
    duck = _cli_json([*args, "--engine", "duckdb"], tmp_path / "duck.json")
    assert local["records"] == 301_620  # 30,162 Adult records x 10
    assert_same_figures(duck, local)


@pytest.mark.parametrize("fmt", ["csv", "parquet"])
def test_check_duckdb_equals_local_on_adult_x10(adult_x10: dict[str, Path], tmp_path: Path, fmt: str) -> None:
    args = ["check", str(adult_x10[fmt]), "--qi", ",".join(QIS), "--sensitive", ",".join(SENSITIVE),
            "--kind", "age=numeric", "--require", "k>=10"]
    local = _cli_json(args, tmp_path / "local.json")
    duck = _cli_json([*args, "--engine", "duckdb"], tmp_path / "duck.json")
    # every record is there ten times: no class is smaller than 10
    assert local["k"] >= 10 and local["k"] % 10 == 0
    assert_same_figures(duck, local)


def test_engine_refuses_options_that_need_the_rows(adult_x10: dict[str, Path], tmp_path: Path) -> None:
    file = str(adult_x10["csv"])
    for args, flag in [
        (["risk", file, "--qi", "age", "--population", file], "--population"),
        (["risk", file, "--qi", "age", "--auto-hierarchies"], "--auto-hierarchies"),
        (["check", file, "--qi", "age", "--missing", "error"], "--missing error"),
        (["check", file, "--qi", "age", "--encoding", "latin-1"], "UTF-8"),
    ]:
        result = CliRunner().invoke(app, [*args, "--engine", "duckdb", "--json", str(tmp_path / "r.json")])
        assert result.exit_code == 2, result.output
        assert flag in result.output and "Traceback" not in result.output
        assert not (tmp_path / "r.json").exists()


def test_unknown_engine_is_a_one_line_error(adult_x10: dict[str, Path]) -> None:
    result = CliRunner().invoke(app, ["check", str(adult_x10["csv"]), "--qi", "age", "--engine", "hadoop"])
    assert result.exit_code == 2
    assert "'hadoop'" in result.output and "Traceback" not in result.output


def test_class_table_unknown_engine_raises() -> None:
    with pytest.raises(ParameterError, match="'engine' parameter"):
        class_table("unused.csv", ["age"], engine="hadoop")


@pytest.mark.spark
@pytest.mark.skipif(shutil.which("java") is None and not os.environ.get("JAVA_HOME"), reason="Spark needs Java 17+")
def test_spark_risk_and_check_figures_equal_local_on_adult_x10(adult_x10: dict[str, Path]) -> None:
    pytest.importorskip("pyspark")
    from veil.engines import SparkEngine

    engine = SparkEngine(master="local[2]", config={
        "spark.sql.shuffle.partitions": "2", "spark.ui.enabled": "false",
        "spark.sql.adaptive.enabled": "false",
    })
    try:
        spark = class_table(adult_x10["parquet"], QIS, SENSITIVE, engine=engine, kinds={"age": "numeric"})
    finally:
        engine.close()
    dataset = Dataset.read(adult_x10["csv"], quasi_identifiers=QIS, sensitive=SENSITIVE, kinds={"age": "numeric"})
    local = ClassTable.from_dataset(dataset)
    assert spark.n_records == local.n_records == 301_620
    assert_same_figures(evaluate(spark).to_dict(), evaluate(local).to_dict())
    assert_same_figures(
        assess(spark, qi_subsets_max_size=2, sensitive=SENSITIVE).to_dict(),
        assess(local, qi_subsets_max_size=2, sensitive=SENSITIVE).to_dict(),
    )
