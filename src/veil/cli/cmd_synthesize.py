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
from veil.cli._ledger_options import budget_total, check_fits, ledger_files, ledger_key
from veil.errors import ParameterError


def _accountant(budget_file: Optional[Path], key: Optional[str], total: Any) -> Any:
    """The accountant charged (None without --budget-file and --budget): a ledger's, or one in memory."""
    from veil.dp import BudgetLedger, PrivacyAccountant

    if budget_file is None:
        return None if total is None else PrivacyAccountant(budget=total)
    return PrivacyAccountant.from_ledger(BudgetLedger(budget_file), key, budget=total)


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
    budget_delta: Optional[float] = typer.Option(None, "--budget-delta", help="Total δ of the dataset (the first "
                                                 "time; default: --delta times the releases --budget allows)."),
    budget_file: Optional[Path] = typer.Option(None, "--budget-file", help="The budget ledger, shared with "
                                               "veil query (its .journal and .lock sit beside it)."),
    dataset_name: Optional[str] = typer.Option(None, "--dataset-name", help="The ledger key, declared by "
                                               "the curator (default: a fingerprint of the records)."),
    seed: Optional[int] = typer.Option(None, "--seed", help="Seed of the sampling of rows (never of the noise)."),
    sep: Optional[str] = typer.Option(None, "--sep", help="CSV separator (default: from the header)."),
    html_out: Optional[Path] = typer.Option(None, "--html", help="Write the report as one HTML page."),
    holdout: Optional[float] = typer.Option(None, "--holdout", help="Withhold this share of the records from "
                                            "the synthesis (each record independently; no budget spent)."),
    holdout_out: Optional[Path] = typer.Option(None, "--holdout-out", help="Where the withheld records go "
                                               "(CSV/Parquet): as private as the input."),
    evaluate: bool = typer.Option(False, "--evaluate", help="Attack the synthetic table against the withheld "
                                  "records (needs --holdout); the report gains 'evaluation' (not DP)."),
    target: Optional[str] = typer.Option(None, "--target", help="With --evaluate: the column the workload "
                                         "utility predicts (trained on the synthetic table)."),
    public_report: bool = typer.Option(False, "--public-report", help="Leave out of the JSON and HTML every "
                                       "figure computed from the real records: the report is covered by DP."),
    engine: str = typer.Option("local", "--engine", help="local (in memory, default), duckdb or spark: the "
                               "encoding and the marginal counts in the engine, the rows written in chunks."),
) -> None:
    """Publish a synthetic table under differential privacy, charged once to the budget ledger."""
    with user_errors():
        report_options = _report_options(html_out, holdout, holdout_out, evaluate, target, public_report)
        report = _run(file, epsilon=epsilon, delta=delta, algorithm=algorithm, output=output, json_out=json_out,
                      domain=domain, bins=bins, max_categories=max_categories, identifiers=identifiers,
                      budget_file=budget_file, dataset_name=dataset_name, budget=budget,
                      budget_delta=budget_delta, seed=seed, sep=sep, report_options=report_options,
                      engine=engine, workload=workload)
    two = report["marginal_error"]["2way"]
    error = "" if two is None else f"; 2-way TV error {two:.4f}"
    if report["algorithm"] == "aim":
        error = f"; workload TV error {report['workload_error']:.4f}"
    console.print(f"wrote {report['rows']} synthetic rows to {output} ({report['algorithm']}, "
                  f"ε={report['epsilon']:.4g}, "
                  f"δ={report['delta']:g}, ρ={report['rho']:.4g}{error})", highlight=False, markup=False)


