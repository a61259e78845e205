"""Mondrian multidimensional partitioning (LeFevre, DeWitt & Ramakrishnan, ICDE 2006).

Mondrian anonymizes top-down.  It starts with one partition holding the whole
table and splits partitions recursively, each time along one quasi-identifier
(QI), for as long as the parts it would create still satisfy every requested
privacy model.  Each final partition becomes one equivalence class; its
records are released with the partition's *extent* on each QI:

* an **ordered** QI (kind ``numeric``, ``date`` or ``ordinal``) is split at the
  median of the partition and released as the range ``"[min-max]"`` of its
  values in the partition (ARX's style), or the single value when
  ``min == max``;
* a **categorical** QI with a hierarchy is split into the children of the
  partition's current hierarchy node (the lowest common ancestor, LCA, of its
  values): one part per child subtree holding records.  It is released as the
  LCA's label.

This is *local* (multidimensional) recoding: two records with the same
original value can be released with different labels when they fall in
different partitions (age ``34`` may be released as ``[30-34]`` in one
class and ``[34-52]`` in another), unlike the full-domain generalization of
:mod:`veil.algorithms.lattice`, which recodes every occurrence of a value
alike.  Local recoding loses far less information, at the price of labels
that do not form one consistent domain across rows.

The algorithm never loops over rows in Python: a partition is an index array
into the encoded rows (QIs as ``int32`` ranks), medians, extents and split
masks are numpy operations, and whether a candidate split is *allowable* is
decided by the requested models themselves, judged on a tiny
:class:`~veil.classes.ClassTable` whose classes are the candidate parts (with
the whole table's sensitive distribution as the reference of t-closeness and
the like).  Loops run over partitions only.

References
----------
K. LeFevre, D. J. DeWitt, R. Ramakrishnan, "Mondrian multidimensional
k-anonymity", ICDE 2006 (Sections 3-4: strict and relaxed multidimensional
partitioning, the greedy median-split algorithm).
J. Xu, W. Wang, J. Pei, X. Wang, B. Shi, A. W.-C. Fu, "Utility-based
anonymization using local recoding", KDD 2006 (Normalized Certainty Penalty).
"""

from __future__ import annotations

import numbers
import time
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd

from veil._validation import check_choice, check_real
from veil.algorithms._recoding import SUPPRESSED_LABEL, Recoding
from veil.classes import ClassTable, SensitiveHistogram
from veil.dataset import MISSING, Dataset
from veil.errors import HierarchyError, InfeasibleError, ParameterError, SchemaError
from veil.hierarchy import Hierarchy
from veil.models import (
    AlphaKAnonymity,
    BasicBetaLikeness,
    DeltaDisclosure,
    DistinctLDiversity,
    EnhancedBetaLikeness,
    EntropyLDiversity,
    EqualDistanceTCloseness,
    HierarchicalTCloseness,
    KAnonymity,
    KLinkAnonymity,
    MaxProsecutorRisk,
    OrderedDistanceTCloseness,
    PresentValuesDeltaDisclosure,
    PrivacyModel,
    RecursiveCLDiversity,
)
from veil.schema import Kind

__all__ = ["mondrian", "CLASS_LOCAL_MODELS"]

#: The models Mondrian can enforce: those that judge each class on its own
#: (its size and its sensitive histogram against the whole table's).  A
#: partition's verdict must not depend on the other partitions (table-level
#: models such as ``AverageRisk``) nor on the released labels (``KMap``,
#: ``DeltaPresence``, ``LKCPrivacy`` match classes by QI values), because the
#: algorithm decides splits one partition at a time.
CLASS_LOCAL_MODELS: tuple[type[PrivacyModel], ...] = (
    KAnonymity,
    KLinkAnonymity,
    MaxProsecutorRisk,
    DistinctLDiversity,
    EntropyLDiversity,
    RecursiveCLDiversity,
    EqualDistanceTCloseness,
    OrderedDistanceTCloseness,
    HierarchicalTCloseness,
    DeltaDisclosure,
    PresentValuesDeltaDisclosure,
    AlphaKAnonymity,
    BasicBetaLikeness,
    EnhancedBetaLikeness,
)

