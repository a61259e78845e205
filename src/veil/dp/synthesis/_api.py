"""``veil.dp.synthesize``: a synthetic table under (ε, δ)-differential privacy, charged once to the ledger."""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Any, Callable, Mapping

import numpy as np
import pandas as pd

from veil._validation import check_real
from veil.dp._budget import PrivacyBudget, ZCDPBudget, largest_rho, zcdp_epsilon
from veil.dp._mechanisms import EPSILON_RANGE
from veil.dp.synthesis._domain import (MAX_CATEGORIES, ColumnDomain, decode, parse_bins, parse_domain,
                                        resolve_domains)
from veil.dp.synthesis._learn import learn_from_counts, selection_epsilon
from veil.dp.synthesis._fit import fit_tree
from veil.dp.synthesis._chunks import CHUNK_ROWS, decode_chunk, draw
from veil.dp.synthesis._mst import (CompressedTable, compress, measure_one_way, measure_two_way, project_simplex,
                                    select_tree)
from veil.dp.synthesis._source import ClassTable, as_source, class_table, tv_errors
from veil.dp.synthesis._aim import AimSettings, aim, check_model_size
from veil.dp.synthesis._workload import resolve_workload, workload_error, workload_names
from veil.errors import ParameterError

__all__ = ["SynthesisResult", "synthesize", "synthesis_rho", "check_privacy", "synthesis_cost", "BudgetPlan",
           "plan_budget", "learn_domains", "ledger_report", "column_domains",
           "marginal_errors"]

ALGORITHMS = ("mst", "aim")


@dataclass(frozen=True, slots=True)
class SynthesisResult:
    """The synthetic ``frame`` and its ``report`` (the JSON contract of ``veil synthesize --json``)."""

    frame: pd.DataFrame
    report: dict


def check_privacy(epsilon: Any, delta: Any, algorithm: Any = "mst") -> tuple[float, float]:
    """Validate ε (in veil's range), δ in (0, 1) and the algorithm; return (ε, δ)."""
    owner = "veil synthesize"
    eps = check_real("epsilon", epsilon, owner, low=0.0, closed="neither")
    lo, hi = EPSILON_RANGE
    if not lo <= eps <= hi:
        raise ParameterError(f"--epsilon must be in [{lo:g}, {hi:g}]; got {epsilon!r}.")
    dlt = check_real("delta", delta, owner, low=0.0, high=1.0, closed="neither")
    if str(algorithm).lower() not in ALGORITHMS:
        raise ParameterError(f"--algorithm must be one of {', '.join(ALGORITHMS)}; got {algorithm!r}.")
    return eps, dlt


#: The share of ρ that learns the categories of text columns without a domain (when there are any).
DOMAIN_SHARE = 0.1


@dataclass(frozen=True, slots=True)
class BudgetPlan:
    """How the synthesis spends (ε, δ).

    ``rho``: the whole zCDP budget, ``cdp_rho(ε, δ - delta_selection)``;
    ``rho_domain``: the part that learns ``learned`` columns' categories
    (each ε_c-DP with ε_c²/2 = rho_domain/learned, at δ = delta_selection/learned);
    ``rho_mst``: the rest, a third for each of MST's steps (AIM: all of its rounds).
    """

    epsilon: float
    delta: float
    rho: float
    rho_domain: float
    delta_selection: float
    learned: int

    @property
    def rho_mst(self) -> float:
        return self.rho - self.rho_domain

    @property
    def certified_epsilon(self) -> float:
        """The ε OpenDP's conversion certifies for ``rho`` at δ - delta_selection."""
        return zcdp_epsilon(self.rho, self.delta - self.delta_selection)


def plan_budget(epsilon: float, delta: float, learned: int = 0) -> BudgetPlan:
    """The budget split: as the authors' reference when every domain is given; with ``learned``
    columns to learn, half of δ for their selection and :data:`DOMAIN_SHARE` of ρ."""
    if learned == 0:
        return BudgetPlan(epsilon, delta, synthesis_rho(epsilon, delta), 0.0, 0.0, 0)
    rho = synthesis_rho(epsilon, delta / 2.0)
    return BudgetPlan(epsilon, delta, rho, DOMAIN_SHARE * rho, delta / 2.0, learned)


def synthesis_rho(epsilon: float, delta: float) -> float:
    """ρ from (ε, δ): the reference's ``cdp_rho``, lowered if needed to what OpenDP's
    zCDP → (ε, δ) conversion certifies (so that the reported ε is OpenDP's)."""
    from veil.dp.synthesis._mst import cdp_rho

    return min(cdp_rho(epsilon, delta), largest_rho(epsilon, delta))


def synthesis_cost(accountant: Any, plan: BudgetPlan) -> PrivacyBudget | ZCDPBudget:
    """The one cost charged: δ-approximate ρ-zCDP on a zCDP accountant, else (ε, δ)."""
    if accountant is not None and accountant.composition in ("zcdp", "filter"):
        return ZCDPBudget(rho=plan.rho, delta=plan.delta_selection)
    return PrivacyBudget(epsilon=plan.epsilon, delta=plan.delta)


