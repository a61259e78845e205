"""SafePub as an algorithm of the registry: sample, search, generalize, suppress."""

from __future__ import annotations

import math
import os
import time
from typing import Any

import numpy as np

from veil.algorithms._options import SAFEPUB_OPTIONS, check_options
from veil.algorithms._recoding import SUPPRESSED_LABEL, Recoding
from veil.algorithms._registry import Outcome, Problem
from veil.algorithms.safepub._parameters import safepub_parameters
from veil.algorithms.safepub._lattice import lattice_fits, lattice_search, too_large
from veil.algorithms.safepub._search import GranularityScore, search
from veil.data._schema import Role
from veil.errors import ParameterError

__all__ = ["run_safepub", "sample_records", "DEFAULT_STEPS", "DEFAULT_WALK_SHARE", "SEARCHES", "SCORES"]

#: Steps of the exponential-mechanism walk (ARX's tests use 10 and 100 expansions).
DEFAULT_STEPS = 100
#: The share of the search budget the walk spends; the rest draws the released node among the nodes scored.
DEFAULT_WALK_SHARE = 0.01
#: The values of the ``search`` option: the whole lattice when it fits (auto), always it, or always the walk.
SEARCHES = ("auto", "lattice", "walk")
#: The values of the ``score`` option: the smoothed granularity (sensitivity 1 record), or ARX's (1 per k - 1).
SCORES = ("smooth", "granularity")


def sample_records(n: int, beta: float) -> np.ndarray:
    """A mask of ``n`` records, each ``True`` independently with probability β (rounded down to 2**-53).

    The bits come from the operating system (:func:`os.urandom`), never from a
    seeded or global generator: the sample is part of the privacy guarantee.
    """
    words = np.frombuffer(os.urandom(8 * n), dtype=np.uint64) >> np.uint64(11) if n else np.zeros(0, np.uint64)
    return words < np.uint64(math.floor(beta * 2.0**53))


def _model(problem: Problem) -> Any:
    from veil.models._differential_privacy import DifferentialPrivacy

    found = [m for m in problem.models if isinstance(m, DifferentialPrivacy)]
    if len(found) != 1:
        raise ParameterError(
            "The safepub algorithm needs exactly one differential-privacy requirement: --epsilon and --delta, "
            f"or --require \"dp(epsilon=2, delta=1e-5)\". Got {len(found)}."
        )
    return found[0]


def _options(options: Any) -> tuple[str, str, int, float]:
    """``score``, ``search``, ``steps`` and ``walk_share`` from the algorithm's options, checked against their
    declaration (:data:`~veil.algorithms._options.SAFEPUB_OPTIONS`; ``accountant`` is read apart)."""
    given = check_options("safepub", SAFEPUB_OPTIONS, options)
    search = given.get("search", "auto")
    walk_given = sorted({"steps", "walk_share"} & set(given))
    if search == "lattice" and walk_given:
        raise ParameterError(f"The {walk_given[0]!r} option of safepub is the walk's; search=lattice draws once over "
                             "the whole lattice and takes neither steps nor walk_share.")
    if search == "auto" and walk_given:  # the walk's own options ask for the walk
        search = "walk"
    return (given.get("score", "smooth"), search, given.get("steps", DEFAULT_STEPS),
            given.get("walk_share", DEFAULT_WALK_SHARE))


def _charge(accountant: Any, model: Any) -> dict | None:
    """Charge (ε, δ) to ``accountant`` (the ``accountant`` option) and return what it spent and has left.

    The accountant is anything that spends as :meth:`veil.dp.PrivacyAccountant.spend` (refusing, with
    :class:`~veil.errors.BudgetExceededError`, a cost that does not fit) and then reads as one.
    """
    if accountant is None:
        return None
    if not callable(getattr(accountant, "spend", None)):
        raise ParameterError("The 'accountant' option of safepub must be a veil.dp.PrivacyAccountant (on the "
                             f"command line: --budget-file and --budget). Got {type(accountant).__name__} instead.")
    from veil.dp import PrivacyBudget
    from veil.dp.synthesis._api import ledger_report

    accountant.spend(PrivacyBudget(epsilon=model.epsilon, delta=model.delta),
                     label=f"anonymize safepub epsilon={model.epsilon:g} delta={model.delta:g}")
    return ledger_report(accountant)


