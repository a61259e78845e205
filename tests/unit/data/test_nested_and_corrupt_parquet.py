"""Parquet files that veil cannot read are refused alike by both engines, in one line (exit 2).

Two cases where they were not:

- a nested column (a list or a struct in a cell): the local engine crashed with a traceback
  (``dictionary_encode`` has no kernel for lists; lists are unhashable) while DuckDB read the
  lists as strings such as ``[t1, x]``; both now refuse the file when it is read, naming the
  column and its Arrow type (the one reader, and ``Source.from_path`` from the schema);
- a corrupt data page: DuckDB's own exception (``_duckdb.Error: don't know what type: ...``,
  which quotes a byte of the file) ended ``risk``/``check``/``query --engine duckdb`` with a
  traceback and exit 1; :func:`translate` now words it as a refusal of the file.
"""

from __future__ import annotations

from pathlib import Path

import pyarrow as pa
import pyarrow.csv as pacsv
import pyarrow.parquet as pq
import pytest
from typer.testing import CliRunner

from veil.cli import app
from veil.data import read_table
from veil.data._reader import nested_columns_error
from veil.datasets import adult_path
from veil.engines import Source
from veil.errors import DataFormatError

pytest.importorskip("duckdb")

ENGINES = ["local", "duckdb"]
ROWS = 20


def _write(path: Path, columns: dict) -> Path:
    pq.write_table(pa.table(columns), path)
    return path


@pytest.fixture
def list_file(tmp_path: Path) -> Path:
    return _write(tmp_path / "f.parquet", {"age": ["30", "40"] * ROWS, "tags": [["a", "b"], ["c"]] * ROWS,
                                           "salary-class": ["<=50K", ">50K"] * ROWS})


@pytest.fixture
def struct_file(tmp_path: Path) -> Path:
    return _write(tmp_path / "s.parquet", {"age": ["30", "40"] * ROWS,
                                           "addr": [{"city": "x", "zip": "1"}, {"city": "y", "zip": "2"}] * ROWS,
                                           "salary-class": ["<=50K", ">50K"] * ROWS})


NESTED = {  # fixture, column, its type as the message shows it
    "list": ("list_file", "tags", "list<string>"),
    "struct": ("struct_file", "addr", "struct<city: string, zip: string>"),
}


def _invoke(args: list[str]):
    return CliRunner().invoke(app, args)


def _assert_refused(result, path: Path, column: str, type_text: str) -> None:
    assert result.exit_code == 2, result.output
    assert isinstance(result.exception, SystemExit)  # no traceback
    assert "Traceback" not in result.output
    message = result.output.strip()
    assert len(message.splitlines()) == 1, message
    assert f"the column {column!r} holds {type_text} values" in message
    assert path.name in message
    assert "flat tables" in message


# ------------------------------------------------------------------ nested columns
@pytest.mark.parametrize("engine", ENGINES)
@pytest.mark.parametrize("variant", sorted(NESTED))
@pytest.mark.parametrize("command", ["check", "risk"])
def test_check_and_risk_refuse_a_nested_column(request, tmp_path: Path, engine: str, variant: str,
                                               command: str) -> None:
    fixture, column, type_text = NESTED[variant]
    path = request.getfixturevalue(fixture)
    before = set(tmp_path.iterdir())
    result = _invoke([command, str(path), "--qi", f"age,{column}", "--engine", engine])
    _assert_refused(result, path, column, type_text)
    assert set(tmp_path.iterdir()) == before


@pytest.mark.parametrize("engine", ENGINES)
@pytest.mark.parametrize("variant", sorted(NESTED))
def test_anonymize_refuses_a_nested_column_and_writes_nothing(request, tmp_path: Path, engine: str,
                                                              variant: str) -> None:
    fixture, column, type_text = NESTED[variant]
    path = request.getfixturevalue(fixture)
    before = set(tmp_path.iterdir())
    out = tmp_path / "x.parquet"
    result = _invoke(["anonymize", str(path), "--qi", f"age,{column}", "--sensitive", "salary-class",
                      "--auto-hierarchies", "-k", "5", "-o", str(out), "--engine", engine])
    _assert_refused(result, path, column, type_text)
    assert not out.exists()
    assert set(tmp_path.iterdir()) == before  # no temporary left either


