"""``veil check FILE``: the achieved level of every privacy model, and requirements on them."""

from __future__ import annotations

import math
from pathlib import Path

import typer
from rich.table import Table

from veil.cli._app import (
    EXIT_REQUIREMENT_FAILED,
    app,
    console,
    load_dataset,
    parse_assignments,
    split_list,
    user_errors,
    write_json_atomic,
)


def _fmt(value: object) -> str:
    if value is None:
        return "none (unattainable)"
    if isinstance(value, float):
        return "inf" if math.isinf(value) else f"{value:.6g}"
    return str(value)


@app.command("check")
def check_command(
    file: Path = typer.Argument(..., help="A CSV or Parquet file (original or anonymized)."),
    qi: str = typer.Option(..., "--qi", help="Quasi-identifiers, comma-separated."),
    sensitive: str = typer.Option(None, "--sensitive", help="Sensitive attributes, comma-separated."),
    hierarchy: list[str] = typer.Option(
        None, "--hierarchy", help="NAME=FILE.csv (ARX-style); repeatable. On a sensitive attribute: "
        "hierarchical t-closeness.",
    ),
    kind: list[str] = typer.Option(
        None, "--kind", help="NAME=categorical|ordinal|numeric|date; repeatable (numeric: ordered t-closeness).",
    ),
    require: str = typer.Option(
        None, "--require", help='Requirements, e.g. "k>=5, l>=2, t<=0.2"; exit 1 when one fails.',
    ),
    json_out: Path = typer.Option(None, "--json", help="Write the report as JSON to this file."),
    sep: str = typer.Option(None, "--sep", help="CSV separator (default: detected)."),
    encoding: str = typer.Option("utf-8", "--encoding", help="CSV text encoding."),
    missing: str = typer.Option("value", "--missing", help="A missing QI value is a 'value' of its own or an 'error'."),
    recursive_l: int = typer.Option(2, "--recursive-l", help="The l of recursive (c,l)-diversity's reported c."),
    non_strict: bool = typer.Option(
        False, "--non-strict", help="Recursive (c,l) with r1 <= c*tail (the seed) instead of r1 < c*tail.",
    ),
) -> None:
    """Report which privacy models a table satisfies and at what level (k, l, c, t, delta, alpha, beta)."""
    from veil.classes import ClassTable
    from veil.errors import ParameterError
    from veil.models import evaluate, parse_requirements

    with user_errors():
        if missing not in ("value", "error"):
            raise ParameterError(f"--missing must be 'value' or 'error'. Got {missing!r} instead.")
        requirements = parse_requirements(require) if require is not None else []
        qis = split_list(qi)
        if not qis:
            raise ParameterError("--qi needs at least one quasi-identifier.")
        sens = split_list(sensitive)
        dataset = load_dataset(
            file, quasi_identifiers=qis, sensitive=sens, hierarchy_files=parse_assignments(hierarchy, "--hierarchy"),
            kinds=parse_assignments(kind, "--kind") or None, sep=sep, encoding=encoding, missing=missing,
        )
        classes = ClassTable.from_dataset(dataset)
        report = evaluate(classes, recursive_l=recursive_l, strict=not non_strict)
        results = [r.judge(report) for r in requirements]
        payload = report.to_dict()
        payload["requirements"] = [r.to_dict() for r in results]
        if json_out is not None:
            write_json_atomic(json_out, payload)

    title = (
        f"{file.name}: {report.records:,} records, {report.classes:,} classes, "
        f"{report.suppressed_records:,} suppressed ({report.input_suppressed:,} in the input)"
    )
    table = Table(title=title)
    table.add_column("model")
    table.add_column("level", justify="right")
    table.add_column("notes")
    table.add_row("k-anonymity", _fmt(report.k), "smallest class")
    table.add_row("max prosecutor risk", _fmt(report.max_prosecutor_risk), "1/k")
    table.add_row("average risk", _fmt(report.average_risk), "classes / retained records")
    op = "<" if report.strict else "<="
    for name, s in report.sensitive.items():
        table.add_section()
        table.add_row(f"distinct l-diversity [{name}]", _fmt(s.distinct_l), f"{s.distinct_values} distinct values in table")
        table.add_row(f"entropy l-diversity [{name}]", _fmt(s.entropy_l), "exp(min class entropy), natural log")
        table.add_row(
            f"recursive (c,{s.recursive_l})-diversity [{name}]", _fmt(s.recursive_c),
            f"smallest c; r1 {op} c*sum(r_i, i>={s.recursive_l})" + (" (c must exceed it)" if report.strict else ""),
        )
        if s.ordered:
            table.add_row(f"t-closeness, ordered [{name}]", _fmt(s.t_ordered), "EMD, ordered distance /(m-1)")
        else:
            table.add_row(f"t-closeness, equal [{name}]", _fmt(s.t_equal), "EMD, equal distance")
        if s.t_hierarchical is not None:
            table.add_row(f"t-closeness, hierarchical [{name}]", _fmt(s.t_hierarchical), "EMD, hierarchy distance")
        table.add_row(f"δ-disclosure [{name}]", _fmt(s.delta_disclosure), "ln, every value; holds for δ above it")
        table.add_row(
            f"δ-disclosure, present values [{name}]", _fmt(s.delta_disclosure_present_values), "ln, ARX/pycanon variant",
        )
        table.add_row(f"(α,k)-anonymity [{name}]", f"α={_fmt(s.alpha)}, k={s.alpha_k}", "largest value share")
        table.add_row(f"basic β-likeness [{name}]", _fmt(s.beta_likeness), "largest relative gain")
        table.add_row(f"enhanced β-likeness [{name}]", _fmt(s.enhanced_beta_likeness), "cap -ln q(s)")
    console.print(table)
    for note in report.notes + tuple(n for s in report.sensitive.values() for n in s.notes):
        console.print(f"[yellow]note:[/] {note}", highlight=False)
    if results:
        req = Table(title="requirements")
        req.add_column("clause")
        req.add_column("level", justify="right")
        req.add_column("met")
        for r in results:
            req.add_row(r.clause, _fmt(r.actual), ("[green]yes[/]" if r.met else "[red]no[/]") + (f" ({r.note})" if r.note else ""))
        console.print(req)
        if not all(r.met for r in results):
            raise typer.Exit(EXIT_REQUIREMENT_FAILED)
