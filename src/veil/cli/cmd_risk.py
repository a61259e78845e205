"""``veil risk FILE --qi ...``: re-identification risk of a table (rich summary + JSON)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import typer
from rich.table import Table

from veil.cli._app import app, console, esc, input_files, split_list, user_errors
from veil.cli._risk_sdc import SdcOptions, print_sdc, sdc_figures, sdc_option
from veil.cli._hierarchy_options import attach_hierarchies, auto_hierarchies_option, hierarchy_files, hierarchy_option
from veil.cli._reading_options import na_values_of, na_values_option

#: Without --max-qi-size, every QI subset is ranked up to this many QIs (2^q - 1 subsets).
_ALL_SUBSETS_UP_TO = 10
#: ... and beyond it, subsets of at most this size.
_LARGE_DEFAULT_SIZE = 3


def _pct(x: float | None) -> str:
    return "n/a" if x is None else f"{100 * x:.2f}%"


@app.command("risk")
def risk(
    file: Path = typer.Argument(..., readable=False, help="A CSV or Parquet file."),
    qi: str = typer.Option(..., "--qi", help="Quasi-identifiers, comma-separated."),
    sensitive: str = typer.Option(None, "--sensitive", help="Sensitive attributes, comma-separated."),
    population_fraction: float = typer.Option(None, "--population-fraction", help="The table is a sample of this "
                                              "fraction (0, 1] of a population (population uniqueness)."),
    population: Path = typer.Option(None, "--population", help="The population table (CSV/Parquet) the file was "
                                    "sampled from."),
    threshold: float = typer.Option(0.2, "--threshold", help="Prosecutor risk above which a record is at risk."),
    max_qi_size: int = typer.Option(
        None, "--max-qi-size",
        help=f"Rank QI subsets up to this size (default: all when there are at most {_ALL_SUBSETS_UP_TO} QIs, "
        f"else {_LARGE_DEFAULT_SIZE}; 0 skips the ranking).",
    ),
    json_out: Path = typer.Option(None, "--json", help="Write the full report as JSON here."),
    html_out: Path = typer.Option(None, "--html", help="Write the report as one HTML page (with plots) here."),
    sep: str = typer.Option(None, "--sep", help="CSV separator (default: detected)."),
    encoding: str = typer.Option("utf-8", "--encoding", help="CSV text encoding."),
    na_values: str = na_values_option(),
    top: int = typer.Option(10, "--top", help="QI subsets to show in the summary."),
    hierarchy: list[str] = hierarchy_option(),
    auto_hierarchies: bool = auto_hierarchies_option(),
    engine: str = typer.Option(
        "local", "--engine", help="Who groups the rows: local (in memory, default), duckdb (files larger "
        "than memory) or spark; the risk measures run on the class table either way.",
    ),
    weight: str = sdc_option("weight"),
    household: str = sdc_option("household"),
    risk_method: str = sdc_option("risk_method"),
    per_record: Path = sdc_option("per_record"),
    suda: bool = sdc_option("suda"),
    suda_max_size: int = sdc_option("suda_max_size"),
    dis_fraction: float = sdc_option("dis_fraction"),
) -> None:
    """Re-identification risk: prosecutor / journalist / marketer, uniqueness, likely QIs;
    individual risk with sampling weights, household risk and SUDA2 (statistical disclosure control)."""
    from veil.pipeline import publishing
    from veil.risk import assess

    # every input named, and the --json destination refused if it is one of them, before any work
    sdc = SdcOptions(weight, household, risk_method, suda or suda_max_size is not None, suda_max_size, dis_fraction)
    destinations = {"json": json_out, "per_record": per_record, "html": html_out}
    with user_errors(), publishing(destinations, inputs=input_files(file, population, *hierarchy_files(hierarchy))) as out:
        qis, sens, size = _parse_lists(qi, sensitive, population, population_fraction, max_qi_size, html_out, top)
        sdc.check(qis, engine, per_record)
        reading = {"sep": sep, "encoding": encoding, "na_values": na_values_of(na_values, file, population)}
        classes, dataset, pop = _risk_classes(file, qis, sens, engine=engine, population=population,
                                              hierarchy=hierarchy, auto_hierarchies=auto_hierarchies, reading=reading,
                                              size=size)
        report = assess(classes, population_fraction=population_fraction, population=pop, threshold=threshold,
                        qi_subsets_max_size=size, sensitive=sens)
        figures = sdc_figures(classes, dataset, sdc)
        if per_record is not None:
            out.write("per_record", lambda tmp: figures.per_record().to_csv(tmp, index=False))
        _write_reports(out, {**report.to_dict(), **figures.to_dict()}, json_out, html_out, threshold)

    _print_report(report, file, top)
    print_sdc(figures)
    if json_out is not None:
        console.print(f"JSON report written to {esc(json_out)}", highlight=False)


def _write_reports(out: Any, payload: dict[str, Any], json_out: Path | None, html_out: Path | None,
                   threshold: float) -> None:
    """The JSON report and the HTML page (with the individual-risk histogram and SUDA2's contributions)."""
    if json_out is not None:
        out.write_json("json", payload)
    if html_out is not None:
        from veil.cli._risk_html import risk_page

        out.write_text("html", risk_page(payload, threshold))


def _parse_lists(qi: str, sensitive: str | None, population: Path | None, population_fraction: float | None,
                 max_qi_size: int | None, html_out: Path | None, top: int) -> tuple[list[str], list[str], int]:
    """The QIs, the sensitive attributes and the QI-ranking size, checked with ``--top`` (and matplotlib,
    for --html)."""
    from veil.errors import ParameterError

    if html_out is not None:
        from veil._lazy import require as require_extra

        require_extra("matplotlib", feature="--html")  # before any work: no report without its page

    qis = split_list(qi, "--qi")
    sens = split_list(sensitive, "--sensitive")
    if not qis:
        raise ParameterError("--qi needs at least one column.")
    if population is not None and population_fraction is not None:
        raise ParameterError("Give either --population or --population-fraction, not both.")
    _check_counts(qis, top)
    size = max_qi_size
    if size is None:
        size = len(qis) if len(qis) <= _ALL_SUBSETS_UP_TO else _LARGE_DEFAULT_SIZE
    return qis, sens, size


def _risk_classes(file: Path, qis: list[str], sens: list[str], *, engine: str, population: Path | None,
                  hierarchy: list[str] | None, auto_hierarchies: bool, reading: dict[str, Any],
                  size: int) -> tuple[Any, Any, Any]:
    """What assess reads (the dataset for the summary only, its class table, or the engine's class
    table), the dataset (None with an engine) and the population's (None without one), each file read
    as ``reading`` says (its sep, encoding and missing words)."""
    from veil.classes import ClassTable
    from veil.dataset import Dataset

    if engine.strip().lower() == "local":
        dataset = Dataset.read(file, **reading, quasi_identifiers=qis, sensitive=sens)
        dataset = attach_hierarchies(dataset, hierarchy, auto=auto_hierarchies)  # checked against the table
        # the summary alone (no population, sensitive attribute or ranking) needs only class sizes:
        # assess gets them from the dataset's codes; anything more reads the class table
        summary_only = population is None and not sens and size == 0
        pop = None if population is None else Dataset.read(population, **reading, quasi_identifiers=qis)
        return (dataset if summary_only else ClassTable.from_dataset(dataset)), dataset, pop
    else:  # the engine groups and counts the rows; the measures run on the class table
        from veil.engines import class_table

        _refuse_with_engine(engine, population=population, hierarchy=hierarchy,
                            auto_hierarchies=auto_hierarchies, encoding=reading["encoding"])
        classes = class_table(file, qis, sens, engine=engine, sep=reading["sep"], na_values=reading["na_values"])
        return classes, None, None  # no population: refused above


def _refuse_with_engine(engine: str, *, population: Path | None, hierarchy: list[str] | None,
                        auto_hierarchies: bool, encoding: str) -> None:
    """Options that need the rows in memory, refused with ``--engine duckdb|spark``."""
    from veil.errors import ParameterError

    given = [name for name, on in (("--population", population is not None), ("--hierarchy", bool(hierarchy)),
                                   ("--auto-hierarchies", auto_hierarchies)) if on]
    if given:
        raise ParameterError(
            f"{given[0]} needs the table in memory; it cannot be used with --engine {engine}. "
            "Use --engine local, or --population-fraction instead of --population."
        )
    if encoding.strip().lower().replace("_", "-") not in ("utf-8", "utf8"):
        raise ParameterError(f"--engine {engine} reads UTF-8 files only. Got --encoding {encoding!r}; convert the file first.")


def _check_counts(qis: list[str], top: int) -> None:
    """Refuse no QI, or a negative ``--top`` (a :class:`ParameterError`), before any work."""
    from veil.errors import ParameterError

    if not qis:
        raise ParameterError("--qi needs at least one column.")
    if top < 0:
        raise ParameterError(f"--top must be an integer >= 0. Got {top} instead.")


def _print_report(report: Any, file: Path, top: int) -> None:
    """The summary tables: overview, attacker models, population uniques, likely QIs, attribute disclosure."""
    overview = Table(title=f"{esc(file.name)}: re-identification risk", show_header=True)
    overview.add_column("measure")
    overview.add_column("value", justify="right")
    overview.add_row("records", f"{report.records:,}")
    overview.add_row("equivalence classes", f"{report.classes:,}")
    if report.suppressed_records:
        overview.add_row("suppressed records (not assessed)", f"{report.suppressed_records:,}")
    overview.add_row("sample uniques", f"{_pct(report.sample_uniques)} ({report.sample_uniques_count:,})")
    console.print(overview)

    models = Table(title="Attacker models", show_header=True)
    for column in ("model", "highest", "lowest", "average", "note"):
        models.add_column(column, justify="left" if column in ("model", "note") else "right")
    p = report.prosecutor
    models.add_row(
        "prosecutor", _pct(p.highest), _pct(p.lowest), _pct(p.average),
        f"{_pct(p.records_at_risk)} of records ({p.records_at_risk_count:,}) above {p.threshold:g}",
    )
    j = report.journalist
    note = ("population class sizes" if j.case == "population"
            else "no population given: equals the prosecutor figures")
    models.add_row("journalist", _pct(j.highest), "", _pct(j.average), note)
    models.add_row("marketer", "", "", _pct(report.marketer.average), f"case: {report.marketer.case}")
    console.print(models)
    _print_details(report, top)


def _print_details(report: Any, top: int) -> None:
    """Population uniques, the ranking of QI subsets, and attribute disclosure per sensitive attribute."""
    if report.population_uniques is not None:
        u = report.population_uniques
        uniq = Table(title=f"Population uniques (sampling fraction {u.sampling_fraction:.4g}, "
                     f"population {u.population_size:,})", show_header=True)
        uniq.add_column("model")
        uniq.add_column("population uniques", justify="right")
        uniq.add_column("note")
        for name in ("pitman", "zayatz", "snb", "dankar"):
            estimate = getattr(u, name)
            extra = estimate.message if not estimate.valid else ""
            if name == "dankar":
                extra = f"decision rule chose: {u.model_used}"
            uniq.add_row(name, _pct(estimate.fraction), extra)
        if u.observed is not None:
            uniq.add_row("observed", _pct(u.observed), "from the population table")
        console.print(uniq)

    if report.quasi_identifiers:
        ranking = Table(title=f"Likely quasi-identifiers (top {min(top, len(report.quasi_identifiers))} "
                        f"of {len(report.quasi_identifiers)}, by separation)", show_header=True)
        for column in ("attributes", "distinction", "separation"):
            ranking.add_column(column, justify="left" if column == "attributes" else "right")
        for score in report.quasi_identifiers[:top]:
            ranking.add_row(esc(", ".join(score.attributes)), _pct(score.distinction), _pct(score.separation))
        console.print(ranking)

    for name, s in report.sensitive.items():
        table = Table(title=f"Attribute disclosure: {esc(name)}", show_header=True)
        table.add_column("measure")
        table.add_column("value", justify="right")
        table.add_row("homogeneous classes", f"{s.homogeneity.homogeneous_classes:,}")
        table.add_row("records exposed by homogeneity", f"{s.homogeneity.exposed_records:,} "
                      f"({_pct(s.homogeneity.exposed_fraction)})")
        table.add_row("A_know", f"{s.disclosure.a_know:.4f}")
        table.add_row("A_acc", f"{s.disclosure.a_acc:.4f}")
        delta = s.disclosure.delta
        table.add_row("δ-disclosure level", "unbounded (a class lacks a value)" if delta == float("inf")
                      else f"{delta:.4f}")
        console.print(table)
