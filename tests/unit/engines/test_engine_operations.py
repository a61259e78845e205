"""The two engine operations, local and duckdb: group_count and apply."""

from __future__ import annotations

import datetime as dt
import os
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from veil.classes import ClassTable
from veil.dataset import Dataset
from veil.engines import (
    DuckDBEngine,
    Engine,
    LocalEngine,
    FullDomainRecoding,
    Source,
    class_table_from_counts,
    get_engine,
)
from veil.errors import (
    ColumnNotFoundError,
    DataFormatError,
    HierarchyError,
    OutputError,
    ParameterError,
    SchemaError,
)

from .conftest import QIS, SENSITIVE, assert_same_class_table, canonical_counts

ENGINES = [LocalEngine(), DuckDBEngine(threads=2)]
IDS = [e.name for e in ENGINES]


def read_text(path) -> pd.DataFrame:
    return pd.read_csv(path, dtype=str, keep_default_na=False)


@pytest.fixture(scope="module")
def recoding(adult):
    """Adult at a middle node, with its classes smaller than 5 suppressed."""
    node = ClassTable.from_dataset(adult).generalize((0, 2, 0, 1, 1, 1, 1, 1))
    return FullDomainRecoding.from_classes(node.suppress(node.counts < 5))


def test_registry():
    assert isinstance(get_engine("duckdb"), DuckDBEngine) and isinstance(get_engine(" Local "), LocalEngine)
    engine = DuckDBEngine()
    assert get_engine(engine) is engine and isinstance(engine, Engine)
    with pytest.raises(ParameterError, match=r"^The 'engine' parameter must be one of \{'local', 'duckdb', 'spark'\}. Got 'polars' instead.$"):
        get_engine("polars")
    with pytest.raises(ParameterError, match="Bad option for DuckDBEngine"):
        get_engine("duckdb", memory="1GB")
    with pytest.raises(ParameterError, match="'threads' parameter of DuckDBEngine"):
        DuckDBEngine(threads=0)


def test_group_count_local_equals_duckdb_on_adult(adult_csv):
    local, duck = (e.group_count(adult_csv, QIS, SENSITIVE) for e in ENGINES)
    assert list(duck.columns) == QIS + SENSITIVE + ["count"]
    assert duck["count"].dtype == np.int64 and duck["sex"].dtype == object
    assert len(duck) == 19_502 and duck["count"].sum() == 30_162
    pd.testing.assert_frame_equal(canonical_counts(local), canonical_counts(duck))


def test_group_count_parquet_typed_columns(tmp_path):
    """Parquet values become the labels Dataset gives them: integral floats lose '.0',
    booleans are 'True'/'False', dates 'YYYY-MM-DD', nulls missing."""
    frame = pd.DataFrame({
        "age": pd.array([30, 30, None, 41], dtype="Int64"),
        "height": [1.0, 1.5, np.nan, 2.0],
        "smoker": [True, False, True, True],
        "day": [dt.date(2020, 1, 2), dt.date(2020, 1, 2), None, dt.date(2021, 5, 6)],
        "city": ["x", None, "y", "x"],
    })
    path = tmp_path / "t.parquet"
    frame.to_parquet(path, index=False)
    columns = list(frame.columns)
    local = canonical_counts(LocalEngine().group_count(path, columns[:3], columns[3:]))
    duck = canonical_counts(DuckDBEngine().group_count(path, columns[:3], columns[3:]))
    pd.testing.assert_frame_equal(local, duck)
    assert sorted(duck["height"].tolist()) == sorted(["1", "1.5", "\0missing", "2"])
    assert sorted(duck["day"].tolist()) == sorted(["2020-01-02", "2020-01-02", "2021-05-06", "\0missing"])
    # (Dataset cannot encode a Parquet date column yet: datetime.date objects; so not "day" here)
    dataset = Dataset.from_parquet(path, quasi_identifiers=columns[:3], sensitive=["city"])
    built = class_table_from_counts(
        DuckDBEngine().group_count(path, columns[:3], ["city"]), quasi_identifiers=columns[:3], sensitive=["city"],
    )
    assert_same_class_table(built, ClassTable.from_dataset(dataset))


