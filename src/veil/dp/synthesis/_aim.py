"""AIM: an adaptive and iterative mechanism for synthetic data from a workload of marginals.

McKenna, Mullins, Sheldon & Miklau (2022), "AIM: An Adaptive and Iterative
Mechanism for Differentially Private Synthetic Data", PVLDB 15.  The
defaults follow the authors' reference (``mechanisms/aim.py`` of private-pgm):

* candidates: the downward closure of the workload, each weighted by its
  overlap with the workload, :math:`w_r = \\sum_{s \\in W} c_s |r \\cap s|`;
* T = 16·d rounds planned: σ = √(T / (2·0.9ρ)) per measurement and
  ε = √(8·0.1ρ / T) per selection, so each round costs ρ/T (90% measuring,
  10% selecting); the d one-way marginals are measured first (σ each);
* each round: only the candidates whose junction tree stays under
  ``max_model_size`` · (ρ spent / ρ) megabytes, or that the model already
  holds, compete; the exponential mechanism picks the candidate of highest
  quality :math:`w_r (\\lVert M_r(D) - M_r(\\hat p) \\rVert_1 - \\sqrt{2/\\pi}\\,\\sigma n_r)`
  (sensitivity max w_r); its marginal is measured with σ, the model refitted;
* budget annealing: when the refitted model moved the selected marginal by at
  most the expected L1 norm of its noise (√(2/π) σ n_r), σ halves and ε
  doubles; when less than two rounds' cost is left, one last round spends it
  all (90/10);
* the model fitted once more and sampled (round(N) rows).

Every noisy value comes from OpenDP: the Gaussian releases of
:func:`veil.dp.synthesis._mst.gaussian_release` and the report-noisy-max of
:class:`veil.dp._selection.ExponentialMechanism` (ε²/8 zCDP each round).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Sequence

import numpy as np

from veil.dp._mechanisms import EPSILON_RANGE
from veil.dp._selection import ExponentialMechanism
from veil.dp.synthesis._aim_fit import Measurement, Model, fit_model, sample_model
from veil.dp.synthesis._junction import junction_tree
from veil.dp.synthesis._mst import gaussian_release
from veil.dp.synthesis._workload import Workload, candidate_weights, downward_closure, marginal
from veil.errors import ParameterError

__all__ = ["AimSettings", "AimRound", "aim", "filter_candidates", "round_budget", "check_model_size",
           "MAX_MODEL_SIZE"]

#: Each mechanism is asked for this fraction of its nominal ρ, so that OpenDP's rounding up of
#: a privacy map never lifts the sum of the rounds above the plan.
_SHAVE = 1.0 - 1e-9

#: The reference's largest model (its junction tree's cells × 8 bytes), in megabytes.
MAX_MODEL_SIZE = 80.0


@dataclass(frozen=True, slots=True)
class AimSettings:
    """AIM's knobs: ``rounds`` (None: 16·d), ``max_model_size`` (MB), mirror-descent ``iters``
    per round and ``final_iters`` for the last fit."""

    rounds: int | None = None
    max_model_size: float = MAX_MODEL_SIZE
    iters: int = 100
    final_iters: int = 500


@dataclass(frozen=True, slots=True)
class AimRound:
    """One round: the measured ``clique``, σ of its noise, ε of its selection, and the ρ they cost."""

    clique: tuple[int, ...]
    sigma: float
    epsilon: float
    rho: float


def round_budget(rho: float, rounds: int) -> tuple[float, float]:
    """The initial (σ, ε) of a round: ρ/rounds each, 90% to the Gaussian, 10% to the selection."""
    return math.sqrt(rounds / (2.0 * 0.9 * rho)), math.sqrt(8.0 * 0.1 * rho / rounds)


def filter_candidates(candidates: dict, sizes: Sequence[int], model_cliques: list, limit: float) -> dict:
    """The candidates whose addition keeps the junction tree within ``limit`` MB, or that the
    model already holds (a subset of a measured clique)."""
    free = set(downward_closure(model_cliques))
    return {cl: w for cl, w in candidates.items()
            if cl in free or junction_tree(sizes, [*model_cliques, cl]).size_mb <= limit}


def _select(candidates: dict, answers: dict, model: Model, epsilon: float, sigma: float) -> tuple[int, ...]:
    keys = list(candidates)
    scores = []
    for cl in keys:
        bias = math.sqrt(2.0 / math.pi) * sigma * answers[cl].size
        scores.append(candidates[cl] * (float(np.abs(answers[cl] - model.marginal(cl)).sum()) - bias))
    mech = ExponentialMechanism(epsilon=epsilon, sensitivity=max(abs(candidates[c]) for c in keys))
    return keys[mech.select(scores)]


def _refuse_size(size_mb: float, limit: float) -> None:
    if size_mb > limit:
        raise ParameterError(f"AIM's model needs a junction tree of {size_mb:.1f} MB, more than the "
                             f"maximum model size of {limit:g} MB; coarsen the columns' domains.")


def check_model_size(sizes: Sequence[int], limit: float = MAX_MODEL_SIZE) -> None:
    """Refuse, before any budget is spent, columns whose one-way model alone exceeds ``limit`` MB."""
    _refuse_size(sum(int(k) for k in sizes) * 8 / 2 ** 20, limit)


def _check_size(model: Model, limit: float) -> None:
    _refuse_size(model.tree.size_mb, limit)


def _measure_one_way(codes, weights, sizes, sigma: float) -> list[Measurement]:
    d = len(sizes)
    flat = np.concatenate([marginal(codes, weights, sizes, (j,)) for j in range(d)])
    noisy, sig = gaussian_release(flat, sensitivity=math.sqrt(d), rho=_SHAVE * d * 0.5 / sigma ** 2)
    parts = np.split(noisy, np.cumsum(sizes)[:-1])
    return [Measurement((j,), p, sig) for j, p in enumerate(parts)]


@dataclass(slots=True)
class _Run:
    """What AIM's rounds share: the plan ``rho`` and ``used`` so far, the candidates and their true
    ``answers``, the noisy ``measurements`` and the current ``model``."""

    rho: float
    sizes: list[int]
    candidates: dict
    answers: dict
    measurements: list
    used: float
    model: Model


def _round(run: _Run, sigma: float, epsilon: float, settings: AimSettings) -> tuple[AimRound, bool]:
    """Select, measure and refit once; whether the model moved the selected marginal by at most
    the noise's expected L1 norm (then σ halves and ε doubles)."""
    model = run.model
    limit = settings.max_model_size * run.used / run.rho
    small = filter_candidates(run.candidates, run.sizes, model.cliques, limit)
    eps = min(epsilon, EPSILON_RANGE[1]) * _SHAVE
    cl = _select(small, run.answers, model, eps, sigma)
    noisy, sig = gaussian_release(run.answers[cl], sensitivity=1.0, rho=_SHAVE * 0.5 / sigma ** 2)
    run.measurements.append(Measurement(cl, noisy, sig))
    before = model.marginal(cl)
    model = fit_model(run.sizes, run.measurements, iters=settings.iters, warm=model)
    _check_size(model, settings.max_model_size)
    run.model = model
    moved = float(np.abs(model.marginal(cl) - before).sum())
    record = AimRound(cl, sig, eps, eps * eps / 8.0 + 0.5 / sig ** 2)
    return record, moved <= sig * math.sqrt(2.0 / math.pi) * noisy.size


