"""Rendering of an anonymization result as rich tables (shared by anonymize and demo)."""

from __future__ import annotations

from typing import Any

import numpy as np
from rich.table import Table

from veil.cli._app import console, esc


def _fmt(value: Any) -> str:
    if value is None:
        return "—"
    if isinstance(value, float):
        return f"{value:.4g}"
    if isinstance(value, dict):
        return ", ".join(f"{esc(k)}={_fmt(v)}" for k, v in value.items())
    return esc(value)


def print_summary(report: dict[str, Any], written: dict[str, str] | None = None) -> None:
    """Print the transformation, suppression, achieved levels, utility and risk."""
    search = report["search"]
    _print_transformation(report)
    summary = Table(title="Release", show_header=False)
    _column(summary, "figure")
    _column(summary, "value", justify="right")
    records = report["records"]
    summary.add_row("records in / out", f"{records:,} / {report['records_out']:,}")
    share = report["suppressed"] / records if records else 0.0
    summary.add_row("suppressed records", f"{report['suppressed']:,} ({share:.2%}; limit {report['suppression_limit']:.2%})")
    summary.add_row("models", esc(", ".join(report["models"])))
    achieved = report["achieved"] or {}  # None: no class released (every record suppressed)
    summary.add_row("achieved k", _fmt(achieved.get("k")))
    for name, figures in achieved.get("sensitive", {}).items():
        summary.add_row(f"{esc(name)}: distinct l / entropy l", f"{_fmt(figures.get('distinct_l'))} / {_fmt(figures.get('entropy_l'))}")
        t = figures.get("t_equal", figures.get("t_ordered"))
        summary.add_row(f"{esc(name)}: t (EMD) / δ-disclosure", f"{_fmt(t)} / {_fmt(figures.get('delta_disclosure'))}")
    if search.get("nodes_checked") is not None:
        summary.add_row(
            f"search ({esc(search['algorithm'])})",
            f"{search['nodes_checked']:,} of {search['nodes_total']:,} nodes checked in {search['seconds']:.3f} s",
        )
    else:
        summary.add_row(f"algorithm ({esc(search['algorithm'])})", f"{search['seconds']:.3f} s")
    summary.add_row("output rows", "shuffled" if report["output_order"]["shuffled"] else "input order")
    if "suppressed_records" in report:
        summary.add_row("suppressed records published as", esc(report["suppressed_records"]))
    console.print(summary)
    _print_columns(report)
    _print_utility_and_risk(report)
    for warning in report.get("warnings", []):
        console.print(f"[bold yellow]warning:[/] {esc(warning)}", highlight=False)
    for kind, path in (written or {}).items():
        console.print(f"wrote {kind}: [bold]{esc(path)}[/]", highlight=False)



def _column(table: Table, header: str, **options: Any) -> None:
    """A column whose cells wrap rather than cut: a column name is shown whole at any width (Rich's
    default ends a long cell in ``…``: ``marital-…`` at 80 columns)."""
    table.add_column(header, overflow="fold", **options)


def _print_transformation(report: dict[str, Any]) -> None:
    """The hierarchy level per quasi-identifier (one line, wrapped between entries, so every name is
    whole at any width), or the local recoding's groups, or what a randomizing algorithm (PRAM, αβ) did."""
    if report["transformation"]:
        levels = ", ".join(f"{esc(name)}={level}" for name, level in report["transformation"].items())
        console.print(f"[bold]Transformation[/] (hierarchy level per quasi-identifier): {levels}", highlight=False)
    recoding = report.get("recoding")
    blanked = (recoding or {}).get("details", {}).get("cells_blanked")
    if blanked is not None:  # local suppression: cells, not groups
        cells = ", ".join(f"{esc(name)} {n:,}" for name, n in blanked.items() if n)
        console.print(f"[bold]local suppression[/]: {sum(blanked.values()):,} cells blanked ({cells or 'none'}); every "
                      f"record matches at least {recoding['details']['k_achieved']:,} records, a blank matching any value")
    elif recoding and report["transformation"]:  # one level per attribute (SafePub): a global recoding
        console.print(_global_recoding(recoding, report["records"]), highlight=False)
    elif recoding:
        console.print(
            _randomized(recoding)
            or f"[bold]{esc(recoding['algorithm'])}[/]: local recoding into {recoding['groups']:,} groups "
            "(labels differ between groups; no single level per attribute)"
        )


