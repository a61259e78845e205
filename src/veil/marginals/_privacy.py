"""Privacy of a collection of marginals beyond k-link: k-combinatorial anonymity and MaxEnt l-diversity.

Kifer and Gehrke (SIGMOD 2006, Section 4) extend k-anonymity and l-diversity
from one table to a collection of anonymized marginals :math:`M_1, \\dots, M_r`:

* **k-combinatorial anonymity** (Definition 4.2): no combination :math:`t` of
  non-sensitive values is pinned by the marginals to between 1 and
  :math:`k - 1` records.  For every :math:`t`, either every table consistent
  with the marginals has :math:`T(t) = 0`, or some consistent table has
  :math:`T(t) \\ge k`.  k-link anonymity (Definition 4.1) does not imply it:
  marginals that overlap in a cycle can pin a cell that no marginal shows.
* **MaxEnt l-diversity** (Definition 4.3): the maximum-entropy distribution
  consistent with the marginals is l-diverse, i.e. for every combination
  :math:`t` of non-sensitive values it gives positive probability, the
  distribution of the sensitive attribute given :math:`t` is l-diverse.

How :func:`k_combinatorial` decides: the tables consistent with the marginals
are the non-negative integer :math:`T` over the joint domain :math:`\\Omega`
(every attribute of every marginal, each at the finest level a marginal gives
it) with :math:`\\sum_{x : g_i(x) = u} T(x) = M_i(u)` for every marginal
:math:`i` and cell :math:`u`.  For each combination :math:`t` of non-sensitive
values, :math:`\\max_T T(t)` (:math:`T(t)` summing the sensitive values) is an
integer program, solved with HiGHS (``scipy.optimize.milp``); combinations
some marginal counts as 0 are 0 without solving.  A finer level than the
finest a marginal shows adds nothing: the leaves under one published value are
interchangeable.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from veil._validation import check_choice, check_int, check_real
from veil.errors import ParameterError
from veil.marginals._marginal import Marginal, _marginal_list
from veil.marginals._maxent import _fits, _resolve_domain, maxent_estimate

__all__ = [
    "CombinatorialAnonymity",
    "k_combinatorial",
    "check_k_combinatorial",
    "maxent_l_diversity",
    "check_maxent_l_diversity",
]

#: The largest joint domain (cells) the k-combinatorial check solves integer programs over.
DEFAULT_COMBINATORIAL_CELLS = 4096


@dataclass(frozen=True)
class CombinatorialAnonymity:
    """The most records each combination of non-sensitive values can hold in a table consistent with the marginals.

    Attributes
    ----------
    attributes : tuple of str
        The non-sensitive attributes (axes of ``most``), at ``levels``.
    levels : tuple of int
    most : numpy.ndarray of int64
        ``most[t]``: :math:`\\max_T T(t)` over the integer tables :math:`T`
        consistent with every marginal (0: no consistent table has a record
        there).
    k : int
        The achieved level: the smallest positive ``most``, the largest
        :math:`k` for which the marginals are k-combinatorially anonymous.
    """

    attributes: tuple[str, ...]
    levels: tuple[int, ...]
    most: np.ndarray
    k: int


def _domain(items: list[Marginal]) -> tuple[tuple[str, ...], tuple[int, ...], tuple]:
    """Every marginal attribute at the finest level a marginal gives it."""
    finest: dict[str, int] = {}
    for m in items:
        for name, level in zip(m.attributes, m.levels):
            finest[name] = min(finest.get(name, level), level)
    return _resolve_domain(items, finest)


def _constraints(items: list[Marginal], names: tuple[str, ...], levels: tuple[int, ...], hierarchies: tuple,
                 shape: tuple[int, ...]) -> tuple[object, np.ndarray]:
    """The equality system ``A x = b``: one row per cell of every marginal, one column per domain cell."""
    from scipy import sparse

    cells = int(np.prod(shape, dtype=np.int64))
    n = items[0].n_records
    coords = np.indices(shape).reshape(len(shape), cells)
    rows, targets, offset = [], [], 0
    for fit in _fits(items, names, levels, hierarchies, shape, n):
        dims = fit.target.shape
        flat = np.zeros(cells, dtype=np.int64)  # each domain cell's marginal cell, flat over the marginal
        for j, (axis, mapping) in enumerate(zip(fit.axes, fit.maps)):
            flat = flat * dims[j] + mapping[coords[axis]]
        rows.append(offset + flat)
        targets.append(np.rint(fit.target.reshape(-1) * n))
        offset += int(np.prod(dims, dtype=np.int64))
    row_index = np.concatenate(rows)
    col_index = np.tile(np.arange(cells), len(items))
    matrix = sparse.csr_matrix((np.ones(len(row_index)), (row_index, col_index)), shape=(offset, cells))
    return matrix, np.concatenate(targets)


def _joint_domain(items: list[Marginal], max_cells: int) -> tuple[tuple[str, ...], tuple[int, ...], tuple, tuple[int, ...]]:
    """The joint domain's attributes, levels, hierarchies and shape, at most ``max_cells`` cells."""
    if len({m.n_records for m in items}) > 1:
        raise ParameterError("The marginals of k_combinatorial must count the same records (compute them from one table).")
    names, levels, hierarchies = _domain(items)
    shape = tuple(h.n_values(l) for h, l in zip(hierarchies, levels))
    if int(np.prod(shape, dtype=np.int64)) > max_cells:
        raise ParameterError(
            f"The joint domain of k_combinatorial has {int(np.prod(shape, dtype=np.int64))} cells, more than "
            f"max_cells={max_cells}; use coarser marginals or fewer attributes, or raise max_cells."
        )
    return names, levels, hierarchies, shape


