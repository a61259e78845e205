"""The marginals of a class table too large to fetch, shared by the engines' synthesis sources.

An engine counts the class table of a synthesis before fetching it
(:mod:`veil.dp.synthesis._engine` for DuckDB, :mod:`._engine_spark` for
Spark).  Up to :data:`MAX_CLASS_BYTES` (:func:`class_table_bytes`) it is
fetched as a :class:`~veil.dp.synthesis._source.ClassTable`
(:func:`arrow_class_table`); past it, every 1-, 2- and 3-way marginal is
summed in the engine by one query of ``GROUPING SETS``
(:func:`grouping_sets_sql`, the same SQL on both engines), decoded by
:func:`decode_grouping_sets` into :class:`MarginalQueries`, and the synthetic
rows' marginals are tallied per combination (:class:`MarginalTally`).
"""

from __future__ import annotations

import itertools
from typing import Any, Sequence

import numpy as np

from veil.dp.synthesis._source import ClassTable, ClassTally

__all__ = ["MAX_CLASS_BYTES", "DENSE_CELLS", "class_table_bytes", "marginal_combos", "arrow_class_table",
           "grouping_sets_sql", "decode_grouping_sets", "MarginalTally", "MarginalQueries"]

#: The largest class table fetched (codes and counts, in bytes); past it, marginals are counted one by one.
MAX_CLASS_BYTES = 1 << 28
#: A synthetic marginal of at most this many cells is tallied densely.
DENSE_CELLS = 1 << 22


def class_table_bytes(classes: int, columns: int) -> int:
    """The size of a fetched class table of ``classes`` rows over ``columns`` codes (and a count), in bytes."""
    return int(classes) * 8 * (int(columns) + 1)


def arrow_class_table(table: Any, sizes: Sequence[int]) -> ClassTable:
    """The class table of an Arrow table of codes ``c0 …`` and counts ``n``."""
    d = len(sizes)
    matrix = np.column_stack([table.column(f"c{j}").to_numpy().astype(np.int64) for j in range(d)]) \
        if table.num_rows else np.zeros((0, d), dtype=np.int64)
    return ClassTable(matrix, table.column("n").to_numpy().astype(np.int64), tuple(int(k) for k in sizes))


def marginal_combos(d: int, max_way: int = 3, cliques: Sequence[Sequence[int]] = ()) -> list[tuple[int, ...]]:
    """Every 1- to ``max_way``-way combination of ``d`` columns, then every wider subset of the
    ``cliques`` (a workload's marginals: AIM measures their subsets), each once, sorted."""
    combos = [c for w in range(1, min(max_way, d) + 1) for c in itertools.combinations(range(d), w)]
    wider = {s for cl in cliques for w in range(max_way + 1, len(cl) + 1)
             for s in itertools.combinations(sorted(cl), w)}
    return combos + sorted(wider, key=lambda c: (len(c), c))


def grouping_sets_sql(classes: str, sizes: Sequence[int], max_way: int = 3,
                      cliques: Sequence[Sequence[int]] = ()) -> tuple[str, list[tuple[int, ...]]]:
    """The one ``GROUPING SETS`` query (DuckDB's and Spark's SQL alike) of every 1- to
    ``max_way``-way marginal of the class table ``classes`` and of every wider subset of the
    ``cliques``, and those combinations (:func:`marginal_combos`)."""
    d = len(sizes)
    combos = marginal_combos(d, max_way, cliques)
    codes = ", ".join(f"c{j}" for j in range(d))
    sets = ", ".join("(" + ", ".join(f"c{j}" for j in c) + ")" for c in combos)
    return (f"SELECT {codes}, grouping_id({codes}) AS g, sum(n) AS n FROM {classes} "
            f"GROUP BY GROUPING SETS ({sets})"), combos


