"""``veil query`` on typed columns (bool, int, float, decimal, date, text): the in-memory path
answers what the DuckDB engine answers, and both what pandas counts, noise removed.

The engines compare every column through its text labels (a bool is ``'True'``/``'False'``,
a date ``YYYY-MM-DD``) and its numbers as numbers; the in-memory path once compared a bool
column's ``True`` with the literal text ``'True'`` (no row matched, and the budget was charged
for the 0), and refused to sum a decimal column.
"""

from __future__ import annotations

import datetime
import decimal
import json
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from typer.testing import CliRunner

from veil.cli import app
from veil.dp import GeometricMechanism, LaplaceMechanism, PrivacyAccountant, PrivacyBudget, PrivateTable

pytest.importorskip("duckdb")
pa = pytest.importorskip("pyarrow")
pq = pytest.importorskip("pyarrow.parquet")

runner = CliRunner()
N = 240
LOWER, UPPER = 0.0, 100.0


def _table() -> "pa.Table":
    rng = np.random.default_rng(7)
    missing = rng.random((6, N)) < 0.05  # a few missing values in every column

    def with_missing(values: list, k: int) -> list:
        return [None if missing[k, j] else v for j, v in enumerate(values)]

    start = datetime.date(2020, 1, 1)
    return pa.table({
        "b": pa.array(with_missing([bool(x) for x in rng.random(N) < 0.3], 0), pa.bool_()),
        "i": pa.array(with_missing([int(x) for x in rng.integers(0, 10, N)], 1), pa.int64()),
        "f": pa.array(with_missing([float(x) for x in np.round(rng.uniform(0, 5, N) * 2) / 2], 2), pa.float64()),
        "d": pa.array(with_missing([decimal.Decimal(f"{x:.2f}") for x in rng.uniform(0, 100, N)], 3),
                      pa.decimal128(9, 2)),
        "dt": pa.array(with_missing([start + datetime.timedelta(days=int(k)) for k in rng.integers(0, 60, N)], 4),
                       pa.date32()),
        "s": pa.array(with_missing([str(x) for x in rng.choice(["a", "b", "c"], N)], 5), pa.string()),
        "flag": pa.array(rng.random(N) < 0.4, pa.bool_()),  # no missing value: a bool column in memory
    })


@pytest.fixture(scope="module")
def truth() -> pd.DataFrame:
    """The data as pandas holds it: bools, ints, floats, Decimals, dates, str (None when missing)."""
    return _table().to_pandas(types_mapper={pa.bool_(): pd.BooleanDtype(), pa.int64(): pd.Int64Dtype()}.get)


@pytest.fixture(scope="module")
def files(tmp_path_factory, truth: pd.DataFrame) -> dict[str, Path]:
    folder = tmp_path_factory.mktemp("typed")
    parquet = folder / "typed.parquet"
    pq.write_table(_table(), parquet)
    csv = folder / "typed.csv"
    text = truth.astype(object).where(truth.notna(), None)
    text.to_csv(csv, index=False)  # True/False, 12.30, 2020-01-31; a missing value empty
    return {"parquet": parquet, "csv": csv}


@pytest.fixture
def noise_free(monkeypatch):
    """Every mechanism of veil query releases its input unchanged (the scales are still computed)."""
    monkeypatch.setattr(LaplaceMechanism, "release", lambda self, value: value)
    monkeypatch.setattr(GeometricMechanism, "release", lambda self, value: value)


def _some(truth: pd.DataFrame, column: str, k: int) -> list:
    return sorted(truth[column].dropna().unique().tolist())[:k]


