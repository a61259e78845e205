"""The maximum-entropy estimate of a joint distribution from marginals, and its KL to the original.

Iterative proportional fitting (Deming & Stephan 1940) over the dense joint
domain of the marginals' attributes, vectorised with numpy: each step sums the
current estimate over the axes a marginal does not cover, rolls the remaining
axes up to the marginal's levels (a product with 0/1 aggregation matrices),
and rescales the estimate by the broadcast ratio target / current.

The KL of :func:`kl_to_original` never increases when a marginal is added: the
MaxEnt estimate is the I-projection of the uniform distribution and the KL to
:math:`\\hat F_1` splits as :math:`H(\\hat F_2) - H(\\hat F_1)` for marginals
computed from the data.  For one marginal over all the estimate's attributes it
equals :func:`veil.utility.kl_divergence` of that generalization.
"""

from __future__ import annotations

import warnings
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import numpy as np
import pandas as pd

from veil._validation import check_int, check_real
from veil.classes import ClassTable
from veil.errors import ColumnNotFoundError, ParameterError
from veil.hierarchy import Hierarchy
from veil.marginals._marginal import Marginal, _marginal_list

__all__ = ["MaxEntEstimate", "maxent_estimate", "kl_to_original", "DEFAULT_MAX_CELLS"]

#: The largest joint domain (cells) :func:`maxent_estimate` builds by default (80 MB of float64).
DEFAULT_MAX_CELLS = 10**7


@dataclass(frozen=True, eq=False)
class MaxEntEstimate:
    """The maximum-entropy distribution consistent with a set of marginals.

    Attributes
    ----------
    attributes : tuple of str
        The axes of :attr:`probabilities`, in order.
    levels : tuple of int
        The level of each attribute the estimate lives at (0: original values).
    hierarchies : tuple of Hierarchy
    probabilities : numpy.ndarray of float64
        Read-only, shape ``(n_values(level) per attribute)``, summing to 1.
    n_records : int
        The records the marginals count (to turn probabilities into counts).
    iterations : int
        Full IPF cycles (one pass over every marginal) run.
    converged : bool
        Whether every marginal was met to ``tol`` within ``max_iter`` cycles.
    max_error : float
        The largest absolute gap, in probability, between a marginal and the
        estimate's margin after the last cycle.
    """

    attributes: tuple[str, ...]
    levels: tuple[int, ...]
    hierarchies: tuple[Hierarchy, ...]
    probabilities: np.ndarray
    n_records: int
    iterations: int
    converged: bool
    max_error: float

    @property
    def entropy(self) -> float:
        """The estimate's Shannon entropy in bits."""
        p = self.probabilities[self.probabilities > 0]
        return float(-(p * np.log2(p)).sum())

    def to_frame(self, *, nonzero: bool = True) -> pd.DataFrame:
        """One row per cell (only cells of positive probability by default): labels and ``probability``."""
        if nonzero:
            index = np.nonzero(self.probabilities > 0)
        else:
            index = np.unravel_index(np.arange(self.probabilities.size), self.probabilities.shape)
        data = {
            name: h.labels[level][codes]
            for name, h, level, codes in zip(self.attributes, self.hierarchies, self.levels, index)
        }
        frame = pd.DataFrame(data)
        frame["probability"] = self.probabilities[index]
        return frame

    def __repr__(self) -> str:
        levels = dict(zip(self.attributes, self.levels))
        return (
            f"MaxEntEstimate({levels}, {self.probabilities.size} cells, "
            f"{self.iterations} iterations, converged={self.converged})"
        )


def _same_hierarchy(a: Hierarchy, b: Hierarchy) -> bool:
    if a is b:
        return True
    return len(a.maps) == len(b.maps) and all(
        len(x) == len(y) and np.array_equal(x, y) for x, y in zip(a.maps, b.maps)
    )