def learn_domains(frame: Any, domains: list[ColumnDomain], plan: BudgetPlan) -> list[ColumnDomain]:
    """``domains`` with every column marked ``learned`` given its DP-selected categories."""
    if plan.learned == 0:
        return domains
    eps = selection_epsilon(plan.rho_domain / plan.learned) * (1.0 - 1e-9)
    dlt = plan.delta_selection / plan.learned
    data = as_source(frame)
    return [replace(d, categories=learn_from_counts(data.value_counts(d.name), epsilon=eps, delta=dlt))
            if d.learned else d for d in domains]


def marginal_errors(real: np.ndarray, synth: np.ndarray, sizes: list[int], *, max_way: int = 3,
                    real_weights: np.ndarray | None = None, synth_weights: np.ndarray | None = None) -> dict:
    """The average total-variation distance of all 1-, 2- and 3-way marginals (``None`` when
    the table has fewer columns than the order); ``real`` and ``synth`` are rows of codes, or
    class tables with their counts in ``real_weights`` / ``synth_weights``."""
    sizes = tuple(int(k) for k in sizes)
    return tv_errors(ClassTable(np.asarray(real), real_weights, sizes), ClassTable(np.asarray(synth), synth_weights,
                     sizes), len(sizes), max_way=max_way)


def column_domains(frame: Any, domain: Any, bins: Mapping[str, str] | None,
                   identifiers: tuple[str, ...], max_categories: int) -> list[ColumnDomain]:
    """Every synthesized column's domain from ``domain`` (a JSON file, or a mapping of specs or
    :class:`ColumnDomain`) and ``bins``, checked against ``frame`` (see :func:`resolve_domains`)."""
    given: dict[str, ColumnDomain] = {}
    if isinstance(domain, Mapping):
        parsed = parse_domain({k: v for k, v in domain.items() if not isinstance(v, ColumnDomain)})
        given = {k: v if isinstance(v, ColumnDomain) else parsed[k] for k, v in domain.items()}
    elif domain is not None:
        given = dict(parse_domain(domain))
    given.update(parse_bins(bins or {}))
    return resolve_domains(frame, given, identifiers=identifiers, max_categories=max_categories)


def _mst(table: Any, sizes: list[int], rho: float) -> tuple[Any, list, dict]:
    """MST's measurements on ``table`` (a class table, or an engine's group counts) and the fitted tree."""
    ones, sigma1 = measure_one_way(table, sizes, rho / 3.0)
    parts = [compress(y, sigma1) for y in ones]
    small = CompressedTable(table, parts, sizes)  # the marginals on the compressed domains
    total = max(float(np.mean([p.y.sum() for p in parts])), 0.0)
    model = [project_simplex(p.y, total) for p in parts]
    edges = select_tree(small, model, rho / 3.0)
    twos, sigma2 = measure_two_way(small, [p.size for p in parts], edges, rho / 3.0)
    tree = fit_tree([p.y for p in parts], [p.var for p in parts], edges, twos, sigma2 ** 2)
    info = {"sigma_1way": sigma1, "sigma_2way": sigma2, "edges": edges,
            "compressed": {j: int(p.other.size) for j, p in enumerate(parts)}}
    return tree, parts, info


def synthesize(frame: pd.DataFrame, *, epsilon: float = 1.0, delta: float = 1e-9, algorithm: str = "mst",
               domain: Any = None, bins: Mapping[str, str] | None = None, identifiers: tuple[str, ...] = (),
               max_categories: int = MAX_CATEGORIES, accountant: Any = None, seed: int | None = None,
               label: str = "synthesize", sink: Callable[[Any], None] | None = None,
               chunk_rows: int = CHUNK_ROWS, workload: Any = None) -> SynthesisResult:
    """A synthetic copy of ``frame`` under (ε, δ)-DP with MST or AIM, charged once to ``accountant``.

    Parameters
    ----------
    frame : DataFrame or synthesis source
        The data, read as text; or an engine's source
        (:func:`veil.dp.synthesis._engine.synthesis_source`), whose marginals are group counts.
    epsilon, delta : float
        The guarantee of the whole release (defaults as the authors' reference: ε=1, δ=1e-9).
    domain : mapping or path, optional
        ``column -> [categories]`` or ``{"min", "max", "bins"}`` (or a JSON file of it).
    bins : mapping, optional
        ``column -> "MIN:MAX:BINS"``.
    identifiers : tuple of str
        Columns never synthesized nor written.
    accountant : PrivacyAccountant, optional
        Charged once, before any noise is drawn (ρ on a zCDP accountant, else (ε, δ)).
    seed : int, optional
        Seeds the sampling of synthetic rows only (post-processing), never the privacy noise.
    sink : callable, optional
        Receives the synthetic rows chunk by chunk (Arrow tables of ``chunk_rows`` rows,
        e.g. a :class:`~veil.dp.synthesis._chunks.ChunkWriter`); the result's ``frame`` is then None.
    workload : str or list of lists of str, optional
        The marginals AIM answers well, ``"age,sex;education,occupation"`` or
        ``[["age", "sex"], ...]``; default all 3-way marginals (all 2-way under 3
        columns).  With MST it only sets which marginals ``workload_error`` averages.
    """
    eps, dlt = check_privacy(epsilon, delta, algorithm)
    algo = str(algorithm).lower()
    data = as_source(frame)
    doms = column_domains(data, domain, bins, tuple(identifiers), max_categories)
    work = resolve_workload(workload, [d.name for d in doms])
    plan = plan_budget(eps, dlt, sum(d.learned for d in doms))
    if algo == "aim":  # a learned column has at most max_categories categories and "(other)"
        check_model_size([max_categories + 1 if d.learned else d.size for d in doms])
    ledger = None
    if accountant is not None:  # charged once, before any noise is drawn
        accountant.spend(synthesis_cost(accountant, plan), label=f"{label} {algo} rho={plan.rho:.6g}")
        ledger = ledger_report(accountant)
    doms = learn_domains(data, doms, plan)
    table = data.class_table(doms, cliques=work)  # past an engine's bound, the workload's marginals too
    sizes = [d.size for d in doms]
    rng = np.random.default_rng(seed)
    run = _run_aim if algo == "aim" else _run_mst
    synth, tally, rows, marginals, noise = run(table, doms, work, plan.rho_mst, rng, sink, chunk_rows)
    report = {"algorithm": algo, "epsilon": plan.certified_epsilon, "delta": dlt, "rho": plan.rho,
              "rows": int(rows), "domain_source": {d.name: "dp" if d.learned else "user" for d in doms},
              "marginal_error": tv_errors(table, tally, len(sizes)),
              "workload_error": workload_error(table, None, tally, sizes, work),
              "ledger": ledger, "evaluation": None, "marginals": marginals,
              "noise": {**noise, "rho_domain": plan.rho_domain, "delta_selection": plan.delta_selection}}
    return SynthesisResult(None if synth is None else decode(synth, doms), report)


