"""``veil split``: hold out a control set for ``veil evaluate``."""

from __future__ import annotations

from pathlib import Path

import typer

from veil.cli._app import app, console, esc, read_frame, user_errors


@app.command("split")
def split_command(
    path: Path = typer.Argument(..., readable=False, help="The table to split (CSV/Parquet)."),
    control: float = typer.Option(0.2, "--control", help="The control's share of the records, in (0, 1)."),
    out: Path = typer.Option(..., "-o", "--out", help="Where the records to release from go (CSV/Parquet)."),
    control_out: Path = typer.Option(..., "--control-out", help="Where the control records go (CSV/Parquet): as sensitive as the input."),
    seed: int = typer.Option(None, "--seed", help="For a reproducible split (default: OS randomness)."),
    sep: str = typer.Option(None, "--sep", help="CSV separator of the input (default: detected); the outputs use ','."),
) -> None:
    """Split a table at random into the records a release is made from and a control set of records
    that are never released, for `veil evaluate --control`."""
    from veil.evaluate import split
    from veil.pipeline import Outputs
    from veil.release import table_writer

    with user_errors():
        with Outputs({"data": out, "control": control_out}, inputs=[path]) as outputs:
            frame = read_frame(path, sep=sep)
            train, held = split(frame, control, seed=seed)
            outputs.write("data", table_writer(train))
            outputs.write("control", table_writer(held))
            outputs.commit()
    console.print(f"{len(train):,} records to release from: {esc(out)}; {len(held):,} control records: "
                  f"{esc(control_out)} (keep it as private as the input: it is never released).")