_OWNER = "mondrian"
#: Above this many leaves, a hierarchy's LCA levels are computed per query, not tabulated.
_LCA_TABLE_LIMIT = 512


# --------------------------------------------------------------------- dimensions
@dataclass(eq=False)
class _OrderedDimension:
    """A QI split at medians: ranks are the encoded codes (already in value order)."""

    name: str
    labels: list[str]
    positions: list[float]  # the value of each rank (numbers, days, or the rank itself)
    span: float  # the range of the values present in the table

    def width(self, low: int, high: int) -> float:
        """Normalized range (also the cell's NCP): (max - min) / range of the table."""
        if self.span <= 0:
            return 0.0
        return (self.positions[high] - self.positions[low]) / self.span

    def widths(self, low: np.ndarray, high: np.ndarray) -> np.ndarray:
        """:meth:`width` of many partitions at once."""
        if self.span <= 0:
            return np.zeros(len(low))
        positions = np.asarray(self.positions)
        return (positions[high] - positions[low]) / self.span

    def released(self, low: np.ndarray, high: np.ndarray) -> np.ndarray:
        """The released label of each partition: ``"[min-max]"``, or the value when min == max."""
        labels = np.asarray(self.labels, dtype=object)
        out = labels[low].copy()
        ranged = low != high
        out[ranged] = "[" + labels[low[ranged]] + "-" + labels[high[ranged]] + "]"
        return out


@dataclass(eq=False)
class _HierarchyDimension:
    """A categorical QI split along its hierarchy.

    Leaves are renumbered in depth-first order (*ranks*), so that the leaves of
    every subtree form a contiguous interval of ranks: a partition's LCA is then
    the LCA of its smallest and largest rank, read from the partition's extent.
    """

    name: str
    hierarchy: Hierarchy
    rank_maps: list[np.ndarray]  # rank_maps[l][r]: code at level l of the leaf of rank r
    rank_codes: list[list[int]]  # the same as lists (fast scalar access)
    cards: list[list[float]]  # cards[l][r]: leaves under that level-l node / all leaves
    lca_table: list[list[int]] | None
    n_leaves: int

    @classmethod
    def build(cls, name: str, hierarchy: Hierarchy) -> "_HierarchyDimension":
        leaf_of_rank = np.lexsort(tuple(hierarchy.maps))  # the top level is the primary key
        rank_maps = [np.ascontiguousarray(m[leaf_of_rank]) for m in hierarchy.maps]
        n_leaves = hierarchy.n_values(0)
        cards = [
            (hierarchy.leaf_counts(level)[rank_maps[level]] / n_leaves).tolist()
            for level in range(hierarchy.n_levels)
        ]
        table = None
        if n_leaves <= _LCA_TABLE_LIMIT:
            lca = np.full((n_leaves, n_leaves), hierarchy.height, dtype=np.int16)
            for level in range(hierarchy.height, -1, -1):
                codes = rank_maps[level]
                lca[codes[:, None] == codes[None, :]] = level
            table = lca.tolist()
        return cls(
            name, hierarchy, rank_maps, [m.tolist() for m in rank_maps], cards, table, n_leaves,
        )

    def rank_of_leaf(self) -> np.ndarray:
        leaf_of_rank = self.rank_maps[0]
        ranks = np.empty(len(leaf_of_rank), dtype=np.int32)
        ranks[leaf_of_rank] = np.arange(len(leaf_of_rank), dtype=np.int32)
        return ranks

    def lca(self, low: int, high: int) -> int:
        """The level of the lowest common ancestor of the leaves of ranks ``low`` and ``high``."""
        if self.lca_table is not None:
            return self.lca_table[low][high]
        for level, codes in enumerate(self.rank_codes):
            if codes[low] == codes[high]:
                return level
        return self.hierarchy.height  # pragma: no cover - the top level has one value

    def width(self, low: int, high: int) -> float:
        """The cell's NCP: 0 for a single leaf, else |leaves(LCA)| / |leaves|."""
        level = self.lca(low, high)
        return 0.0 if level == 0 else self.cards[level][low]

    def lcas(self, low: np.ndarray, high: np.ndarray) -> np.ndarray:
        """:meth:`lca` of many partitions at once."""
        level = np.full(len(low), self.hierarchy.height, dtype=np.int64)
        for lvl in range(self.hierarchy.height - 1, -1, -1):
            codes = self.rank_maps[lvl]
            level[codes[low] == codes[high]] = lvl
        return level

    def widths(self, low: np.ndarray, high: np.ndarray) -> np.ndarray:
        """:meth:`width` of many partitions at once."""
        level = self.lcas(low, high)
        out = np.zeros(len(low))
        for lvl in range(1, self.hierarchy.n_levels):
            at = level == lvl
            out[at] = np.asarray(self.cards[lvl])[low[at]]
        return out

    def released(self, low: np.ndarray, high: np.ndarray) -> np.ndarray:
        """The released label of each partition: the label of its values' LCA."""
        level = self.lcas(low, high)
        out = np.empty(len(low), dtype=object)
        for lvl in range(self.hierarchy.n_levels):
            at = level == lvl
            out[at] = self.hierarchy.labels[lvl][self.rank_maps[lvl][low[at]]].astype(str).astype(object)
        return out

    def split(self, column: np.ndarray, low: int, high: int, k_min: int) -> tuple[np.ndarray, np.ndarray] | None:
        """Part of each record (the child of the partition's LCA whose subtree holds it)
        and the parts' sizes, or None when a part would hold fewer than ``k_min`` records."""
        level = self.lca(low, high)
        child = self.rank_maps[level - 1][column]
        sizes = np.bincount(child)
        present = sizes > 0
        counts = sizes[present]
        if counts.min() < k_min:
            return None
        ids = np.cumsum(present) - 1
        return ids[child], counts


