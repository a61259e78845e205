"""``veil evaluate``: attack a release and measure what it leaks beyond a control set."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import typer

from veil.cli._app import app, console, esc, parse_assignments, split_list, user_errors


def _aux(text: str | None) -> tuple[list[str] | None, tuple[list[str], list[str]] | None]:
    """``--aux a,b,c`` (known columns) or ``--aux "a,b;c,d"`` (also the linkability halves)."""
    from veil.errors import ParameterError

    if not text:
        return None, None
    if ";" in text:
        halves = [split_list(part, "--aux") for part in text.split(";")]
        if len(halves) != 2 or not all(halves) or set(halves[0]) & set(halves[1]):
            raise ParameterError("--aux with ';' takes two disjoint, non-empty column lists: 'a,b;c,d'.")
        return halves[0] + halves[1], (halves[0], halves[1])
    return split_list(text, "--aux"), None


def _table(result: dict[str, Any]) -> Any:
    from rich.table import Table

    from veil.report._evaluation import evaluation_rows

    table = Table(title="attacks on the release (risk = main beyond control)")
    for column in ("attack", "risk", "interval", "main", "control", "random guess"):
        table.add_column(column, justify="left" if column == "attack" else "right")
    for name, r in evaluation_rows(result):
        control = "-" if r.get("control") is None else f"{r['control']:.3f}"
        flag = "" if r["meaningful"] else " (no better than guessing)"
        table.add_row(esc(name) + flag, f"{r['risk']:.3f}", f"{r['ci'][0]:.3f}–{r['ci'][1]:.3f}",
                      f"{r['main']:.3f}", control, f"{r['baseline']:.3f}")
    return table


@app.command("evaluate")
def evaluate_command(
    original: Path = typer.Argument(..., readable=False, help="The records the release was made from (CSV/Parquet)."),
    release: Path = typer.Argument(..., readable=False, help="The release (CSV/Parquet), made by veil or any tool."),
    control: Path = typer.Option(None, "--control", help="Records of the same population NOT used for the release (veil split)."),
    secret: list[str] = typer.Option(None, "--secret", help="Column(s) the inference attack guesses (default: the report's sensitive columns, else each column)."),
    aux: str = typer.Option(None, "--aux", help="Columns the attacker knows, 'a,b,c'; 'a,b;c,d' also sets the two halves of the linkability attack (default: the report's QIs)."),
    attacks: str = typer.Option(",".join(("singling-out", "linkability", "inference", "linkage", "homogeneity", "record-linkage")), "--attacks", help="Comma-separated attacks to run."),
    n_attacks: int = typer.Option(500, "--n-attacks", help="Targets (or predicates) per attack."),
    n_cols: int = typer.Option(3, "--n-cols", help="Columns of a multivariate singling-out predicate."),
    n_neighbors: int = typer.Option(1, "--n-neighbors", help="Released records looked at per half in the linkability attack."),
    confidence: float = typer.Option(0.95, "--confidence", help="Confidence level of the intervals, in [0, 1]."),
    tolerance: float = typer.Option(0.05, "--tolerance", help="Relative tolerance of a numeric guess."),
    report: Path = typer.Option(None, "--report", help="The release's veil JSON report: its QIs, sensitive columns and levels."),
    hierarchy: list[str] = typer.Option(None, "--hierarchy", help="NAME=FILE.csv per generalized column: match generalized values exactly."),
    seed: int = typer.Option(None, "--seed", help="For a reproducible evaluation (default: OS randomness)."),
    sep: str = typer.Option(None, "--sep", help="CSV separator of the tables (default: detected)."),
    json_out: Path = typer.Option(None, "--json", help="Write the result as JSON here."),
    html_out: Path = typer.Option(None, "--html", help="Write the result as an HTML page here."),
) -> None:
    """Attack a release as Anonymeter does (singling out, linkability, inference) and with veil's own
    attacks; each risk is what the release leaks beyond a control set."""
    from veil.dataset import Dataset
    from veil.evaluate import evaluate
    from veil.evaluate._release_inputs import release_inputs
    from veil.pipeline import Outputs

    with user_errors():
        files = parse_assignments(hierarchy, "--hierarchy")
        known, halves = _aux(aux)
        secrets = [s for item in secret or [] for s in split_list(item, "--secret")]
        inputs = [original, release, control, report, *files.values()]
        with Outputs({"json": json_out, "html": html_out}, inputs=[p for p in inputs if p is not None]) as out:
            facts = release_inputs(report, files)
            frames = [Dataset.read(p, sep=sep).frame for p in (original, release)]
            held = None if control is None else Dataset.read(control, sep=sep).frame
            result = evaluate(
                frames[0], frames[1], held, secret=secrets or None, aux=known, link_aux=halves,
                attacks=split_list(attacks, "--attacks"), n_attacks=n_attacks, n_cols=n_cols,
                n_neighbors=n_neighbors, confidence=confidence, tolerance=tolerance, seed=seed,
                **facts.keywords(),
            )
            if json_out is not None:
                out.write_json("json", result)
            if html_out is not None:
                from veil.report._evaluation import render_evaluation_html

                out.write_text("html", render_evaluation_html(result))
            out.commit()
    console.print(_table(result))
    if control is None:
        console.print("No --control: each risk is the attack's raw success, not what the release adds to what "
                      "any sample of the population reveals (hold one out with veil split).")
    for role, path in (("JSON", json_out), ("HTML", html_out)):
        if path is not None:
            console.print(f"{role}: {esc(path)}")
