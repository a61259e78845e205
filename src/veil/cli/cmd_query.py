"""``veil query``: differentially private counts, sums (also per key: ``sum COL by KEY``, the keys
public or selected privately), means and histograms on a CSV.

Every answer is charged to a :class:`~veil.dp.BudgetLedger` (``--budget-file``)
before its noise is drawn: the spend is journaled and fsynced under a file
lock, so concurrent runs cannot overspend and an answer whose spend could not
be saved is never printed.  The dataset is keyed by a fingerprint of its parsed
records (or by ``--dataset-name``), so editing the file's layout does not give
a fresh budget.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any, Optional

import typer

from veil.cli._app import app, console, user_errors
from veil.cli._ledger_options import ledger_files
from veil.cli._reading_options import na_values_of, na_values_option
from veil.errors import ParameterError


def _bounds_text(ans: Any) -> str:
    bounds = ans.contribution_bounds
    if bounds is None or ans.privacy_unit == "row":
        return ""
    parts = [f"{name}={value}" for name, value in bounds.to_dict().items() if value is not None]
    return f" ({', '.join(parts)})"


@app.command("query")
def query(
    file: Path = typer.Argument(..., readable=False, help="Input CSV file."),
    queries: list[str] = typer.Argument(..., help='Queries, e.g. "count where age > 40", '
                                        '"sum income", "sum income by sex", "mean age", "histogram sex".'),
    epsilon: float = typer.Option(..., "--epsilon", help="ε spent by EACH query (> 0)."),
    delta: float = typer.Option(0.0, "--delta", help="δ for histograms and 'sum COL by KEY' without "
                                "--categories (private partition selection)."),
    lower: Optional[float] = typer.Option(None, "--lower", help="Clamping lower bound (sum, mean, quantile)."),
    upper: Optional[float] = typer.Option(None, "--upper", help="Clamping upper bound (sum, mean, quantile)."),
    missing_as: Optional[float] = typer.Option(None, "--missing-as", help="What a missing value counts as in a "
                                               "sum, mean or quantile, in [--lower, --upper] (default: --lower)."),
    categories: Optional[list[str]] = typer.Option(None, "--categories", help="Public keys of a one-column histogram "
                                                   "or 'sum COL by KEY': COLUMN=K1,K2 (one per column), or K1,K2."),
    budget_file: Optional[Path] = typer.Option(
        None, "--budget-file", help="Budget ledger (index; a .journal and a .lock file sit beside it)."),
    dataset_name: Optional[str] = typer.Option(
        None, "--dataset-name", help="The dataset's name in the ledger, declared by the curator "
        "(default: a fingerprint of the parsed records)."),
    budget: Optional[float] = typer.Option(None, "--budget", help="Total ε for this dataset."),
    budget_delta: float = typer.Option(0.0, "--budget-delta", help="Total δ for this dataset."),
    privacy_unit: Optional[str] = typer.Option(None, "--privacy-unit", help="Column naming the person."),
    missing_units: str = typer.Option(
        "error", "--missing-units", help="Rows without a unit ID: 'error' or 'own-unit' (each is "
        "its own unit)."),
    max_rows_per_unit: Optional[int] = typer.Option(
        None, "--max-rows-per-unit",
        help="Total rows kept per unit (default 1 with --privacy-unit and no per-group bound)."),
    max_groups: Optional[int] = typer.Option(
        None, "--max-groups", help="Groups one unit may contribute to in a histogram."),
    max_rows_per_group: Optional[int] = typer.Option(
        None, "--max-rows-per-group", help="Rows one unit may contribute within one group."),
    selection_seed: Optional[int] = typer.Option(
        None, "--selection-seed",
        help="Seed of the choice of kept rows when a unit exceeds a bound (not the noise)."),
    sep: Optional[str] = typer.Option(None, "--sep", help="CSV separator (default: from the header)."),
    na_values: Optional[str] = na_values_option(),
    as_json: bool = typer.Option(False, "--json", help="Print one JSON object per answer."),
    json_out: Optional[Path] = typer.Option(None, "--json-out", help="Also write the answers "
                                            "as a JSON list to this file."),
    engine: str = typer.Option("local", "--engine", help="local (in memory, default), duckdb or spark "
                               "(exact counts, sums and histograms in the engine, the noise added here)."),
) -> None:
    """Answer queries with differential privacy, charging a persistent budget."""
    from veil.dp._query_batch import QueryAsk, parse_queries
    from veil.pipeline import Outputs

    with user_errors():
        specs, keys = parse_queries(queries, categories or [])
        ask = QueryAsk(epsilon, delta, lower, upper, missing_as, keys)
        reading = {"sep": sep, "na_values": na_values_of(na_values, file)}
        ledger = dict(budget_file=budget_file, dataset_name=dataset_name, budget=budget, budget_delta=budget_delta)
        with Outputs({"json": json_out}, inputs=[file, *ledger_files(budget_file, file)]) as out:
            units = (privacy_unit, max_rows_per_unit, max_groups, max_rows_per_group)
            answers = _answers(engine, file, specs, ask, reading, units, (missing_units, selection_seed), ledger)
            if json_out is not None:
                out.write_json("json", [a.to_dict() for a in answers])
                out.commit()
        _print_answers(answers, as_json)


def _answers(engine: str, file: Path, specs: list[Any], ask: Any, reading: dict[str, Any], units: tuple[Any, ...],
             local_units: tuple[Any, ...], ledger: dict[str, Any]) -> list[Any]:
    """The answers, in an engine (``units``: refused there) or in memory (with ``local_units`` too:
    --missing-units, --selection-seed); ``reading``: the file's sep and missing words."""
    from veil.dp._query_batch import local_answers

    if engine.strip().lower() != "local":
        return _engine_answers(engine, file, specs, ask, **reading, unit_options=units, **ledger)
    return local_answers(file, specs, ask, **reading, unit_options=(*units, *local_units), **ledger)