def _combinations(items: list[Marginal], names: Sequence[str], shape: tuple[int, ...]) -> tuple[list[int], tuple, np.ndarray]:
    """The non-sensitive axes, their shape, and the combination of non-sensitive values of each cell."""
    sensitive = {s for m in items for s in m.sensitive}
    keep = [j for j, name in enumerate(names) if name not in sensitive]
    ns_shape = tuple(shape[j] for j in keep)
    cells = int(np.prod(shape, dtype=np.int64))
    coords = np.indices(shape).reshape(len(shape), cells)
    t_of_cell = np.ravel_multi_index(tuple(coords[j] for j in keep), ns_shape) if keep else np.zeros(cells, np.int64)
    return keep, ns_shape, t_of_cell


def _most_per_combination(matrix: Any, targets: np.ndarray, t_of_cell: np.ndarray, n_t: int) -> np.ndarray:
    """:math:`\\max_T T(t)` for each of the ``n_t`` combinations, one integer program (HiGHS) each."""
    from scipy import optimize

    cells = matrix.shape[1]
    # a combination is 0 in every consistent table when a constraint forces all its cells to 0
    forced_zero = np.asarray(matrix[targets == 0].sum(axis=0)).reshape(-1) > 0
    open_t = np.bincount(t_of_cell[~forced_zero], minlength=n_t) > 0
    most = np.zeros(n_t, dtype=np.int64)
    constraint = optimize.LinearConstraint(matrix, targets, targets)
    bounds = optimize.Bounds(np.zeros(cells), np.where(forced_zero, 0.0, np.inf))
    integrality = np.ones(cells)
    for t in np.flatnonzero(open_t):
        objective = -(t_of_cell == t).astype(np.float64)
        result = optimize.milp(objective, constraints=constraint, bounds=bounds, integrality=integrality)
        if result.status != 0:  # pragma: no cover - the data's own table is always feasible
            raise ParameterError("The marginals of k_combinatorial are inconsistent: no table meets them all.")
        most[t] = int(round(-result.fun))
    return most


