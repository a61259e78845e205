"""``veil.dp.synthesize``: a synthetic table under (ε, δ)-differential privacy, charged once to the ledger."""

from __future__ import annotations

import itertools
import math
from dataclasses import dataclass
from typing import Any, Mapping

import numpy as np
import pandas as pd

from veil._validation import check_real
from veil.dp._budget import PrivacyBudget, ZCDPBudget, largest_rho, zcdp_epsilon
from veil.dp._mechanisms import EPSILON_RANGE
from veil.dp.synthesis._domain import (MAX_CATEGORIES, ColumnDomain, decode, encode, parse_bins, parse_domain,
                                        resolve_domains)
from veil.dp.synthesis._fit import fit_tree, sample_tree
from veil.dp.synthesis._mst import compress, measure_one_way, measure_two_way, project_simplex, select_tree
from veil.errors import ParameterError

__all__ = ["SynthesisResult", "synthesize", "synthesis_rho", "check_privacy", "synthesis_cost",
           "marginal_errors"]

ALGORITHMS = ("mst",)


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


def synthesis_rho(epsilon: float, delta: float) -> float:
    """ρ of the synthesis: the reference's ``cdp_rho(ε, δ)``, lowered if needed to what OpenDP's
    zCDP → (ε, δ) conversion certifies (so that the reported ε is OpenDP's)."""
    from veil.dp.synthesis._mst import cdp_rho

    return min(cdp_rho(epsilon, delta), largest_rho(epsilon, delta))


def synthesis_cost(accountant: Any, epsilon: float, delta: float, rho: float) -> PrivacyBudget | ZCDPBudget:
    """The one cost charged: ρ-zCDP on a zCDP accountant, else (ε, δ)."""
    if accountant is not None and accountant.composition in ("zcdp", "filter"):
        return ZCDPBudget(rho=rho)
    return PrivacyBudget(epsilon=epsilon, delta=delta)


def _tv(real: np.ndarray, synth: np.ndarray) -> float:
    """Total-variation distance of the empirical distributions of two int key arrays."""
    keys, inverse = np.unique(np.concatenate([real, synth]), return_inverse=True)
    p = np.bincount(inverse[: real.size], minlength=keys.size) / max(real.size, 1)
    q = np.bincount(inverse[real.size:], minlength=keys.size) / max(synth.size, 1)
    return float(0.5 * np.abs(p - q).sum())


def marginal_errors(real: np.ndarray, synth: np.ndarray, sizes: list[int], *, max_way: int = 3) -> dict:
    """The average total-variation distance of all 1-, 2- and 3-way marginals (``None`` when
    the table has fewer columns than the order)."""
    out: dict[str, float | None] = {}
    for way in (1, 2, 3):
        combos = list(itertools.combinations(range(len(sizes)), way)) if way <= max_way else []
        errs = []
        for cols in combos:
            dims = tuple(sizes[c] for c in cols)
            key = lambda codes: np.ravel_multi_index(tuple(codes[:, list(cols)].T), dims)  # noqa: E731
            errs.append(_tv(key(real), key(synth)) if len(real) and len(synth) else 1.0)
        out[f"{way}way"] = float(np.mean(errs)) if errs else None
    return out


def _domains(frame: pd.DataFrame, domain: Any, bins: Mapping[str, str] | None,
             identifiers: tuple[str, ...], max_categories: int) -> list[ColumnDomain]:
    given = dict(parse_domain(domain)) if domain is not None else {}
    given.update(parse_bins(bins or {}))
    return resolve_domains(frame, given, identifiers=identifiers, max_categories=max_categories)


def _mst(codes: np.ndarray, sizes: list[int], rho: float, rng: np.random.Generator) -> tuple[np.ndarray, dict]:
    ones, sigma1 = measure_one_way(codes, sizes, rho / 3.0)
    parts = [compress(y, sigma1) for y in ones]
    small = np.column_stack([p.mapping(k)[codes[:, j]] for j, (p, k) in enumerate(zip(parts, sizes))]) \
        if len(codes) else np.zeros((0, len(sizes)), dtype=np.int64)
    total = max(float(np.mean([p.y.sum() for p in parts])), 0.0)
    model = [project_simplex(p.y, total) for p in parts]
    edges = select_tree(small, model, rho / 3.0)
    twos, sigma2 = measure_two_way(small, [p.size for p in parts], edges, rho / 3.0)
    tree = fit_tree([p.y for p in parts], [p.var for p in parts], edges, twos, sigma2 ** 2)
    drawn = sample_tree(tree, int(round(tree.total)), rng)
    out = np.empty_like(drawn)
    for j, p in enumerate(parts):  # back to the original codes; "other" uniformly among the merged codes
        col = drawn[:, j]
        kept = col < p.support.size
        out[kept, j] = p.support[col[kept]]
        out[~kept, j] = p.other[rng.integers(0, max(p.other.size, 1), int((~kept).sum()))] if p.other.size else 0
    info = {"sigma_1way": sigma1, "sigma_2way": sigma2, "edges": edges,
            "compressed": {j: int(p.other.size) for j, p in enumerate(parts)}}
    return out, info


def synthesize(frame: pd.DataFrame, *, epsilon: float = 1.0, delta: float = 1e-9, algorithm: str = "mst",
               domain: Any = None, bins: Mapping[str, str] | None = None, identifiers: tuple[str, ...] = (),
               max_categories: int = MAX_CATEGORIES, accountant: Any = None, seed: int | None = None,
               label: str = "synthesize") -> SynthesisResult:
    """A synthetic copy of ``frame`` under (ε, δ)-DP with MST, charged once to ``accountant``.

    Parameters
    ----------
    frame : DataFrame
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
    """
    eps, dlt = check_privacy(epsilon, delta, algorithm)
    doms = _domains(frame, domain, bins, tuple(identifiers), max_categories)
    rho = synthesis_rho(eps, dlt)
    ledger = None
    if accountant is not None:
        accountant.spend(synthesis_cost(accountant, eps, dlt, rho), label=f"{label} mst rho={rho:.6g}")
        ledger = ledger_report(accountant)
    codes = encode(frame, doms)
    sizes = [d.size for d in doms]
    synth, info = _mst(codes, sizes, rho, np.random.default_rng(seed))
    report = {"algorithm": "mst", "epsilon": zcdp_epsilon(rho, dlt), "delta": dlt, "rho": rho,
              "rows": int(len(synth)), "domain_source": {d.name: "user" for d in doms},
              "marginal_error": marginal_errors(codes, synth, sizes), "workload_error": None,
              "ledger": ledger, "evaluation": None,
              "marginals": {"1way": [d.name for d in doms],
                            "2way": [[doms[a].name, doms[b].name] for a, b in info["edges"]]},
              "noise": {"sigma_1way": info["sigma_1way"], "sigma_2way": info["sigma_2way"]}}
    return SynthesisResult(decode(synth, doms), report)


def ledger_report(accountant: Any) -> dict:
    """What the accountant has spent and what remains, as JSON."""
    spent, rem = accountant.spent, accountant.remaining
    return {"dataset": accountant.dataset, "composition": accountant.composition,
            "budget": {"epsilon": accountant.budget.epsilon, "delta": accountant.budget.delta},
            "spent": {"epsilon": spent.epsilon, "delta": spent.delta},
            "remaining": {"epsilon": rem.epsilon, "delta": rem.delta},
            "spends": len(accountant.ledger)}