@pytest.mark.parametrize("engine", ENGINES, ids=IDS)
def test_apply_releases_the_recoding(engine, adult, adult_csv, recoding, tmp_path):
    result = engine.apply(adult_csv, recoding.mappings, recoding.suppressed, tmp_path / "out.csv", shuffle_seed=7)
    assert result.records_out == adult.n_records and result.path == tmp_path / "out.csv"
    released = read_text(result.path)
    assert list(released.columns) == QIS + SENSITIVE
    star = (released[QIS] == "*").all(axis=1)
    kept = released.loc[~star]
    assert kept.groupby(QIS).size().min() >= 5
    assert star.sum() > 0 and set(kept[QIS].itertuples(index=False, name=None)).isdisjoint(recoding.suppressed)
    # the released labels are those of the mappings; the other columns are unchanged
    original = adult.frame
    for name in QIS:
        assert set(kept[name]) <= set(recoding.mappings[name].values())
    assert sorted(released["salary-class"]) == sorted(original["salary-class"])
    assert os.listdir(tmp_path) == ["out.csv"]


def test_apply_same_rows_on_every_engine_and_seeded_order(adult_csv, recoding, tmp_path):
    outputs = {}
    for engine in ENGINES:
        path = engine.apply(adult_csv, recoding.mappings, recoding.suppressed, tmp_path / f"{engine.name}.csv",
                            shuffle_seed=11).path
        outputs[engine.name] = read_text(path)
    local, duck = outputs["local"], outputs["duckdb"]
    columns = list(local.columns)
    pd.testing.assert_frame_equal(
        local.sort_values(columns).reset_index(drop=True), duck.sort_values(columns).reset_index(drop=True)
    )
    # reproducible with a seed, another order with another seed, and shuffled
    again = DuckDBEngine(threads=1).apply(adult_csv, recoding.mappings, recoding.suppressed, tmp_path / "again.csv",
                                          shuffle_seed=11).path
    assert read_text(again).equals(duck)
    other = DuckDBEngine().apply(adult_csv, recoding.mappings, recoding.suppressed, tmp_path / "other.csv",
                                 shuffle_seed=12).path
    assert not read_text(other).equals(duck)
    unshuffled = LocalEngine().apply(adult_csv, recoding.mappings, [], tmp_path / "x.csv", shuffle_seed=0).path
    source_order = pd.read_csv(adult_csv, sep=";", dtype=str, keep_default_na=False)["salary-class"]
    assert not read_text(unshuffled)["salary-class"].equals(source_order)


@pytest.mark.parametrize("engine", ENGINES, ids=IDS)
def test_apply_missing_values_input_suppressed_and_drop(engine, tmp_path):
    """A missing QI value maps through the MISSING key; rows that arrived with '*' in every
    QI stay suppressed; drop_suppressed leaves out both; other columns pass verbatim."""
    path = tmp_path / "in.csv"
    path.write_text(
        "zip,age,note\n47677,30,NA\n,31,x\n*,*,\n47905,45,\"a,b\"\n47678,30,y\n", encoding="utf-8"
    )
    mappings = {
        "zip": {"47677": "4767*", "47678": "4767*", "47905": "4790*", "<missing>": "<missing>"},
        "age": {"30": "30-39", "31": "30-39", "45": "40-49"},
    }
    kept = engine.apply(path, mappings, [("4790*", "40-49")], tmp_path / "out.csv", shuffle_seed=1)
    released = read_text(kept.path).sort_values(["note"]).reset_index(drop=True)
    assert released.to_dict("list") == {
        "zip": ["*", "4767*", "*", "", "4767*"],  # the missing zip is released empty, as it came
        "age": ["*", "30-39", "*", "30-39", "30-39"],
        "note": ["", "NA", "a,b", "x", "y"],
    }
    dropped = engine.apply(path, mappings, [("4790*", "40-49")], tmp_path / "dropped.parquet",
                           shuffle_seed=1, drop_suppressed=True)
    assert dropped.records_out == 3
    zips = pd.read_parquet(dropped.path)["zip"]
    assert sorted(zips.dropna()) == ["4767*", "4767*"] and int(zips.isna().sum()) == 1


