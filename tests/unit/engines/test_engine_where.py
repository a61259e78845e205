"""``where`` filters through an engine: the rows the in-memory predicate selects, values never pasted into SQL."""

from __future__ import annotations

import json
from pathlib import Path

import pandas as pd
import pytest
from typer.testing import CliRunner

from veil.cli import app
from veil.data import read_table
from veil.dp import PrivacyAccountant, PrivacyBudget, parse_predicate, parse_query
from veil.engines import DuckDBEngine, LocalEngine
from veil.engines._query import engine_answer
from veil.errors import ColumnNotFoundError, SchemaError

ENGINES = {"duckdb": DuckDBEngine, "local": LocalEngine}
PREDICATES = [
    "age > 40",
    "age >= 40 and sex = 'Female'",
    "not (race = 'White')",
    "race in ('Black', 'Other') or age < 20",
    "`marital-status` != 'Never-married' and age <= 25.5",
    "age in (17, 90)",
]


@pytest.fixture(scope="module")
def typed_adult(adult_csv: str) -> pd.DataFrame:
    return read_table(adult_csv, typed=True).to_pandas()


@pytest.mark.parametrize("engine", sorted(ENGINES))
@pytest.mark.parametrize("where", PREDICATES)
def test_filtered_aggregates_equal_the_in_memory_predicate(engine: str, where: str, adult_csv: str,
                                                           typed_adult: pd.DataFrame) -> None:
    pred = parse_predicate(where)
    mask = pred.mask(typed_adult)  # the rows veil query selects in memory
    out = ENGINES[engine]().aggregate(adult_csv, ["sex"], {"age": (0.0, 100.0)}, where=pred)
    got = out.set_index("sex").sort_index()
    expected = typed_adult[mask].groupby("sex").agg(count=("age", "size"), age=("age", "sum"))
    assert got["count"].to_dict() == expected["count"].to_dict()
    assert got["age"].to_dict() == expected["age"].astype(float).to_dict()  # integer ages: exact


def test_a_hand_counted_filter(tmp_path: Path) -> None:
    path = tmp_path / "t.csv"
    path.write_text("x,y\n1,a\n2,b\n,a\n3,\n5,b\n")
    pred = parse_query("count where x != 1").where
    # x != 1 matches 2, 3, 5 (the missing x matches no comparison); not (x = 1) also the missing one
    for engine in (DuckDBEngine(), LocalEngine()):
        assert engine.aggregate(path, [], {}, where=pred)["count"].tolist() == [3]
        assert engine.aggregate(path, [], {}, where=parse_predicate("not (x = 1)"))["count"].tolist() == [4]
        # y in ('a') matches rows 1 and 3; y < 'b' the same two ('a' < 'b' as text; missing y never)
        assert engine.aggregate(path, ["y"], {}, where=parse_predicate("y < 'b'"))["count"].tolist() == [2]


@pytest.mark.parametrize("engine", sorted(ENGINES))
def test_values_are_parameters_not_sql(engine: str, adult_csv: str) -> None:
    """A literal full of SQL is compared as text (no row has it: count 0); an odd column name is a
    clean ColumnNotFoundError naming it."""
    pred = parse_predicate(r"""race = 'x\' OR \'1\'=\'1' or race = "a\" OR 1=1 --" """)
    assert {p.value for p in pred.operands} == {"x' OR '1'='1", 'a" OR 1=1 --'}
    assert ENGINES[engine]().aggregate(adult_csv, [], {}, where=pred)["count"].tolist() == [0]
    with pytest.raises(ColumnNotFoundError, match="race\" OR"):
        ENGINES[engine]().aggregate(adult_csv, [], {}, where=parse_predicate('`race" OR 1=1 --` = 1'))


def test_typed_refusals_spend_nothing(adult_csv: str) -> None:
    accountant = PrivacyAccountant(budget=PrivacyBudget(epsilon=1.0))
    for query, needle in (("count where age = 'old'", "'age' is numeric"), ("count where race > 2", "'race' holds text")):
        with pytest.raises(SchemaError, match=needle):
            engine_answer(DuckDBEngine(), adult_csv, parse_query(query), accountant=accountant, epsilon=0.5)
    assert accountant.ledger == ()


def test_cli_where_labels_and_calibration_equal_local(adult_csv: str) -> None:
    args = ["query", adult_csv, "count where age > 40", "sum age where sex = 'Female'",
            "histogram race where age < 30", "--categories", "White,Black", "--lower", "0", "--upper", "100",
            "--epsilon", "0.5", "--budget", "5", "--json"]
    local = [json.loads(line) for line in CliRunner().invoke(app, args).output.splitlines()]
    duck = [json.loads(line) for line in CliRunner().invoke(app, [*args, "--engine", "duckdb"]).output.splitlines()]
    assert [a["query"] for a in duck] == ["count where age > 40", "sum age where sex = 'Female'",
                                          "histogram race where age < 30"]
    for a, b in zip(local, duck):
        a.pop("value"), b.pop("value")
        assert a == b