_Dimension = _OrderedDimension | _HierarchyDimension


@dataclass(eq=False)
class _Sensitive:
    """What a candidate's class table needs of one sensitive attribute."""

    template: SensitiveHistogram  # labels, overall (whole table), kind, hierarchy
    codes: np.ndarray  # per kept row


# ------------------------------------------------------------------------ checks
def _check_models(models: Sequence[PrivacyModel]) -> list[PrivacyModel]:
    if isinstance(models, PrivacyModel):
        models = [models]
    models = list(models)
    if not models:
        raise ParameterError(
            "At least one privacy model is needed for mondrian (e.g. models=[KAnonymity(k=5)])."
        )
    for model in models:
        if not isinstance(model, PrivacyModel):
            raise ParameterError(
                f"The 'models' parameter of mondrian must hold PrivacyModel instances. "
                f"Got {type(model).__name__} instead."
            )
        if not isinstance(model, CLASS_LOCAL_MODELS):
            supported = ", ".join(c.__name__ for c in CLASS_LOCAL_MODELS)
            raise ParameterError(
                f"mondrian cannot enforce {model.name}: it decides each split on the parts alone, so it "
                f"supports only models judged class by class ({supported}). Use the lattice search "
                "(veil.anonymize) for table-level and population-based models."
            )
    return models


def _min_class_size(models: Sequence[PrivacyModel]) -> int:
    """A size every part must reach (a necessary condition that skips hopeless splits)."""
    sizes = [1]
    for model in models:
        if isinstance(model, (KAnonymity, KLinkAnonymity, AlphaKAnonymity)):
            sizes.append(model.k)
        elif isinstance(model, DistinctLDiversity):
            sizes.append(model.l)
    return max(sizes)


def _ordered_dimension(dataset: Dataset, name: str, kind: Kind, codes: np.ndarray) -> _OrderedDimension:
    encoded = dataset.encode(name)
    labels = [str(v) for v in encoded.labels]
    if kind is Kind.NUMERIC:
        positions = pd.to_numeric(pd.Series(encoded.labels, dtype=object), errors="coerce").to_numpy(float)
    elif kind is Kind.DATE:
        dates = pd.to_datetime(pd.Series(encoded.labels, dtype=object), errors="coerce", format="mixed")
        positions = np.where(dates.isna(), np.nan, dates.to_numpy().astype("datetime64[s]").astype(np.int64)
                             / 86400.0)
    else:  # ordinal (declared order) or categorical read in label order
        positions = np.arange(encoded.n_values, dtype=float)
    present = np.bincount(codes, minlength=encoded.n_values) > 0
    if np.isnan(positions[present]).any():
        raise SchemaError(
            f"The {kind.value} quasi-identifier {name!r} has missing values, which have no place in "
            "its order; mondrian cannot split it at a median. Fill them, or make the column "
            "categorical with a hierarchy that places the missing value."
        )
    values = positions[present]
    span = float(values.max() - values.min()) if len(values) else 0.0
    return _OrderedDimension(name, labels, np.nan_to_num(positions).tolist(), span)


