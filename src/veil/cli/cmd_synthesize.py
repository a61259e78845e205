"""``veil synthesize``: a synthetic table under (ε, δ)-differential privacy (MST), charged to the ledger.

The budget is checked before the data is read when the ledger key is given
(``--dataset-name``), and charged once (journaled, fsynced) before any noise
is drawn; the synthetic table and the JSON report go through the one writer,
together or not at all.  See ``docs/synthesize.md``.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any, Optional

import typer

from veil.cli._app import app, console, parse_assignments, split_list, user_errors
from veil.errors import BudgetExceededError, ParameterError


def _accountant(budget_file: Optional[Path], key: Optional[str], budget: Optional[float],
                budget_delta: float) -> Any:
    """The accountant charged (None without --budget-file and --budget): a ledger's, or one in memory."""
    from veil.dp import BudgetLedger, PrivacyAccountant, PrivacyBudget

    total = None if budget is None else PrivacyBudget(epsilon=budget, delta=budget_delta)
    if budget_file is None:
        return None if total is None else PrivacyAccountant(budget=total)
    return PrivacyAccountant.from_ledger(BudgetLedger(budget_file), key, budget=total)


def _refuse(rem: Any, epsilon: float, delta: float, when: str) -> None:
    hint = " (give the dataset a --budget-delta the first time: δ > 0 is spent)" if rem.delta < delta else ""
    raise BudgetExceededError(
        f"The synthesis costs epsilon={epsilon:g}, delta={delta:g}, but only epsilon={rem.epsilon:g}, "
        f"delta={rem.delta:g} of the budget remains{hint}; nothing was {when}spent or written.")


def _precheck(accountant: Any, epsilon: float, delta: float, when: str = "") -> None:
    """Refuse a synthesis whose cost cannot fit in what ``accountant`` has left."""
    from veil.dp.synthesis._api import plan_budget, synthesis_cost

    if accountant is not None and not accountant.can_spend(synthesis_cost(accountant, plan_budget(epsilon, delta))):
        _refuse(accountant.remaining, epsilon, delta, when)


def _precheck_ledger(budget_file: Path, key: str, budget: Optional[float], budget_delta: float,
                     epsilon: float, delta: float) -> None:
    """Before any row is read, and without writing the ledger: refuse a synthesis that cannot fit
    in the budget given for a new dataset, or in what a known dataset has left."""
    from veil.dp import BudgetLedger, PrivacyAccountant, PrivacyBudget

    if budget is not None:
        total = PrivacyBudget(epsilon=budget, delta=budget_delta)
        if not total.covers(PrivacyBudget(epsilon=epsilon, delta=delta)):
            _refuse(total, epsilon, delta, "read, ")
    ledger = BudgetLedger(budget_file)
    if not ledger.path.exists():
        return
    try:
        ledger.open_dataset(key, budget=None)  # a known dataset: read only
    except ParameterError:
        if budget is None:
            raise
        return  # a new dataset: its budget was checked above
    _precheck(PrivacyAccountant.from_ledger(ledger, key, budget=None if budget is None else PrivacyBudget(
        epsilon=budget, delta=budget_delta)), epsilon, delta, "read, ")


def _ledger_files(budget_file: Optional[Path], file: Path) -> list[Path]:
    from veil.dp import BudgetLedger
    from veil.pipeline import Outputs

    if budget_file is None:
        return []
    ledger = BudgetLedger(budget_file)
    Outputs({"ledger": ledger.path, "journal": ledger.journal, "lock": ledger.lock_path}, inputs=[file])
    return [ledger.path, ledger.journal, ledger.lock_path]


