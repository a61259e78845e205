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
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable, Optional

import typer

from veil.cli._app import app, console, user_errors
from veil.cli._ledger_options import ledger_files, ledger_key
from veil.errors import BudgetExceededError, ParameterError



def _read_csv(file: Path, sep: Optional[str]) -> Any:
    """Read the data through veil's one reader (ragged rows, duplicate names, ... refused)."""
    from veil.data import read_table

    return read_table(file, sep=sep, typed=True, allow_no_rows=True).to_pandas()  # no row: answered, noisy


def _bounds_text(ans: Any) -> str:
    bounds = ans.contribution_bounds
    if bounds is None or ans.privacy_unit == "row":
        return ""
    parts = [f"{name}={value}" for name, value in bounds.to_dict().items() if value is not None]
    return f" ({', '.join(parts)})"


def _accountant(frame: Any, budget_file: Optional[Path], dataset_name: Optional[str],
                budget: Optional[float], budget_delta: float) -> Any:
    from veil.dp import BudgetLedger, PrivacyAccountant, PrivacyBudget

    total = None if budget is None else PrivacyBudget(epsilon=budget, delta=budget_delta)
    if budget_file is None:
        if total is None:
            raise ParameterError("Give --budget TOTAL_EPSILON (and --budget-file F to persist it).")
        return PrivacyAccountant(budget=total)
    key = ledger_key(dataset_name, lambda: frame)
    return PrivacyAccountant.from_ledger(BudgetLedger(budget_file), key, budget=total)


def _precheck(accountant: Any, n: int, epsilon: float, delta: float) -> None:
    """Refuse the whole batch before any spend when its n costs cannot all fit (basic sum)."""
    from veil.dp import PrivacyBudget

    need = PrivacyBudget(epsilon=n * epsilon, delta=min(n * delta, 0.5))
    if accountant.composition == "basic" and not accountant.can_spend(need):
        rem = accountant.remaining
        short = " and ".join(rem.short_of(need)) or "epsilon"
        raise BudgetExceededError(
            f"The budget's {short} is short: the {n} queries cost epsilon={need.epsilon:g}, "
            f"delta={need.delta:g} in total, but only epsilon={rem.epsilon:g}, delta={rem.delta:g} "
            f"of the budget remains; nothing was spent. Ask fewer queries or with a smaller {short}.")


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
    as_json: bool = typer.Option(False, "--json", help="Print one JSON object per answer."),
    json_out: Optional[Path] = typer.Option(None, "--json-out", help="Also write the answers "
                                            "as a JSON list to this file."),
    engine: str = typer.Option("local", "--engine", help="local (in memory, default), duckdb or spark "
                               "(exact counts, sums and histograms in the engine, the noise added here)."),
) -> None:
    """Answer queries with differential privacy, charging a persistent budget."""
    from veil.pipeline import Outputs

    with user_errors():
        specs, keys = _parse(queries, categories or [])
        ask = _Ask(epsilon, delta, lower, upper, missing_as, keys)
        ledger = {"budget_file": budget_file, "dataset_name": dataset_name, "budget": budget,
                  "budget_delta": budget_delta}
        with Outputs({"json": json_out}, inputs=[file, *ledger_files(budget_file, file)]) as out:
            units = (privacy_unit, max_rows_per_unit, max_groups, max_rows_per_group)
            if engine.strip().lower() != "local":
                answers = _engine_answers(engine, file, specs, ask, sep=sep, unit_options=units, **ledger)
            else:
                answers = _local_answers(file, specs, ask, sep=sep, unit_options=(*units, missing_units,
                                                                                   selection_seed), **ledger)
            if json_out is not None:
                out.write_json("json", [a.to_dict() for a in answers])
                out.commit()
        _print_answers(answers, as_json)