def _released(problem: Problem, node: tuple[int, ...], sampled: np.ndarray, k: int) -> tuple[Any, np.ndarray, int]:
    """The recoded rows at ``node``, every unsampled record and every class under k suppressed."""
    table = problem.base.generalize(node)
    rows = table.row_classes()
    class_sampled = np.bincount(rows[sampled & (rows >= 0)], minlength=table.n_classes)
    kept = class_sampled >= k
    suppressed = ~sampled | (rows < 0) | ~kept[np.maximum(rows, 0)]
    data = table.apply(problem.dataset)
    for name in problem.base.quasi_identifiers:
        column = data[name]
        if hasattr(column, "cat") and SUPPRESSED_LABEL not in column.cat.categories:
            column = column.cat.add_categories([SUPPRESSED_LABEL])
        data[name] = column.mask(suppressed, SUPPRESSED_LABEL) if suppressed.any() else column
    return data, suppressed, int(kept.sum())


def _refuse(problem: Problem) -> None:
    """What SafePub cannot release under its guarantee, refused before anything is charged or sampled."""
    if problem.suppression_limit < 1.0:
        raise ParameterError(
            "The safepub algorithm suppresses every unsampled record and every class under k; it needs a "
            f"suppression limit of 1 (--suppression 1). Got {problem.suppression_limit:g}."
        )
    if any(type(m).__name__ == "SuppressedGroup" for m in problem.models):
        raise ParameterError("The safepub algorithm cannot keep suppressed records (--suppressed keep): their "
                             "values would be published outside the differential-privacy guarantee.")
    if problem.dataset is None:
        raise ParameterError("The safepub algorithm samples rows in memory; use the local engine for it.")
    schema = problem.dataset.schema
    others = [*schema.sensitive, *schema.names(Role.INSENSITIVE)]
    if others:
        raise ParameterError(
            f"The safepub algorithm releases only quasi-identifiers: its guarantee covers whole records, so "
            f"{others[0]!r} must be a quasi-identifier with a hierarchy (--qi) or withheld."
        )


def _chosen_search(problem: Problem, mode: str) -> str:
    """``lattice`` (one draw over the whole lattice) when it fits (:func:`~veil.algorithms.safepub._lattice.lattice_fits`,
    on the hierarchies' facts only, not the records) and ``mode`` is not ``walk``, else ``walk``."""
    fits = lattice_fits(problem.base, problem.min_levels, problem.max_levels)
    if mode == "lattice" and not fits:
        raise too_large()
    return "lattice" if mode != "walk" and fits else "walk"


def _search(problem: Problem, made: str, smooth: bool, per_class: np.ndarray, k: int, epsilon: float, steps: int,
            walk_share: float) -> tuple[tuple[int, ...], int]:
    """The node released and the number of nodes scored, by the search ``made`` (:func:`_chosen_search`)."""
    base, low, high = problem.base, problem.min_levels, problem.max_levels
    if made == "lattice":
        return lattice_search(base, per_class, k, low, high, epsilon=epsilon, smooth=smooth)
    score = GranularityScore(base, per_class, k, smooth=smooth)
    return search(score, low, high, steps=steps, epsilon=epsilon, walk_share=walk_share)


def run_safepub(problem: Problem) -> Outcome:
    """Run SafePub on the rows of ``problem`` (see :mod:`veil.algorithms.safepub`)."""
    start = time.perf_counter()
    model = _model(problem)
    scoring, mode, steps, walk_share = _options(problem.options)
    _refuse(problem)
    made = _chosen_search(problem, mode)  # refused here, before anything is charged or sampled
    params = safepub_parameters(model.epsilon_anonymization, model.delta)
    ledger = _charge(problem.options.get("accountant"), model)  # once, before the records are sampled
    base = problem.base
    rows = base.row_classes()
    sampled = sample_records(len(rows), params.beta)
    per_class = np.bincount(rows[sampled & (rows >= 0)], minlength=base.n_classes)
    node, scored = _search(problem, made, scoring == "smooth", per_class, params.k, model.epsilon_search, steps,
                           walk_share)
    data, suppressed, groups = _released(problem, node, sampled, params.k)
    seconds = time.perf_counter() - start
    walked = made == "walk"
    details = {
        "epsilon": model.epsilon, "delta": model.delta, "search_budget": model.search_budget,
        "epsilon_search": model.epsilon_search, "epsilon_anonymization": model.epsilon_anonymization,
        "beta": params.beta, "k": params.k, "search": made, "steps": steps if walked else None,
        "walk_share": walk_share if walked else None, "nodes_scored": scored, "score": scoring, "metric": "granularity",
        "sampled": int(sampled.sum()),
    }
    if ledger is not None:
        details["ledger"] = ledger
    recoding = Recoding(data=data, algorithm="safepub", suppressed=int(suppressed.sum()), groups=groups,
                        seconds=seconds, details=details)
    qis = base.quasi_identifiers
    return Outcome(data=data, algorithm="safepub", seconds=seconds, transformation=dict(zip(qis, node)),
                   recoding=recoding, nodes_checked=scored, suppressed_rows=suppressed,
                   nodes_total=int(np.prod([h - lo + 1 for lo, h in zip(problem.min_levels, problem.max_levels)])))