def _dimensions(
    dataset: Dataset, keep: np.ndarray, categorical: str,
) -> tuple[list[_Dimension], np.ndarray]:
    """One dimension per QI and the ``(n_kept, n_qi)`` int32 rank matrix."""
    qis = dataset.quasi_identifiers
    dims: list[_Dimension] = []
    columns: list[np.ndarray] = []
    for name in qis:
        kind = dataset.schema.kind(name)
        encoded = dataset.encode(name)
        codes = encoded.codes[keep]
        if kind.ordered or categorical == "ordered":
            dims.append(_ordered_dimension(dataset, name, kind, codes))
            columns.append(codes.astype(np.int32, copy=False))
            continue
        hierarchy = dataset.hierarchies.get(name)
        if hierarchy is None:
            raise HierarchyError(
                f"mondrian needs a hierarchy for the categorical quasi-identifier {name!r}: it splits "
                f"categorical values along the hierarchy's subtrees. Give one (hierarchies={{{name!r}: ...}}), "
                f"declare {name!r} ordinal with its order (kinds={{{name!r}: 'ordinal'}}, domains=...), "
                "or pass categorical='ordered' to split it in label order."
            )
        if hierarchy.name != name:
            hierarchy = hierarchy.renamed(name)
        if encoded.missing_code >= 0:
            hierarchy = hierarchy.with_value(MISSING)
        needed = np.bincount(codes, minlength=encoded.n_values) > 0
        leaf = np.full(encoded.n_values, -1, dtype=np.int32)
        leaf[needed] = hierarchy.leaf_index(encoded.labels[needed], column=name)
        dim = _HierarchyDimension.build(name, hierarchy)
        ranks = dim.rank_of_leaf()
        dims.append(dim)
        columns.append(ranks[leaf[codes]])
    matrix = np.column_stack(columns).astype(np.int32, copy=False) if columns else np.zeros((0, 0), np.int32)
    return dims, np.ascontiguousarray(matrix)


def _sensitive(dataset: Dataset, models: Sequence[PrivacyModel], keep: np.ndarray) -> dict[str, _Sensitive]:
    """The sensitive attributes the models read, with the whole table's distribution."""
    names: list[str] = []
    for model in models:
        name = getattr(model, "sensitive", None)
        if not isinstance(name, str) or name in names:
            continue
        if name not in dataset.columns:
            raise ParameterError(
                f"The sensitive attribute {name!r} of {model.name} is not a column of the table; "
                f"its columns are: {', '.join(dataset.columns)}."
            )
        if name in dataset.quasi_identifiers:
            raise ParameterError(
                f"The sensitive attribute {name!r} of {model.name} is a quasi-identifier; "
                "a column has one role."
            )
        names.append(name)
    out: dict[str, _Sensitive] = {}
    for name in names:
        encoded = dataset.encode(name)
        overall = np.bincount(encoded.codes, minlength=encoded.n_values).astype(np.int64)
        hierarchy = dataset.hierarchies.get(name)
        if hierarchy is not None:
            if encoded.missing_code >= 0:
                hierarchy = hierarchy.with_value(MISSING)
            hierarchy.leaf_index(encoded.labels[overall > 0], column=name)
        template = SensitiveHistogram(
            name, encoded.labels, np.zeros((0, encoded.n_values), np.int64), overall,
            dataset.schema.kind(name), hierarchy,
        )
        out[name] = _Sensitive(template, encoded.codes[keep].astype(np.int64))
    return out


