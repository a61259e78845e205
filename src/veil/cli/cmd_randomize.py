"""``veil randomize``: a randomized release by PRAM or the αβ algorithm.

The command-line face of :mod:`veil.algorithms.randomization`.  Flags are
checked here, at the edge: the method and its parameters must agree (PRAM takes
``--p`` or ``--transition``; αβ takes ``--alpha/--beta`` and/or ``--d/--gamma``),
and a pair (α, β) given with (d, γ) must meet Theorem 4.3.  Nothing is written
unless the release was drawn; the table and the JSON report are written
atomically and never over an input.  The seed is never written anywhere.
"""

from __future__ import annotations

import math
import warnings
from enum import Enum
from pathlib import Path
from typing import Any, Optional

import typer

from veil.cli._app import app, console, err_console, parse_assignments, split_list, user_errors
from veil.errors import ColumnNotFoundError, OutputError, ParameterError

_TABLE_SUFFIXES = (".csv", ".parquet", ".pq")
#: Condition number above which pram_estimate refuses a matrix (kept in step with it).
_SINGULAR = 1e12
#: Tolerance of a transition row sum (the library's).
_ROW_SUM_TOL = 1e-9
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


def _check_p(p: float) -> float:
    if not math.isfinite(p) or not 0.0 < p <= 1.0:
        raise ParameterError(
            f"The '--p' option (keep probability) of veil randomize must be a float in (0, 1]. Got {p!r} instead."
        )
    return p


def _check_outputs(output: Path, report: Optional[Path], inputs: list[Path]) -> None:
    from veil.release import check_output_path

    if output.suffix.lower() not in _TABLE_SUFFIXES:
        raise OutputError(
            f"The '--output' option must name a .csv or .parquet file. Got {str(output)!r} instead."
        )
    for path in (output, report):
        if path is not None:
            check_output_path(path, *inputs)
    if report is not None and report.resolve() == output.resolve():
        raise OutputError("--output and --json must be different files.")


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


# ---------------------------------------------------------------------- PRAM
def _read_transition(column: str, path: Path, categories: list[str]):
    """Read a transition-matrix CSV: header = categories, one row per original category.

    The rows follow the header's order, or carry their category in a first
    label column (recognised by an empty corner cell or by text entries).
    Entries must be finite and nonnegative, each row must sum to 1, and the
    categories must be exactly the column's.
    """
    import numpy as np
    import pandas as pd

    from veil.dataset import read_csv

    where = f"--transition {column}={path}"
    frame = read_csv(path, na_values=(), row_labels=True)
    header = [str(c) for c in frame.columns]
    labelled = len(header) > 1 and (
        header[0].strip() == "" or bool(pd.to_numeric(frame.iloc[:, 0], errors="coerce").isna().any())
    )
    if labelled:  # a first column of row labels: empty corner cell, or text
        rows = [str(v) for v in frame.iloc[:, 0]]
        header = header[1:]
        frame = frame.iloc[:, 1:]
        if len(rows) == len(header) and sorted(rows) != sorted(header):
            raise ParameterError(
                f"{where}: the row labels (first column) must be the header's categories, each once."
            )
    else:
        rows = header
    if len(header) != len(frame):
        raise ParameterError(
            f"{where}: a transition matrix is square, one row per category of the header. "
            f"Got {len(header)} categories and {len(frame)} rows instead."
        )
    if len(set(header)) != len(header):
        raise ParameterError(f"{where}: the header lists a category twice; list each once.")
    values = frame.apply(pd.to_numeric, errors="coerce").to_numpy(dtype=float)
    bad = np.argwhere(~np.isfinite(values) | (values < 0))
    if len(bad):
        i, j = bad[0]
        raise ParameterError(
            f"{where}: every entry must be a finite number in [0, 1]. The entry in row {rows[i]!r}, "
            f"column {header[j]!r} is {frame.iat[i, j]!r}."
        )
    sums = values.sum(axis=1)
    off = np.flatnonzero(np.abs(sums - 1.0) > _ROW_SUM_TOL)
    if len(off):
        raise ParameterError(
            f"{where}: each row is a probability distribution and must sum to 1 (to {_ROW_SUM_TOL:g}). "
            f"The row of {rows[off[0]]!r} sums to {float(sums[off[0]])!r}; write the entries with more digits."
        )
    unknown = [c for c in header if c not in categories]
    if unknown:
        raise ParameterError(
            f"{where}: {unknown[0]!r} is not a category of column {column!r}"
            + (f" (nor are {len(unknown) - 1} other header label(s))" if len(unknown) > 1 else "")
            + f"; the header must list exactly the column's {len(categories)} categories."
        )
    absent = [c for c in categories if c not in header]
    if absent:
        raise ParameterError(
            f"{where}: the header lacks the category {absent[0]!r} of column {column!r}"
            + (f" (and {len(absent) - 1} other(s))" if len(absent) > 1 else "")
            + f"; the header must list exactly the column's {len(categories)} categories."
        )
    return pd.DataFrame(values, index=rows, columns=header)


