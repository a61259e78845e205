"""``veil randomize``: a randomized release by PRAM or the αβ algorithm.

The command-line face of :mod:`veil.algorithms.randomization`.  Flags are
checked here, at the edge: the method and its parameters must agree (PRAM takes
``--p`` or ``--transition``; αβ takes ``--alpha/--beta`` and/or ``--d/--gamma``),
and a pair (α, β) given with (d, γ) must meet Theorem 4.3.  Nothing is written
unless the release was drawn; the table and the JSON report are written as a
set through :class:`veil.pipeline.Outputs` (destinations checked against every
input before work, temporaries verified, then committed together), never over
an input.  The seed is never written anywhere.  The two methods live in
:mod:`veil.cli._randomize_methods`.

Everything written is public (docs/security.md), so before any work the
columns the release would publish go through the identifier scan of
:meth:`veil.pipeline.ReleasePolicy.check_identifiers`: those PRAM copies
unchanged and the randomized ones of either method (randomizing a name does not
anonymize it).  A flagged column is refused unless ``--allow-identifier`` names
it; ``--identifier`` columns are dropped, never written.
"""

from __future__ import annotations

from enum import Enum
from pathlib import Path
from typing import Any, Optional

import typer

from veil.cli._app import app, console, err_console, esc, parse_assignments, split_list, user_errors
from veil.cli._randomize_methods import (
    alpha_beta_pair,
    alpha_beta_release,
    check_p,
    check_pram_sizes,
    pram_release,
)
from veil.errors import ColumnNotFoundError, OutputError, ParameterError

_TABLE_SUFFIXES = (".csv", ".parquet", ".pq")
_NOT_DP = ("Not differential privacy: the release protects only as its method says "
           "(docs/algorithms/randomization.md). For differentially private answers use `veil query`.")


class Method(str, Enum):
    """The randomizing algorithms the command offers."""

    PRAM = "pram"
    ALPHA_BETA = "alpha-beta"


# ---------------------------------------------------------------------- flag checks
def _given(**flags: Any) -> list[str]:
    """The names (``--p``, ...) of the flags that were given."""
    return [f"--{name.replace('_', '-')}" for name, value in flags.items()
            if value is not None and value is not False and not (isinstance(value, (list, dict)) and not value)]


def _refuse_foreign(method: Method, **flags: Any) -> None:
    """Refuse the flags of the other method."""
    foreign = _given(**flags)
    if foreign:
        other = "alpha-beta" if method is Method.PRAM else "pram"
        raise ParameterError(
            f"{', '.join(foreign)} {'applies' if len(foreign) == 1 else 'apply'} to --method {other} only and "
            f"cannot be combined with --method {method.value}. Drop {'it' if len(foreign) == 1 else 'them'} "
            "or change --method."
        )


def _check_table_suffix(output: Path) -> None:
    if output.suffix.lower() not in _TABLE_SUFFIXES:
        raise OutputError(
            f"The '--output' option must name a .csv or .parquet file. Got {str(output)!r} instead."
        )


def _write_frame(frame, path: Path) -> None:
    """Write ``frame`` to ``path`` (a temporary of :class:`~veil.pipeline.Outputs`): Parquet or CSV by suffix."""
    if path.suffix.lower() in (".parquet", ".pq"):
        frame.to_parquet(path, index=False)
    else:
        frame.to_csv(path, index=False)


def _verify_written(path: Path, rows: int, columns: list[str]) -> None:
    """Read the temporary table back: the rows and columns that were drawn, before anything is published."""
    import pandas as pd

    if path.suffix.lower() in (".parquet", ".pq"):
        back = pd.read_parquet(path)
    else:
        back = pd.read_csv(path, dtype=str, keep_default_na=False)
    if len(back) != rows or [str(c) for c in back.columns] != [str(c) for c in columns]:
        raise OutputError(
            f"Internal error: the written table has {len(back)} rows and {len(back.columns)} columns, not the "
            f"{rows} rows and {len(columns)} columns drawn; nothing was published."
        )


def _option_list(values: Optional[list[str]], option: str) -> list[str]:
    """A repeatable, comma-separated option (``--identifier a,b --identifier c``), each name once."""
    return list(dict.fromkeys(name for value in values or [] for name in split_list(value, option)))


def _as_option(names: list[str]) -> str:
    """``names`` as one comma-separated option value (a name holding a comma or a quote CSV-quoted)."""
    return ",".join('"' + n.replace('"', '""') + '"' if ("," in n or '"' in n) else n for n in names)