def _cases(t: pd.DataFrame) -> list[tuple[str, str | None, object]]:
    """(query, --categories, the answer pandas gives)."""
    b, i, f, s, flag = t["b"], t["i"], t["f"], t["s"], t["flag"]
    d = t["d"].map(lambda v: None if v is None else float(v)).astype(float)
    dt = t["dt"].map(lambda v: None if v is None else v.isoformat())
    d0, d1 = _some(t, "d", 2)
    day0, day1 = (v.isoformat() for v in _some(t, "dt", 2))

    def n(mask: pd.Series) -> int:
        return int(mask.fillna(False).astype(bool).sum())

    def clamped(values: pd.Series, mask: pd.Series | None = None) -> float:
        values = values.astype(float).fillna(0.0).clip(LOWER, UPPER)
        return float(values[mask.fillna(False).astype(bool)].sum() if mask is not None else values.sum())

    return [
        ("count where b = True", None, n(b == True)),  # noqa: E712
        ("count where b != True", None, n(b == False)),  # noqa: E712
        ("count where not (b = True)", None, N - n(b == True)),  # noqa: E712
        ("count where b in (True)", None, n(b == True)),  # noqa: E712
        ("count where b = 'False'", None, n(b == False)),  # noqa: E712
        ("histogram b", "True,False", {"True": n(b == True), "False": n(b == False)}),  # noqa: E712
        ("count where flag = True", None, n(flag == True)),  # noqa: E712
        ("count where flag != True", None, n(flag == False)),  # noqa: E712
        ("count where flag in (False)", None, n(flag == False)),  # noqa: E712
        ("histogram flag", "True,False", {"True": n(flag == True), "False": n(flag == False)}),  # noqa: E712
        ("sum d by flag", "True,False", {"True": clamped(d, flag == True),  # noqa: E712
                                         "False": clamped(d, flag == False)}),  # noqa: E712
        ("count where i > 4", None, n(i > 4)),
        ("count where i = 3", None, n(i == 3)),
        ("count where i != 3", None, n(i != 3)),  # a missing i: NA, not counted
        ("count where i in (1, 2)", None, n(i.isin([1, 2]))),
        ("count where f >= 2.5", None, n(f >= 2.5)),
        ("count where f = 2", None, n(f == 2)),
        ("count where f in (0.5, 1)", None, n(f.isin([0.5, 1.0]))),
        ("count where d < 50", None, n(d < 50)),
        ("count where d >= 50.5", None, n(d >= 50.5)),
        (f"count where d = {d0}", None, n(d == float(d0))),
        (f"count where d in ({d0}, {d1})", None, n(d.isin([float(d0), float(d1)]))),
        ("count where dt < '2020-02-01'", None, n(dt < "2020-02-01")),
        (f"count where dt = '{day0}'", None, n(dt == day0)),
        (f"count where dt != '{day0}'", None, n(dt != day0) - int(dt.isna().sum())),
        (f"count where dt in ('{day0}', '{day1}')", None, n(dt.isin([day0, day1]))),
        ("count where s = 'a'", None, n(s == "a")),
        ("count where s < 'b'", None, n(s < "b")),
        ("count where s in (a, c)", None, n(s.isin(["a", "c"]))),
        ("count where b = True and d > 50 and dt >= '2020-01-15'", None,
         n((b == True) & (d > 50) & (dt >= "2020-01-15"))),  # noqa: E712
        ("count where b = True or s = 'c'", None, n((b == True) | (s == "c"))),  # noqa: E712
        ("sum i", None, clamped(i)),
        ("sum f", None, clamped(f)),
        ("sum d", None, clamped(d)),
        ("sum d where b = True", None, clamped(d, b == True)),  # noqa: E712
        ("sum i where dt < '2020-02-01'", None, clamped(i, dt < "2020-02-01")),
        ("histogram i", "1,2,3", {str(k): n(i == k) for k in (1, 2, 3)}),
        ("histogram f", "0.5,1.5,2.5", {"0.5": n(f == 0.5), "1.5": n(f == 1.5), "2.5": n(f == 2.5)}),
        ("histogram d", f"{d0},{d1}", {str(d0): n(d == float(d0)), str(d1): n(d == float(d1))}),
        ("histogram dt", f"{day0},{day1}", {day0: n(dt == day0), day1: n(dt == day1)}),
        ("histogram s", "a,b", {"a": n(s == "a"), "b": n(s == "b")}),
        ("histogram s where b = True", "a,b", {"a": n((s == "a") & (b == True)),  # noqa: E712
                                               "b": n((s == "b") & (b == True))}),  # noqa: E712
        ("sum i by b", "True,False", {"True": clamped(i, b == True), "False": clamped(i, b == False)}),  # noqa: E712
        ("sum d by s", "a,b", {"a": clamped(d, s == "a"), "b": clamped(d, s == "b")}),
    ]