def _keep(transition: dict[str, Any]) -> str:
    """A PRAM column's keep probabilities (its transition matrix's diagonal): ``p = 0.8`` when one for all."""
    diagonal = np.diag(np.asarray(transition.get("matrix") or [[]], dtype=float))
    if not diagonal.size:
        return "no value present"
    if np.allclose(diagonal, diagonal[0]):
        return f"p = {diagonal[0]:.4g}"
    return f"keep probability {diagonal.min():.4g} to {diagonal.max():.4g}"


def _randomized(recoding: dict[str, Any]) -> str | None:
    """The line of a randomizing algorithm, which forms no groups: PRAM's columns and keep probabilities,
    or the αβ algorithm's columns, α, β and domain; None for any other algorithm."""
    details = recoding.get("details", {})
    name = f"[bold]{esc(recoding['algorithm'])}[/]"
    if "transitions" in details:
        columns = ", ".join(f"{esc(c)} ({_keep(t)})" for c, t in details["transitions"].items())
        matrices = "invariant matrices" if details.get("invariant") else "its column's transition matrix"
        return (f"{name}: PRAM (post-randomization) of {columns}: each value kept, or moved to another category by "
                f"{matrices}, record by record; no grouping; not differential privacy")
    if "alpha" in details and "beta" in details:
        alpha, beta = float(details["alpha"]), float(details["beta"])
        columns = ", ".join(esc(c) for c in details.get("columns", []))
        return (f"{name}: randomized response by the αβ algorithm over the tuples of {columns}: each distinct true "
                f"tuple kept with probability α + β = {alpha + beta:.4g} (α = {alpha:.4g}, β = {beta:.4g}), each other "
                f"tuple of the domain (|D| = {details.get('domain_size', 0):,}) added with probability β; "
                f"{details.get('records_in', 0):,} records in, {details.get('tuples_out', 0):,} tuples out; "
                "no grouping; not differential privacy")
    return None


def _global_recoding(recoding: dict[str, Any], records: int) -> str:
    """The line of a full-domain recoding that reports its own classes: SafePub's sample, k and classes released."""
    details = recoding.get("details", {})
    line = f"[bold]{esc(recoding['algorithm'])}[/]: global recoding (full-domain generalization: the levels above)"
    if "sampled" in details and "k" in details and "beta" in details:
        return (f"{line} of a random sample of {details['sampled']:,} of {records:,} records (β = {details['beta']:.4g}); "
                f"{recoding['groups']:,} classes of at least k = {details['k']:,} sampled records released, every other "
                "record suppressed")
    return f"{line} into {recoding['groups']:,} classes"


def _print_utility_and_risk(report: dict[str, Any]) -> None:
    """The utility figures, then the prosecutor risk before and after."""
    utility = Table(title=f"Utility (optimised: {esc(report['metric'])})")
    _column(utility, "metric")
    _column(utility, "value", justify="right")
    for name, value in report["utility"].items():
        if value is not None:
            utility.add_row(esc(name), _fmt(value))
    console.print(utility)

    risk = Table(title="Re-identification risk (prosecutor model)")
    _column(risk, "")
    _column(risk, "highest", justify="right")
    _column(risk, "average", justify="right")
    _column(risk, "records at risk", justify="right")
    for label, key in (("before", "risk_before"), ("after", "risk_after")):
        p = (report[key] or {}).get("prosecutor", {})  # None: no class released (every record suppressed)
        risk.add_row(label, _fmt(p.get("highest")), _fmt(p.get("average")), _fmt(p.get("records_at_risk")))
    console.print(risk)


def _print_columns(report: dict[str, Any]) -> None:
    """Every column's role and treatment; unlisted columns released say so."""
    columns = report.get("columns")
    if not columns:
        return
    table = Table(title="Columns")
    _column(table, "column")
    _column(table, "role")
    _column(table, "treatment")
    for c in columns:
        treatment = c["treatment"] + (f" (level {c['level']})" if c.get("level") is not None else "")
        if c["role"] == "unlisted" and c["treatment"] == "unchanged":
            treatment = "released unchanged"
        table.add_row(esc(c["name"]), esc(c["role"]), esc(treatment))
    console.print(table)
