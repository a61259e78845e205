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

from veil.cli._app import app, console, split_list, user_errors
from veil.errors import BudgetExceededError, ParameterError



def _read_csv(file: Path, sep: Optional[str]) -> Any:
    """Read the data through veil's one reader (ragged rows, duplicate names, ... refused)."""
    from veil.data import read_table

    return read_table(file, sep=sep, typed=True).to_pandas()


def _bounds_text(ans: Any) -> str:
    bounds = ans.contribution_bounds
    if bounds is None or ans.privacy_unit == "row":
        return ""
    parts = [f"{name}={value}" for name, value in bounds.to_dict().items() if value is not None]
    return f" ({', '.join(parts)})"


def _accountant(frame: Any, budget_file: Optional[Path], dataset_name: Optional[str],
                budget: Optional[float], budget_delta: float) -> Any:
    from veil.dp import BudgetLedger, PrivacyAccountant, PrivacyBudget, dataset_fingerprint

    total = None if budget is None else PrivacyBudget(epsilon=budget, delta=budget_delta)
    if budget_file is None:
        if total is None:
            raise ParameterError("Give --budget TOTAL_EPSILON (and --budget-file F to persist it).")
        return PrivacyAccountant(budget=total)
    key = f"name:{dataset_name}" if dataset_name else dataset_fingerprint(frame)
    return PrivacyAccountant.from_ledger(BudgetLedger(budget_file), key, budget=total)


def _precheck(accountant: Any, n: int, epsilon: float, delta: float) -> None:
    """Refuse the whole batch before any spend when its n costs cannot all fit (basic sum)."""
    from veil.dp import PrivacyBudget

    need = PrivacyBudget(epsilon=n * epsilon, delta=min(n * delta, 0.5))
    if accountant.composition == "basic" and not accountant.can_spend(need):
        rem = accountant.remaining
        raise BudgetExceededError(
            f"The {n} queries cost epsilon={n * epsilon:g} in total, but only "
            f"epsilon={rem.epsilon:g}, delta={rem.delta:g} of the budget remains; nothing was "
            "spent. Ask fewer queries or with a smaller epsilon.")


@app.command("query")
def query(
    file: Path = typer.Argument(..., readable=False, help="Input CSV file."),
    queries: list[str] = typer.Argument(..., help='Queries, e.g. "count where age > 40", '
                                        '"sum income", "sum income by sex", "mean age", "histogram sex".'),
    epsilon: float = typer.Option(..., "--epsilon", help="ε spent by EACH query (> 0)."),
    delta: float = typer.Option(0.0, "--delta", help="δ for histograms and 'sum COL by KEY' without "
                                "--categories (private partition selection)."),
    lower: Optional[float] = typer.Option(None, "--lower", help="Clamping lower bound (sum, mean)."),
    upper: Optional[float] = typer.Option(None, "--upper", help="Clamping upper bound (sum, mean)."),
    categories: Optional[str] = typer.Option(None, "--categories",
                                             help="Public keys of a one-column histogram or 'sum COL by KEY'."),
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
    as_json: bool = typer.Option(False, "--json", help="Print one JSON object per answer."),
    json_out: Optional[Path] = typer.Option(None, "--json-out", help="Also write the answers "
                                            "as a JSON list to this file."),
    engine: str = typer.Option("local", "--engine", help="local (in memory, default), duckdb or spark "
                               "(exact counts, sums and histograms in the engine, the noise added here)."),
) -> None:
    """Answer queries with differential privacy, charging a persistent budget."""
    from veil.dp import parse_query
    from veil.pipeline import Outputs

    with user_errors():
        specs = _warn_shared_keys([parse_query(q) for q in queries], keys := split_list(categories, "--categories"))
        with Outputs({"json": json_out}, inputs=[file, *_ledger_files(budget_file, file)]) as out:
            units = (privacy_unit, max_rows_per_unit, max_groups, max_rows_per_group)
            if engine.strip().lower() != "local":
                answers = _engine_answers(engine, file, specs, sep=sep, budget_file=budget_file, delta=delta,
                                          dataset_name=dataset_name, budget=budget, budget_delta=budget_delta, lower=lower,
                                          upper=upper, epsilon=epsilon, categories=keys, unit_options=units)
            else:
                answers = _local_answers(file, specs, sep=sep, budget_file=budget_file, dataset_name=dataset_name,
                                         budget=budget, budget_delta=budget_delta, epsilon=epsilon, delta=delta,
                                         lower=lower, upper=upper, categories=categories,
                                         unit_options=(*units, missing_units, selection_seed))
            if json_out is not None:
                out.write_json("json", [a.to_dict() for a in answers])
                out.commit()
        _print_answers(answers, as_json)