def _resolve_domain(
    items: list[Marginal], domain: Mapping[str, int] | Sequence[str] | None
) -> tuple[tuple[str, ...], tuple[int, ...], tuple[Hierarchy, ...]]:
    hierarchies: dict[str, Hierarchy] = {}
    finest: dict[str, int] = {}
    for i, m in enumerate(items):
        for name, h, level in zip(m.attributes, m.hierarchies, m.levels):
            if name in hierarchies and not _same_hierarchy(hierarchies[name], h):
                raise ParameterError(
                    f"The marginals of maxent_estimate must share each attribute's hierarchy; marginal {i} "
                    f"uses another hierarchy for {name!r} than an earlier one."
                )
            hierarchies.setdefault(name, h)
            finest[name] = min(finest.get(name, level), level)
    if domain is None:
        wanted = {name: 0 for name in hierarchies}
    elif isinstance(domain, Mapping):
        wanted = dict(domain)
    else:
        names = [domain] if isinstance(domain, str) else list(domain)
        wanted = {name: 0 for name in names}
        if len(wanted) != len(names):
            raise ParameterError("The 'domain' parameter of maxent_estimate lists an attribute twice.")
    for name, level in wanted.items():
        if name not in hierarchies:
            raise ColumnNotFoundError(
                f"The 'domain' parameter of maxent_estimate names {name!r}, which no marginal covers; "
                f"the marginals cover: {', '.join(hierarchies)}."
            )
        h = hierarchies[name]
        if isinstance(level, bool) or not isinstance(level, (int, np.integer)) or not 0 <= level <= h.height:
            raise ParameterError(
                f"The level of {name!r} in the 'domain' parameter of maxent_estimate must be an int in "
                f"[0, {h.height}]. Got {level!r} instead."
            )
        if level > finest[name]:
            raise ParameterError(
                f"The level of {name!r} in the 'domain' parameter of maxent_estimate must be at most "
                f"{finest[name]}, the finest level a marginal gives it, so that every marginal is a "
                f"coarsening of the domain. Got {level} instead."
            )
    missing = [name for name in hierarchies if name not in wanted]
    if missing:
        raise ParameterError(
            f"The 'domain' parameter of maxent_estimate lacks {missing[0]!r}, an attribute of a marginal; "
            "the domain must hold every attribute of every marginal."
        )
    names = tuple(wanted)
    return names, tuple(int(wanted[n]) for n in names), tuple(hierarchies[n] for n in names)


@dataclass(frozen=True)
class _Fit:
    """One marginal's constraint, laid out over the domain's axes."""

    axes: tuple[int, ...]         # domain axes the marginal covers, ascending
    others: tuple[int, ...]       # domain axes summed out
    maps: tuple[np.ndarray, ...]  # per covered axis: domain code -> marginal code
    rollups: tuple[np.ndarray | None, ...]  # per covered axis: 0/1 matrix, None if identity
    target: np.ndarray            # the marginal as probabilities, axes in domain order
    broadcast: tuple[int, ...]    # shape of the ratio expanded over the domain

    def margin(self, p: np.ndarray) -> np.ndarray:
        current = p.sum(axis=self.others) if self.others else p
        for j, matrix in enumerate(self.rollups):
            if matrix is not None:
                current = np.moveaxis(np.tensordot(current, matrix, axes=([j], [0])), -1, j)
        return current


def _fits(items: list[Marginal], names: tuple[str, ...], levels: tuple[int, ...],
          hierarchies: tuple[Hierarchy, ...], shape: tuple[int, ...], n: int) -> list[_Fit]:
    out = []
    for m in items:
        axes_unsorted = [names.index(a) for a in m.attributes]
        order = np.argsort(axes_unsorted)
        axes = tuple(int(axes_unsorted[o]) for o in order)
        target = np.transpose(m.dense(), order) / n
        maps, rollups = [], []
        for o in order:
            ax = axes_unsorted[o]
            h, dom_level, m_level = hierarchies[ax], levels[ax], m.levels[o]
            mp = np.asarray(h.rollup(dom_level, m_level), dtype=np.intp)
            maps.append(mp)
            if dom_level == m_level:
                rollups.append(None)
            else:
                matrix = np.zeros((len(mp), h.n_values(m_level)))
                matrix[np.arange(len(mp)), mp] = 1.0
                rollups.append(matrix)
        others = tuple(ax for ax in range(len(shape)) if ax not in axes)
        broadcast = tuple(shape[ax] if ax in axes else 1 for ax in range(len(shape)))
        out.append(_Fit(axes, others, tuple(maps), tuple(rollups), target, broadcast))
    return out


