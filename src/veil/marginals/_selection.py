"""Greedy choice of k-anonymous 1- and 2-way marginals that minimise the KL of the MaxEnt estimate.

Candidates: for every set of at most ``max_width`` attributes, each
generalization (a level vector) at which the marginal is k-anonymous and no
finer vector is (the minimal k-anonymous nodes of its lattice).  Every
attribute also enters the estimate through its top-level (one-cell, so always
k-anonymous) marginal, so that every collection is estimated over the same
domain.
"""

from __future__ import annotations

import itertools
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import numpy as np

from veil._validation import check_int, check_real
from veil.classes import ClassTable
from veil.errors import ColumnNotFoundError, ParameterError
from veil.marginals._marginal import Marginal, marginal
from veil.marginals._maxent import DEFAULT_MAX_CELLS, MaxEntEstimate, kl_to_original, maxent_estimate

__all__ = ["MarginalSelection", "choose_marginals"]


@dataclass(frozen=True, eq=False)
class MarginalSelection:
    """The marginals :func:`choose_marginals` picked, in order, and what each step achieved.

    Attributes
    ----------
    marginals : tuple of Marginal
        The chosen marginals, in the order they were added.
    kl : tuple of float
        ``kl[0]``: the KL (bits) of the uniform distribution over the domain
        (nothing published); ``kl[i]``: after adding ``marginals[i - 1]``.
    estimate : MaxEntEstimate
        The MaxEnt estimate of the final collection over the whole domain.
    k : int
        The k-link anonymity every chosen marginal meets.
    """

    marginals: tuple[Marginal, ...]
    kl: tuple[float, ...]
    estimate: MaxEntEstimate
    k: int


def _candidates(classes: ClassTable, names: tuple[str, ...], floor: Mapping[str, int], k: int,
                max_width: int) -> list[Marginal]:
    """Every Pareto-minimal k-anonymous level vector of every 1..max_width-subset of ``names``."""
    out: list[Marginal] = []
    for width in range(1, max_width + 1):
        for subset in itertools.combinations(names, width):
            ranges = [range(floor[a], classes.hierarchy(a).height + 1) for a in subset]
            ok: list[tuple[int, ...]] = []
            for levels in itertools.product(*ranges):  # ascending: finer vectors first
                if any(all(o <= l for o, l in zip(prev, levels)) for prev in ok):
                    continue  # a finer k-anonymous vector exists: this one is dominated
                m = marginal(classes, subset, levels)
                if m.classes.n_classes and int(m.counts.min()) >= k:
                    ok.append(levels)
                    out.append(m)
    return out


def _attributes_and_floor(classes: ClassTable, attributes: Sequence[str],
                          domain_levels: Mapping[str, int] | None) -> tuple[tuple[str, ...], dict[str, int]]:
    """The checked attribute names and the level of each in the joint domain (default 0)."""
    names = (attributes,) if isinstance(attributes, str) else tuple(attributes)
    if not names:
        raise ParameterError("The 'attributes' parameter of choose_marginals must name at least one attribute. Got none.")
    for name in names:
        if name not in classes.quasi_identifiers:
            raise ColumnNotFoundError(
                f"The 'attributes' parameter of choose_marginals names {name!r}, which is not a "
                f"quasi-identifier of the class table; its quasi-identifiers are: {', '.join(classes.quasi_identifiers)}."
            )
    if len(set(names)) != len(names):
        raise ParameterError("The 'attributes' parameter of choose_marginals lists an attribute twice.")
    floor = {name: 0 for name in names}
    for key, level in (domain_levels or {}).items():
        if key not in names:
            raise ColumnNotFoundError(
                f"The 'domain_levels' parameter of choose_marginals names {key!r}, which is not one of "
                f"the attributes ({', '.join(names)})."
            )
        floor[key] = check_int(f"domain_levels[{key!r}]", level, "choose_marginals",
                               low=0, high=classes.hierarchy(key).height)
    return names, floor