def _print_answers(answers: list[Any], as_json: bool) -> None:
    for ans in answers:
        if as_json:
            typer.echo(json.dumps(ans.to_dict(), allow_nan=False))
        else:
            missing = "" if ans.missing_as is None else f", missing as {ans.missing_as:g}"
            console.print(f"{ans.query}: {ans.value}  (ε={ans.epsilon:g}, δ={ans.delta:g}, "
                          f"{ans.mechanism} noise scale {ans.noise_scale:.4g}, unit: "
                          f"{ans.privacy_unit}{_bounds_text(ans)}{missing}; remaining ε="
                          f"{ans.budget_remaining.epsilon:g})", highlight=False, markup=False)


def _engine_answers(engine: str, file: Path, specs: list[Any], ask: Any, *, sep: Optional[str],
                    na_values: tuple[str, ...],
                    budget_file: Optional[Path], dataset_name: Optional[str], budget: Optional[float],
                    budget_delta: float, unit_options: tuple[Any, ...]) -> list[Any]:
    """Whole-table counts, sums and histograms, their exact aggregates from the engine (the noise drawn here)."""
    from veil.dp._query_batch import check_bounds, check_keys, precheck_batch, query_accountant
    from veil.engines import Source, get_engine
    from veil.engines._query import check_engine_query, engine_answer

    if any(option is not None for option in unit_options):
        raise ParameterError(f"--privacy-unit and its bounds are not run in an engine; use --engine local "
                             f"to bound each unit's contribution (got --engine {engine}).")
    if budget_file is not None and not dataset_name:
        raise ParameterError(f"With --engine {engine} and --budget-file, give --dataset-name: the "
                             "default ledger key is a fingerprint of the records read in memory.")
    for spec in specs:  # every query checked before anything is spent
        check_engine_query(spec, engine, categories=ask.categories(spec), delta=ask.delta)
    check_keys(specs, ask)
    check_bounds(specs, ask)
    source = Source.from_path(file, sep=sep, na_values=na_values)
    _check_engine_sums(specs, source)
    accountant = query_accountant(None, budget_file, dataset_name, budget, budget_delta)
    precheck_batch(accountant, len(specs), ask.epsilon, ask.delta)
    resolved = get_engine(engine)
    try:
        return [engine_answer(resolved, source, spec, accountant=accountant, epsilon=ask.epsilon, lower=ask.lower,
                              upper=ask.upper, categories=ask.categories(spec), delta=ask.delta,
                              missing_as=ask.missing_as) for spec in specs]
    finally:
        if hasattr(resolved, "close"):
            resolved.close()  # a Spark session made here is stopped here


def _check_engine_sums(specs: list[Any], source: Any) -> None:
    """Refuse, before any spend, a sum of a Parquet column that does not hold numbers (bools, dates,
    text), as in memory: the engine would read a bool as 0 or 1 (a CSV's text it refuses itself)."""
    from veil.errors import SchemaError

    summed = list(dict.fromkeys(spec.columns[0] for spec in specs if spec.kind == "sum"))
    if not summed or source.format != "parquet":
        return
    import pyarrow as pa
    import pyarrow.parquet as pq

    try:
        schema = pq.read_schema(source.path)
    except (OSError, pa.ArrowException):  # the engine's own read says what is wrong with the file
        return
    for name in summed:
        if schema.get_field_index(name) < 0:
            continue  # a missing column: the engine names it
        type_ = schema.field(name).type
        if pa.types.is_dictionary(type_):
            type_ = type_.value_type
        if not (pa.types.is_integer(type_) or pa.types.is_floating(type_) or pa.types.is_decimal(type_)):
            raise SchemaError(f"The query 'sum {name}' needs a numeric column; {name!r} is not. "
                              "Nothing was spent.")
