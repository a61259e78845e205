"""A batch of ``veil query`` strings answered in memory: parsed, checked whole before the first
spend, each answer charged to the accountant (journaled, fsynced) before its noise is drawn.

The one implementation behind ``veil query`` (:mod:`veil.cli.cmd_query`) and the web app's DP
page (:mod:`veil.web.pages.dp`).  Nothing here reads the selected rows before the noise: the
checks read the column names and types, the accountant the whole table's fingerprint.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable, Optional

from veil.errors import BudgetExceededError, ParameterError

__all__ = ["QueryAsk", "parse_queries", "read_query_table", "query_accountant", "precheck_batch",
           "check_keys", "check_bounds", "check_batch", "local_answers"]


def read_query_table(file: Path, sep: Optional[str], na_values: Optional[tuple[str, ...]] = None) -> Any:
    """Read the data through veil's one reader (ragged rows, duplicate names, ... refused), the cell
    texts ``na_values`` missing (default :data:`veil.data.DEFAULT_NA_VALUES`)."""
    from veil.data import DEFAULT_NA_VALUES, read_table

    words = DEFAULT_NA_VALUES if na_values is None else na_values
    return read_table(file, sep=sep, na_values=words, typed=True, allow_no_rows=True).to_pandas()  # no row: answered


def query_accountant(frame: Any, budget_file: Optional[Path], dataset_name: Optional[str],
                     budget: Optional[float], budget_delta: float) -> Any:
    """The accountant charged: the ledger's (keyed by ``dataset_name`` or the records' fingerprint),
    or one in memory with ``budget``."""
    from veil.dp import BudgetLedger, PrivacyAccountant, PrivacyBudget, dataset_fingerprint

    total = None if budget is None else PrivacyBudget(epsilon=budget, delta=budget_delta)
    if budget_file is None:
        if total is None:
            raise ParameterError("Give --budget TOTAL_EPSILON (and --budget-file F to persist it).")
        return PrivacyAccountant(budget=total)
    key = f"name:{dataset_name}" if dataset_name else dataset_fingerprint(frame)
    return PrivacyAccountant.from_ledger(BudgetLedger(budget_file), key, budget=total)


def precheck_batch(accountant: Any, n: int, epsilon: float, delta: float) -> None:
    """Refuse the whole batch before any spend when its n costs cannot all fit (basic sum)."""
    from veil.dp import PrivacyBudget

    need = PrivacyBudget(epsilon=n * epsilon, delta=min(n * delta, 0.5))
    if accountant.composition == "basic" and not accountant.can_spend(need):
        rem = accountant.remaining
        short = " and ".join(rem.short_of(need)) or "epsilon"
        verb = "are" if " and " in short else "is"
        raise BudgetExceededError(
            f"The budget's {short} {verb} short: the {n} queries cost epsilon={need.epsilon:g}, "
            f"delta={need.delta:g} in total, but only epsilon={rem.epsilon:g}, delta={rem.delta:g} "
            f"of the budget remains; nothing was spent. Ask fewer queries or with a smaller {short}.")


def parse_queries(queries: list[str], categories: list[str]) -> tuple[list[Any], dict[str, list[str]]]:
    """The parsed queries and the public keys of each column they key by (before anything is read)."""
    from veil.dp._categories import bind_categories
    from veil.dp._predicate import parse_query

    specs = [parse_query(q) for q in queries]
    return specs, bind_categories(specs, categories)


@dataclass(frozen=True)
class QueryAsk:
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


def local_answers(file: Path, specs: list[Any], ask: QueryAsk, *, sep: Optional[str], budget_file: Optional[Path],
                  dataset_name: Optional[str], budget: Optional[float], budget_delta: float,
                  unit_options: tuple, na_values: Optional[tuple[str, ...]] = None) -> list[Any]:
    """The answers computed in memory, each spend saved (journaled, fsynced) before its noise is drawn.

    ``unit_options`` is ``(privacy_unit, max_rows_per_unit, max_groups, max_rows_per_group,
    missing_units, selection_seed)`` as ``veil query`` takes them; ``na_values`` the cell texts read
    as missing (``--na-values``).  The ledger's fingerprint is of the records read with the default
    missing words whatever ``na_values`` is: reading the file otherwise gives no fresh budget.
    """
    from veil.data import DEFAULT_NA_VALUES
    from veil.dp import PrivateTable

    privacy_unit, max_rows_per_unit, max_groups, max_rows_per_group, missing_units, selection_seed = unit_options
    check_keys(specs, ask)  # before anything is read or spent
    frame = read_query_table(file, sep, na_values)
    check_batch(specs, frame, ask)
    default = na_values is None or tuple(na_values) == DEFAULT_NA_VALUES
    keyed = frame if default or budget_file is None or dataset_name else read_query_table(file, sep)
    accountant = query_accountant(keyed, budget_file, dataset_name, budget, budget_delta)
    table = PrivateTable(frame, accountant=accountant, privacy_unit=privacy_unit,
                         max_rows_per_unit=max_rows_per_unit, max_groups=max_groups,
                         max_rows_per_group=max_rows_per_group,
                         missing_units=missing_units.replace("-", "_"),
                         selection_seed=selection_seed)
    precheck_batch(accountant, len(specs), ask.epsilon, ask.delta)
    # each answer's spend is saved (journaled, fsynced) before its noise is drawn
    return [_answer(table, spec, ask) for spec in specs]


def check_keys(specs: list[Any], ask: QueryAsk) -> None:
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


def check_bounds(specs: list[Any], ask: QueryAsk) -> None:
    """Refuse a sum, mean or quantile without valid clamping bounds (--lower, --upper) or with a
    --missing-as outside them."""
    from veil.dp._sensitivity import clamping_bounds, missing_fill

    if any(spec.kind in ("sum", "mean", "quantile") for spec in specs):
        lo, hi = clamping_bounds(ask.lower, ask.upper, "veil query")
        missing_fill(ask.missing_as, lo, hi, "veil query (--missing-as)")


def check_batch(specs: list[Any], frame: Any, ask: QueryAsk) -> None:
    """Refuse, before the first spend, a query of the batch that would fail when its turn
    came: an earlier answer's spend would be saved and nothing printed."""
    from veil.dp._columns import is_number_column
    from veil.errors import ColumnNotFoundError, SchemaError

    check_keys(specs, ask)
    check_bounds(specs, ask)
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


def _keys_of(spec: Any, ask: QueryAsk, numeric: Callable[[str], bool]) -> Optional[list[Any]]:
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


def _answer(table: Any, spec: Any, ask: QueryAsk) -> Any:
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