def _published_columns(method: Method, dataset, chosen: list[str], identifiers: list[str], allowed: list[str],
                       file: Path) -> list[str]:
    """The columns the release writes, in its order, after the identifier scan of every one of them.

    PRAM writes every input column but the ``--identifier`` ones, in the input's order (the chosen
    ones randomized, the others unchanged); αβ writes the chosen columns only, in their order.
    Each written column goes through :meth:`veil.pipeline.ReleasePolicy.flagged_identifiers` (the
    scan ``veil anonymize`` runs); the refusal names every flagged one.

    Raises
    ------
    ColumnNotFoundError
        ``--identifier`` or ``--allow-identifier`` names a column the file does not have.
    ParameterError
        A column is both in ``--identifier`` and in ``--columns`` or ``--allow-identifier``.
    IdentifierLeakError
        A written column looks like a direct identifier and ``--allow-identifier`` does not name it.
    """
    from veil.pipeline import IdentifierLeakError, ReleasePolicy

    available = list(dataset.columns)
    for option, names in (("--identifier", identifiers), ("--allow-identifier", allowed)):
        for name in names:
            if name not in available:
                raise ColumnNotFoundError(f"Column {name!r} (in {option}) is not in {file.name!r}; its columns "
                                          f"are: {', '.join(available)}.")
    for option, names in (("--columns", chosen), ("--allow-identifier", allowed)):
        both = [c for c in identifiers if c in names]
        if both:
            raise ParameterError(
                f"Column {both[0]!r} is in both --identifier and {option}: an --identifier column is dropped, "
                f"never written; remove it from one of them."
            )
    if method is Method.PRAM:
        published = [c for c in available if c not in identifiers]
    else:
        published = list(chosen)  # only these, in the order of --columns
    found = set(ReleasePolicy(allow_identifiers=tuple(allowed)).flagged_identifiers(
        dataset.columns_of(published), published))
    flagged = [c for c in published if c in found]  # in the release's order
    if flagged:
        raise IdentifierLeakError(_leak_message(method, [c for c in flagged if c not in chosen],
                                                [c for c in flagged if c in chosen]))
    return published


def _leak_message(method: Method, unchanged: list[str], randomized: list[str]) -> str:
    """The one-line refusal of flagged columns: which, how they would be published, and the ways out."""
    def names(columns: list[str]) -> str:
        return ", ".join(map(repr, columns))

    parts = []
    if unchanged:
        parts.append(f"{names(unchanged)} would be published unchanged")
    if randomized:
        parts.append(f"{names(randomized)} would be published randomized by --method {method.value}, "
                     "which does not anonymize a direct identifier")
    ways = []
    if unchanged:
        ways.append(f"drop {'it' if len(unchanged) == 1 else 'them'} with --identifier {_as_option(unchanged)}")
    if randomized:
        ways.append(f"take {names(randomized)} out of --columns")
    one = len(unchanged) + len(randomized) == 1
    return (f"veil randomize refuses to publish {'a column' if one else 'columns'} that the identifier scan "
            f"flags as {'a direct identifier' if one else 'direct identifiers'}: {'; '.join(parts)}. "
            f"{' and '.join(ways)[0].upper()}{' and '.join(ways)[1:]}, or publish {'it' if one else 'them'} anyway "
            f"with --allow-identifier {_as_option(unchanged + randomized)}.")


def _check_columns(columns: list[str], available: list[str], file: Path) -> None:
    seen: set[str] = set()
    for column in columns:
        if column in seen:
            raise ParameterError(f"The '--columns' option lists {column!r} twice; name each column once.")
        seen.add(column)
        if column not in available:
            raise ColumnNotFoundError(
                f"Column {column!r} (in --columns) is not in {file.name!r}; its columns are: {', '.join(available)}."
            )