def decode_grouping_sets(table: Any, sizes: Sequence[int], combos: Sequence[tuple[int, ...]]
                         ) -> dict[tuple[int, ...], tuple[np.ndarray, np.ndarray]]:
    """The result of :func:`grouping_sets_sql` (an Arrow table) per combination: its non-empty
    cells' keys (sorted) and counts."""
    d = len(sizes)
    g = table.column("g").to_numpy(zero_copy_only=False)
    n = table.column("n").to_numpy(zero_copy_only=False).astype(float)
    cols = [table.column(f"c{j}").to_numpy(zero_copy_only=False) for j in range(d)]
    out = {}
    for c in combos:  # grouping_id(): bit d-1-j set when column j is not grouped
        mask = g == sum(1 << (d - 1 - j) for j in range(d) if j not in c)
        key = np.ravel_multi_index(tuple(cols[j][mask].astype(np.int64) for j in c), tuple(sizes[j] for j in c))
        order = np.argsort(key)
        out[c] = (key[order], n[mask][order])
    return out


class MarginalTally:
    """The synthetic rows' marginals of every 1-, 2- and 3-way combination (and of ``combos`` when
    given), accumulated chunk by chunk (the counterpart of :class:`MarginalQueries`, whose class
    table was too large to hold): a dense count table per combination of at most
    :data:`DENSE_CELLS` cells, else a class tally."""

    def __init__(self, sizes: Sequence[int], max_way: int = 3,
                 combos: Sequence[tuple[int, ...]] | None = None) -> None:
        self.sizes = tuple(int(k) for k in sizes)
        self.combos = list(combos) if combos is not None else marginal_combos(len(sizes), max_way)
        self._dense = {c: np.zeros(int(np.prod([self.sizes[i] for i in c]))) for c in self.combos
                       if float(np.prod([float(self.sizes[i]) for i in c])) <= DENSE_CELLS}
        self._tallies = {c: ClassTally([self.sizes[i] for i in c]) for c in self.combos if c not in self._dense}
        self.total = 0.0

    def add(self, codes: np.ndarray) -> None:
        self.total += len(codes)
        for c, counts in self._dense.items():
            key = np.ravel_multi_index(tuple(codes[:, list(c)].T), tuple(self.sizes[i] for i in c))
            counts += np.bincount(key, minlength=counts.size)
        for c, tally in self._tallies.items():
            tally.add(codes[:, list(c)])

    def table(self) -> "MarginalTally":
        return self

    def sparse(self, cols: Sequence[int]) -> tuple[np.ndarray, np.ndarray]:
        c = tuple(int(i) for i in cols)
        if c in self._dense:
            keys = np.nonzero(self._dense[c])[0]
            return keys, self._dense[c][keys]
        return self._tallies[c].table().sparse(range(len(cols)))

    def marginal(self, cols: Sequence[int]) -> np.ndarray:
        return _dense(self.sizes, cols, *self.sparse(cols))


class MarginalQueries:
    """The marginals of a class table too large to fetch, counted in the engine (every 1-, 2- and
    3-way combination and the workload's wider marginals, :func:`grouping_sets_sql`): what MST and
    AIM measure and the report compares."""

    def __init__(self, sizes: Sequence[int], sparse: dict[tuple[int, ...], tuple[np.ndarray, np.ndarray]],
                 max_way: int = 3) -> None:
        self.sizes = tuple(int(k) for k in sizes)
        self.max_way = max_way
        self._sparse = sparse

    @property
    def total(self) -> float:
        """The number of records kept."""
        return float(self._sparse[(0,)][1].sum())

    def tally(self) -> MarginalTally:
        """An empty tally of the same combinations (for the synthetic rows)."""
        return MarginalTally(self.sizes, self.max_way, combos=list(self._sparse))

    def sparse(self, cols: Sequence[int]) -> tuple[np.ndarray, np.ndarray]:
        key = tuple(int(c) for c in cols)
        if key not in self._sparse:
            raise ValueError(f"the marginal of columns {key} is not counted (at most {self.max_way} columns, "
                             "or a subset of a workload marginal)")
        return self._sparse[key]

    def marginal(self, cols: Sequence[int]) -> np.ndarray:
        return _dense(self.sizes, cols, *self.sparse(cols))


def _dense(sizes: Sequence[int], cols: Sequence[int], keys: np.ndarray, counts: np.ndarray) -> np.ndarray:
    """The dense count table of ``cols`` from its non-empty cells."""
    dims = tuple(sizes[int(c)] for c in cols)
    return np.bincount(keys, weights=counts, minlength=int(np.prod(dims))).reshape(dims)
