"""``veil hierarchy build|check``: the hierarchy wizard in text form, and a validator.

``build`` writes one ARX-style CSV per column (``;``-separated, one row per
value, one column per level, no header) for review and hand editing, and
prints each level with the groups the records fall into.  ``check`` validates
hierarchies (files or specs) against a table: monotone levels, one top value,
and every value of the column covered.
"""

from __future__ import annotations

import re
from pathlib import Path

import typer
from rich.table import Table

from veil.cli._app import EXIT_INPUT_ERROR, app, console, err_console, esc, parse_assignments, split_list, user_errors
from veil.cli._hierarchy_options import hierarchy_option, parse_hierarchy_options, quote_name, refuse_stray

hierarchy_app = typer.Typer(
    name="hierarchy", help="Build generalization hierarchies from a table, or check them against it.",
    no_args_is_help=True,
)
app.add_typer(hierarchy_app, name="hierarchy")


def _file_names(columns: list[str]) -> dict[str, str]:
    """A safe, distinct file name per column (``a/b`` → ``a_b.csv``)."""
    out: dict[str, str] = {}
    used: set[str] = set()
    for column in columns:
        stem = re.sub(r"[^A-Za-z0-9._-]", "_", column).strip("._") or "column"
        name, i = f"{stem}.csv", 2
        while name.lower() in used:
            name, i = f"{stem}-{i}.csv", i + 1
        used.add(name.lower())
        out[column] = name
    return out


def _preview(column: str, source: str, summaries: list, missing: int) -> Table:
    note = f" ({missing:,} missing record(s): their own value until the top)" if missing else ""
    table = Table(title=f"{esc(column)}: {esc(source)}{note}", title_justify="left", show_header=True)
    for name in ("level", "groups", "smallest", "largest", "first groups (records)"):
        table.add_column(name, justify="left" if name.startswith("first") else "right")
    for s in summaries:
        examples = ", ".join(f"{esc(label)} ({n:,})" for label, n in s.examples)
        table.add_row(str(s.level), f"{s.groups:,}", f"{s.smallest:,}", f"{s.largest:,}", examples)
    return table


@hierarchy_app.command("build")
def build_command(
    file: Path = typer.Argument(..., readable=False, help="The table (CSV or Parquet) whose values the hierarchies cover."),
    qi: str = typer.Option(..., "--qi", help="Columns to build hierarchies for, comma-separated."),
    spec: list[str] = typer.Option(None, "--spec", help="COL=SPEC (interval:5,10, mask:1, date:month,year, "
                                   "round:10, group:2,10, suppress, taxonomy:FILE, auto); others get auto."),
    out_dir: Path = typer.Option(..., "-o", "--output", help="Folder for the hierarchy CSVs (one per column)."),
    kind: list[str] = typer.Option(None, "--kind", help="COL=KIND (numeric, date, ...) that auto follows."),
    sep: str = typer.Option(None, "--sep", help="CSV separator of the input (default: detected)."),
) -> None:
    """Write one ARX-style hierarchy CSV per column and preview each level's groups."""
    from veil.dataset import Dataset
    from veil.hierarchy import level_counts, column_values, parse_spec, resolve
    from veil.pipeline import Outputs

    with user_errors():
        columns = split_list(qi, "--qi")
        if not columns:
            from veil.errors import ParameterError

            raise ParameterError("--qi needs at least one column.")
        specs = parse_hierarchy_options(spec)
        refuse_stray(specs, columns, option="--spec")
        kinds = parse_assignments(kind, "--kind")
        names = _file_names(columns)
        inputs = [file] + [Path(f) for s in specs.values() for f in parse_spec(s).files]
        with Outputs({c: out_dir / names[c] for c in columns}, inputs=inputs) as out:
            dataset = Dataset.read(file, sep=sep, quasi_identifiers=columns)
            resolution = resolve(dataset, specs,
                                 quasi_identifiers=columns, auto=True, kinds=kinds)
            tables = []
            for column in columns:
                hierarchy = resolution.hierarchies[column]
                values, counts = column_values(dataset, column)
                encoded = dataset.encode(column)
                missing = int((encoded.codes == encoded.missing_code).sum()) if encoded.missing_code >= 0 else 0
                tables.append(_preview(column, resolution.sources[column],
                                       level_counts(hierarchy, values, counts, column=column), missing))
                out.write(column, lambda tmp, h=hierarchy: h.to_csv(tmp))
            out.commit()
    for table in tables:
        console.print(table)
    console.print(f"Wrote {len(columns)} hierarchy file(s) to {esc(str(out_dir))}. Edit them, then use them with:",
                  highlight=False)
    import shlex  # the command is pasted into a shell: every name quoted for it

    flags = " ".join(f"--hierarchy {shlex.quote(f'{quote_name(c)}={out_dir / names[c]}')}" for c in columns)
    qis = ",".join(quote_name(c) for c in columns)
    command = f"veil anonymize {shlex.quote(str(file))} --qi {shlex.quote(qis)} {flags} -k 5"
    console.print(f"  {esc(command)}", highlight=False, soft_wrap=True)


@hierarchy_app.command("check")
def check_command(
    file: Path = typer.Argument(..., readable=False, help="The table (CSV or Parquet) the hierarchies must cover."),
    hierarchy: list[str] = hierarchy_option(),
    sep: str = typer.Option(None, "--sep", help="CSV separator of the input (default: detected)."),
) -> None:
    """Validate hierarchies against a table: monotone levels, one top, every value covered."""
    from veil.dataset import Dataset
    from veil.errors import HierarchyError, ParameterError
    from veil.hierarchy import column_values, resolve

    with user_errors():
        specs = parse_hierarchy_options(hierarchy)
        if not specs:
            raise ParameterError("Nothing to check: give --hierarchy COL=SPEC (a file or a builder) at least once.")
        dataset = Dataset.read(file, sep=sep, quasi_identifiers=list(specs))
    problems = 0
    for column, text in specs.items():
        try:
            with_missing = resolve(dataset, {column: text})
            h = with_missing.hierarchies[column]
            values, _ = column_values(dataset, column)
            h.leaf_index(values, column=column)
        except HierarchyError as exc:
            problems += 1
            err_console.print(f"[bold red]error:[/] {esc(column)}: {esc(str(exc))}", highlight=False, soft_wrap=True)
            continue
        console.print(f"{esc(column)}: ok ({esc(with_missing.sources[column])}; {h.n_levels} levels, "
                      f"values per level {' → '.join(str(h.n_values(l)) for l in range(h.n_levels))}; "
                      f"covers all {len(values):,} values)", highlight=False, soft_wrap=True)
    if problems:
        raise typer.Exit(EXIT_INPUT_ERROR)