def _local_answers(file: Path, specs: list[Any], *, sep: Optional[str], budget_file: Optional[Path],
                   dataset_name: Optional[str], budget: Optional[float], budget_delta: float, epsilon: float,
                   delta: float, lower: Optional[float], upper: Optional[float], categories: Optional[str],
                   unit_options: tuple) -> list[Any]:
    """The answers computed in memory, each spend saved (journaled, fsynced) before its noise is drawn."""
    from veil.dp import PrivateTable

    privacy_unit, max_rows_per_unit, max_groups, max_rows_per_group, missing_units, selection_seed = unit_options
    _check_keys(specs, split_list(categories, "--categories"), delta)  # before anything is read or spent
    frame = _read_csv(file, sep)
    _check_batch(specs, frame, categories, delta, bounds=(lower, upper))
    accountant = _accountant(frame, budget_file, dataset_name, budget, budget_delta)
    table = PrivateTable(frame, accountant=accountant, privacy_unit=privacy_unit,
                         max_rows_per_unit=max_rows_per_unit, max_groups=max_groups,
                         max_rows_per_group=max_rows_per_group,
                         missing_units=missing_units.replace("-", "_"),
                         selection_seed=selection_seed)
    _precheck(accountant, len(specs), epsilon, delta)
    # each answer's spend is saved (journaled, fsynced) before its noise is drawn
    return [_run(table, spec, epsilon, delta, lower, upper, categories) for spec in specs]


def _check_keys(specs: list[Any], categories: list[str], delta: float) -> None:
    """Refuse a grouped sum with neither public keys (--categories) nor a --delta for selecting them,
    and a --delta outside (0, 1) that a selection would use."""
    from veil._validation import check_real
    from veil.dp._grouped_sum import public_keys

    if categories:
        return
    for spec in specs:
        if spec.kind == "sum" and spec.by and delta <= 0:
            public_keys(None, spec.by[0], "A grouped sum")
        if (spec.kind == "histogram" or spec.by) and delta > 0:
            check_real("delta", delta, "veil query (private partition selection)", low=0.0, high=1.0,
                       closed="neither")


def _warn_shared_keys(specs: list[Any], categories: list[str]) -> list[Any]:
    """``specs``; said (on stderr) when the one list of --categories keys queries of several columns:
    each is answered for every key in the list, those its column never has included (noise alone)."""
    keyed = list(dict.fromkeys(", ".join(spec.columns if spec.kind == "histogram" else spec.by)
                               for spec in specs if spec.kind == "histogram" or spec.by))
    if categories and len(keyed) > 1:
        typer.echo(f"note: --categories keys the queries by {' and '.join(repr(k) for k in keyed)} alike: "
                   "each is answered for every key listed; run each column's queries as a command of its own "
                   "to give each its keys.", err=True)
    return specs


def _check_bounds(specs: list[Any], lower: Optional[float], upper: Optional[float]) -> None:
    """Refuse a sum, mean or quantile without valid clamping bounds (--lower, --upper)."""
    from veil.dp._sensitivity import clamping_bounds

    if any(spec.kind in ("sum", "mean", "quantile") for spec in specs):
        clamping_bounds(lower, upper, "veil query")


def _check_batch(specs: list[Any], frame: Any, categories: Optional[str], delta: float, *,
                 bounds: tuple[Optional[float], Optional[float]] = (None, None)) -> None:
    """Refuse, before the first spend, a query of the batch that would fail when its turn
    came: an earlier answer's spend would be saved and nothing printed."""
    from veil.dp._columns import is_number_column
    from veil.errors import ColumnNotFoundError, SchemaError

    _check_keys(specs, split_list(categories, "--categories"), delta)
    _check_bounds(specs, *bounds)
    for spec in specs:
        used = [*spec.columns, *(spec.by or ()), *(sorted(spec.where.columns) if spec.where is not None else ())]
        missing = [c for c in used if c not in frame.columns]
        if missing:
            raise ColumnNotFoundError(f"The query {spec.text!r} names the column {missing[0]!r}, which the "
                                      "data does not have; nothing was spent.")
        column = frame[spec.columns[0]] if spec.kind in ("sum", "mean", "quantile") else None
        if column is not None and not is_number_column(column):  # ints, floats, decimals: not bools
            raise SchemaError(f"The query {spec.text!r} needs a numeric column; {spec.columns[0]!r} is not. "
                              "Nothing was spent.")
        if spec.kind == "histogram":
            if split_list(categories, "--categories") and len(spec.columns) != 1:
                raise ParameterError("--categories applies to a one-column histogram; nothing was spent.")
            if not split_list(categories, "--categories") and delta <= 0:
                raise ParameterError(
                    "A histogram without --categories releases keys found in the data; give public keys "
                    "with --categories or a --delta > 0 for private partition selection. Nothing was spent.")