def aim(codes: np.ndarray, weights: np.ndarray | None, sizes: Sequence[int], workload: Workload, rho: float,
        rng: np.random.Generator, settings: AimSettings = AimSettings()) -> tuple[np.ndarray, dict]:
    """Synthetic codes from AIM at ρ-zCDP on the rows ``codes`` (counted ``weights`` times), and what
    it measured (``rounds``: :class:`AimRound` per round, the initial one-way release first)."""
    d = len(sizes)
    if settings.rounds is not None and settings.rounds < d:
        raise ParameterError(f"AIM needs at least as many rounds as columns ({d}): the one-way marginals cost "
                             f"0.9·d/rounds of ρ; got rounds={settings.rounds}.")
    sigma, epsilon = round_budget(rho, settings.rounds or 16 * d)
    candidates = candidate_weights(workload)
    ones = _measure_one_way(codes, weights, sizes, sigma)
    model = fit_model(sizes, ones, iters=settings.iters)
    _check_size(model, settings.max_model_size)
    run = _Run(rho, list(sizes), candidates, {cl: marginal(codes, weights, sizes, cl) for cl in candidates},
               list(ones), d * 0.5 / sigma ** 2, model)
    rounds = [AimRound(tuple(range(d)), ones[0].sigma, 0.0, d * 0.5 / ones[0].sigma ** 2)]
    last = False
    while not last:
        if rho - run.used < 2.0 * (0.5 / sigma ** 2 + epsilon ** 2 / 8.0):
            remaining = rho - run.used
            sigma, epsilon, last = math.sqrt(1.0 / (2.0 * 0.9 * remaining)), math.sqrt(8.0 * 0.1 * remaining), True
        run.used += epsilon ** 2 / 8.0 + 0.5 / sigma ** 2
        record, anneal = _round(run, sigma, epsilon, settings)
        rounds.append(record)
        if anneal:
            sigma, epsilon = sigma / 2.0, epsilon * 2.0
    model = fit_model(sizes, run.measurements, iters=settings.final_iters, warm=run.model)
    synth = sample_model(model, int(round(model.total)), rng)
    return synth, {"rounds": rounds, "model": model}