def choose_marginals(
    classes: ClassTable, attributes: Sequence[str], *, k: int, max_marginals: int = 5, max_width: int = 2,
    domain_levels: Mapping[str, int] | None = None, min_gain: float = 1e-9, max_cells: int = DEFAULT_MAX_CELLS,
) -> MarginalSelection:
    """Greedily choose k-anonymous marginals of up to two attributes that minimise the KL of the MaxEnt estimate.

    Parameters
    ----------
    classes : ClassTable
        The original table (level 0, nothing suppressed).
    attributes : sequence of str
        Quasi-identifiers of ``classes`` spanning the joint domain.
    k : int, in [1, inf)
        Every chosen marginal is k-anonymous, so the collection is k-link anonymous.
    max_marginals : int, in [1, inf), default 5
        The most marginals to choose.
    max_width : int, in [1, 2], default 2
        The most attributes per marginal.
    domain_levels : mapping of str to int, optional
        The level of each attribute in the joint domain (default 0).
        Candidate marginals are at these levels or coarser.
    min_gain : float, in [0, inf), default 1e-9
        Stop when the best candidate lowers the KL by no more than this (bits).
    max_cells : int, default 10**7
        Passed to :func:`maxent_estimate`.

    Returns
    -------
    MarginalSelection

    Raises
    ------
    ColumnNotFoundError
        An attribute that is not a quasi-identifier of ``classes``.
    ParameterError
        A parameter out of range; a joint domain of more than ``max_cells`` cells.

    Notes
    -----
    Each round adds the candidate minimising :math:`KL(\\hat F_1 \\| \\hat F_2)` of the MaxEnt
    estimate of the collection (the module docstring defines the candidates and the estimate).
    Greedy: the result is not guaranteed optimal.  Cost: rounds × candidates IPF fits.

    References
    ----------
    D. Kifer and J. Gehrke, SIGMOD 2006, Section 5 (a simple greedy search for
    anonymized marginals; seed 003, "Experiments").
    """
    k = check_int("k", k, "choose_marginals", low=1)
    max_marginals = check_int("max_marginals", max_marginals, "choose_marginals", low=1)
    max_width = check_int("max_width", max_width, "choose_marginals", low=1, high=2)
    min_gain = check_real("min_gain", min_gain, "choose_marginals", low=0)
    names, floor = _attributes_and_floor(classes, attributes, domain_levels)
    chosen, trajectory, estimate = _greedy(classes.base, names, floor, k, max_width=max_width,
                                           max_marginals=max_marginals, min_gain=min_gain, max_cells=max_cells)
    return MarginalSelection(marginals=tuple(chosen), kl=tuple(trajectory), estimate=estimate, k=k)


def _greedy(base: ClassTable, names: tuple[str, ...], floor: dict[str, int], k: int, *, max_width: int,
            max_marginals: int, min_gain: float, max_cells: int) -> tuple[list[Marginal], list[float], MaxEntEstimate]:
    """The greedy rounds: the chosen marginals, the KL after each round (from none) and the last estimate."""
    tops = [marginal(base, [a], [base.hierarchy(a).height]) for a in names]
    domain = dict(floor)

    def score(chosen: list[Marginal]) -> tuple[float, MaxEntEstimate]:
        est = maxent_estimate(tops + chosen, domain, max_cells=max_cells)
        return kl_to_original(est, base), est

    current, estimate = score([])
    chosen: list[Marginal] = []
    trajectory = [current]
    candidates = _candidates(base, names, floor, k, max_width)
    while candidates and len(chosen) < max_marginals:
        scored = [score(chosen + [c]) for c in candidates]
        best = int(np.argmin([s[0] for s in scored]))
        if current - scored[best][0] <= min_gain:
            break
        current, estimate = scored[best]
        chosen.append(candidates.pop(best))
        trajectory.append(current)
    return chosen, trajectory, estimate