def _pram(dataset, columns: list[str], *, p: Optional[float], transition_files: dict[str, str],
          invariant: bool, seed: Optional[int]):
    import numpy as np

    from veil.algorithms.randomization import pram
    from veil.dataset import MISSING

    if p is None and not transition_files:
        raise ParameterError("--method pram needs --p (keep probability, e.g. --p 0.8) or "
                             "--transition COLUMN=FILE.csv (a matrix per column).")
    if p is not None and transition_files:
        raise ParameterError("--p and --transition are exclusive: give --p for every column, or a "
                             "--transition matrix for every column.")
    if invariant and transition_files:
        raise ParameterError("--invariant builds the matrices from --p; it cannot be combined with --transition "
                             "(pass an invariant matrix as the --transition file instead).")
    transition = None
    if transition_files:
        extra = [c for c in transition_files if c not in columns]
        if extra:
            raise ParameterError(f"--transition names {extra[0]!r}, which is not in --columns "
                                 f"({', '.join(columns)}).")
        lacking = [c for c in columns if c not in transition_files]
        if lacking:
            raise ParameterError(f"--transition has no matrix for column {lacking[0]!r}; give one per column "
                                 "in --columns (or use --p).")
        transition = {}
        for column, file in transition_files.items():
            labels = [str(v) for v in dataset.encode(column).labels if v != MISSING]
            transition[column] = _read_transition(column, Path(file), labels)
    release = pram(dataset, columns, p=_check_p(p) if p is not None else None, transition=transition,
                   invariant=invariant, seed=seed)
    transitions = release.details["transitions"]
    singular = [c for c, t in transitions.items()
                if t["matrix"] and not np.linalg.cond(np.asarray(t["matrix"])) <= _SINGULAR]
    for column, spec in transitions.items():
        spec["invertible"] = column not in singular
    report = {
        "parameters": {
            "p": p,
            "invariant": bool(invariant),
            "transition_files": {c: str(f) for c, f in transition_files.items()},
        },
        "transitions": transitions,
    }
    rows = [("parameters", f"p = {p:g}{' (invariant)' if invariant else ''}" if p is not None
             else "explicit matrices: " + ", ".join(f"{c}={Path(f).name}" for c, f in transition_files.items()))]
    notes = []
    if p == 1.0:
        notes.append("--p 1 keeps every value: the randomized columns are unchanged.")
    if singular:
        notes.append(f"the matrix of {', '.join(map(repr, singular))} is singular (e.g. p = 1/K): the original "
                     "counts cannot be estimated from this release (pram_estimate refuses it).")
    if invariant:
        notes.append("invariant matrices are built from the data: their ratios disclose the input frequencies; "
                     "publish them only if those frequencies may be published.")
    return release, report, rows, notes


# ---------------------------------------------------------------------- αβ
def _alpha_beta_pair(alpha: Optional[float], beta: Optional[float], d: Optional[float], gamma: Optional[float]):
    """Resolve the flags into (α, β, recommended-region or None); refuse contradictions."""
    from veil.algorithms.randomization import alpha_beta_parameters, is_private

    if (alpha is None) != (beta is None):
        raise ParameterError(f"--alpha and --beta go together. Got {'--alpha' if beta is None else '--beta'} "
                             "alone; give both, or neither and --d/--gamma for the recommended pair.")
    if (d is None) != (gamma is None):
        raise ParameterError(f"--d and --gamma go together. Got {'--d' if gamma is None else '--gamma'} alone; "
                             "give both.")
    if alpha is None and d is None:
        raise ParameterError("--method alpha-beta needs --alpha and --beta, or --d and --gamma (then the "
                             "recommended pair of Theorem 4.3 is used).")
    region = alpha_beta_parameters(d, gamma) if d is not None else None
    if alpha is None:
        return region.alpha, region.beta, region
    if region is not None and not is_private(alpha, beta, d=d, gamma=gamma):
        raise ParameterError(
            f"--alpha {alpha:g} --beta {beta:g} contradict --d {d:g} --gamma {gamma:g}: Theorem 4.3 needs "
            f"beta/(alpha+beta) >= {region.min_beta_share:.6g} and alpha+beta <= {region.max_retention:.6g}; "
            f"got {beta / (alpha + beta):.6g} and {alpha + beta:.6g}. The recommended pair is "
            f"--alpha {region.alpha:.6g} --beta {region.beta:.6g} (drop --alpha/--beta to use it)."
        )
    return alpha, beta, region


