"""t-closeness with the Earth Mover's Distance (Li, Li & Venkatasubramanian, ICDE 2007)."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import ClassVar

import numpy as np

from veil.classes import ClassTable, SensitiveHistogram
from veil.errors import HierarchyError
from veil.hierarchy import Hierarchy
from veil.models._distributions import SensitiveAttributeModel, exact_ratio
from veil.models._facts import Param, RequirementKey
from veil.models._pair_distances import pair_equal_distances, pair_hierarchical_distances, pair_ordered_distances

__all__ = [
    "EqualDistanceTCloseness",
    "OrderedDistanceTCloseness",
    "HierarchicalTCloseness",
    "equal_distances",
    "ordered_distances",
    "hierarchical_distances",
]

#: Up to this many sensitive values, the distances are summed one value's column at a time.
_FEW = 8

_REFERENCE = (
    "N. Li, T. Li, S. Venkatasubramanian, 't-closeness: privacy beyond k-anonymity "
    "and l-diversity', ICDE 2007"
)


def _signed_differences(hist: SensitiveHistogram) -> tuple[np.ndarray, np.ndarray]:
    """``e[j, v] = c[j, v] * N - o[v] * n_j`` (``(p_j - q) * n_j * N``) and ``n_j * N``."""
    counts = hist.counts
    overall = hist.overall
    total = int(overall.sum())
    n = counts.sum(axis=1)
    diff = counts * total - np.outer(n, overall)
    return diff, n * total


def _column_differences(hist: SensitiveHistogram) -> tuple[list[np.ndarray], np.ndarray]:
    """:func:`_signed_differences` one value's column at a time, for a few values (a sum
    along rows of two or three entries is slow in numpy): the same integers."""
    columns = [hist.counts[:, v] for v in range(hist.counts.shape[1])]
    total = int(hist.overall.sum())
    if len(columns) == 2:  # c0 N - n o0 = c0 o1 - c1 o0, and the two differences cancel
        (c0, c1), (o0, o1) = columns, hist.overall.tolist()
        diff = c0 * o1 - c1 * o0
        return [diff, -diff], (c0 + c1) * total
    n = columns[0].copy()
    for column in columns[1:]:
        n += column
    diffs = [column * total - n * share for column, share in zip(columns, hist.overall.tolist())]
    return diffs, n * total


def equal_distances(hist: SensitiveHistogram) -> np.ndarray:
    """EMD with equal ground distance per class: :math:`\\frac12 \\sum_v |p_v - q_v|`
    (from the pairs that occur when the values are many: :mod:`veil.models._pair_distances`)."""
    if not hist.is_dense:
        return pair_equal_distances(hist)
    g, m = hist.counts.shape
    if g == 0:
        return np.zeros(0)
    if m > _FEW:
        diff, scale = _signed_differences(hist)
        return exact_ratio(np.abs(diff).sum(axis=1), 2 * scale)
    diffs, scale = _column_differences(hist)
    num = np.abs(diffs[0])
    for diff in diffs[1:]:
        num += np.abs(diff)
    return exact_ratio(num, 2 * scale)


def ordered_distances(hist: SensitiveHistogram) -> np.ndarray:
    """EMD with ordered ground distance per class:
    :math:`\\frac{1}{m-1} \\sum_{i=1}^{m} |\\sum_{j \\le i} (p_j - q_j)|` over the domain order."""
    if not hist.is_dense:
        return pair_ordered_distances(hist)
    m = hist.n_values
    if hist.counts.shape[0] == 0:
        return np.zeros(0)
    if m <= 1:
        return np.zeros(hist.counts.shape[0])
    diff, scale = _signed_differences(hist)
    return exact_ratio(np.abs(np.cumsum(diff, axis=1)).sum(axis=1), (m - 1) * scale)


def hierarchical_distances(hist: SensitiveHistogram) -> np.ndarray:
    """EMD with hierarchical ground distance per class (Li et al., Section 4.3).

    The signed differences ``extra`` are summed up the tree; every internal node
    ``N`` at height ``h(N)`` costs
    :math:`\\frac{h(N)}{H} \\min(\\text{pos\\_extra}(N), \\text{neg\\_extra}(N))`,
    where pos/neg_extra sum the positive/negative extras of its children and
    ``H`` is the height of the hierarchy.
    """
    hierarchy = hist.hierarchy
    if hierarchy is None:
        raise HierarchyError(
            f"Hierarchical t-closeness needs a hierarchy for {hist.name!r}; give one "
            f"(hierarchies={{{hist.name!r}: ...}} or --hierarchy {hist.name}=FILE)."
        )
    if not hist.is_dense:
        return pair_hierarchical_distances(hist, hierarchy)
    g = hist.counts.shape[0]
    if g == 0:
        return np.zeros(0)
    if 0 < hist.counts.shape[1] <= _FEW and hierarchy.height > 0:
        return _hierarchical_few(hist, hierarchy)
    diff, scale = _signed_differences(hist)
    present = (hist.overall > 0) | (hist.counts.sum(axis=0) > 0)
    leaf = hierarchy.leaf_index(hist.labels[present], column=hist.name)
    extra = np.zeros((g, hierarchy.n_values(0)), dtype=np.int64)
    extra[:, leaf] = diff[:, present]
    height = hierarchy.height
    cost = np.zeros(g, dtype=np.int64)
    for level in range(1, height + 1):
        parent = np.asarray(hierarchy.rollup(level - 1, level), dtype=np.int64)
        k = hierarchy.n_values(level)
        onehot = np.zeros((len(parent), k), dtype=np.int64)
        onehot[np.arange(len(parent)), parent] = 1
        pos = np.maximum(extra, 0) @ onehot
        neg = np.maximum(-extra, 0) @ onehot
        cost += level * np.minimum(pos, neg).sum(axis=1)
        extra = extra @ onehot
    return exact_ratio(cost, height * scale)


def _hierarchical_few(hist: SensitiveHistogram, hierarchy: Hierarchy) -> np.ndarray:
    """:func:`hierarchical_distances` for a few values, one value's column at a time.

    With :math:`A_l` the sum of :math:`|extra(N)|` over the nodes :math:`N` at level
    :math:`l`, a node's :math:`\\min(pos, neg)` is half of its children's
    :math:`\\sum |extra|` less its own :math:`|extra|`, so the cost telescopes to
    :math:`\\frac12 (A_0 + \\dots + A_{H-1} - H A_H)` (and :math:`A_H = 0` under the
    single top value: a class's extras sum to 0).  Twice the cost over twice the
    denominator rounds to the same double.
    """
    diffs, scale = _column_differences(hist)
    shares = hist.overall.tolist()
    present = [v for v, share in enumerate(shares) if share > 0 or hist.counts[:, v].any()]
    labels = hist.labels if len(present) == len(shares) else hist.labels[present]
    leaf = hierarchy.leaf_index(labels, column=hist.name)
    twice = np.abs(diffs[0])
    for diff in diffs[1:]:
        twice += np.abs(diff)
    height = hierarchy.height
    for level in range(1, height + 1):
        ancestors = hierarchy.rollup(0, level)[leaf].tolist()
        if level == height and len(set(ancestors)) == 1:
            break  # the single top value: the extras of a class sum to 0
        summed: dict[int, np.ndarray] = {}
        for v, code in zip(present, ancestors):
            summed[code] = summed[code] + diffs[v] if code in summed else diffs[v]
        weight = 1 if level < height else -height
        for extra in summed.values():
            twice += weight * np.abs(extra)
    return exact_ratio(twice, 2 * height * scale)


@dataclass(frozen=True)
class _TCloseness(SensitiveAttributeModel):
    t: float

    monotone_generalization: ClassVar[bool] = True
    monotone_with_suppression: ClassVar[bool] = False
    compared_with: ClassVar[str] = "shown"
    parameters: ClassVar[tuple[Param, ...]] = SensitiveAttributeModel.parameters + (Param("t", "float", low=0, high=1),)
    #: The ground distance's EMD of each class to the table (one of the functions above).
    emd: ClassVar[Callable[[SensitiveHistogram], np.ndarray]]

    def distances(self, classes: ClassTable) -> np.ndarray:
        """EMD of each class to the table."""
        return self.emd(self.histogram(classes))

    def violating(self, classes: ClassTable) -> np.ndarray:
        return self.distances(classes) > self.t

    def achieved_level(self, classes: ClassTable) -> float:
        """The largest distance of a class to the table (0.0 when no class is left)."""
        d = self.distances(classes)
        return float(d.max()) if len(d) else 0.0


_NOTES = """
    The distance of a class :math:`E` to the whole table :math:`T` is the Earth
    Mover's Distance between the distribution :math:`P_E` of the sensitive
    values in :math:`E` and :math:`Q` in :math:`T` (all records, suppressed ones
    included), over the attribute's whole value domain (declared domain values
    that occur nowhere included).  It is formed as an exact ratio of integers
    and rounded once, so a class exactly at ``t`` satisfies the model.

    Monotone under generalization without suppression (Li et al., the
    "generalization property" of the EMD: a merged class is a mixture of its
    parts and the EMD to a fixed :math:`Q` is convex).  Not monotone with
    suppression: a merged class can be farther from :math:`Q` than one of its
    parts and then be suppressed.