# ------------------------------------------------------------------ the algorithm
class _Judge:
    """Evaluates the models on a candidate split: the parts are the classes of one ClassTable."""

    def __init__(
        self, dataset: Dataset, models: Sequence[PrivacyModel], sensitive: dict[str, _Sensitive],
        input_suppressed: int,
    ) -> None:
        self.models = list(models)
        self.sensitive = sensitive
        self.qis = tuple(dataset.quasi_identifiers)
        # class-local models read only counts and histograms; the QI side of the
        # table is a placeholder (flat hierarchies, codes all 0, never read)
        self.hierarchies = tuple(Hierarchy.flat(["-"], name=q) for q in self.qis)
        self.levels = tuple(0 for _ in self.qis)
        self.n_records = dataset.n_records
        self.input_suppressed = input_suppressed

    def table(self, part: np.ndarray, n_parts: int, counts: np.ndarray, rows: np.ndarray) -> ClassTable:
        """The class table whose class ``j`` is the records ``rows[part == j]``."""
        histograms = {}
        for name, s in self.sensitive.items():
            t = s.template
            v = t.n_values
            flat = part * v + s.codes[rows]
            hist = np.bincount(flat, minlength=n_parts * v).reshape(n_parts, v)
            histograms[name] = SensitiveHistogram(name, t.labels, hist, t.overall, t.kind, t.hierarchy)
        q = len(self.qis)
        # Built directly (the documented builders start from rows): a class table of
        # the candidate parts only, with the whole table's reference distributions.
        return ClassTable(
            quasi_identifiers=self.qis,
            hierarchies=self.hierarchies,
            levels=self.levels,
            codes=lambda: np.zeros((n_parts, q), dtype=np.int32),
            counts=counts,
            n_records=self.n_records,
            suppressed=self.input_suppressed,
            input_suppressed=self.input_suppressed,
            base=None,
            base_map=np.arange(n_parts, dtype=np.int64),
            sensitive=histograms,
        )

    def failing(self, table: ClassTable) -> list[PrivacyModel]:
        return [m for m in self.models if not m.check(table)]

    def allows(self, part: np.ndarray, n_parts: int, counts: np.ndarray, rows: np.ndarray) -> bool:
        table = self.table(part, n_parts, counts, rows)
        return all(m.check(table) for m in self.models)