def _alpha_beta(dataset, columns: list[str], pair, *, alpha: Optional[float], d: Optional[float],
                gamma: Optional[float], seed: Optional[int]):
    from veil.algorithms.randomization import alpha_beta

    a, b, region = pair
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        release = alpha_beta(dataset, columns, alpha=a, beta=b, seed=seed)
    details = release.details
    inferred = [c for c, s in details["domain_sources"].items() if s == "data"]
    notes = [str(w.message) for w in caught if not (inferred and "from the values present" in str(w.message))]
    if inferred:
        notes.insert(0, f"the domain of {', '.join(map(repr, inferred))} was taken from the values present in the "
                        "data, which discloses which values occur and breaks the assumption that D is public; "
                        "pass --hierarchy NAME=FILE.csv (its leaves are the public domain).")
    private = None if region is None else True  # a pair outside the region was refused above
    report = {
        "parameters": {
            "alpha": a,
            "beta": b,
            "d": d,
            "gamma": gamma,
            "pair": "given" if alpha is not None else "recommended",
        },
        "private": private,
        "domain_size": details["domain_size"],
        "view_size": details["tuples_out"],
        "domain_sizes": details["domain_sizes"],
        "domain_sources": details["domain_sources"],
        "domains": details["domains"],
        "semantics": details["semantics"],
    }
    if region is not None:
        report["theorem_4_3"] = {"min_beta_share": region.min_beta_share, "max_retention": region.max_retention}
    rows = [("α, β", f"{a:.6g}, {b:.6g}" + (" (recommended pair)" if alpha is None else ""))]
    if region is not None:
        rows.append(("(d, γ)-privacy", f"holds for d = {d:g}, γ = {gamma:g} (Theorem 4.3)"))
    else:
        notes.append("no --d/--gamma given: (d, γ)-privacy was not assessed.")
    rows.append(("|D| / |V|", f"{details['domain_size']:,} / {details['tuples_out']:,}"))
    return release, report, rows, notes