def k_combinatorial(
    marginals: Sequence[Marginal] | Marginal, *, max_cells: int = DEFAULT_COMBINATORIAL_CELLS,
) -> CombinatorialAnonymity:
    """The largest k for which a collection of marginals is k-combinatorially anonymous.

    Parameters
    ----------
    marginals : Marginal or sequence of Marginal
        Computed from one table (equal totals), sharing each attribute's hierarchy.
    max_cells : int in [1, inf), default 4096
        Refuse a joint domain of more cells: the check solves one integer
        program over the domain per combination of non-sensitive values.

    Returns
    -------
    CombinatorialAnonymity
        ``most`` per combination and the achieved ``k``.

    Raises
    ------
    ParameterError
        No marginals, marginals of different totals or hierarchies, or a
        joint domain of more than ``max_cells`` cells.

    Notes
    -----
    With :math:`\\max_T T(t)` over the tables consistent with the marginals (an integer program
    per combination :math:`t`; the module docstring defines them),

    .. math:: k^* = \\min \\{\\max_T T(t) : \\max_T T(t) > 0\\}.

    References
    ----------
    D. Kifer and J. Gehrke, "Injecting utility into anonymized datasets",
    SIGMOD 2006, Definition 4.2 (seed 003).

    Examples
    --------
    >>> import pandas as pd
    >>> from veil.classes import ClassTable
    >>> from veil.marginals import marginal
    >>> classes = ClassTable.from_pandas(pd.DataFrame({"a": list("xxyy"), "b": list("pqpq")}), quasi_identifiers=["a", "b"])
    >>> k_combinatorial([marginal(classes, "a"), marginal(classes, "b")]).k
    2
    """
    items = _marginal_list(marginals, "k_combinatorial")
    max_cells = check_int("max_cells", max_cells, "k_combinatorial", low=1)
    names, levels, hierarchies, shape = _joint_domain(items, max_cells)
    matrix, targets = _constraints(items, names, levels, hierarchies, shape)
    keep, ns_shape, t_of_cell = _combinations(items, names, shape)
    most = _most_per_combination(matrix, targets, t_of_cell, int(np.prod(ns_shape, dtype=np.int64)))
    positive = most[most > 0]
    k = int(positive.min()) if len(positive) else int(items[0].n_records)
    return CombinatorialAnonymity(tuple(names[j] for j in keep), tuple(levels[j] for j in keep),
                                  most.reshape(ns_shape), k)


def check_k_combinatorial(marginals: Sequence[Marginal] | Marginal, k: int, *,
                          max_cells: int = DEFAULT_COMBINATORIAL_CELLS) -> bool:
    """Whether a collection of marginals is k-combinatorially anonymous (Kifer & Gehrke, Definition 4.2).

    True exactly when ``k_combinatorial(marginals).k >= k``; see :func:`k_combinatorial`.

    Examples
    --------
    >>> import pandas as pd
    >>> from veil.classes import ClassTable
    >>> from veil.marginals import marginal
    >>> frame = pd.DataFrame({"a": list("xxyy"), "b": list("pqpq")})
    >>> classes = ClassTable.from_pandas(frame, quasi_identifiers=["a", "b"])
    >>> check_k_combinatorial([marginal(classes, "a"), marginal(classes, "b")], 3)
    False
    """
    k = check_int("k", k, "check_k_combinatorial", low=1)
    return k_combinatorial(marginals, max_cells=max_cells).k >= k


def _conditional(marginals: Sequence[Marginal] | Marginal, sensitive: str | None, owner: str
                 ) -> tuple[np.ndarray, str]:
    """``(n_combinations, n_sensitive_values)``: the MaxEnt distribution of the sensitive attribute
    given each combination of the other attributes that has positive probability."""
    items = _marginal_list(marginals, owner)
    declared = list(dict.fromkeys(s for m in items for s in m.sensitive))
    if sensitive is None:
        if len(declared) != 1:
            raise ParameterError(
                f"{owner} needs the sensitive attribute: the marginals declare {len(declared)} "
                f"({', '.join(declared) or 'none'}); pass sensitive=... or build a marginal that includes it."
            )
        sensitive = declared[0]
    if not any(sensitive in m.attributes for m in items):
        raise ParameterError(
            f"The sensitive attribute {sensitive!r} of {owner} is in no marginal; MaxEnt l-diversity needs "
            "a marginal that includes it."
        )
    names, levels, _ = _domain(items)
    estimate = maxent_estimate(items, dict(zip(names, levels)))
    axis = estimate.attributes.index(sensitive)
    p = np.moveaxis(estimate.probabilities, axis, -1)
    p = p.reshape(-1, p.shape[-1])
    mass = p.sum(axis=1)
    present = mass > 1e-12
    return p[present] / mass[present, None], sensitive