def _common_total(items: list[Marginal]) -> int:
    """The number of records every marginal counts (the same, and positive)."""
    n = items[0].n_records
    for i, m in enumerate(items[1:], start=1):
        if m.n_records != n:
            raise ParameterError(
                f"The marginals of maxent_estimate must count the same records: marginal 0 counts {n} "
                f"and marginal {i} counts {m.n_records}. Compute them from one table (without suppressing "
                "cells of only some marginals)."
            )
    if n == 0:
        raise ParameterError("The marginals of maxent_estimate count no records; there is nothing to estimate.")
    return n


def _joint_shape(names: Sequence[str], levels: Sequence[int], hierarchies: Sequence, max_cells: int) -> tuple[int, ...]:
    """The joint domain's shape, refused above ``max_cells`` cells."""
    shape = tuple(h.n_values(l) for h, l in zip(hierarchies, levels))
    cells = 1
    for size in shape:
        cells *= int(size)
    if cells > max_cells:
        sizes = " x ".join(f"{name}={size}" for name, size in zip(names, shape))
        raise ParameterError(
            f"The joint domain of maxent_estimate has {cells} cells ({sizes}), more than "
            f"max_cells={max_cells}. Use coarser domain levels, fewer attributes, or raise max_cells."
        )
    return shape


def _ipf(fits: list, shape: tuple[int, ...], tol: float, max_iter: int) -> tuple[np.ndarray, int, float]:
    """Iterative proportional fitting from the uniform distribution: the estimate, cycles run, last error."""
    cells = 1
    for size in shape:
        cells *= int(size)
    p = np.full(shape, 1.0 / cells)
    iterations, error = 0, np.inf
    while iterations < max_iter:
        iterations += 1
        for fit in fits:
            current = fit.margin(p)
            with np.errstate(divide="ignore", invalid="ignore"):
                ratio = np.where(current > 0, fit.target / current, 0.0)
            p *= ratio[np.ix_(*fit.maps)].reshape(fit.broadcast)
        error = max(float(np.abs(fit.margin(p) - fit.target).max()) for fit in fits)
        if error <= tol:
            break
    return p, iterations, error