@app.command("synthesize")
def synthesize_command(
    file: Path = typer.Argument(..., readable=False, help="Input CSV or Parquet file."),
    epsilon: float = typer.Option(..., "--epsilon", help="ε of the whole synthetic table (> 0)."),
    delta: float = typer.Option(1e-9, "--delta", help="δ of the whole synthetic table, in (0, 1)."),
    algorithm: str = typer.Option("mst", "--algorithm", help="mst (McKenna, Miklau & Sheldon 2021) or aim "
                                  "(McKenna et al. 2022)."),
    workload: Optional[str] = typer.Option(None, "--workload", help='Marginals for AIM (and workload_error): '
                                           '"age,sex;education,occupation"; default all 3-way.'),
    output: Path = typer.Option(..., "-o", "--output", help="The synthetic table (CSV, or Parquet by suffix)."),
    json_out: Optional[Path] = typer.Option(None, "--json", help="Write the JSON report to this file."),
    domain: Optional[Path] = typer.Option(None, "--domain", help='JSON: column -> [categories] or '
                                          '{"min", "max", "bins"}.'),
    bins: Optional[list[str]] = typer.Option(None, "--bins", help="COLUMN=MIN:MAX:BINS (repeatable)."),
    max_categories: int = typer.Option(1000, "--max-categories", help="Most categories (or bins) of one column; "
                                       "a text column with more needs a --domain."),
    identifiers: Optional[str] = typer.Option(None, "--identifiers", help="Columns never synthesized nor written."),
    budget: Optional[float] = typer.Option(None, "--budget", help="Total ε of the dataset (the first time)."),
    budget_delta: float = typer.Option(0.0, "--budget-delta", help="Total δ of the dataset (the first time)."),
    budget_file: Optional[Path] = typer.Option(None, "--budget-file", help="The budget ledger, shared with "
                                               "veil query (its .journal and .lock sit beside it)."),
    dataset_name: Optional[str] = typer.Option(None, "--dataset-name", help="The ledger key, declared by "
                                               "the curator (default: a fingerprint of the records)."),
    seed: Optional[int] = typer.Option(None, "--seed", help="Seed of the sampling of rows (never of the noise)."),
    sep: Optional[str] = typer.Option(None, "--sep", help="CSV separator (default: from the header)."),
) -> None:
    """Publish a synthetic table under differential privacy, charged once to the budget ledger."""
    with user_errors():
        report = _run(file, epsilon=epsilon, delta=delta, algorithm=algorithm, output=output, json_out=json_out,
                      domain=domain, bins=bins, max_categories=max_categories, identifiers=identifiers,
                      budget_file=budget_file, dataset_name=dataset_name, budget=budget,
                      budget_delta=budget_delta, seed=seed, sep=sep, workload=workload)
    two = report["marginal_error"]["2way"]
    error = "" if two is None else f"; 2-way TV error {two:.4f}"
    if report["algorithm"] == "aim":
        error = f"; workload TV error {report['workload_error']:.4f}"
    console.print(f"wrote {report['rows']} synthetic rows to {output} ({report['algorithm']}, "
                  f"ε={report['epsilon']:.4g}, "
                  f"δ={report['delta']:g}, ρ={report['rho']:.4g}{error})", highlight=False, markup=False)


def _run(file: Path, *, epsilon: float, delta: float, algorithm: str, output: Path, json_out: Optional[Path],
         domain: Optional[Path], bins: Optional[list[str]], max_categories: int, identifiers: Optional[str],
         budget_file: Optional[Path], dataset_name: Optional[str], budget: Optional[float], budget_delta: float,
         seed: Optional[int], sep: Optional[str], workload: Optional[str] = None) -> dict:
    from veil.data import read_table
    from veil.dp import dataset_fingerprint
    from veil.dp.synthesis import parse_bins, parse_domain, synthesize
    from veil.dp.synthesis._api import check_privacy, column_domains
    from veil.dp.synthesis._workload import resolve_workload
    from veil.pipeline import Outputs
    from veil.release import table_writer

    eps, dlt = check_privacy(epsilon, delta, algorithm)
    if max_categories < 1:
        raise ParameterError(f"--max-categories must be at least 1; got {max_categories}.")
    given = dict(parse_domain(domain)) if domain is not None else {}
    given.update(parse_bins(parse_assignments(bins, "--bins")))
    with Outputs({"data": output, "json": json_out},
                 inputs=[file, domain, *_ledger_files(budget_file, file)]) as out:
        ids = tuple(split_list(identifiers, "--identifiers"))
        if budget_file is None:
            _precheck(_accountant(None, None, budget, budget_delta), eps, dlt, "read, ")
        elif dataset_name:
            _precheck_ledger(budget_file, f"name:{dataset_name}", budget, budget_delta, eps, dlt)
        # as text, so that a category such as ZIP code 02139 keeps its leading zero
        frame = read_table(file, sep=sep, typed=False).to_pandas()
        # every domain and the workload checked before the ledger opens
        resolve_workload(workload, [d.name for d in column_domains(frame, given, None, ids, max_categories)])
        # the ledger key of veil query: the fingerprint of the typed records
        key = f"name:{dataset_name}" if dataset_name else dataset_fingerprint(
            read_table(file, sep=sep, typed=True).to_pandas())
        accountant = _accountant(budget_file, key, budget, budget_delta)
        _precheck(accountant, eps, dlt)
        result = synthesize(frame, epsilon=eps, delta=dlt, algorithm=algorithm, domain=given, identifiers=ids,
                            max_categories=max_categories, accountant=accountant, seed=seed, workload=workload)
        out.write("data", table_writer(result.frame))
        if json_out is not None:
            out.write_json("json", result.report)
        out.commit()
    return result.report


def report_text(report: dict) -> str:
    """The report as one JSON line."""
    return json.dumps(report, allow_nan=False)
