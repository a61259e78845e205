"""``veil scan``: find direct identifiers and quasi-identifiers in a CSV file."""

from __future__ import annotations

from pathlib import Path
from typing import Optional

import typer
from rich.table import Table

from veil.cli._app import app, console, err_console, user_errors, write_json_atomic, write_text_atomic  # noqa: F401
from veil.errors import DataFormatError, OutputError


def read_table(path: Path, sep: Optional[str]) -> pd.DataFrame:
    """Read a CSV as strings (no NA conversion) with 1-based data-row labels for error messages."""
    import pandas as pd
    if not path.is_file():
        raise DataFormatError(f"Input file {str(path)!r} does not exist or is not a file.")
    if not sep:
        sep = _sniff(path)
    try:
        frame = pd.read_csv(path, sep=sep, dtype=str, keep_default_na=False)
    except (pd.errors.ParserError, UnicodeDecodeError, ValueError) as exc:
        raise DataFormatError(f"Cannot read {str(path)!r} as CSV: {exc.__class__.__name__}: "
                              f"{str(exc).splitlines()[0] if str(exc) else ''}. Check the separator (--sep) "
                              "and the encoding (UTF-8).") from None
    frame.index = pd.RangeIndex(1, len(frame) + 1)
    return frame


def _sniff(path: Path) -> str:
    """The separator among ``, ; tab |`` (comma when the file has one column or is ambiguous)."""
    import csv

    with open(path, encoding="utf-8", errors="replace", newline="") as handle:
        head = handle.read(64 * 1024)
    try:
        return csv.Sniffer().sniff(head, delimiters=",;\t|").delimiter
    except csv.Error:
        return ","


def check_output(output: Path, *inputs: Path) -> None:
    """Refuse to write an output over an input."""
    for src in inputs:
        if src is not None and output.resolve() == src.resolve():
            raise OutputError(f"Output {str(output)!r} is the same file as input {str(src)!r}; "
                              "choose another output path.")
    if not output.resolve().parent.is_dir():
        raise OutputError(f"Output folder of {str(output)!r} does not exist.")


@app.command("scan")
def scan_command(
    file: Path = typer.Argument(..., help="CSV file to scan."),
    json_out: Optional[Path] = typer.Option(None, "--json", help="Write the findings as JSON to this file."),
    sep: Optional[str] = typer.Option(None, "--sep", help="Field separator (default: sniffed)."),
    sample_size: int = typer.Option(10_000, "--sample-size", help="Values per column matched against patterns."),
    seed: int = typer.Option(0, "--seed", help="Seed of the value sample."),
    threshold: float = typer.Option(0.5, "--threshold", help="Confidence at which a kind is reported."),
) -> None:
    """Find direct identifiers and likely quasi-identifiers, by column name and value patterns.

    Rows are numbered from 1 (the first data row after the header) in messages.
    """
    from veil.sanitize import scan

    with user_errors():
        frame = read_table(file, sep)
        if json_out is not None:
            check_output(json_out, file)
        report = scan(frame, sample_size=sample_size, seed=seed, threshold=threshold)
        table = Table(title=f"{file.name}: {report.rows} rows, {len(report.columns)} columns")
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
            table.add_row(name, f.kind, f"[{style[f.category]}]{f.category}[/]", f"{f.confidence:.2f}",
                          "; ".join(parts))
        console.print(table)
        console.print(f"[dim]Patterns on up to {report.sample_size} values per column (seed {report.seed}); "
                      "uniqueness on full columns.[/]")
        if json_out is not None:
            payload = {"file": file.name, **report.to_dict()}
            write_json_atomic(json_out, payload)
            console.print(f"Findings written to {json_out}")
