"""A file with a header and no data row: refused by default, a table of no rows when allowed
(``read_table(allow_no_rows=True)``, how ``veil check`` reads a release whose every record was
dropped); an empty file is refused either way."""

import pandas as pd
import pytest

from veil.data import read_table
from veil.errors import DataFormatError


@pytest.mark.parametrize("text", ["a;b;zip, code\n", "\ufeffa;b;zip, code\r\n\r\n"])
def test_a_header_alone_is_refused_unless_no_rows_are_allowed(tmp_path, text):
    path = tmp_path / "release.csv"
    path.write_text(text, encoding="utf-8")
    with pytest.raises(DataFormatError, match="header but no data rows"):
        read_table(path)
    table = read_table(path, allow_no_rows=True)
    assert table.num_rows == 0 and table.column_names == ["a", "b", "zip, code"]


def test_a_parquet_file_of_no_rows_is_read_when_allowed(tmp_path):
    path = tmp_path / "release.parquet"
    pd.DataFrame({"a": pd.Series([], dtype="str"), "b": pd.Series([], dtype="str")}).to_parquet(path)
    with pytest.raises(DataFormatError, match="no rows"):
        read_table(path)
    assert read_table(path, allow_no_rows=True).column_names == ["a", "b"]


@pytest.mark.parametrize("text", ["", "\n\n", "\ufeff"])
def test_an_empty_file_is_refused_either_way(tmp_path, text):
    path = tmp_path / "release.csv"
    path.write_text(text, encoding="utf-8")
    for allowed in (False, True):
        with pytest.raises(DataFormatError, match="is empty"):
            read_table(path, allow_no_rows=allowed)