"""


def _with_notes(cls: type) -> type:
    cls.__doc__ = (cls.__doc__ or "").replace("{NOTES}", _NOTES.strip("\n").lstrip())
    return cls


@_with_notes
@dataclass(frozen=True)
class EqualDistanceTCloseness(_TCloseness):
    """Every class's distribution is within EMD ``t`` of the table's, equal ground distance.

    For categorical attributes: any two distinct values are at distance 1.

    Parameters
    ----------
    sensitive : str
    t : float, in [0, 1]

    Notes
    -----
    .. math:: D[P_E, Q] = \\frac12 \\sum_{v} |p_v - q_v| \\le t

    {NOTES}

    References
    ----------
    Li, Li & Venkatasubramanian, ICDE 2007, Definition 2 and Section 4.2
    (equal distance).

    Examples
    --------
    >>> import pandas as pd
    >>> from veil.classes import ClassTable
    >>> frame = pd.DataFrame({"q": ["a", "a", "b", "b"], "s": ["x", "y", "x", "x"]})
    >>> classes = ClassTable.from_pandas(frame, quasi_identifiers=["q"], sensitive=["s"])
    >>> EqualDistanceTCloseness(sensitive="s", t=0.25).achieved_level(classes)
    0.25
    """

    reference: ClassVar[str] = _REFERENCE + ", Section 4.2 (equal ground distance)"
    config_key: ClassVar[str] = "equal-t-closeness"
    label: ClassVar[str] = "{t:g}-closeness (equal distance, {sensitive})"
    requirement_keys: ClassVar[tuple[RequirementKey, ...]] = (
        RequirementKey("t", "t", "<=", "t-closeness, ordered distance for ordered kinds else equal", report_field="t",
                       ordered_variant="ordered-t-closeness"),
        RequirementKey("t_equal", "t", "<=", "t-closeness, equal distance", report_field="t_equal"),
    )
    emd = staticmethod(equal_distances)


@_with_notes
@dataclass(frozen=True)
class OrderedDistanceTCloseness(_TCloseness):
    """Every class's distribution is within EMD ``t`` of the table's, ordered ground distance.

    For numeric, ordinal and date attributes: the ``i``-th and ``j``-th values
    of the ordered domain of ``m`` values are at distance :math:`|i-j|/(m-1)`.

    Parameters
    ----------
    sensitive : str
    t : float, in [0, 1]

    Notes
    -----
    .. math:: D[P_E, Q] = \\frac{1}{m-1} \\sum_{i=1}^{m} \\Big|\\sum_{j=1}^{i} (p_j - q_j)\\Big| \\le t

    {NOTES}

    References
    ----------
    Li, Li & Venkatasubramanian, ICDE 2007, Section 4.1 (ordered distance).

    Examples
    --------
    >>> import pandas as pd
    >>> from veil.classes import ClassTable
    >>> frame = pd.DataFrame({"q": ["a", "a", "b", "b"], "s": ["1", "2", "3", "3"]})
    >>> classes = ClassTable.from_pandas(frame, quasi_identifiers=["q"], sensitive=["s"],
    ...                                  kinds={"s": "numeric"})
    >>> OrderedDistanceTCloseness(sensitive="s", t=0.5).achieved_level(classes)
    0.375
    """

    reference: ClassVar[str] = _REFERENCE + ", Section 4.1 (ordered ground distance)"
    config_key: ClassVar[str] = "ordered-t-closeness"
    label: ClassVar[str] = "{t:g}-closeness (ordered distance, {sensitive})"
    requirement_keys: ClassVar[tuple[RequirementKey, ...]] = (
        RequirementKey("t_ordered", "t", "<=", "t-closeness, ordered distance", report_field="t_ordered"),
    )
    emd = staticmethod(ordered_distances)


@_with_notes
@dataclass(frozen=True)
class HierarchicalTCloseness(_TCloseness):
    """Every class's distribution is within EMD ``t`` of the table's, hierarchical distance.

    The ground distance between two values is the height of their lowest common
    ancestor in the attribute's hierarchy divided by the hierarchy's height.

    Parameters
    ----------
    sensitive : str
    t : float, in [0, 1]

    Raises
    ------
    HierarchyError
        At evaluation, when the attribute has no hierarchy.

    Notes
    -----
    .. math:: D[P_E, Q] = \\sum_{N} \\frac{h(N)}{H}\\,
              \\min\\big(\\mathrm{pos}(N), \\mathrm{neg}(N)\\big) \\le t

    {NOTES}

    References
    ----------
    Li, Li & Venkatasubramanian, ICDE 2007, Section 4.3 (hierarchical distance).

    Examples
    --------
    >>> import pandas as pd
    >>> from veil.classes import ClassTable
    >>> from veil.hierarchy import Hierarchy
    >>> h = Hierarchy.from_rows([["flu", "resp", "*"], ["cold", "resp", "*"], ["ulcer", "stom", "*"]])
    >>> frame = pd.DataFrame({"q": ["a", "a", "b", "b"], "s": ["flu", "cold", "ulcer", "ulcer"]})
    >>> classes = ClassTable.from_pandas(frame, quasi_identifiers=["q"], sensitive=["s"],
    ...                                  hierarchies={"s": h})
    >>> HierarchicalTCloseness(sensitive="s", t=0.5).achieved_level(classes)
    0.5
    """

    reference: ClassVar[str] = _REFERENCE + ", Section 4.3 (hierarchical ground distance)"
    config_key: ClassVar[str] = "hierarchical-t-closeness"
    label: ClassVar[str] = "{t:g}-closeness (hierarchical distance, {sensitive})"
    requirement_keys: ClassVar[tuple[RequirementKey, ...]] = (
        RequirementKey("t_hierarchical", "t", "<=", "t-closeness, hierarchical", report_field="t_hierarchical",
                       aliases=("t_hier",)),
    )
    emd = staticmethod(hierarchical_distances)
