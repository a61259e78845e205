"""Mondrian's dimensions: how each quasi-identifier is split and released.

An ordered QI (numeric, date, ordinal) is split at medians and released as a
``"[min-max]"`` range; a categorical QI is split into the child subtrees of its
hierarchy node and released as that node's label.  Each dimension works on
``int32`` *ranks* (value order, or depth-first leaf order of the hierarchy), so
a partition's extent on a QI is its smallest and largest rank.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd

from veil.dataset import MISSING, Dataset
from veil.errors import HierarchyError, SchemaError
from veil.hierarchy import Hierarchy
from veil.schema import Kind

#: Above this many leaves, a hierarchy's LCA levels are computed per query, not tabulated.
_LCA_TABLE_LIMIT = 512


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