# long because its docstring is the user's reference: parameters, the MaxEnt program, IPF and three references.
def maxent_estimate(
    marginals: Sequence[Marginal] | Marginal,
    domain: Mapping[str, int] | Sequence[str] | None = None,
    *,
    tol: float = 1e-10,
    max_iter: int = 1000,
    max_cells: int = DEFAULT_MAX_CELLS,
) -> MaxEntEstimate:
    """The maximum-entropy joint distribution consistent with marginals, by iterative proportional fitting.

    Parameters
    ----------
    marginals : Marginal or sequence of Marginal
        Computed from the same records (equal totals), sharing each
        attribute's hierarchy.
    domain : mapping of str to int, or sequence of str, optional
        The attributes of the joint distribution and the level of each (a
        sequence means level 0).  It must hold every attribute of every
        marginal, each at a level no coarser than any marginal's.  Default:
        every marginal attribute at level 0 (the original values), in order
        of first appearance.
    tol : float, in (0, inf), default 1e-10
        Stop when every marginal of the estimate is within ``tol`` (absolute,
        in probability) of its target, cell by cell.
    max_iter : int, in [1, inf), default 1000
        The most IPF cycles to run.
    max_cells : int, in [1, inf), default 10**7
        Refuse a joint domain of more cells than this.

    Returns
    -------
    MaxEntEstimate
        With ``iterations`` and ``converged``; a ``RuntimeWarning`` is issued
        when ``max_iter`` cycles did not reach ``tol``.

    Raises
    ------
    ParameterError
        No marginals, marginals of different totals or hierarchies, a domain
        lacking a marginal's attribute or finer than a marginal, a joint
        domain of more than ``max_cells`` cells, or ``tol``, ``max_iter``,
        ``max_cells`` out of range.
    ColumnNotFoundError
        A domain attribute that no marginal covers.

    Notes
    -----
    Among the distributions :math:`p` over the domain :math:`\\Omega` whose
    margins match every marginal,

    .. math::

        \\hat F_2 = \\arg\\max_p -\\sum_{x \\in \\Omega} p(x) \\log p(x)
        \\quad \\text{s.t.} \\quad \\sum_{x : g_i(x) = t} p(x) = M_i(t) / N
        \\ \\ \\forall i, t,

    where :math:`g_i` projects a cell to marginal :math:`i`'s attributes and
    generalizes them to its levels.  IPF starts from the uniform distribution
    and cycles :math:`p(x) \\leftarrow p(x) \\, M_i(g_i(x)) / (N\\, p_i(g_i(x)))`
    with :math:`p_i` the current margin (:math:`0/0 = 0`); it converges to
    :math:`\\hat F_2`, which is also the maximum-likelihood fit of the
    log-linear model with one term per marginal.  Cells a marginal marks as
    zero stay zero.  One cycle suffices when the marginals are
    non-overlapping or nested (e.g. independent 1-way margins give the
    product of the margins).  Cost per cycle: a few passes over the
    :math:`|\\Omega|` cells per marginal.

    References
    ----------
    D. Kifer and J. Gehrke, "Injecting utility into anonymized datasets",
    SIGMOD 2006, Section 3 (the maximum-entropy estimate :math:`\\hat F_2`;
    seed 003).  W. E. Deming and F. F. Stephan, "On a least squares
    adjustment of a sampled frequency table when the expected marginal totals
    are known", Ann. Math. Stat. 11(4), 1940.  I. Csiszár, "I-divergence
    geometry of probability distributions and minimization problems", Ann.
    Probab. 3(1), 1975 (convergence).

    Examples
    --------
    >>> import pandas as pd
    >>> from veil.classes import ClassTable
    >>> from veil.marginals import marginal
    >>> frame = pd.DataFrame({"a": list("xxxy"), "b": list("ppqq")})
    >>> classes = ClassTable.from_pandas(frame, quasi_identifiers=["a", "b"])
    >>> est = maxent_estimate([marginal(classes, "a"), marginal(classes, "b")])
    >>> est.probabilities   # the product of (3/4, 1/4) and (1/2, 1/2)
    array([[0.375, 0.375],
           [0.125, 0.125]])
    """
    items = _marginal_list(marginals, "maxent_estimate")
    tol = check_real("tol", tol, "maxent_estimate", low=0, closed="right")
    max_iter = check_int("max_iter", max_iter, "maxent_estimate", low=1)
    max_cells = check_int("max_cells", max_cells, "maxent_estimate", low=1)
    n = _common_total(items)
    names, levels, hierarchies = _resolve_domain(items, domain)
    shape = _joint_shape(names, levels, hierarchies, max_cells)
    fits = _fits(items, names, levels, hierarchies, shape, n)
    p, iterations, error = _ipf(fits, shape, tol, max_iter)
    converged = error <= tol
    if not converged:
        warnings.warn(
            f"maxent_estimate did not converge in max_iter={max_iter} cycles: a marginal is still "
            f"{error:.3g} from its target (tol={tol}). Raise max_iter or check that the marginals come "
            "from one table.",
            RuntimeWarning,
            stacklevel=2,
        )
    total = p.sum()
    if total > 0:
        p /= total
    p.setflags(write=False)
    return MaxEntEstimate(
        attributes=names, levels=levels, hierarchies=hierarchies, probabilities=p, n_records=n,
        iterations=iterations, converged=converged, max_error=error,
    )