def _parse(queries: list[str], categories: list[str]) -> tuple[list[Any], dict[str, list[str]]]:
    """The parsed queries and the public keys of each column they key by (before anything is read)."""
    from veil.dp import parse_query
    from veil.dp._categories import bind_categories

    specs = [parse_query(q) for q in queries]
    return specs, bind_categories(specs, categories)


@dataclass(frozen=True)
class _Ask:
    """What every query of the batch is asked with: its ε and δ, the clamping, the keys per column."""

    epsilon: float
    delta: float
    lower: Optional[float]
    upper: Optional[float]
    missing_as: Optional[float]
    keys: dict[str, list[str]]

    def categories(self, spec: Any) -> Optional[list[str]]:
        """The public keys of the column ``spec`` is keyed by (``None``: none given)."""
        from veil.dp._categories import keyed_column

        column = keyed_column(spec)
        return None if column is None else self.keys.get(column)


def _local_answers(file: Path, specs: list[Any], ask: _Ask, *, sep: Optional[str], budget_file: Optional[Path],
                   dataset_name: Optional[str], budget: Optional[float], budget_delta: float,
                   unit_options: tuple) -> list[Any]:
    """The answers computed in memory, each spend saved (journaled, fsynced) before its noise is drawn."""
    from veil.dp import PrivateTable

    privacy_unit, max_rows_per_unit, max_groups, max_rows_per_group, missing_units, selection_seed = unit_options
    _check_keys(specs, ask)  # before anything is read or spent
    frame = _read_csv(file, sep)
    _check_batch(specs, frame, ask)
    accountant = _accountant(frame, budget_file, dataset_name, budget, budget_delta)
    table = PrivateTable(frame, accountant=accountant, privacy_unit=privacy_unit,
                         max_rows_per_unit=max_rows_per_unit, max_groups=max_groups,
                         max_rows_per_group=max_rows_per_group,
                         missing_units=missing_units.replace("-", "_"),
                         selection_seed=selection_seed)
    _precheck(accountant, len(specs), ask.epsilon, ask.delta)
    # each answer's spend is saved (journaled, fsynced) before its noise is drawn
    return [_run(table, spec, ask) for spec in specs]


def _check_keys(specs: list[Any], ask: _Ask) -> None:
    """Refuse a grouped sum with neither public keys (--categories) nor a --delta for selecting them,
    and a --delta outside (0, 1) that a selection would use."""
    from veil._validation import check_real
    from veil.dp._grouped_sum import public_keys

    for spec in specs:
        if ask.categories(spec) is not None:
            continue
        if spec.kind == "sum" and spec.by and ask.delta <= 0:
            public_keys(None, spec.by[0], "A grouped sum")
        if (spec.kind == "histogram" or spec.by) and ask.delta > 0:
            check_real("delta", ask.delta, "veil query (private partition selection)", low=0.0, high=1.0,
                       closed="neither")


def _check_bounds(specs: list[Any], ask: _Ask) -> None:
    """Refuse a sum, mean or quantile without valid clamping bounds (--lower, --upper) or with a
    --missing-as outside them."""
    from veil.dp._sensitivity import clamping_bounds, missing_fill

    if any(spec.kind in ("sum", "mean", "quantile") for spec in specs):
        lo, hi = clamping_bounds(ask.lower, ask.upper, "veil query")
        missing_fill(ask.missing_as, lo, hi, "veil query (--missing-as)")


