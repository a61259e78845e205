"""``veil describe FILE``: rows, columns, inferred kinds, distinct and missing counts."""

from __future__ import annotations

from pathlib import Path

import typer
from rich.table import Table

from veil.cli._app import app, console, esc, user_errors
from veil.cli._reading_options import na_values_of, na_values_option


@app.command("describe")
def describe(
    file: Path = typer.Argument(..., readable=False, help="A CSV or Parquet file."),
    sep: str = typer.Option(None, "--sep", help="CSV separator (default: detected)."),
    encoding: str = typer.Option("utf-8", "--encoding", help="CSV text encoding."),
    na_values: str = na_values_option(),
) -> None:
    """Describe a table: rows, columns, inferred kinds, distinct values, missing values (writes nothing)."""
    from veil.dataset import Dataset

    with user_errors():
        dataset = Dataset.read(file, sep=sep, encoding=encoding, na_values=na_values_of(na_values, file))
        summary = dataset.describe()
    table = Table(title=f"{esc(file.name)}: {dataset.n_records:,} rows, {len(dataset.columns)} columns")
    for column in ("column", "kind", "distinct", "missing"):
        table.add_column(column, justify="right" if column in ("distinct", "missing") else "left")
    for row in summary.itertuples(index=False):
        table.add_row(esc(row.column), str(row.kind), f"{row.distinct:,}", f"{row.missing:,}")
    console.print(table)