# ---------------------------------------------------------------------- the command
@app.command("randomize")
def randomize_command(
    file: Path = typer.Argument(..., help="Data file to randomize (CSV or Parquet)."),
    method: Method = typer.Option(..., "--method", case_sensitive=False,
                                  help="pram (post-randomization, sdcMicro's pram) or alpha-beta "
                                       "(Rastogi et al. 2007)."),
    columns: Optional[str] = typer.Option(None, "--columns",
                                          help="Comma-separated columns: for pram the categorical columns to "
                                               "randomize (required); for alpha-beta the columns to publish "
                                               "(required; only these are released)."),
    output: Path = typer.Option(..., "-o", "--output",
                                help="Released table (.csv or .parquet), written atomically, never over the input."),
    json_out: Optional[Path] = typer.Option(None, "--json", help="JSON report: parameters, matrices or |D|/|V|, "
                                                                 "rows in/out. Never holds the seed."),
    sep: Optional[str] = typer.Option(None, "--sep", help="CSV separator of the input (default: detected)."),
    seed: Optional[int] = typer.Option(None, "--seed", min=0,
                                       help="Seed of the randomness, for a reproducible release (default: fresh "
                                            "OS entropy). KEEP IT SECRET: whoever knows it can replay the draws "
                                            "and undo the randomization."),
    p: Optional[float] = typer.Option(None, "--p", help="pram: keep probability in (0, 1]; else a value moves "
                                                        "uniformly to another category."),
    transition: Optional[list[str]] = typer.Option(None, "--transition",
                                                   help="pram: COLUMN=FILE.csv, a square transition matrix whose "
                                                        "header lists the column's categories (row i = original "
                                                        "category i; rows sum to 1); repeat per column."),
    invariant: bool = typer.Option(False, "--invariant",
                                   help="pram with --p: invariant matrices (expected output frequencies equal "
                                        "the input's; they disclose those frequencies)."),
    alpha: Optional[float] = typer.Option(None, "--alpha", help="alpha-beta: α in (0, 1]; a true tuple is kept "
                                                                "with probability α + β."),
    beta: Optional[float] = typer.Option(None, "--beta", help="alpha-beta: β in [0, 1), the probability of "
                                                              "inserting each other tuple of the domain."),
    d: Optional[float] = typer.Option(None, "--d", help="alpha-beta: the adversary's prior bound d in [0, 1). "
                                                        "Alone with --gamma: use the recommended (α, β); with "
                                                        "--alpha/--beta: refuse them unless (d, γ)-private."),
    gamma: Optional[float] = typer.Option(None, "--gamma", help="alpha-beta: the posterior bound γ in (0, 1], "
                                                                "d < γ."),
    hierarchy: Optional[list[str]] = typer.Option(None, "--hierarchy",
                                                  help="alpha-beta: NAME=FILE.csv, an ARX-style hierarchy whose "
                                                       "leaves are the column's public domain; repeatable."),
) -> None:
    """Randomize a table by PRAM or the αβ algorithm (not differential privacy; see `veil query`)."""
    from rich.table import Table

    from veil.dataset import Dataset
    from veil.hierarchy import from_csv
    from veil.release import write_json, write_table

    with user_errors():
        transition_files = parse_assignments(transition, "--transition")
        hierarchy_files = parse_assignments(hierarchy, "--hierarchy")
        if method is Method.PRAM:
            _refuse_foreign(method, alpha=alpha, beta=beta, d=d, gamma=gamma, hierarchy=hierarchy_files)
        else:
            _refuse_foreign(method, p=p, transition=transition_files, invariant=invariant)
        chosen = split_list(columns)
        if not chosen:
            what = "the categorical columns to randomize" if method is Method.PRAM else "the columns to publish"
            raise ParameterError(f"--columns is required with --method {method.value}: name {what}, "
                                 "comma-separated (e.g. --columns sex,race).")
        inputs = [file, *map(Path, transition_files.values()), *map(Path, hierarchy_files.values())]
        _check_outputs(output, json_out, inputs)
        if method is Method.PRAM and p is not None:
            _check_p(p)
        pair = _alpha_beta_pair(alpha, beta, d, gamma) if method is Method.ALPHA_BETA else None
        table = Dataset.read(file, sep=sep)
        _check_columns(chosen, table.columns, file)
        stray = [c for c in hierarchy_files if c not in chosen]
        if stray:
            raise ParameterError(f"--hierarchy names {stray[0]!r}, which is not in --columns ({', '.join(chosen)}).")
        dataset = table.with_roles(
            quasi_identifiers=chosen,
            hierarchies={name: from_csv(path, name=name) for name, path in hierarchy_files.items()},
        )
        if method is Method.PRAM:
            release, part, rows, notes = _pram(dataset, chosen, p=p, transition_files=transition_files,
                                               invariant=invariant, seed=seed)
        else:
            release, part, rows, notes = _alpha_beta(dataset, chosen, pair, alpha=alpha, d=d, gamma=gamma,
                                                     seed=seed)
        rows_in, rows_out = dataset.n_records, len(release.data)
        report = {
            "command": "randomize",
            "method": method.value,
            "input": file.name,
            "output": str(output),
            "columns": chosen,
            "rows_in": rows_in,
            "rows_out": rows_out,
            "row_aligned": bool(release.details["row_aligned"]),
            "differential_privacy": False,
            **part,
        }
        write_table(release.data, output)
        if json_out is not None:
            write_json(report, json_out)

    summary = Table(title=f"Randomized release ({method.value})", show_header=False)
    summary.add_column("figure")
    summary.add_column("value")
    summary.add_row("columns", ", ".join(chosen))
    for name, value in rows:
        summary.add_row(name, value)
    summary.add_row("rows in / out", f"{rows_in:,} / {rows_out:,}")
    summary.add_row("written", str(output) + (f", report {json_out}" if json_out is not None else ""))
    console.print(summary)
    if method is Method.ALPHA_BETA and alpha is None:
        console.print(f"Recommended pair for (d={d:g}, γ={gamma:g}): --alpha {part['parameters']['alpha']:.6g} "
                      f"--beta {part['parameters']['beta']:.6g}", highlight=False)
    for note in notes:
        err_console.print(f"[yellow]warning:[/] {note}", highlight=False, soft_wrap=True)
    console.print(f"[bold]{_NOT_DP}[/]", highlight=False, soft_wrap=True)