def _run_mst(table: ClassTable, doms: list[ColumnDomain], work: Any, rho: float, rng: np.random.Generator,
             sink: Callable[[Any], None] | None, chunk_rows: int) -> tuple:
    """MST's rows (to ``sink`` in chunks, or returned), their class table, their count, and the
    report's ``marginals`` and ``noise``."""
    tree, parts, info = _mst(table, [d.size for d in doms], rho)
    rows = int(round(tree.total))
    synth, counted = draw(tree, parts, doms, rows, rng, chunk_rows=chunk_rows, sink=sink, tally=table.tally())
    marginals = {"1way": [d.name for d in doms], "2way": [[doms[a].name, doms[b].name] for a, b in info["edges"]]}
    return synth, counted.table(), rows, marginals, {"sigma_1way": info["sigma_1way"], "sigma_2way": info["sigma_2way"]}


def _run_aim(table: ClassTable, doms: list[ColumnDomain], work: Any, rho: float, rng: np.random.Generator,
             sink: Callable[[Any], None] | None, chunk_rows: int) -> tuple:
    """AIM's rows, as :func:`_run_mst` returns MST's."""
    sizes = [d.size for d in doms]
    codes, info = aim(table, None, sizes, work, rho, rng, AimSettings())  # it counts through table.marginal
    marginals, noise = _aim_report(info, [d.name for d in doms], work)
    return _emit(codes, doms, sink, chunk_rows), class_table(codes, sizes), len(codes), marginals, noise


def _emit(codes: np.ndarray, doms: list[ColumnDomain], sink: Callable[[Any], None] | None,
          chunk_rows: int) -> np.ndarray | None:
    """AIM's rows (drawn at once): to ``sink`` chunk by chunk, or returned without one."""
    if sink is None:
        return codes
    for start in range(0, len(codes), chunk_rows):
        sink(decode_chunk(codes[start:start + chunk_rows], doms))
    return None


def _aim_report(info: dict, names: list[str], work: tuple) -> tuple[dict, dict]:
    """The report's ``marginals`` and ``noise`` of an AIM run: the workload, every measured marginal
    (the one-way release first) with its σ, ε and ρ."""
    rounds = info["rounds"]
    measured = [[names[c] for c in r.clique] for r in rounds[1:]]
    marginals = {"workload": workload_names(work, names), "1way": names, "measured": measured}
    noise = {"sigma_1way": rounds[0].sigma, "rho_1way": rounds[0].rho,
             "rounds": [{"marginal": m, "sigma": r.sigma, "epsilon": r.epsilon, "rho": r.rho}
                        for m, r in zip(measured, rounds[1:])],
             "model_mb": info["model"].tree.size_mb}
    return marginals, noise


def ledger_report(accountant: Any) -> dict:
    """What the accountant has spent and what remains, as JSON."""
    spent, rem = accountant.spent, accountant.remaining
    return {"dataset": accountant.dataset, "composition": accountant.composition,
            "budget": {"epsilon": accountant.budget.epsilon, "delta": accountant.budget.delta},
            "spent": {"epsilon": spent.epsilon, "delta": spent.delta},
            "remaining": {"epsilon": rem.epsilon, "delta": rem.delta},
            "spends": len(accountant.ledger)}