@pytest.mark.parametrize("engine", ENGINES)
def test_a_nested_column_not_named_is_refused_too(list_file: Path, engine: str) -> None:
    """The file is refused when read, whichever columns the command uses."""
    result = _invoke(["risk", str(list_file), "--qi", "age", "--engine", engine])
    _assert_refused(result, list_file, "tags", "list<string>")


@pytest.mark.parametrize("engine", ENGINES)
def test_query_refuses_a_nested_column(list_file: Path, engine: str) -> None:
    result = _invoke(["query", str(list_file), "histogram tags", "--categories", "a,b", "--epsilon", "1",
                      "--budget", "3", "--engine", engine])
    _assert_refused(result, list_file, "tags", "list<string>")


def test_deidentify_refuses_a_nested_column(list_file: Path, tmp_path: Path) -> None:
    out = tmp_path / "n.csv"
    result = _invoke(["deidentify", str(list_file), "--profile", "safe-harbor", "-o", str(out)])
    _assert_refused(result, list_file, "tags", "list<string>")
    assert not out.exists()


def test_the_reader_and_the_source_refuse_alike(list_file: Path, struct_file: Path) -> None:
    for path in (list_file, struct_file):
        with pytest.raises(DataFormatError) as local:
            read_table(path)
        with pytest.raises(DataFormatError) as duck:
            Source.from_path(path)
        head = f"{str(path)!r}: "
        assert str(local.value).startswith(head) and str(duck.value).startswith(head)
        assert str(local.value) == str(duck.value)
        with pytest.raises(DataFormatError):
            read_table(path, max_rows=1)


def test_several_nested_columns_are_named_with_their_types(tmp_path: Path) -> None:
    path = _write(tmp_path / "m.parquet", {
        "age": ["30", "40"],
        "tags": pa.array([["a"], ["b", "c"]], type=pa.large_list(pa.string())),
        "scores": pa.array([{"a": 1}, {"b": 2}], type=pa.map_(pa.string(), pa.int64())),
        "pair": pa.array([[1, 2], [3, 4]], type=pa.list_(pa.int64(), 2)),
    })
    with pytest.raises(DataFormatError) as caught:
        read_table(path)
    message = str(caught.value)
    assert "the columns 'tags' (large_list<string>), 'scores' (map<string, int64>) and " \
           "'pair' (fixed_size_list<int64, 2>) hold nested values" in message
    assert "flatten them first" in message
    assert "'age'" not in message


@pytest.mark.parametrize("arrow_type, text", [
    (pa.list_(pa.string()), "list<string>"),
    (pa.struct([("a", pa.int8())]), "struct<a: int8>"),
    (pa.dense_union([pa.field("a", pa.int8()), pa.field("b", pa.string())]), None),
    (pa.dictionary(pa.int32(), pa.list_(pa.string())), "dictionary<list<string>>"),
])
def test_every_kind_of_nested_type_counts(arrow_type: pa.DataType, text: str | None) -> None:
    error = nested_columns_error(pa.schema([("age", pa.string()), ("x", arrow_type)]), "'f.parquet'")
    assert error is not None and "the column 'x' holds " in str(error)
    if text is not None:
        assert f"holds {text} values" in str(error)


def test_flat_columns_are_not_nested() -> None:
    schema = pa.schema([("a", pa.string()), ("b", pa.int64()), ("c", pa.dictionary(pa.int32(), pa.string())),
                        ("d", pa.date32()), ("e", pa.decimal128(10, 2)), ("f", pa.binary())])
    assert nested_columns_error(schema, "'f.parquet'") is None