def _run(file: Path, *, epsilon: float, delta: float, algorithm: str, output: Path, json_out: Optional[Path],
         domain: Optional[Path], bins: Optional[list[str]], max_categories: int, identifiers: Optional[str],
         budget_file: Optional[Path], dataset_name: Optional[str], budget: Optional[float],
         budget_delta: Optional[float], seed: Optional[int], sep: Optional[str], report_options: Any = None,
         engine: str = "local", workload: Optional[str] = None) -> dict:
    from veil.data import read_table
    from veil.dp.synthesis import parse_bins, parse_domain
    from veil.dp.synthesis._api import column_domains, plan_budget, synthesis_cost
    from veil.dp.synthesis._engine import check_engine, synthesis_source
    from veil.dp.synthesis._precheck import check_budget, check_settings, refuse_budget
    from veil.dp.synthesis._workload import resolve_workload
    from veil.pipeline import Outputs

    eps, dlt = check_settings(epsilon, delta, algorithm, max_categories)
    engine = check_engine(engine, budget_file is not None, dataset_name)
    given = dict(parse_domain(domain)) if domain is not None else {}
    given.update(parse_bins(parse_assignments(bins, "--bins")))
    extra = report_options or _report_options(None, None, None, False, None, False)
    with Outputs({"data": output, "json": json_out, **extra.destinations},
                 inputs=[file, domain, *ledger_files(budget_file, file)]) as out:
        ids = tuple(split_list(identifiers, "--identifiers"))
        named = f"name:{dataset_name}" if dataset_name else None  # a key known before any row is read
        check_fits(budget_file, named, budget_total(budget, budget_delta, epsilon=eps, delta=dlt,
                                                    budget_file=budget_file, key=named),
                   lambda acc: synthesis_cost(acc, plan_budget(eps, dlt)), lambda rem: refuse_budget(rem, eps, dlt, "read, "))
        if engine != "local" and extra.holdout is not None:
            raise ParameterError("--holdout withholds records in memory: use the local engine (--engine local).")
        # as text, so that a category such as ZIP code 02139 keeps its leading zero (an engine: the same labels)
        frame = read_table(file, sep=sep, typed=False).to_pandas() if engine == "local" else \
            synthesis_source(engine, file, sep=sep)
        doms = column_domains(frame, given, None, ids, max_categories)  # every domain checked before the ledger opens
        resolve_workload(workload, [d.name for d in doms])  # and the workload
        frame, control = extra.split(frame, doms)
        # the ledger key of veil query: the fingerprint of the typed records (read only for a ledger file)
        key = None if budget_file is None else ledger_key(dataset_name, lambda: read_table(file, sep=sep,
                                                                                          typed=True).to_pandas())
        accountant = _accountant(budget_file, key, budget_total(budget, budget_delta, epsilon=eps, delta=dlt,
                                                                budget_file=budget_file, key=key))
        check_budget(accountant, eps, dlt)
        options = dict(epsilon=eps, delta=dlt, domain=given, identifiers=ids, max_categories=max_categories,
                       accountant=accountant, seed=seed, algorithm=algorithm, workload=workload)
        result = _synthesized(out, frame, options, in_memory=control is not None)
        report = extra.report(result, train=frame, control=control, domains=doms)
        if json_out is not None:
            out.write_json("json", report)
        extra.write(out, report, control)
        out.commit()
    return report


def _synthesized(out: Any, frame: Any, options: dict, *, in_memory: bool) -> Any:
    """The synthesis, its rows written into ``out``: in chunks, or kept in memory when the evaluation
    reads them; an engine's session closed whatever happens."""
    from veil.dp.synthesis import synthesize
    from veil.dp.synthesis._chunks import ChunkWriter
    from veil.release import table_writer

    try:
        if in_memory:
            result = synthesize(frame, **options)
            out.write("data", table_writer(result.frame))
            return result
        with ChunkWriter(out.temporary("data"), destination=out.destination("data")) as sink:
            return synthesize(frame, sink=sink, **options)
    finally:
        getattr(frame, "close", lambda: None)()


def _report_options(html_out: Optional[Path], holdout: Optional[float], holdout_out: Optional[Path],
                    evaluate: bool, target: Optional[str], public: bool) -> Any:
    from veil.dp.synthesis._evaluation_report import ReportOptions

    return ReportOptions.from_cli(html_out, holdout, holdout_out, evaluate, target, public)


def report_text(report: dict) -> str:
    """The report as one JSON line."""
    return json.dumps(report, allow_nan=False)