def _answer(path: Path, query: str, categories: str | None, engine: str) -> tuple[int, object]:
    args = ["query", str(path), query, "--epsilon", "1", "--budget", "1e9", "--json", "--engine", engine,
            "--lower", str(LOWER), "--upper", str(UPPER)]
    if categories:
        args += ["--categories", categories]
    result = runner.invoke(app, args)
    if result.exit_code != 0:
        return result.exit_code, None
    return 0, json.loads([line for line in result.output.splitlines() if line.startswith("{")][0])["value"]


def _plain(value: object) -> object:
    """An answer comparable across paths: a number key as a number (``12.3`` is ``12.30``), sums rounded."""
    if isinstance(value, dict):
        out = {}
        for key, v in value.items():
            try:
                key = float(key)
            except ValueError:
                pass
            out[key] = _plain(v)
        return out
    return round(float(value), 6) if isinstance(value, float) else value


@pytest.mark.parametrize("fmt", ["parquet", "csv"])
def test_local_and_duckdb_answer_what_pandas_counts(fmt: str, files: dict[str, Path], truth: pd.DataFrame,
                                                    noise_free) -> None:
    wrong = []
    for query, categories, expected in _cases(truth):
        local = _answer(files[fmt], query, categories, "local")
        duck = _answer(files[fmt], query, categories, "duckdb")
        if not (local[0] == duck[0] == 0 and _plain(local[1]) == _plain(duck[1]) == _plain(expected)):
            wrong.append((query, categories, local, duck, expected))
    assert not wrong, "\n".join(map(str, wrong))


@pytest.mark.parametrize("fmt", ["parquet", "csv"])
@pytest.mark.parametrize("query", ["count where b = 1", "count where flag = 1", "sum flag", "count where i = 'a'", "count where s = 1",
                                   "count where d = '12.30'", "count where dt = 20200101", "sum b", "sum s",
                                   "sum dt"])
def test_both_paths_refuse_the_same_typed_queries(fmt: str, query: str, files: dict[str, Path]) -> None:
    # a number is compared with numbers only (not bools, dates or text), text with the others;
    # a sum needs numbers (a bool is not summed as 0/1 by either path)
    assert _answer(files[fmt], query, None, "local")[0] == 2
    assert _answer(files[fmt], query, None, "duckdb")[0] == 2


def test_a_decimal_column_is_numeric_in_memory(files: dict[str, Path], truth: pd.DataFrame, noise_free) -> None:
    from veil.data import read_table

    frame = read_table(files["parquet"], typed=True).to_pandas()
    table = PrivateTable(frame, accountant=PrivacyAccountant(budget=PrivacyBudget(epsilon=100)))
    d = truth["d"].map(lambda v: np.nan if v is None else float(v)).astype(float)
    assert table.is_numeric("d") and not any(table.is_numeric(c) for c in ("b", "flag", "dt", "s"))
    assert table.sum("d", lower=LOWER, upper=UPPER, epsilon=1).value == pytest.approx(d.fillna(0).sum(), abs=1e-6)
    assert table.mean("d", lower=LOWER, upper=UPPER, epsilon=1).value == pytest.approx(d.fillna(0).mean(), abs=1e-6)
    assert table.count("d > 50", epsilon=1).value == int((d > 50).sum())
    # a bool column's True is the key 'True' and the literal True (also with missing values)
    for column in ("b", "flag"):
        b = truth[column]
        assert table.histogram(column, categories=["True", "False"], epsilon=1).value == {
            "True": int((b == True).sum()), "False": int((b == False).sum())}  # noqa: E712
        assert table.count(f"{column} = True", epsilon=1).value == int((b == True).sum())  # noqa: E712
