"""``veil utility``: workload utility of a release (Brickell & Shmatikov's U_base, U_san, U_max, A_acc)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import typer

from veil.cli._app import app, console, esc, parse_assignments, split_list, user_errors


def _report_facts(path: Path | None) -> tuple[list[str], dict[str, int] | None]:
    """The QIs and full-domain levels of an anonymize JSON report (``[]``/``None`` without one)."""
    from veil.errors import DataFormatError

    if path is None:
        return [], None
    try:
        report = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError) as exc:
        raise DataFormatError(f"Cannot read the report {str(path)!r} as JSON: {exc}.") from None
    if not isinstance(report, dict):
        raise DataFormatError(f"The report {str(path)!r} is not a veil anonymize report (a JSON object).")
    levels = report.get("transformation") or None
    qis = list(levels) if levels else list((report.get("achieved") or {}).get("quasi_identifiers") or [])
    if not qis:
        raise DataFormatError(f"The report {str(path)!r} names no quasi-identifiers (no 'transformation').")
    return qis, ({str(k): int(v) for k, v in levels.items()} if levels else None)


def _table(result: dict[str, Any]) -> Any:
    from rich.table import Table

    table = Table(title=f"workload utility, target {esc(result['target'])}")
    for column in ("classifier", "U_base", "U_san", "U_max", "U_max - U_san", "U_san / U_max"):
        table.add_column(column, justify="left" if column == "classifier" else "right")
    for name, s in result["classifiers"].items():
        ratio = "-" if s["ratio"] is None else f"{s['ratio']:.3f}"
        table.add_row(name, f"{s['u_base']:.4f}", f"{s['u_san']:.4f}", f"{s['u_max']:.4f}", f"{s['gap']:+.4f}", ratio)
    return table


@app.command("utility")
def utility_command(
    original: Path = typer.Argument(..., readable=False, help="The original table (CSV/Parquet) the release was made from."),
    release: Path = typer.Argument(..., readable=False, help="The released table (CSV/Parquet), shuffled or not."),
    target: str = typer.Option(..., "--target", help="The attribute the classifiers predict (not a quasi-identifier)."),
    qi: str = typer.Option(None, "--qi", help="Quasi-identifiers, comma-separated (default: from --report)."),
    report: Path = typer.Option(None, "--report", help="The release's JSON report: its QIs and levels."),
    hierarchy: list[str] = typer.Option(None, "--hierarchy", help="NAME=FILE.csv per QI, to match a shuffled release to the original."),
    classifiers: str = typer.Option(
        "decision-tree,naive-bayes,logistic-regression", "--classifiers", help="Comma-separated classifier names.",
    ),
    aligned: bool = typer.Option(False, "--aligned", help="The release's rows are in the original's order (no matching)."),
    test_size: float = typer.Option(1 / 3, "--test-size", help="Share of records held out for testing, in (0, 1)."),
    random_state: int = typer.Option(0, "--random-state", help="Seed of the split and the classifiers."),
    sep: str = typer.Option(None, "--sep", help="CSV separator of both tables (default: detected)."),
    json_out: Path = typer.Option(None, "--json", help="Write the result as JSON here."),
) -> None:
    """Workload utility: classifiers trained on the original, without QIs, and on the release."""
    from veil.cli._app import load_dataset
    from veil.dataset import Dataset
    from veil.errors import ParameterError
    from veil.hierarchy import from_csv
    from veil.pipeline import Outputs
    from veil.utility import workload

    with user_errors():
        files = parse_assignments(hierarchy, "--hierarchy")
        with Outputs({"json": json_out}, inputs=[original, release, report, *files.values()]) as out:
            report_qis, levels = _report_facts(report)
            qis = split_list(qi, "--qi") or report_qis
            if not qis:
                raise ParameterError("Name the quasi-identifiers with --qi, or give the release's report with --report.")
            data = load_dataset(original, quasi_identifiers=qis, sep=sep)
            data = data.with_hierarchies({name: from_csv(file, name=name) for name, file in files.items()})
            if levels is not None and set(levels) != set(qis):
                levels = None  # the report is about other QIs: infer the levels instead
            released = Dataset.read(release, sep=sep).frame
            result = workload(
                data, released, target=target, classifiers=split_list(classifiers, "--classifiers"), levels=levels,
                aligned=aligned, test_size=test_size, random_state=random_state,
            ).to_dict()
            if json_out is not None:
                out.write_json("json", result)
                out.commit()
    console.print(_table(result))
    console.print(f"A_acc (attacker's accuracy gain over guessing the most common value) = {result['a_acc']:.4f}")
    if json_out is not None:
        console.print(f"JSON: {esc(json_out)}")