def maxent_l_diversity(marginals: Sequence[Marginal] | Marginal, *, sensitive: str | None = None,
                       measure: str = "entropy") -> float:
    """The l the maximum-entropy estimate of the marginals achieves (MaxEnt l-diversity, Definition 4.3).

    Parameters
    ----------
    marginals : Marginal or sequence of Marginal
        At least one includes the sensitive attribute (build it from the
        Dataset: ``marginal(dataset, ["age", "disease"])``).
    sensitive : str, optional
        The sensitive attribute; default: the one the marginals declare.
    measure : {"entropy", "distinct"}, default "entropy"
        ``"entropy"``: :math:`\\min_t \\exp H(S \\mid t)` (entropy
        l-diversity); ``"distinct"``: :math:`\\min_t |\\{s : p(s \\mid t) > 0\\}|`.

    Returns
    -------
    float
        The smallest l over the combinations :math:`t` of the other
        attributes to which the estimate gives positive probability.

    Notes
    -----
    :math:`\\hat F_2` is :func:`~veil.marginals.maxent_estimate` over every
    attribute of the marginals at its finest published level; for each
    :math:`t`, :math:`p(s \\mid t) = \\hat F_2(t, s) / \\sum_{s'} \\hat F_2(t, s')`.
    Probabilities below :math:`10^{-12}` count as zero for ``"distinct"``.

    References
    ----------
    D. Kifer and J. Gehrke, SIGMOD 2006, Definition 4.3 (seed 003);
    Machanavajjhala et al., "l-diversity", TKDD 2007 (the l-diversity measures).

    Examples
    --------
    >>> import pandas as pd
    >>> from veil.dataset import Dataset
    >>> from veil.marginals import marginal
    >>> frame = pd.DataFrame({"a": list("xxyy"), "s": list("ABAA")})
    >>> data = Dataset.from_pandas(frame, quasi_identifiers=["a"], sensitive=["s"])
    >>> maxent_l_diversity([marginal(data, ["a", "s"])], measure="distinct")
    1.0
    """
    check_choice("measure", measure, "maxent_l_diversity", ("entropy", "distinct"))
    conditional, _ = _conditional(marginals, sensitive, "maxent_l_diversity")
    if measure == "distinct":
        return float((conditional > 1e-12).sum(axis=1).min())
    logs = np.log(conditional, out=np.zeros_like(conditional), where=conditional > 0)
    return float(np.exp(-(conditional * logs).sum(axis=1)).min())


def check_maxent_l_diversity(marginals: Sequence[Marginal] | Marginal, l: float, *, sensitive: str | None = None,
                             measure: str = "entropy", c: float | None = None) -> bool:
    """Whether the marginals' maximum-entropy estimate is l-diverse (MaxEnt l-diversity, Definition 4.3).

    ``measure`` is ``"entropy"``, ``"distinct"`` (see :func:`maxent_l_diversity`,
    true when it is at least ``l``) or ``"recursive"`` with ``c``: for every
    :math:`t`, :math:`r_1 < c\\,(r_l + \\dots + r_m)` on the conditional
    probabilities sorted in decreasing order (recursive (c,l)-diversity).

    Examples
    --------
    >>> import pandas as pd
    >>> from veil.dataset import Dataset
    >>> from veil.marginals import marginal
    >>> frame = pd.DataFrame({"a": list("xxyy"), "s": list("ABAB")})
    >>> data = Dataset.from_pandas(frame, quasi_identifiers=["a"], sensitive=["s"])
    >>> check_maxent_l_diversity([marginal(data, ["a", "s"])], 2, measure="distinct")
    True
    """
    check_choice("measure", measure, "check_maxent_l_diversity", ("entropy", "distinct", "recursive"))
    l = check_real("l", l, "check_maxent_l_diversity", low=1.0)
    if measure != "recursive":
        return maxent_l_diversity(marginals, sensitive=sensitive, measure=measure) >= l - 1e-12
    if c is None:
        raise ParameterError("check_maxent_l_diversity with measure='recursive' needs c (the constant of (c,l)-diversity).")
    c = check_real("c", c, "check_maxent_l_diversity", low=0.0, closed="right")
    conditional, _ = _conditional(marginals, sensitive, "check_maxent_l_diversity")
    ordered = -np.sort(-conditional, axis=1)
    start = int(np.ceil(l)) - 1
    tail = ordered[:, start:].sum(axis=1) if start < ordered.shape[1] else np.zeros(len(ordered))
    return bool((ordered[:, 0] < c * tail).all())