def _check_batch(specs: list[Any], frame: Any, ask: _Ask) -> None:
    """Refuse, before the first spend, a query of the batch that would fail when its turn
    came: an earlier answer's spend would be saved and nothing printed."""
    from veil.dp._columns import is_number_column
    from veil.errors import ColumnNotFoundError, SchemaError

    _check_keys(specs, ask)
    _check_bounds(specs, ask)
    for spec in specs:
        used = [*spec.columns, *(spec.by or ()), *(sorted(spec.where.columns) if spec.where is not None else ())]
        missing = [c for c in used if c not in frame.columns]
        if missing:
            raise ColumnNotFoundError(f"The query {spec.text!r} names the column {missing[0]!r}, which the "
                                      "data does not have; nothing was spent.")
        column = frame[spec.columns[0]] if spec.kind in ("sum", "mean", "quantile") else None
        if column is not None and not is_number_column(column) and column.notna().any():  # not bools, text
            raise SchemaError(f"The query {spec.text!r} needs a numeric column; {spec.columns[0]!r} is not. "
                              "Nothing was spent.")
        _keys_of(spec, ask, lambda c: is_number_column(frame[c]))  # numeric keys for a numeric column
        if spec.where is not None:
            spec.where.mask(frame)  # a literal of the wrong type for its column
        if spec.kind == "histogram":
            if ask.categories(spec) is None and ask.delta <= 0:
                raise ParameterError(
                    "A histogram without --categories releases keys found in the data; give public keys "
                    "with --categories or a --delta > 0 for private partition selection. Nothing was spent.")


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


def _engine_answers(engine: str, file: Path, specs: list[Any], ask: _Ask, *, sep: Optional[str],
                    budget_file: Optional[Path], dataset_name: Optional[str], budget: Optional[float],
                    budget_delta: float, unit_options: tuple[Any, ...]) -> list[Any]:
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
        check_engine_query(spec, engine, categories=ask.categories(spec), delta=ask.delta)
    _check_keys(specs, ask)
    _check_bounds(specs, ask)
    source = Source.from_path(file, sep=sep)
    _check_engine_sums(specs, source)
    accountant = _accountant(None, budget_file, dataset_name, budget, budget_delta)
    _precheck(accountant, len(specs), ask.epsilon, ask.delta)
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


def _keys_of(spec: Any, ask: _Ask, numeric: Callable[[str], bool]) -> Optional[list[Any]]:
    """The public keys of ``spec``'s keyed column (None when none are given), as numbers for a
    ``numeric`` column."""
    import pandas as pd

    from veil.dp._categories import keyed_column

    cats, column = ask.categories(spec), keyed_column(spec)
    if cats is None or column is None:
        return None
    if numeric(column):
        bad = [c for c in cats if pd.isna(pd.to_numeric(c, errors="coerce"))]
        if bad:
            raise ParameterError(f"The column {column!r} is numeric: its --categories must be numbers. "
                                 f"Got {bad[0]!r}; nothing was spent.")
        return [pd.to_numeric(c).item() for c in cats]  # plain numbers, printed as such
    return cats


def _run(table: Any, spec: Any, ask: _Ask) -> Any:
    numeric = lambda column: column in table.columns and table.is_numeric(column)  # noqa: E731
    clamp = {"lower": ask.lower, "upper": ask.upper, "missing_as": ask.missing_as, "epsilon": ask.epsilon,
             "where": spec.where}
    if spec.kind == "count":
        return table.count(spec.where, epsilon=ask.epsilon)
    if spec.kind == "sum" and spec.by:
        keys = _keys_of(spec, ask, numeric)
        return table.group_by_sum(spec.columns[0], spec.by[0], categories=keys,
                                  delta=None if keys is not None else ask.delta, **clamp)
    if spec.kind == "sum":
        return table.sum(spec.columns[0], **clamp)
    if spec.kind == "mean":
        return table.mean(spec.columns[0], **clamp)
    if spec.kind == "quantile":
        return table.quantile(spec.columns[0], spec.q, **clamp)
    keys = _keys_of(spec, ask, numeric)
    if keys is not None:
        return table.histogram(spec.columns[0], categories=keys, epsilon=ask.epsilon, where=spec.where)
    if ask.delta <= 0:
        raise ParameterError(
            "A histogram without --categories releases keys found in the data; give public keys "
            "with --categories or a --delta > 0 for private partition selection."
        )
    return table.group_by_count(list(spec.columns), epsilon=ask.epsilon, delta=ask.delta, where=spec.where)