# ---------------------------------------------------------------------- the command
#: The flags' help texts (kept apart so that the signature reads as the list of flags).
_HELP = {
    "file": "Data file to randomize (CSV or Parquet).",
    "method": "pram (post-randomization, sdcMicro's pram) or alpha-beta (Rastogi et al. 2007).",
    "columns": "Comma-separated columns: for pram the categorical columns to randomize (required); for "
               "alpha-beta the columns to publish (required; only these are released).",
    "output": "Released table (.csv or .parquet), written atomically, never over the input.",
    "json": "JSON report: parameters, matrices or |D|/|V|, rows in/out. Never holds the seed.",
    "sep": "CSV separator of the input (default: detected).",
    "seed": "Seed of the randomness, for a reproducible release (default: fresh OS entropy). KEEP IT SECRET: "
            "whoever knows it can replay the draws and undo the randomization.",
    "p": "pram: keep probability in (0, 1]; else a value moves uniformly to another category.",
    "transition": "pram: COLUMN=FILE.csv, a square transition matrix whose header lists the column's categories "
                  "(row i = original category i; rows sum to 1); repeat per column.",
    "invariant": "pram with --p: invariant matrices (expected output frequencies equal the input's; they "
                 "disclose those frequencies).",
    "alpha": "alpha-beta: α in (0, 1]; a true tuple is kept with probability α + β.",
    "beta": "alpha-beta: β in [0, 1), the probability of inserting each other tuple of the domain.",
    "d": "alpha-beta: the adversary's prior bound d in [0, 1). Alone with --gamma: use the recommended (α, β); "
         "with --alpha/--beta: refuse them unless (d, γ)-private.",
    "gamma": "alpha-beta: the posterior bound γ in (0, 1], d < γ.",
    "hierarchy": "alpha-beta: NAME=FILE.csv, an ARX-style hierarchy whose leaves are the column's public domain; "
                 "repeatable.",
    "identifier": "Identifier columns, comma-separated (repeatable): dropped, never written (pram writes every "
                  "other column; alpha-beta only --columns).",
    "allow_identifier": "Publish COL although the identifier scan flags it as a direct identifier (name, e-mail, "
                        "SSN, id, ...); comma-separated, repeatable. Without it such a column, copied unchanged "
                        "by pram or randomized by either method, is refused.",
}


@app.command("randomize")
def randomize_command(
    file: Path = typer.Argument(..., readable=False, help=_HELP["file"]),
    method: Method = typer.Option(..., "--method", case_sensitive=False, help=_HELP["method"]),
    columns: Optional[str] = typer.Option(None, "--columns", help=_HELP["columns"]),
    output: Path = typer.Option(..., "-o", "--output", help=_HELP["output"]),
    json_out: Optional[Path] = typer.Option(None, "--json", help=_HELP["json"]),
    sep: Optional[str] = typer.Option(None, "--sep", help=_HELP["sep"]),
    seed: Optional[int] = typer.Option(None, "--seed", min=0, help=_HELP["seed"]),
    p: Optional[float] = typer.Option(None, "--p", help=_HELP["p"]),
    transition: Optional[list[str]] = typer.Option(None, "--transition", help=_HELP["transition"]),
    invariant: bool = typer.Option(False, "--invariant", help=_HELP["invariant"]),
    alpha: Optional[float] = typer.Option(None, "--alpha", help=_HELP["alpha"]),
    beta: Optional[float] = typer.Option(None, "--beta", help=_HELP["beta"]),
    d: Optional[float] = typer.Option(None, "--d", help=_HELP["d"]),
    gamma: Optional[float] = typer.Option(None, "--gamma", help=_HELP["gamma"]),
    hierarchy: Optional[list[str]] = typer.Option(None, "--hierarchy", help=_HELP["hierarchy"]),
    identifier: Optional[list[str]] = typer.Option(None, "--identifier", help=_HELP["identifier"]),
    allow_identifier: Optional[list[str]] = typer.Option(None, "--allow-identifier",
                                                         help=_HELP["allow_identifier"]),
) -> None:
    """Randomize a table by PRAM or the αβ algorithm (not differential privacy; see `veil query`).

    A column written (copied or randomized) that the identifier scan flags is refused unless
    --allow-identifier names it; --identifier columns are dropped."""
    from veil.pipeline import Outputs

    with user_errors():
        transition_files, hierarchy_files = _method_files(method, transition, hierarchy, p=p, alpha=alpha, beta=beta,
                                                          d=d, gamma=gamma, invariant=invariant)
        chosen = _chosen_columns(method, columns)
        identifiers, allowed = _option_list(identifier, "--identifier"), _option_list(allow_identifier,
                                                                                       "--allow-identifier")
        _check_table_suffix(output)
        inputs = [file, *map(Path, transition_files.values()), *map(Path, hierarchy_files.values())]
        with Outputs({"data": output, "json": json_out}, inputs=inputs) as outputs:
            if method is Method.PRAM and p is not None:
                check_p(p)
            pair = alpha_beta_pair(alpha, beta, d, gamma) if method is Method.ALPHA_BETA else None
            dataset = _dataset(file, sep, chosen, hierarchy_files)
            if method is Method.PRAM:
                check_pram_sizes(dataset, chosen)  # before the scan: allowing a column would not help
            published = _published_columns(method, dataset, chosen, identifiers, allowed, file)
            release, part, rows, notes = (
                pram_release(dataset, chosen, p=p, transition_files=transition_files, invariant=invariant, seed=seed)
                if method is Method.PRAM else
                alpha_beta_release(dataset, chosen, pair, alpha=alpha, d=d, gamma=gamma, seed=seed))
            table = release.data.loc[:, published]  # the --identifier columns are never written
            rows_in, rows_out = dataset.n_records, len(table)
            written = outputs.write("data", lambda tmp: _write_frame(table, tmp))
            _verify_written(written, rows_out, published)
            if json_out is not None:
                outputs.write_json("json", {
                    "command": "randomize", "method": method.value, "input": file.name, "output": str(output),
                    "columns": chosen, "rows_in": rows_in, "rows_out": rows_out,
                    "row_aligned": bool(release.details["row_aligned"]), "differential_privacy": False, **part,
                    "published": published, "unchanged": [c for c in published if c not in chosen],
                    "identifiers_dropped": identifiers, "identifiers_allowed": allowed})
            outputs.commit()
    _print_summary(method, chosen, rows, (rows_in, rows_out), output, json_out, part["parameters"] if method is
                   Method.ALPHA_BETA and alpha is None else None, d, gamma, notes, identifiers)


