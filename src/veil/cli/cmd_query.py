"""``veil query``: differentially private counts, sums, means and histograms on a CSV."""

from __future__ import annotations

import hashlib
import json
import math
from pathlib import Path
from typing import Any, Optional

import typer

from veil.cli._app import app, console, split_list, user_errors, write_json_atomic
from veil.errors import BudgetExceededError, DataFormatError, ParameterError

_BUDGET_VERSION = 1


def _file_hash(path: Path) -> str:
    digest = hashlib.sha256()
    with open(path, "rb") as fh:
        for chunk in iter(lambda: fh.read(1 << 20), b""):
            digest.update(chunk)
    return "sha256:" + digest.hexdigest()


def _nonneg(value: Any, where: str, path: Path) -> float:
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value) \
            or value < 0:
        raise DataFormatError(
            f"The budget file {path} is corrupted: {where} must be a non-negative number, "
            f"got {value!r}. Restore it from a backup; veil will not guess what was spent."
        )
    return float(value)


def _load_budget_file(path: Path) -> dict:
    if not path.exists():
        return {"version": _BUDGET_VERSION, "datasets": {}}
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (json.JSONDecodeError, UnicodeDecodeError) as exc:
        raise DataFormatError(f"The budget file {path} is corrupted (not valid JSON: {exc}).") from None
    if not isinstance(data, dict) or not isinstance(data.get("datasets"), dict):
        raise DataFormatError(f"The budget file {path} is corrupted: no 'datasets' object.")
    for key, entry in data["datasets"].items():
        if not isinstance(entry, dict):
            raise DataFormatError(f"The budget file {path} is corrupted: entry {key!r} is not an object.")
        for part in ("budget", "spent"):
            if not isinstance(entry.get(part), dict):
                raise DataFormatError(f"The budget file {path} is corrupted: {key!r} has no {part!r}.")
            for coord in ("epsilon", "delta"):
                _nonneg(entry[part].get(coord), f"{part}.{coord} of {key!r}", path)
        if entry["budget"]["delta"] >= 1 or entry["spent"]["delta"] >= 1:
            raise DataFormatError(f"The budget file {path} is corrupted: a delta of {key!r} is >= 1.")
        if (entry["spent"]["epsilon"] > entry["budget"]["epsilon"] * (1 + 1e-9) + 1e-12
                or entry["spent"]["delta"] > entry["budget"]["delta"] * (1 + 1e-9) + 1e-15):
            raise DataFormatError(
                f"The budget file {path} is corrupted: {key!r} has spent more than its budget."
            )
    return data


def _answer_json(ans: Any) -> dict:
    """One answer as JSON: ``DPAnswer.to_dict`` (unit, bounds and sensitivity included)."""
    return ans.to_dict()


def _bounds_text(ans: Any) -> str:
    bounds = ans.contribution_bounds
    if bounds is None or ans.privacy_unit == "row":
        return ""
    parts = [f"{name}={value}" for name, value in bounds.to_dict().items() if value is not None]
    return f" ({', '.join(parts)})"


