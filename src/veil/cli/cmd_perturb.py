"""``veil perturb``: numeric columns released perturbed (noise, correlated noise, rank swapping, MDAV).

The command-line face of :mod:`veil.algorithms.perturbation`.  The release
policy of every command: the perturbed ``--columns`` are published, with the
``--insensitive`` columns released unchanged; every other column is withheld,
``--identifier`` columns are never written, and an unchanged column the
identifier scan flags is refused unless ``--allow-identifier`` names it (a
perturbed column is numeric; its continuous values are unique by nature).  The
table and the JSON report are written through the one writer
(:func:`veil.pipeline.publishing`: destinations checked against the input
before any work, temporaries, renamed together), its rows shuffled; the seed
is never written.
Not differential privacy, as the output and the report say.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import typer

from veil.cli._app import app, console, esc, split_list, user_errors

_HELP = {
    "method": "noise (additive, sdcMicro's addNoise 'additive'), correlated-noise (addNoise 'correlated2': "
              "means and variances kept), rank-swap (values swapped within p% of the ranks) or mdav "
              "(microaggregation in groups of at least k).",
    "columns": "Numeric columns to perturb, comma-separated (perturbed together).",
    "insensitive": "Columns released unchanged, comma-separated; every other column is withheld.",
    "identifier": "Identifier columns, comma-separated: never written.",
    "allow_identifier": "Publish these columns although the identifier scan flags them; comma-separated.",
    "noise": "noise: the noise's standard deviation in percent of each column's (default 150).",
    "delta": "correlated-noise: delta in (0, 1) (default 0.1).",
    "p": "rank-swap: the largest rank distance, in percent of the records (default 5).",
    "k": "mdav: the smallest group (default 3).",
    "seed": "Seed of the draw, for a reproducible release; KEEP IT SECRET (it undoes the perturbation). Never written.",
}


@app.command("perturb")
def perturb_command(
    file: Path = typer.Argument(..., readable=False, help="A CSV or Parquet file."),
    method: str = typer.Option(..., "--method", help=_HELP["method"]),
    columns: str = typer.Option(..., "--columns", help=_HELP["columns"]),
    output: Path = typer.Option(..., "-o", "--output", help="Released table (.csv or .parquet), written atomically."),
    json_out: Path = typer.Option(None, "--json", help="JSON report: method, columns, information loss, disclosure risk."),
    insensitive: str = typer.Option(None, "--insensitive", help=_HELP["insensitive"]),
    identifier: str = typer.Option(None, "--identifier", help=_HELP["identifier"]),
    allow_identifier: str = typer.Option(None, "--allow-identifier", help=_HELP["allow_identifier"]),
    noise: float = typer.Option(150.0, "--noise", help=_HELP["noise"]),
    delta: float = typer.Option(0.1, "--delta", help=_HELP["delta"]),
    p: float = typer.Option(5.0, "--p", help=_HELP["p"]),
    k: int = typer.Option(3, "-k", "--k", help=_HELP["k"]),
    seed: int = typer.Option(None, "--seed", help=_HELP["seed"]),
    sep: str = typer.Option(None, "--sep", help="CSV separator of the input (default: detected)."),
) -> None:
    """Perturb numeric columns (noise, correlated noise, rank swapping, MDAV): not differential privacy."""
    import numpy as np

    from veil.algorithms.perturbation import METHODS, NOT_DIFFERENTIAL_PRIVACY, perturb
    from veil.dataset import Dataset
    from veil.errors import OutputError, ParameterError
    from veil.pipeline import publishing

    with user_errors(), publishing({"data": output, "json": json_out}, inputs=[file]) as out:
        if method not in METHODS:
            raise ParameterError(f"--method must be one of {', '.join(METHODS)}. Got {method!r} instead.")
        if output.suffix.lower() not in (".csv", ".parquet", ".pq"):
            raise OutputError(f"The '--output' option must name a .csv or .parquet file. Got {str(output)!r} instead.")
        chosen = split_list(columns, "--columns")
        kept, dropped = split_list(insensitive, "--insensitive"), split_list(identifier, "--identifier")
        dataset = Dataset.read(file, sep=sep)
        published = _published(dataset, chosen, kept, dropped, split_list(allow_identifier, "--allow-identifier"))
        result = perturb(dataset.frame_of(published), chosen, method=method, noise=noise, delta=delta, p=p, k=k,
                         seed=seed)
        # rows shuffled: the input order would link each released row to its record
        order = np.random.default_rng(None if seed is None else [seed, 1]).permutation(len(result.data))
        table = result.data.loc[:, published].iloc[order].reset_index(drop=True)
        report = {**result.to_dict(), "records": len(table), "published": published,
                  "withheld": [c for c in dataset.columns if c not in published and c not in dropped],
                  "identifiers_dropped": dropped}
        out.write("data", lambda tmp: _write(table, tmp))
        if json_out is not None:
            out.write_json("json", report)
    _print_summary(report, output, json_out)
    console.print(f"[bold]{NOT_DIFFERENTIAL_PRIVACY}[/]", highlight=False, soft_wrap=True)


def _published(dataset: Any, chosen: list[str], kept: list[str], dropped: list[str], allowed: list[str]) -> list[str]:
    """The published columns in input order (perturbed and unchanged), after the identifier scan."""
    from veil.errors import ColumnNotFoundError, ParameterError
    from veil.pipeline import IdentifierLeakError, ReleasePolicy

    if not chosen:
        raise ParameterError("--columns needs at least one numeric column.")
    for option, names in (("--columns", chosen), ("--insensitive", kept), ("--identifier", dropped),
                          ("--allow-identifier", allowed)):
        for name in names:
            if name not in dataset.columns:
                raise ColumnNotFoundError(f"Column {name!r} (in {option}) is not in the table; its columns are: "
                                          f"{', '.join(dataset.columns)}.")
    both = [c for c in dropped if c in chosen or c in kept]
    if both:
        raise ParameterError(f"Column {both[0]!r} is an --identifier and is also to be published; remove it from one.")
    published = [c for c in dataset.columns if c in chosen or c in kept]
    # the unchanged columns are scanned; a perturbed column is numeric and continuous values are unique
    # by nature, which the scan would read as an identifier
    unchanged = [c for c in published if c not in chosen]
    flagged = ReleasePolicy(allow_identifiers=tuple(allowed)).flagged_identifiers(dataset.columns_of(unchanged),
                                                                                unchanged) if unchanged else []
    if flagged:
        raise IdentifierLeakError(f"veil perturb refuses to publish {flagged[0]!r}: the identifier scan flags it as a "
                                  f"direct identifier. Leave it out, or publish it anyway with --allow-identifier "
                                  f"{flagged[0]}.")
    return published


def _write(table: Any, path: Path) -> None:
    if path.suffix.lower() in (".parquet", ".pq"):
        table.to_parquet(path, index=False)
    else:
        table.to_csv(path, index=False)


def _print_summary(report: dict[str, Any], output: Path, json_out: Path | None) -> None:
    from rich.table import Table

    summary = Table(title=f"Perturbed release ({report['method']})", show_header=False)
    summary.add_column("figure")
    summary.add_column("value", justify="right")
    summary.add_row("columns perturbed", esc(", ".join(report["columns"])))
    summary.add_row("records", f"{report['records']:,}")
    loss, risk = report["information_loss"], report["disclosure_risk"]
    summary.add_row("IL1s (per cell)", f"{loss['il1s']:,.2f} ({loss['il1s_per_cell']:.4f})")
    summary.add_row("eigenvalue loss", "n/a" if loss["eigen"] is None else f"{loss['eigen']:.4f}")
    summary.add_row("record linkage (nearest record is its own)", f"{100 * risk['record_linkage']:.2f}%")
    summary.add_row("interval disclosure", f"{100 * risk['interval_disclosure']:.2f}%")
    summary.add_row("withheld columns", esc(", ".join(report["withheld"])) or "none")
    summary.add_row("written", esc(str(output) + (f", report {json_out}" if json_out is not None else "")))
    console.print(summary)