def _method_files(method: Method, transition: Optional[list[str]], hierarchy: Optional[list[str]],
                  **options: Any) -> tuple[dict[str, str], dict[str, str]]:
    """The ``--transition`` and ``--hierarchy`` files by column, after refusing the other method's options."""
    transition_files = parse_assignments(transition, "--transition")
    hierarchy_files = parse_assignments(hierarchy, "--hierarchy")
    if method is Method.PRAM:
        _refuse_foreign(method, alpha=options["alpha"], beta=options["beta"], d=options["d"],
                        gamma=options["gamma"], hierarchy=hierarchy_files)
    else:
        _refuse_foreign(method, p=options["p"], transition=transition_files, invariant=options["invariant"])
    return transition_files, hierarchy_files


def _chosen_columns(method: Method, columns: Optional[str]) -> list[str]:
    """The ``--columns`` list, required by both methods."""
    chosen = split_list(columns, "--columns")
    if not chosen:
        what = "the categorical columns to randomize" if method is Method.PRAM else "the columns to publish"
        raise ParameterError(f"--columns is required with --method {method.value}: name {what}, "
                             "comma-separated (e.g. --columns sex,race).")
    return chosen


def _dataset(file: Path, sep: Optional[str], chosen: list[str], hierarchy_files: dict[str, str]):
    """The input with the chosen columns as quasi-identifiers and αβ's hierarchies (public domains)."""
    from veil.dataset import Dataset
    from veil.hierarchy import from_csv

    table = Dataset.read(file, sep=sep)
    _check_columns(chosen, table.columns, file)
    stray = [c for c in hierarchy_files if c not in chosen]
    if stray:
        raise ParameterError(f"--hierarchy names {stray[0]!r}, which is not in --columns ({', '.join(chosen)}).")
    return table.with_roles(
        quasi_identifiers=chosen,
        hierarchies={name: from_csv(path, name=name) for name, path in hierarchy_files.items()},
    )


def _print_summary(method: Method, chosen: list[str], rows: list, counts: tuple[int, int], output: Path,
                   json_out: Optional[Path], recommended: Optional[dict], d: Optional[float], gamma: Optional[float],
                   notes: list[str], identifiers: list[str]) -> None:
    from rich.table import Table

    if identifiers:
        rows = [*rows, ("dropped (--identifier)", esc(", ".join(identifiers)))]

    summary = Table(title=f"Randomized release ({method.value})", show_header=False)
    summary.add_column("figure")
    summary.add_column("value")
    summary.add_row("columns", esc(", ".join(chosen)))
    for name, value in rows:
        summary.add_row(name, value)
    summary.add_row("rows in / out", f"{counts[0]:,} / {counts[1]:,}")
    summary.add_row("written", esc(str(output) + (f", report {json_out}" if json_out is not None else "")))
    console.print(summary)
    if recommended is not None:
        console.print(f"Recommended pair for (d={d:g}, γ={gamma:g}): --alpha {recommended['alpha']:.6g} "
                      f"--beta {recommended['beta']:.6g}", highlight=False)
    for note in notes:
        err_console.print(f"[yellow]warning:[/] {esc(note)}", highlight=False, soft_wrap=True)
    console.print(f"[bold]{_NOT_DP}[/]", highlight=False, soft_wrap=True)