@pytest.mark.parametrize("engine", ENGINES, ids=IDS)
def test_apply_errors_leave_no_file(engine, adult_csv, recoding, tmp_path):
    mappings = {name: dict(m) for name, m in recoding.mappings.items()}
    del mappings["age"]["39"]
    out = tmp_path / "out.csv"
    with pytest.raises(HierarchyError, match=r"^The hierarchy of column 'age' does not cover the value '39'; "):
        engine.apply(adult_csv, mappings, [], out)
    assert os.listdir(tmp_path) == []
    with pytest.raises(ColumnNotFoundError, match="Column 'zip' is not in .*adult.csv'; its columns are: sex, age"):
        engine.apply(adult_csv, {"zip": {}}, [], out)
    with pytest.raises(OutputError, match="is the input file; veil never overwrites its input"):
        engine.apply(adult_csv, recoding.mappings, [], adult_csv)
    blocker = tmp_path / "file"
    blocker.write_text("x")
    with pytest.raises(OutputError, match="is not a folder"):
        engine.apply(adult_csv, recoding.mappings, [], blocker / "out.csv")
    with pytest.raises(ParameterError, match="one released label per quasi-identifier"):
        engine.apply(adult_csv, recoding.mappings, [("*",)], out)
    with pytest.raises(ParameterError, match="'shuffle_seed' parameter must be an int in"):
        engine.apply(adult_csv, recoding.mappings, [], out, shuffle_seed=-1)
    assert os.listdir(tmp_path) == ["file"]


def test_unwritable_folder(adult_csv, recoding, tmp_path, monkeypatch):
    folder = tmp_path / "locked"
    folder.mkdir()
    # the check asks the OS whether the folder is writable; as root it always is, so ask a stand-in
    monkeypatch.setattr("veil.engines._output.os.access", lambda path, mode: Path(path) != folder)
    with pytest.raises(OutputError, match="is not writable"):
        DuckDBEngine().apply(adult_csv, recoding.mappings, [], folder / "out.csv")
    assert os.listdir(folder) == []


@pytest.mark.parametrize("engine", ENGINES, ids=IDS)
def test_bad_input_files(engine, tmp_path):
    ragged = tmp_path / "ragged.csv"
    ragged.write_text("a,b\n1,2\n3\n4,5\n", encoding="utf-8")
    with pytest.raises(DataFormatError, match=r"ragged.csv', line 3: expected 2 fields"):
        engine.group_count(ragged, ["a"], ["b"])
    with pytest.raises(DataFormatError, match="No such file"):
        engine.group_count(tmp_path / "none.csv", ["a"])
    duplicated = tmp_path / "dup.csv"
    duplicated.write_text("a,a\n1,2\n", encoding="utf-8")
    with pytest.raises(SchemaError, match="duplicate column names: 'a'"):
        engine.group_count(duplicated, ["a"])
    counted = tmp_path / "count.csv"
    counted.write_text("count,b\n1,2\n", encoding="utf-8")
    with pytest.raises(SchemaError, match="has the name of the count column"):
        engine.group_count(counted, ["count"])


def test_source_detects_separator_and_header(adult_csv, tmp_path):
    source = Source.from_path(adult_csv)
    assert source.sep == ";" and source.format == "csv" and source.columns == tuple(QIS + SENSITIVE)
    empty = tmp_path / "empty.csv"
    empty.write_text("", encoding="utf-8")
    with pytest.raises(DataFormatError, match="is empty"):
        Source.from_path(empty)
    latin = tmp_path / "latin.csv"
    latin.write_bytes("a,b\nZürich,1\n".encode("latin-1"))
    with pytest.raises(DataFormatError, match="not valid UTF-8"):
        Source.from_path(latin)