def _ledger_files(budget_file: Optional[Path], file: Path) -> list[Path]:
    """The ledger's index, journal and lock (none without ``--budget-file``), refused if one is the data."""
    from veil.dp import BudgetLedger
    from veil.pipeline import Outputs

    if budget_file is None:
        return []
    ledger = BudgetLedger(budget_file)
    Outputs({"ledger": ledger.path, "journal": ledger.journal, "lock": ledger.lock_path},
            inputs=[file])  # the ledger never overwrites the data
    return [ledger.path, ledger.journal, ledger.lock_path]


def _print_answers(answers: list[Any], as_json: bool) -> None:
    for ans in answers:
        if as_json:
            typer.echo(json.dumps(ans.to_dict(), allow_nan=False))
        else:
            console.print(f"{ans.query}: {ans.value}  (ε={ans.epsilon:g}, δ={ans.delta:g}, "
                          f"{ans.mechanism} noise scale {ans.noise_scale:.4g}, unit: "
                          f"{ans.privacy_unit}{_bounds_text(ans)}; remaining ε="
                          f"{ans.budget_remaining.epsilon:g})", highlight=False, markup=False)


def _engine_answers(engine: str, file: Path, specs: list[Any], *, sep: Optional[str],
                    budget_file: Optional[Path], dataset_name: Optional[str], budget: Optional[float],
                    budget_delta: float, epsilon: float, lower: Any, upper: Any, categories: list[str],
                    delta: float, unit_options: tuple[Any, ...]) -> list[Any]:
    """Whole-table counts, sums and histograms, their exact aggregates from the engine (the noise drawn here)."""
    from veil.engines import Source, get_engine
    from veil.engines._query import check_engine_query, engine_answer

    if any(option is not None for option in unit_options):
        raise ParameterError(f"--privacy-unit and its bounds are not run in an engine; use --engine local "
                             f"to bound each unit's contribution (got --engine {engine}).")
    if budget_file is not None and not dataset_name:
        raise ParameterError(f"With --engine {engine} and --budget-file, give --dataset-name: the "
                             "default ledger key is a fingerprint of the records read in memory.")
    for spec in specs:  # every query checked before anything is spent
        check_engine_query(spec, engine, categories=categories, delta=delta)
    _check_keys(specs, categories, delta)
    _check_bounds(specs, lower, upper)
    source = Source.from_path(file, sep=sep)
    _check_engine_sums(specs, source)
    accountant = _accountant(None, budget_file, dataset_name, budget, budget_delta)
    _precheck(accountant, len(specs), epsilon, delta)
    resolved = get_engine(engine)
    try:
        return [engine_answer(resolved, source, spec, accountant=accountant, epsilon=epsilon, lower=lower,
                              upper=upper, categories=categories, delta=delta) for spec in specs]
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


def _keys_of(table: Any, column: str, categories: Optional[str]) -> Optional[list[Any]]:
    """The public keys of --categories (None when absent), as numbers for a numeric column."""
    import pandas as pd

    cats = split_list(categories, "--categories")
    if not cats:
        return None
    if column in table.columns and table.is_numeric(column):
        bad = [c for c in cats if pd.isna(pd.to_numeric(c, errors="coerce"))]
        if bad:
            raise ParameterError(f"The column {column!r} is numeric: its --categories must be numbers. "
                                 f"Got {bad[0]!r}.")
        return [pd.to_numeric(c) for c in cats]
    return cats


def _run(table: Any, spec: Any, epsilon: float, delta: float, lower: Any, upper: Any,
         categories: Optional[str]) -> Any:
    if spec.kind == "count":
        return table.count(spec.where, epsilon=epsilon)
    if spec.kind == "sum" and spec.by:
        keys = _keys_of(table, spec.by[0], categories)
        return table.group_by_sum(spec.columns[0], spec.by[0], categories=keys, lower=lower, upper=upper,
                                  epsilon=epsilon, delta=None if keys is not None else delta, where=spec.where)
    if spec.kind == "sum":
        return table.sum(spec.columns[0], lower=lower, upper=upper, epsilon=epsilon, where=spec.where)
    if spec.kind == "mean":
        return table.mean(spec.columns[0], lower=lower, upper=upper, epsilon=epsilon, where=spec.where)
    if spec.kind == "quantile":
        return table.quantile(spec.columns[0], spec.q, lower=lower, upper=upper, epsilon=epsilon,
                              where=spec.where)
    cats = split_list(categories, "--categories")
    if cats:
        if len(spec.columns) != 1:
            raise ParameterError("--categories applies to a one-column histogram.")
        return table.histogram(spec.columns[0], categories=_keys_of(table, spec.columns[0], categories),
                               epsilon=epsilon, where=spec.where)
    if delta <= 0:
        raise ParameterError(
            "A histogram without --categories releases keys found in the data; give public keys "
            "with --categories or a --delta > 0 for private partition selection."
        )
    return table.group_by_count(list(spec.columns), epsilon=epsilon, delta=delta, where=spec.where)