def _split_ordered(
    column: np.ndarray, strict: bool, rng: np.random.Generator | None,
) -> np.ndarray:
    """Part (0 = left, 1 = right) of each record for a median split, or an empty array.

    Strict: the cut lies between two distinct values.  The median is the lower
    median ``x[(m-1)//2]`` of the sorted values; the cut is ``x <= median``
    or, when that is more balanced (or leaves nothing on the right), ``x < median``.
    Relaxed: the ``m // 2`` smallest records go left; records equal to the
    median may fall on both sides (ties ordered by row, or at random with a seed).
    """
    m = len(column)
    if strict:
        ordered = np.sort(column)
        median = ordered[(m - 1) // 2]
        at_most = int(np.searchsorted(ordered, median, side="right"))
        below = int(np.searchsorted(ordered, median, side="left"))
        if at_most < m and (below == 0 or abs(2 * at_most - m) <= abs(2 * below - m)):
            return (column > median).astype(np.int64)
        if below > 0:
            return (column >= median).astype(np.int64)
        return np.zeros(0, dtype=np.int64)  # pragma: no cover - a constant column has width 0
    if rng is None:
        order = np.argsort(column, kind="stable")
    else:
        order = np.lexsort((rng.random(m), column))
    part = np.ones(m, dtype=np.int64)
    part[order[: m // 2]] = 0
    return part


def mondrian(
    dataset: Dataset,
    models: Sequence[PrivacyModel],
    *,
    suppression_limit: float = 0.0,
    strict: bool = True,
    categorical: str = "hierarchy",
    seed: int | None = None,
) -> Recoding:
    """Anonymize ``dataset`` with Mondrian multidimensional partitioning.

    Greedy top-down partitioning (LeFevre et al. 2006, Algorithm 1): a
    partition is split along the QI with the widest normalized range, at the
    median for an ordered QI or into the child subtrees of its hierarchy node
    for a categorical one, when every part satisfies every model (an
    *allowable* split); when that split is not allowable the next widest QI is
    tried; a partition that no QI can split is final and becomes a class.

    Parameters
    ----------
    dataset : Dataset
        The table and its schema.  QIs of kind ``numeric``, ``date`` and
        ``ordinal`` are split at medians (by value, by date, in the declared
        order); ``categorical`` QIs along their hierarchy (see ``categorical``).
        A hierarchy given for an ordered QI is not used.
    models : sequence of PrivacyModel
        Every model must hold on every class of the output.  Only models judged
        class by class are supported (:data:`CLASS_LOCAL_MODELS`: k-anonymity,
        l-diversity, t-closeness, δ-disclosure, (α,k)-anonymity, β-likeness,
        maximum prosecutor risk); t-closeness and the like compare each class
        with the distribution of the whole table.
    suppression_limit : float in [0, 1], default 0.0
        Accepted for the signature shared with the other algorithms, and
        validated.  Mondrian never suppresses: when the whole table satisfies
        the models, every final partition does too; when it does not,
        :class:`~veil.errors.InfeasibleError` is raised whatever the limit
        (suppressing records to make the root satisfy entropy l-diversity, say,
        is not implemented).
    strict : bool, default True
        Strict partitioning: the parts of a median split do not overlap
        (``left <= median < right``; the cut is moved just below the median
        when that is more balanced or nothing lies above it).  ``False``:
        relaxed partitioning, which splits at the exact middle of the sorted
        records, so records equal to the median may go to both parts: parts are
        balanced but released ranges may overlap (``[30-40]`` next to ``30``).
        With k-anonymity alone, a relaxed partition of ``2k`` records or more
        is one whose ordered QIs are all constant (and whose categorical splits
        all fail), so classes mostly hold ``k`` to ``2k - 1`` records.
        Categorical splits follow the hierarchy either way.
    categorical : {"hierarchy", "ordered"}, default "hierarchy"
        How a QI of kind ``categorical`` is split: along its hierarchy (one is
        required), or as an ordered attribute in label order (lexicographic),
        released as a label range ``"[first-last]"`` — only meaningful when
        that order means something.
    seed : int, optional
        Randomizes tie-breaking: between QIs of equal normalized range, and, in
        relaxed mode, which records equal to the median go left.  ``None`` (the
        default) uses no randomness: ties go to the QI listed first and to the
        earlier row.

    Returns
    -------
    Recoding
        ``data``: every input column, row-aligned with the input (row ``i`` is
        input record ``i``; shuffle before release, as :func:`veil.anonymize`
        does), QIs replaced by their released labels.  ``groups``: the number of
        partitions.  ``details``: ``partitions``, ``released_classes``
        (distinct label combinations; equal to ``partitions`` unless two
        partitions get identical labels), ``splits`` per QI, ``strict``,
        ``categorical``, ``dimensions`` (how each QI was split), ``ncp`` and
        ``ncp_per_attribute``, ``smallest_partition``, ``largest_partition``,
        ``models``, ``suppression_limit``, ``seed``.

    Raises
    ------
    ParameterError
        Bad parameters, no model, a model that is not judged class by class,
        or a model that cannot be met at all (e.g. ``l`` above the number of
        distinct sensitive values).
    HierarchyError
        A categorical QI has no hierarchy (with ``categorical="hierarchy"``),
        or a hierarchy misses a value.
    SchemaError
        A numeric or date QI has missing values.
    InfeasibleError
        The whole table does not satisfy the models (e.g. ``k`` above the
        number of records), so no partitioning can.

    Notes
    -----
    Normalized range of a QI in a partition :math:`P`, also its Normalized
    Certainty Penalty (Xu et al. 2006):

    .. math::
        \\mathrm{NCP}_A(P) = \\frac{\\max_P A - \\min_P A}{\\max_T A - \\min_T A}
        \\ \\text{(ordered)}, \\qquad
        \\mathrm{NCP}_A(P) = \\begin{cases} 0 & |\\mathrm{leaves}(u)| = 1 \\\\
        |\\mathrm{leaves}(u)| / |\\mathrm{leaves}(A)| & \\text{otherwise}\\end{cases}
        \\ \\text{(categorical)}

    with :math:`u` the LCA of the partition's values and the leaves counted in
    the hierarchy.  ``details["ncp"]`` is the average over all cells (Xu et
    al.'s GCP): :math:`\\sum_P |P| \\sum_A \\mathrm{NCP}_A(P) / (n \\cdot q)`
    (records that arrived suppressed count 1 per cell).

    Every requested model is class-local, hence judged on the parts of a split
    alone; the final partitions satisfy the models by construction and are
    checked once more, merged by released labels, before returning.
    :func:`veil.anonymization.verify` re-checks the released table from its
    rows.

    References
    ----------
    K. LeFevre, D. J. DeWitt, R. Ramakrishnan, "Mondrian multidimensional
    k-anonymity", ICDE 2006, Section 4 (Algorithm 1; strict and relaxed
    multidimensional partitioning).  Xu et al., "Utility-based anonymization
    using local recoding", KDD 2006, Section 3 (NCP and GCP).

    Examples
    --------
    >>> import pandas as pd
    >>> from veil.dataset import Dataset
    >>> from veil.models import KAnonymity
    >>> frame = pd.DataFrame({"age": ["21", "23", "35", "37"], "zip": ["100", "100", "200", "200"]})
    >>> ds = Dataset.from_pandas(frame, quasi_identifiers=["age"], kinds={"age": "numeric"})
    >>> mondrian(ds, [KAnonymity(k=2)]).data["age"].tolist()
    ['[21-23]', '[21-23]', '[35-37]', '[35-37]']
    """
    start = time.perf_counter()
    models = _check_models(models)
    suppression_limit = check_real("suppression_limit", suppression_limit, _OWNER, low=0, high=1)
    if not isinstance(strict, bool):
        raise ParameterError(f"The 'strict' parameter of mondrian must be a bool. Got {strict!r} instead.")
    check_choice("categorical", categorical, _OWNER, ("hierarchy", "ordered"))
    if seed is not None and (isinstance(seed, bool) or not isinstance(seed, numbers.Integral)):
        raise ParameterError(f"The 'seed' parameter of mondrian must be an int or None. Got {seed!r} instead.")
    seed = None if seed is None else int(seed)
    if not isinstance(dataset, Dataset):
        raise ParameterError(f"mondrian expects a Dataset. Got {type(dataset).__name__} instead.")
    qis = dataset.quasi_identifiers
    if not qis:
        raise ParameterError("The dataset declares no quasi-identifiers; there is nothing to anonymize.")
    n = dataset.n_records
    if n == 0:
        raise SchemaError("The table has no records; there is nothing to anonymize.")

    # records that arrived suppressed ("*" in every QI) stay suppressed and form no partition
    star_rows = np.ones(n, dtype=np.bool_)
    for name in qis:
        encoded = dataset.encode(name)
        star = np.flatnonzero(encoded.labels == SUPPRESSED_LABEL)
        star_rows &= encoded.codes == (star[0] if len(star) else -2)
    keep = ~star_rows
    input_suppressed = int(star_rows.sum())
    dims, ranks = _dimensions(dataset, keep, categorical)
    sensitive = _sensitive(dataset, models, keep)
    judge = _Judge(dataset, models, sensitive, input_suppressed)
    rng = None if seed is None else np.random.default_rng(seed)
    q = len(dims)
    n_kept = int(keep.sum())

    root = np.arange(n_kept, dtype=np.int64)
    if n_kept == 0:
        failing = judge.failing(judge.table(np.zeros(0, np.int64), 0, np.zeros(0, np.int64), root))
    else:
        failing = judge.failing(judge.table(np.zeros(n_kept, np.int64), 1, np.array([n_kept]), root))
    if failing or n_kept == 0:
        names = ", ".join(m.name for m in failing) or "every model (no record is left to release)"
        raise InfeasibleError(
            f"The whole table ({n_kept} records) does not satisfy {names}, so no partition of it can: "
            "Mondrian only splits partitions that satisfy the models, and it does not suppress records "
            f"(suppression_limit={suppression_limit:g} is not used for this). Relax the models, or use "
            "veil.anonymize, which can suppress."
        )

    k_min = _min_class_size(models)
    splits = [0] * q
    final_rows: list[np.ndarray] = []
    final_low: list[list[int]] = []
    final_high: list[list[int]] = []
    tie = rng.random(q).tolist() if rng is not None else [0.0] * q
    stack: list[tuple[np.ndarray, np.ndarray]] = [(root, ranks)]
    while stack:
        rows, sub = stack.pop()
        m = len(rows)
        low = sub.min(axis=0).tolist()
        high = sub.max(axis=0).tolist()
        children: list[tuple[np.ndarray, np.ndarray]] | None = None
        if m >= 2 * k_min:
            if rng is not None:
                tie = rng.random(q).tolist()
            widths = [dims[d].width(low[d], high[d]) for d in range(q)]
            order = sorted((d for d in range(q) if widths[d] > 0), key=lambda d: (-widths[d], tie[d]))
            for d in order:
                dim = dims[d]
                if isinstance(dim, _HierarchyDimension):
                    found = dim.split(sub[:, d], low[d], high[d], k_min)
                    if found is None:
                        continue
                    part, counts = found
                else:
                    if not strict and m // 2 < k_min:
                        continue
                    part = _split_ordered(sub[:, d], strict, rng)
                    if len(part) == 0:  # pragma: no cover - width > 0 means two values
                        continue
                    counts = np.bincount(part, minlength=2)
                    if counts.min() < k_min:
                        continue
                n_parts = len(counts)
                if not judge.allows(part, n_parts, counts, rows):
                    continue
                splits[d] += 1
                if n_parts == 2:
                    left = part == 0
                    right = ~left
                    children = [(rows[right], sub[right]), (rows[left], sub[left])]
                else:
                    order_rows = np.argsort(part, kind="stable")
                    bounds = np.cumsum(counts)[:-1]
                    children = list(zip(np.split(rows[order_rows], bounds), np.split(sub[order_rows], bounds)))
                    children.reverse()
                break
        if children is None:
            final_rows.append(rows)
            final_low.append(low)
            final_high.append(high)
        else:
            stack.extend(children)

    # ------------------------------------------------------------ release
    n_parts = len(final_rows)
    sizes = np.fromiter((len(r) for r in final_rows), dtype=np.int64, count=n_parts)
    row_part = np.empty(n_kept, dtype=np.int64)
    for p, rows in enumerate(final_rows):
        row_part[rows] = p
    out = dataset.frame.copy()
    label_columns: list[np.ndarray] = []
    ncp_attribute: dict[str, float] = {}
    lows = np.array(final_low, dtype=np.int64).reshape(n_parts, q)
    highs = np.array(final_high, dtype=np.int64).reshape(n_parts, q)
    for d, dim in enumerate(dims):
        part_labels = dim.released(lows[:, d], highs[:, d])
        label_columns.append(part_labels)
        column = np.full(n, SUPPRESSED_LABEL, dtype=object)
        column[keep] = part_labels[row_part]
        out[dim.name] = pd.array(column, dtype=object)
        widths = dim.widths(lows[:, d], highs[:, d])
        ncp_attribute[dim.name] = float((sizes @ widths + input_suppressed) / n)

    # two partitions released with identical labels form one class: check it too
    keys = pd.MultiIndex.from_arrays(label_columns) if q > 1 else pd.Index(label_columns[0])
    merged, uniques = pd.factorize(keys)
    released_classes = len(uniques)
    if released_classes < n_parts:
        merged_rows = merged[row_part].astype(np.int64)
        counts = np.bincount(merged, weights=sizes, minlength=released_classes).astype(np.int64)
        failing = judge.failing(judge.table(merged_rows, released_classes, counts, np.arange(n_kept)))
        if failing:
            names = ", ".join(m.name for m in failing)
            raise InfeasibleError(
                f"Partitions released with identical labels merge into one class that fails {names} "
                f"(a model that is not monotone under merging classes); use strict=True."
            )

    ncp = float(sum(ncp_attribute.values()) / q)
    details: dict[str, Any] = {
        "partitions": n_parts,
        "released_classes": released_classes,
        "splits": {dim.name: splits[d] for d, dim in enumerate(dims)},
        "strict": strict,
        "categorical": categorical,
        "dimensions": {
            dim.name: "hierarchy" if isinstance(dim, _HierarchyDimension) else "ordered" for dim in dims
        },
        "ncp": ncp,
        "ncp_per_attribute": ncp_attribute,
        "smallest_partition": int(sizes.min()),
        "largest_partition": int(sizes.max()),
        "models": [m.name for m in models],
        "suppression_limit": suppression_limit,
        "seed": seed,
    }
    return Recoding(
        data=out,
        algorithm="mondrian",
        suppressed=input_suppressed,
        groups=n_parts,
        seconds=time.perf_counter() - start,
        details=details,
    )
