"""The generalization hierarchy: level maps over leaf codes, labels per level."""

from __future__ import annotations

from collections.abc import Sequence
from functools import cached_property
from pathlib import Path

import numpy as np
import pandas as pd

from veil.errors import HierarchyError

__all__ = ["Hierarchy"]


#: How many lists of values :meth:`Hierarchy.leaf_index` keeps answers for (oldest dropped first).
_LEAF_CACHE = 32


class Hierarchy:
    """A value generalization hierarchy for one attribute.

    Level 0 holds the original values (the *leaves*); each higher level
    replaces every value by a coarser one; the top level has one value
    (usually ``*``, i.e. suppressed).  veil stores it as integer maps: for
    each level ``l``, ``maps[l][leaf]`` is the code of that leaf's
    generalization at level ``l`` and ``labels[l][code]`` its text.

    A valid hierarchy is *monotone*: two leaves with the same parent at level
    ``l`` share their parent at level ``l + 1`` (each level coarsens the one
    below), and it has a single top value.  Both are checked on construction.

    Build one with :meth:`from_rows` or the builders of :mod:`veil.hierarchy`
    (ARX-style CSV, intervals, masking, dates, taxonomy trees).

    Examples
    --------
    >>> h = Hierarchy.from_rows([["47677", "4767*", "*"], ["47678", "4767*", "*"],
    ...                          ["47905", "4790*", "*"]])
    >>> h.height, h.label(1, h.maps[1][0])
    (2, '4767*')
    """

    def __init__(self, labels: Sequence[np.ndarray], maps: Sequence[np.ndarray], *, name: str = "") -> None:
        self.name = name
        self.labels: tuple[np.ndarray, ...] = tuple(np.asarray(l, dtype=object) for l in labels)
        self.maps: tuple[np.ndarray, ...] = tuple(np.asarray(m, dtype=np.int32) for m in maps)
        for m in self.maps:
            m.setflags(write=False)
        self._validate()
        self._rollups: dict[tuple[int, int], np.ndarray] = {}
        self._leaf_indexes: dict[tuple[object, ...], np.ndarray] = {}

    # ----------------------------------------------------------------- building
    @classmethod
    def from_rows(cls, rows: Sequence[Sequence[str]], *, name: str = "", source: str = "") -> "Hierarchy":
        """Build from one row per leaf: the leaf, then its generalizations, top last.

        Raises
        ------
        HierarchyError
            No rows, rows of different lengths (naming the row), a leaf listed
            twice, non-monotone levels or more than one top value.
        """
        where = f" in {source}" if source else ""
        what = f"The hierarchy of {name!r}" if name else "The hierarchy"
        rows = [list(map(str, r)) for r in rows]
        if not rows:
            raise HierarchyError(f"{what}{where} has no rows; it needs one row per value.")
        width = len(rows[0])
        for i, row in enumerate(rows):
            if len(row) != width:
                raise HierarchyError(
                    f"{what}{where}: row {i + 1} (value {row[0]!r}) has {len(row)} levels but row 1 "
                    f"has {width}; every row needs the same number of levels."
                )
        if width < 1:
            raise HierarchyError(f"{what}{where} has empty rows.")
        matrix = np.array(rows, dtype=object).reshape(len(rows), width)
        blank = pd.DataFrame(matrix).apply(lambda column: column.str.strip().eq("")).to_numpy()
        if blank.any():
            row, level = (int(i[0]) for i in np.nonzero(blank))
            raise HierarchyError(
                f"{what}{where}: row {row + 1} has an empty label at level {level}; every value and "
                "generalization needs a label (an empty one is read back as missing)."
            )
        leaves = pd.Series(matrix[:, 0])
        dup = leaves[leaves.duplicated()]
        if len(dup):
            raise HierarchyError(f"{what}{where} lists the value {dup.iloc[0]!r} twice.")
        labels, maps = [], []
        for level in range(width):
            codes, uniques = pd.factorize(pd.Series(matrix[:, level], dtype=object), sort=False)
            labels.append(np.asarray(uniques, dtype=object))
            maps.append(codes.astype(np.int32))
        if width == 1:
            raise HierarchyError(
                f"{what}{where} has only the original values; add at least a top level (e.g. '*')."
            )
        return cls(labels, maps, name=name)

    @classmethod
    def flat(cls, values: Sequence[str], *, top: str = "*", name: str = "") -> "Hierarchy":
        """Two levels: the values themselves and a single top (suppression only)."""
        values = list(dict.fromkeys(map(str, values)))
        if not values:  # the error of an empty hierarchy
            return cls.from_rows([], name=name)
        # the two level maps directly (what from_rows derives from the rows [value, top])
        n = len(values)
        leaves = np.empty(n, dtype=object)
        leaves[:] = values
        return cls([leaves, np.array([str(top)], dtype=object)],
                   [np.arange(n, dtype=np.int32), np.zeros(n, dtype=np.int32)], name=name)

    # --------------------------------------------------------------- validation
    def _validate(self) -> None:
        what = f"The hierarchy of {self.name!r}" if self.name else "The hierarchy"
        if len(self.maps) != len(self.labels) or len(self.maps) < 2:
            raise HierarchyError(f"{what} needs at least two levels (values and a top).")
        n = len(self.maps[0])
        if not np.array_equal(self.maps[0], np.arange(n)):
            raise HierarchyError(f"{what}: level 0 must list each value once, in leaf order.")
        for level in range(1, len(self.maps)):
            lower, upper = self.maps[level - 1], self.maps[level]
            if len(upper) != n:
                raise HierarchyError(f"{what}: level {level} does not cover every value.")
            parent = np.full(len(self.labels[level - 1]), -1, dtype=np.int64)
            parent[lower] = upper
            conflict = parent[lower] != upper
            if conflict.any():
                leaf = int(np.flatnonzero(conflict)[0])
                child = self.labels[level - 1][lower[leaf]]
                first = self.labels[level][parent[lower[leaf]]]
                second = self.labels[level][upper[leaf]]
                raise HierarchyError(
                    f"{what} is not monotone: at level {level - 1} the value {child!r} generalizes "
                    f"to both {first!r} and {second!r} at level {level}; each value must have "
                    "one parent (leaves that share a parent must share every higher ancestor)."
                )
        if len(self.labels[-1]) != 1:
            tops = ", ".join(repr(t) for t in self.labels[-1][:5])
            raise HierarchyError(
                f"{what} has {len(self.labels[-1])} values at its top level ({tops}); "
                "the top level must have a single value such as '*'."
            )

    # ----------------------------------------------------------------- queries
    @property
    def height(self) -> int:
        """The highest level (levels are 0..height)."""
        return len(self.maps) - 1

    @property
    def n_levels(self) -> int:
        return len(self.maps)

    @property
    def leaves(self) -> np.ndarray:
        return self.labels[0]

    def n_values(self, level: int) -> int:
        """The number of distinct values at ``level``."""
        return len(self.labels[level])

    def label(self, level: int, code: int) -> str:
        return str(self.labels[level][code])

    def rollup(self, from_level: int, to_level: int) -> np.ndarray:
        """Map codes at ``from_level`` to codes at ``to_level`` (``to_level >= from_level``)."""
        if to_level < from_level:
            raise HierarchyError(
                f"Cannot roll up from level {from_level} to the finer level {to_level}."
            )
        key = (from_level, to_level)
        cached = self._rollups.get(key)
        if cached is None:
            cached = np.empty(len(self.labels[from_level]), dtype=np.int32)
            cached[self.maps[from_level]] = self.maps[to_level]
            cached.setflags(write=False)
            self._rollups[key] = cached
        return cached

    @cached_property
    def _leaf_counts(self) -> tuple[np.ndarray, ...]:
        return tuple(np.bincount(m, minlength=len(l)) for m, l in zip(self.maps, self.labels))

    def leaf_counts(self, level: int) -> np.ndarray:
        """For each value at ``level``, how many leaves it covers (used by ILoss)."""
        return self._leaf_counts[level]

    @cached_property
    def _leaf_lookup(self) -> pd.Index:
        return pd.Index(self.labels[0])

    def leaf_index(self, values: Sequence[str] | np.ndarray, *, column: str = "") -> np.ndarray:
        """The leaf code of each of ``values`` (read-only; cached per distinct list of values).

        The search asks for the same column's labels at every node it checks;
        the answer is kept on the hierarchy (at most :data:`_LEAF_CACHE` lists),
        so the leaf table is hashed once, not once per node.

        Raises
        ------
        HierarchyError
            A value is not a leaf of the hierarchy (names the column and value).
        """
        values = np.asarray(values, dtype=object)
        key = tuple(values.tolist())
        cached = self._leaf_indexes.get(key)
        if cached is not None:
            return cached
        index = self._leaf_lookup.get_indexer(values)
        if (index < 0).any():
            bad = values[index < 0]
            col = column or self.name
            raise HierarchyError(
                f"The hierarchy of column {col!r} does not cover the value {bad[0]!r}"
                + (f" (nor {len(bad) - 1} other value(s))" if len(bad) > 1 else "")
                + "; add a row for it to the hierarchy."
            )
        index = index.astype(np.int32)
        index.setflags(write=False)
        if len(self._leaf_indexes) >= _LEAF_CACHE:
            self._leaf_indexes.pop(next(iter(self._leaf_indexes)))
        self._leaf_indexes[key] = index
        return index

    def with_value(self, value: str) -> "Hierarchy":
        """A copy with one more leaf that keeps itself below the top level.

        Used for the missing-value label: a missing value is a value of its
        own, generalized only at the top.
        """
        if value in set(self.labels[0].tolist()):
            return self
        labels, maps = [], []
        for level in range(self.n_levels):
            if level == self.height:
                labels.append(self.labels[level])
                maps.append(np.append(self.maps[level], 0))
            else:
                labels.append(np.append(self.labels[level], value))
                maps.append(np.append(self.maps[level], len(self.labels[level])))
        return Hierarchy(labels, maps, name=self.name)

    def renamed(self, name: str) -> "Hierarchy":
        """The same hierarchy for another attribute name."""
        h = Hierarchy.__new__(Hierarchy)
        h.__dict__.update(self.__dict__)
        h.name = name
        h._rollups = self._rollups
        return h

    def to_frame(self) -> pd.DataFrame:
        """One row per leaf, one column per level (the ARX layout)."""
        return pd.DataFrame(
            {f"level_{l}": self.labels[l][self.maps[l]] for l in range(self.n_levels)}
        )

    def to_csv(self, path: str | Path, *, sep: str = ";") -> None:
        """Write in the ARX layout (no header)."""
        self.to_frame().to_csv(path, sep=sep, header=False, index=False)

    def __repr__(self) -> str:
        sizes = "→".join(str(len(l)) for l in self.labels)
        return f"Hierarchy({self.name!r}, values per level {sizes})"
