"""Workloads of marginals: parsing, the default, counting and the workload error.

A workload is a tuple of marginals, each a tuple of column positions.  The
user writes it as ``"age,sex;education,occupation"``: marginals separated by
``;``, columns by ``,``.  Every count goes through :func:`marginal`, which
reads ``codes`` (an ``(n, d)`` int array, one row per record or per class)
and optional ``weights`` (the number of records of each row; ``None`` means
one each), so that a compressed class table counted by an engine feeds it
as well as the records themselves.
"""

from __future__ import annotations

import itertools
from typing import Sequence

import numpy as np

from veil.errors import ColumnNotFoundError, ParameterError

__all__ = ["Workload", "resolve_workload", "parse_workload", "default_workload", "marginal", "downward_closure",
           "candidate_weights", "workload_error", "workload_names"]

Workload = tuple[tuple[int, ...], ...]


def parse_workload(text: str, columns: Sequence[str]) -> Workload:
    """``"a,b;c,d"`` -> ``((i_a, i_b), (i_c, i_d))``, the positions of the named ``columns``.

    Raises :class:`ParameterError` for an empty workload, an empty marginal or a
    column named twice in one marginal, and :class:`ColumnNotFoundError` for a
    column that is not synthesized.  A marginal listed twice is kept once.
    """
    names = [str(c) for c in columns]
    position = {name: i for i, name in enumerate(names)}
    parts = str(text).split(";")
    if not str(text).strip():
        raise ParameterError("--workload is empty: give marginals such as \"age,sex;education,occupation\".")
    out: list[tuple[int, ...]] = []
    for number, part in enumerate(parts, start=1):
        cols = [c.strip() for c in part.split(",")]
        if not part.strip():
            raise ParameterError(f"--workload: marginal {number} is empty; separate marginals with ';' and "
                                 "columns with ',', e.g. \"age,sex;education,occupation\".")
        if any(not c for c in cols):
            raise ParameterError(f"--workload: marginal {number} ({part.strip()!r}) has an empty column name; "
                                 "separate marginals with ';' and columns with ','.")
        unknown = [c for c in cols if c not in position]
        if unknown:
            raise ColumnNotFoundError(f"--workload: marginal {number} names the column {unknown[0]!r}, which is "
                                      f"not synthesized (columns: {', '.join(names)}).")
        twice = sorted({c for c in cols if cols.count(c) > 1})
        if twice:
            raise ParameterError(f"--workload: marginal {number} names the column {twice[0]!r} twice.")
        key = tuple(sorted(position[c] for c in cols))
        if key not in out:
            out.append(key)
    return tuple(out)


def resolve_workload(workload: str | Sequence[Sequence[str]] | None, columns: Sequence[str]) -> Workload:
    """The workload over ``columns``: the default for ``None``, else ``"a,b;c"`` or ``[["a", "b"], ["c"]]``."""
    if workload is None:
        return default_workload(len(columns))
    if not isinstance(workload, str):
        workload = ";".join(",".join(str(c) for c in ([cl] if isinstance(cl, str) else cl)) for cl in workload)
    return parse_workload(workload, columns)


def default_workload(d: int) -> Workload:
    """All 3-way marginals of ``d`` columns when d >= 3, else all 2-way (1-way for one column)."""
    way = min(3, d)
    return tuple(itertools.combinations(range(d), way))


def workload_names(workload: Workload, columns: Sequence[str]) -> list[list[str]]:
    """The workload as lists of column names (for the report)."""
    return [[str(columns[c]) for c in cl] for cl in workload]


def marginal(codes: np.ndarray, weights: np.ndarray | None, sizes: Sequence[int],
             cols: Sequence[int]) -> np.ndarray:
    """The counts of the columns ``cols`` of ``codes``, each row counted ``weights`` times (shape
    ``[sizes[c] for c in cols]``; the empty clique gives the total as a 0-d array).  ``codes`` may
    also be a table that counts itself (``marginal(cols)`` and ``total``: a class table, or an
    engine's marginals past its class-table bound)."""
    if hasattr(codes, "marginal"):
        return codes.marginal(list(cols)) if len(cols) else np.asarray(float(codes.total))
    shape = tuple(int(sizes[c]) for c in cols)
    cells = int(np.prod(shape)) if shape else 1
    if len(codes) == 0:
        return np.zeros(shape)
    key = np.ravel_multi_index(tuple(codes[:, list(cols)].T), shape) if shape else \
        np.zeros(len(codes), dtype=np.int64)
    w = None if weights is None else np.asarray(weights, dtype=float)
    return np.bincount(key, weights=w, minlength=cells).astype(float).reshape(shape)


def downward_closure(cliques: Sequence[tuple[int, ...]]) -> list[tuple[int, ...]]:
    """Every non-empty subset of every clique, by size then order."""
    out: set[tuple[int, ...]] = set()
    for cl in cliques:
        for r in range(1, len(cl) + 1):
            out.update(itertools.combinations(sorted(cl), r))
    return sorted(out, key=lambda c: (len(c), c))


def candidate_weights(workload: Workload, weights: Sequence[float] | None = None) -> dict[tuple[int, ...], float]:
    """AIM's candidates, the downward closure of the workload, each weighted by its overlap with the
    workload: :math:`w_r = \\sum_{s \\in W} c_s |r \\cap s|` (``weights`` c_s default 1)."""
    c = [1.0] * len(workload) if weights is None else [float(w) for w in weights]
    sets = [set(s) for s in workload]
    return {r: float(sum(cs * len(set(r) & s) for cs, s in zip(c, sets))) for r in downward_closure(workload)}


def _tv(p: np.ndarray, q: np.ndarray) -> float:
    ps, qs = p.sum(), q.sum()
    if ps <= 0 or qs <= 0:
        return 1.0
    return float(0.5 * np.abs(p / ps - q / qs).sum())


def workload_error(codes: np.ndarray, weights: np.ndarray | None, synthetic: np.ndarray, sizes: Sequence[int],
                   workload: Workload, *, synthetic_weights: np.ndarray | None = None) -> float | None:
    """The average total-variation distance, in [0, 1], between the original (``codes`` with
    ``weights``) and the synthetic marginals (``synthetic`` with ``synthetic_weights``: a class table
    of the synthetic rows, or the rows) of the workload (``None`` for an empty workload)."""
    if not workload:
        return None
    errs = [_tv(marginal(codes, weights, sizes, cl), marginal(synthetic, synthetic_weights, sizes, cl))
            for cl in workload]
    return float(np.mean(errs))