@pytest.mark.parametrize("engine", ENGINES)
def test_a_flat_parquet_file_is_still_read(tmp_path: Path, engine: str) -> None:
    path = _write(tmp_path / "flat.parquet", {"age": ["30", "40"] * ROWS,
                                              "sex": pa.array(["m", "f"] * ROWS).dictionary_encode()})
    result = _invoke(["risk", str(path), "--qi", "age,sex", "--engine", engine])
    assert result.exit_code == 0, result.output


# ------------------------------------------------------------- a corrupt data page
@pytest.fixture(scope="module")
def corrupt_adult(tmp_path_factory) -> Path:
    """Adult as uncompressed Parquet with 200 bytes of the age column's data page flipped."""
    table = pacsv.read_csv(adult_path(), parse_options=pacsv.ParseOptions(delimiter=";"))
    path = tmp_path_factory.mktemp("corrupt") / "adult.parquet"
    pq.write_table(table, path, compression="none")
    chunk = pq.ParquetFile(path).metadata.row_group(0).column(table.column_names.index("age"))
    data = bytearray(path.read_bytes())
    start = chunk.data_page_offset + 30
    data[start:start + 200] = bytes(b ^ 0xFF for b in data[start:start + 200])
    path.write_bytes(bytes(data))
    return path


CORRUPT_COMMANDS = {
    "risk": ["risk", "{path}", "--qi", "age,sex,race"],
    "check": ["check", "{path}", "--qi", "age,sex,race"],
    "query": ["query", "{path}", "histogram age", "--categories", "30,40", "--epsilon", "1", "--budget", "3"],
}


@pytest.mark.parametrize("engine", ENGINES)
@pytest.mark.parametrize("command", sorted(CORRUPT_COMMANDS))
def test_a_corrupt_data_page_is_refused_in_one_line(corrupt_adult: Path, engine: str, command: str) -> None:
    args = [a.format(path=corrupt_adult) for a in CORRUPT_COMMANDS[command]] + ["--engine", engine]
    result = _invoke(args)
    assert result.exit_code == 2, result.output
    assert isinstance(result.exception, SystemExit)
    message = result.output.strip()
    assert len(message.splitlines()) == 1, message
    assert "Traceback" not in message and "_duckdb" not in message
    assert f"Cannot read {str(corrupt_adult)!r} as Parquet" in message or \
        f"Cannot read {str(corrupt_adult.resolve())!r} as Parquet" in message
    assert not any(not c.isprintable() for c in message)  # no byte of the file, raw
    if engine == "duckdb":
        assert "don't know" not in message  # none of DuckDB's own text


def test_translate_words_only_the_failures_to_read_the_file(tmp_path: Path) -> None:
    import duckdb

    from veil.engines._duckdb_read import translate

    source = Source(tmp_path / "a.parquet", "parquet", ("age",), ",", ())
    for exc in (duckdb.Error("don't know what type: \x0f"),
                duckdb.IOException(f'IO Error: Could not read enough bytes from file "{source.path}": x'),
                duckdb.InvalidInputException(f'Invalid Input Error: Failed to read file "{source.path}": Snappy')):
        error = translate(exc, source)
        assert isinstance(error, DataFormatError), exc
        assert str(error).startswith(f"Cannot read {str(source.path)!r} as Parquet: it is corrupt or malformed")
        assert "\x0f" not in str(error) and "Snappy" not in str(error)
    csv_source = Source(tmp_path / "a.csv", "csv", ("age",))
    assert "names the line" in str(translate(duckdb.InvalidInputException("Invalid Input Error: x"), csv_source))
    for other in (duckdb.OutOfMemoryException("Out of Memory Error: failed to allocate"),
                  duckdb.IOException('IO Error: Could not write file "/tmp/spill/x.tmp": No space left on device'),
                  duckdb.BinderException("Binder Error: Referenced column not found")):
        assert translate(other, source) is other  # not the file's fault: not worded as if it were