@pytest.mark.parametrize("engine", ["local", "duckdb"])
def test_a_long_output_name_fits_in_every_temporary(tmp_path, engine):
    # an engine writes the release's temporary file, through its own temporary (and
    # DuckDB's spill folder beside it): the nested names once grew past 255 characters
    from veil.engines import anonymize_file
    from veil.hierarchy import Hierarchy
    from veil.models import KAnonymity

    data = tmp_path / "in.csv"
    data.write_text("zip,age\n" + "".join(f"4767{i % 3},3{i % 4}\n" for i in range(40)))
    out = tmp_path / ("r" * 200 + ".csv")
    hierarchies = {"zip": Hierarchy.flat([f"4767{i}" for i in range(3)], name="zip"),
                   "age": Hierarchy.flat([f"3{i}" for i in range(4)], name="age")}
    anonymize_file(data, engine=engine, models=[KAnonymity(k=2)], quasi_identifiers=["zip", "age"],
                   hierarchies=hierarchies, output=out, drop_suppressed=True)
    assert out.exists() and sorted(p.name for p in tmp_path.iterdir()) == sorted(["in.csv", out.name])


def test_duckdb_errors_never_quote_a_value(tmp_path):
    # DuckDB's own message quotes the value it could not convert ('Could not convert string
    # 'Male' to DOUBLE'); errors are public, so veil names the column only
    from veil.engines import DuckDBEngine
    from veil.errors import DataFormatError, SchemaError

    data = tmp_path / "in.csv"
    data.write_text("sex,age\nMale,3\nFemale,4\n")
    with pytest.raises(SchemaError, match="'sex' is not numeric") as caught:
        DuckDBEngine().aggregate(data, [], {"sex": (0.0, 1.0)})
    assert "Male" not in str(caught.value)
    bad = tmp_path / "bad.csv"
    bad.write_bytes(b"sex,age\nM\xffle,3\n")
    with pytest.raises(DataFormatError, match="not valid UTF-8") as caught:
        DuckDBEngine().group_count(bad, ["sex"], [])
    assert "le,3" not in str(caught.value) and "Original Line" not in str(caught.value)


def test_duckdb_memory_limit_default_and_environment(monkeypatch, tmp_path):
    from veil.engines import DuckDBEngine

    monkeypatch.delenv("VEIL_DUCKDB_MEMORY_LIMIT", raising=False)
    assert DuckDBEngine().memory_limit == "2GB"  # bounded whatever the data (DuckDB's own: 80% of RAM)
    monkeypatch.setenv("VEIL_DUCKDB_MEMORY_LIMIT", "3GB")
    assert DuckDBEngine().memory_limit == "3GB" and DuckDBEngine(memory_limit="1GB").memory_limit == "1GB"
    data = tmp_path / "in.csv"
    data.write_text("zip\n47677\n47677\n")
    assert DuckDBEngine().group_count(data, ["zip"])["count"].tolist() == [2]  # DuckDB takes the setting
    monkeypatch.setenv("VEIL_DUCKDB_MEMORY_LIMIT", "lots")
    with pytest.raises(ParameterError, match="DuckDB refused a setting"):
        DuckDBEngine().group_count(data, ["zip"])


@pytest.mark.parametrize("engine", ["local", "duckdb"])
def test_aggregate_refuses_a_column_that_groups_and_is_summed(tmp_path, engine):
    # DuckDB renamed the sum 'age_1' and the local engine dropped it: wrong columns, silently
    from veil.engines import get_engine

    data = tmp_path / "in.csv"
    data.write_text("age,sex\n30,F\n40,M\n")
    with pytest.raises(ParameterError, match="'age' cannot both group and be summed"):
        get_engine(engine).aggregate(data, ["age"], {"age": (0.0, 100.0)})
