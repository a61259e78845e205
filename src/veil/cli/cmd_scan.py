"""``veil scan``: find direct identifiers and quasi-identifiers in a CSV file."""

from __future__ import annotations

from pathlib import Path
from typing import Optional

import typer
from rich.table import Table

from veil.cli._app import app, console, esc, read_frame, user_errors
from veil.cli._reading_options import na_values_of, na_values_option


@app.command("scan")
def scan_command(
    file: Path = typer.Argument(..., readable=False, help="CSV or Parquet file to scan."),
    json_out: Optional[Path] = typer.Option(None, "--json", help="Write the findings as JSON to this file."),
    sep: Optional[str] = typer.Option(None, "--sep", help="Field separator (default: sniffed)."),
    encoding: str = typer.Option("utf-8", "--encoding", help="CSV text encoding."),
    na_values: Optional[str] = na_values_option(),
    sample_size: int = typer.Option(10_000, "--sample-size", help="Values per column matched against patterns."),
    seed: int = typer.Option(0, "--seed", help="Seed of the value sample."),
    threshold: float = typer.Option(0.5, "--threshold", help="Confidence at which a kind is reported."),
) -> None:
    """Find direct identifiers and likely quasi-identifiers, by column name and value patterns.

    Rows are numbered from 1 (the first data row after the header) in messages.
    """
    from veil.pipeline import publishing
    from veil.sanitize import scan

    with user_errors(), publishing({"json": json_out}, inputs=[file]) as out:
        frame = read_frame(file, sep=sep, encoding=encoding, na_values=na_values_of(na_values, file))
        report = scan(frame, sample_size=sample_size, seed=seed, threshold=threshold)
        if json_out is not None:
            out.write_json("json", {"file": file.name, **report.to_dict()})
        table = Table(title=f"{esc(file.name)}: {report.rows} rows, {len(report.columns)} columns")
        for col in ("column", "kind", "category", "confidence", "evidence"):
            table.add_column(col, overflow="fold")
        style = {"direct-identifier": "bold red", "quasi-identifier": "yellow", "none": "dim"}
        for name, f in report.columns.items():
            parts = []
            for e in f.evidence:
                share = "" if e.share is None else f" {e.share:.0%}"
                if e.source == "pattern" and (e.share or 0) < 0.05:
                    continue
                parts.append(f"{e.source}{':' + e.kind if e.kind else ''}{share}")
            if f.kind == "none" and f.candidate:
                parts.append(f"(candidate {f.candidate} {f.candidate_confidence:.2f})")
            table.add_row(esc(name), f.kind, f"[{style[f.category]}]{f.category}[/]", f"{f.confidence:.2f}",
                          esc("; ".join(parts)))
        console.print(table)
        console.print(f"[dim]Patterns on up to {report.sample_size} values per column (seed {report.seed}); "
                      "uniqueness on full columns.[/]")
    if json_out is not None:
        console.print(f"Findings written to {esc(json_out)}", highlight=False)