@app.command("query")
def query(
    file: Path = typer.Argument(..., exists=True, dir_okay=False, help="Input CSV file."),
    queries: list[str] = typer.Argument(..., help='Queries, e.g. "count where age > 40", '
                                        '"sum income", "mean age", "histogram sex".'),
    epsilon: float = typer.Option(..., "--epsilon", help="ε spent by EACH query (> 0)."),
    delta: float = typer.Option(0.0, "--delta", help="δ for histograms without --categories "
                                "(private partition selection)."),
    lower: Optional[float] = typer.Option(None, "--lower", help="Clamping lower bound (sum, mean)."),
    upper: Optional[float] = typer.Option(None, "--upper", help="Clamping upper bound (sum, mean)."),
    categories: Optional[str] = typer.Option(None, "--categories",
                                             help="Public keys of a one-column histogram, comma-separated."),
    budget_file: Optional[Path] = typer.Option(None, "--budget-file",
                                               help="JSON file persisting what was spent per dataset."),
    budget: Optional[float] = typer.Option(None, "--budget", help="Total ε for this dataset."),
    budget_delta: float = typer.Option(0.0, "--budget-delta", help="Total δ for this dataset."),
    privacy_unit: Optional[str] = typer.Option(None, "--privacy-unit", help="Column naming the person."),
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
    sep: Optional[str] = typer.Option(None, "--sep", help="CSV separator (default: sniffed)."),
    as_json: bool = typer.Option(False, "--json", help="Print one JSON object per answer."),
) -> None:
    """Answer queries with differential privacy, charging a persistent budget."""
    import pandas as pd
    from veil.dp import PrivacyAccountant, PrivacyBudget, PrivateTable, parse_query
    with user_errors():
        specs = [parse_query(q) for q in queries]
        from veil.data import read_table  # the one reader: ragged rows, duplicate names, ... refused

        frame = read_table(file, sep=sep, typed=True).to_pandas()
        key = _file_hash(file)
        state = None
        if budget_file is not None:
            state = _load_budget_file(budget_file)
            entry = state["datasets"].get(key)
            if entry is None:
                if budget is None:
                    raise ParameterError(
                        f"The budget file has no budget for {file}; give --budget TOTAL_EPSILON "
                        "the first time."
                    )
                total = PrivacyBudget(epsilon=budget, delta=budget_delta)
                entry = {"path": str(file), "budget": {"epsilon": total.epsilon, "delta": total.delta},
                         "spent": {"epsilon": 0.0, "delta": 0.0}, "queries": []}
                state["datasets"][key] = entry
            elif budget is not None and not math.isclose(budget, entry["budget"]["epsilon"]):
                raise ParameterError(
                    f"The budget of {file} is already {entry['budget']['epsilon']:g} in "
                    f"{budget_file}; it cannot be changed from the command line."
                )
            total = PrivacyBudget(epsilon=entry["budget"]["epsilon"], delta=entry["budget"]["delta"])
        else:
            if budget is None:
                raise ParameterError("Give --budget TOTAL_EPSILON (and --budget-file F to persist it).")
            total = PrivacyBudget(epsilon=budget, delta=budget_delta)
        accountant = PrivacyAccountant(budget=total)
        if state is not None:
            spent = state["datasets"][key]["spent"]
            if spent["epsilon"] > 0 or spent["delta"] > 0:
                accountant.spend(PrivacyBudget(epsilon=min(spent["epsilon"], total.epsilon),
                                               delta=min(spent["delta"], total.delta)),
                                 label="previous invocations")
        table = PrivateTable(frame, accountant=accountant, privacy_unit=privacy_unit,
                             max_rows_per_unit=max_rows_per_unit, max_groups=max_groups,
                             max_rows_per_group=max_rows_per_group, selection_seed=selection_seed)
        answers = []
        try:
            for spec in specs:
                answers.append(_run(table, spec, epsilon, delta, lower, upper, categories))
                if state is not None:  # persist after every answer: a crash cannot re-spend
                    entry = state["datasets"][key]
                    entry["spent"] = {"epsilon": accountant.spent.epsilon, "delta": accountant.spent.delta}
                    entry["queries"].append({"query": spec.text, "epsilon": answers[-1].epsilon,
                                             "delta": answers[-1].delta})
                    write_json_atomic(budget_file, state)
        finally:
            for ans in answers:
                if as_json:
                    typer.echo(json.dumps(_answer_json(ans), allow_nan=False))
                else:
                    console.print(f"{ans.query}: {ans.value}  (ε={ans.epsilon:g}, δ={ans.delta:g}, "
                                  f"{ans.mechanism} noise scale {ans.noise_scale:.4g}, unit: "
                                  f"{ans.privacy_unit}{_bounds_text(ans)}; remaining ε="
                                  f"{ans.budget_remaining.epsilon:g})", highlight=False, markup=False)


def _run(table: PrivateTable, spec: Any, epsilon: float, delta: float, lower: Any, upper: Any,
         categories: Optional[str]) -> Any:
    import pandas as pd
    from veil.dp import PrivacyAccountant, PrivacyBudget, PrivateTable, parse_query
    if spec.kind == "count":
        return table.count(spec.where, epsilon=epsilon)
    if spec.kind == "sum":
        return table.sum(spec.columns[0], lower=lower, upper=upper, epsilon=epsilon, where=spec.where)
    if spec.kind == "mean":
        return table.mean(spec.columns[0], lower=lower, upper=upper, epsilon=epsilon, where=spec.where)
    if spec.kind == "quantile":
        return table.quantile(spec.columns[0], spec.q, lower=lower, upper=upper, epsilon=epsilon,
                              where=spec.where)
    cats = split_list(categories)
    if cats:
        if len(spec.columns) != 1:
            raise ParameterError("--categories applies to a one-column histogram.")
        col = table._frame[spec.columns[0]] if spec.columns[0] in table.columns else None
        if col is not None and pd.api.types.is_numeric_dtype(col):
            cats = [pd.to_numeric(c) for c in cats]
        return table.histogram(spec.columns[0], categories=cats, epsilon=epsilon, where=spec.where)
    if delta <= 0:
        raise ParameterError(
            "A histogram without --categories releases keys found in the data; give public keys "
            "with --categories or a --delta > 0 for private partition selection."
        )
    return table.group_by_count(list(spec.columns), epsilon=epsilon, delta=delta, where=spec.where)
