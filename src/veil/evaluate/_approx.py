"""Blocks of a cheap, bounded-error copy of the distance of :mod:`veil.evaluate._neighbors`.

The distance sums, over the known columns, a 0/1 term per categorical column
and a ``[0, 1]`` term per numeric one.  Here:

* the categorical terms are counted exactly, as small integers: the categorical
  columns are joined in groups whose label combinations are few, and each group
  gives one lookup table ``targets × combinations`` of mismatch counts, so a
  block costs one ``take`` per group rather than one comparison per column (a
  column of more labels than a table may hold, :data:`TABLE_CELLS`, is compared
  block by block);
* a numeric term is ``|a' - b'|`` in float32, with ``a' = (a - low) / range`` in
  ``[0, 1]``.

Every entry is within :attr:`Approximation.slack` of the exact distance (the
error of float32 on values in ``[0, n_columns]``, four times over), so the exact
distance is computed, in the exact order of its terms, only for the pairs that
can matter: :mod:`veil.evaluate._neighbors` does that.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import dataclass

import numpy as np

from veil.evaluate._columns import Tables
from veil.evaluate._coverage import Coverage

__all__ = ["Approximation", "approximation", "block_size", "BLOCK_BYTES", "TABLE_CELLS"]

#: Bytes one block may take (its float32 matrix and the temporaries beside it).
BLOCK_BYTES = 64 << 20
#: Bytes per cell of a block, at worst (every cell a candidate): the float32 matrix and a
#: float32 temporary, a comparison, and per candidate pair its target, pattern, exact distance,
#: key and two float64 temporaries.
_CELL_BYTES = 4 + 4 + 1 + 6 * 8
#: The most cells of one group's lookup table (targets × label combinations); a column with more
#: labels than that allows is compared block by block.
TABLE_CELLS = 1 << 22


def block_size(n_targets: int) -> int:
    """Patterns per block: ``n_targets × block × cell bytes`` stays within :data:`BLOCK_BYTES`."""
    return max(1, BLOCK_BYTES // (_CELL_BYTES * max(n_targets, 1)))


@dataclass(frozen=True)
class Approximation:
    """The lookup tables and scaled values of one search: targets against the release's patterns."""

    tables: tuple[np.ndarray, ...]  # per categorical group: targets × combinations, mismatch counts
    combos: tuple[np.ndarray, ...]  # per categorical group: each pattern's combination
    direct: tuple[tuple[Coverage, np.ndarray, np.ndarray], ...]  # columns of too many labels for a table
    numeric_targets: tuple[np.ndarray, ...]  # per numeric column: scaled float32 values (NaN kept)
    numeric_patterns: tuple[np.ndarray, ...]
    n_targets: int
    n_patterns: int
    slack: float
    step: int

    def blocks(self) -> Iterator[tuple[int, np.ndarray]]:
        """``(lo, matrix)`` for consecutive blocks of ``step`` patterns, each ``n_targets × step`` float32."""
        for lo in range(0, self.n_patterns, self.step):  # blocks of patterns, each vectorised
            yield lo, self.block(lo, min(lo + self.step, self.n_patterns))

    def block(self, lo: int, hi: int) -> np.ndarray:
        out = np.zeros((self.n_targets, hi - lo), dtype=np.float32)
        if self.slack == np.inf:
            return out
        for table, combo in zip(self.tables, self.combos):
            out += np.take(table, combo[lo:hi], axis=1)
        for cover, a, b in self.direct:
            out += ~cover.covers(a, b[lo:hi])
        for a, b in zip(self.numeric_targets, self.numeric_patterns):
            gap = np.subtract(a[:, None], b[None, lo:hi])
            np.abs(gap, out=gap)
            a_nan, b_nan = np.isnan(a), np.isnan(b[lo:hi])
            if a_nan.any() or b_nan.any():
                gap = np.where(a_nan[:, None] | b_nan[None, :],
                               np.where(a_nan[:, None] & b_nan[None, :], np.float32(0), np.float32(1)), gap)
            out += gap
        return out


def _groups(sizes: Sequence[int], n_targets: int) -> list[list[int]]:
    """Consecutive runs of categorical columns whose label combinations fit one lookup table."""
    limit = max(1, TABLE_CELLS // max(n_targets, 1))
    groups: list[list[int]] = []
    product = limit + 1
    for i, size in enumerate(sizes):
        if product * size > limit:
            groups.append([])
            product = 1
        groups[-1].append(i)
        product *= size
    return groups


def _mismatch_table(tables: Tables, names: Sequence[str], targets: dict[str, np.ndarray],
                    codes: dict[str, np.ndarray]) -> tuple[np.ndarray, np.ndarray]:
    """One group's lookup table (targets × the patterns' distinct label combinations) and each
    pattern's combination."""
    labels = [np.unique(codes[name], return_inverse=True) for name in names]
    joint = np.zeros(len(codes[names[0]]), dtype=np.int64)
    for distinct, inverse in labels:
        joint = joint * len(distinct) + inverse
    _, first, combo = np.unique(joint, return_index=True, return_inverse=True)
    dtype = np.uint8 if len(names) < 255 else np.int32
    table = np.zeros((len(targets[names[0]]), len(first)), dtype=dtype)
    for name, (distinct, inverse) in zip(names, labels):
        values, at = np.unique(targets[name], return_inverse=True)
        miss = ~tables.columns[name].cover.covers(values, distinct)  # distinct values × labels: small
        table += np.take(miss[at], inverse[first], axis=1)
    return table, combo.reshape(-1)


def approximation(tables: Tables, names: Sequence[str], targets: dict[str, np.ndarray],
                  codes: dict[str, np.ndarray]) -> Approximation:
    """Prepare the approximate distance of ``targets`` to the patterns ``codes`` over ``names``."""
    n_targets = len(targets[names[0]])
    n_patterns = len(codes[names[0]])
    if any(np.isinf(side[n]).any() for n in names if tables.columns[n].numeric for side in (targets, codes)):
        # an infinite value: no bound holds, every pair is measured exactly, in the blocks of the plain matrix
        return Approximation((), (), (), (), (), n_targets, n_patterns, np.inf, max(1, (1 << 23) // max(n_targets, 1)))
    categorical = [n for n in names if not tables.columns[n].numeric]
    numeric = [n for n in names if tables.columns[n].numeric]
    sizes = [len(np.unique(codes[n])) for n in categorical]
    groups = _groups(sizes, n_targets)
    limit = max(1, TABLE_CELLS // max(n_targets, 1))
    wide = [g[0] for g in groups if len(g) == 1 and sizes[g[0]] > limit]  # compared block by block
    direct = tuple((tables.columns[categorical[i]].cover, targets[categorical[i]], codes[categorical[i]])
                   for i in wide)
    built = [_mismatch_table(tables, [categorical[i] for i in g], targets, codes) for g in groups if g[0] not in wide]
    scaled_t, scaled_p = [], []
    for name in numeric:
        a, b = targets[name], codes[name]
        finite = np.concatenate([a[np.isfinite(a)], b[np.isfinite(b)]])
        low = float(finite.min()) if len(finite) else 0.0
        scale = tables.columns[name].scale
        scaled_t.append(((a - low) / scale).astype(np.float32))
        scaled_p.append(((b - low) / scale).astype(np.float32))
    slack = (len(numeric) * (len(names) + 2) + 1) * 2.0 ** -22
    return Approximation(tuple(t for t, _ in built), tuple(c for _, c in built), direct, tuple(scaled_t),
                         tuple(scaled_p), n_targets, n_patterns, slack, block_size(n_targets))