def _matching_base(estimate: MaxEntEstimate, classes: ClassTable) -> ClassTable:
    """The base table of ``classes``, checked to hold the estimate's attributes with the same hierarchies."""
    if not isinstance(estimate, MaxEntEstimate):
        raise ParameterError(
            f"The 'estimate' parameter of kl_to_original must be a MaxEntEstimate. Got {type(estimate).__name__} instead."
        )
    if not isinstance(classes, ClassTable):
        raise ParameterError(
            f"The 'classes' parameter of kl_to_original must be a ClassTable. Got {type(classes).__name__} instead."
        )
    base = classes.base
    for name in estimate.attributes:
        if name not in base.quasi_identifiers:
            raise ColumnNotFoundError(
                f"The estimate's attribute {name!r} is not a quasi-identifier of the 'classes' parameter of "
                f"kl_to_original; its quasi-identifiers are: {', '.join(base.quasi_identifiers)}."
            )
    for name, h in zip(estimate.attributes, estimate.hierarchies):
        if not _same_hierarchy(base.hierarchy(name), h):
            raise ParameterError(
                f"The 'classes' parameter of kl_to_original uses another hierarchy for {name!r} than the "
                "estimate; pass the table the marginals were computed from."
            )
    return base


def kl_to_original(estimate: MaxEntEstimate, classes: ClassTable) -> float:
    """KL divergence (bits) from the original empirical distribution to a MaxEnt estimate.

    Parameters
    ----------
    estimate : MaxEntEstimate
        From :func:`maxent_estimate`.
    classes : ClassTable
        The original table (or one derived from it: its base table is used), with the
        estimate's attributes as quasi-identifiers and the same hierarchies.

    Returns
    -------
    float, in [0, inf]
        0 when the estimate reproduces the original distribution; ``inf`` when it gives probability 0
        to a combination the data has (never for marginals computed from this table).

    Raises
    ------
    ColumnNotFoundError
        An attribute of the estimate that is not a quasi-identifier of ``classes``.
    ParameterError
        A hierarchy that does not match the estimate's, or an empty table.

    Notes
    -----
    With :math:`\\hat F_1` the empirical distribution of the original records at the estimate's levels,

    .. math::

        KL(\\hat F_1 \\,\\|\\, \\hat F_2) = \\sum_x \\hat F_1(x)
        \\log_2 \\frac{\\hat F_1(x)}{\\hat F_2(x)}

    summed over the original's non-zero cells (records that arrived suppressed are in neither
    distribution).  Adding a marginal never increases it; for one marginal over all the estimate's
    attributes it equals :func:`veil.utility.kl_divergence` (the module docstring says why).

    References
    ----------
    D. Kifer and J. Gehrke, SIGMOD 2006, Section 3 (seed 003: minimise the KL between the two).

    Examples
    --------
    >>> import pandas as pd
    >>> from veil.classes import ClassTable
    >>> from veil.marginals import marginal, maxent_estimate
    >>> classes = ClassTable.from_pandas(pd.DataFrame({"a": list("xxyy"), "b": list("ppqq")}), quasi_identifiers=["a", "b"])
    >>> est = maxent_estimate([marginal(classes, "a"), marginal(classes, "b")])
    >>> kl_to_original(est, classes)   # 2 cells of 1/2 against 4 of 1/4: log2(2)
    1.0
    """
    base = _matching_base(estimate, classes)
    original = base.project(estimate.attributes).generalize(estimate.levels)
    n = original.n_retained
    if n == 0:
        raise ParameterError("The 'classes' parameter of kl_to_original holds no records.")
    f1, f2 = original.counts / n, estimate.probabilities[tuple(original.codes.T)]
    return float("inf") if (f2 <= 0).any() else max(float(np.dot(f1, np.log2(f1 / f2))), 0.0)
