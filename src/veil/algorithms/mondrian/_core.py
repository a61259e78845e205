"""Mondrian's partitioning and release (the algorithm itself; see :mod:`veil.algorithms.mondrian`)."""

from __future__ import annotations

import numbers
import time
from collections.abc import Sequence
from typing import Any

import numpy as np
import pandas as pd

from veil._validation import check_choice, check_real
from veil.algorithms._recoding import SUPPRESSED_LABEL, Recoding
from veil.algorithms.mondrian._dimensions import _Dimension, _dimensions, _HierarchyDimension
from veil.algorithms.mondrian._judge import (
    _check_models,
    _Judge,
    _min_class_size,
    _sensitive,
    suppressed_group_holds,
    suppression_for_root,
)
from veil.classes import ClassTable
from veil.dataset import Dataset
from veil.errors import InfeasibleError, ParameterError, SchemaError
from veil.models import PrivacyModel

__all__ = ["mondrian"]

_OWNER = "mondrian"


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



def _candidate_split(
    dim: _Dimension, column: np.ndarray, low: int, high: int, k_min: int, strict: bool,
    rng: np.random.Generator | None,
) -> tuple[np.ndarray, np.ndarray] | None:
    """The part of each record and the parts' sizes for a split along ``dim``, or None."""
    if isinstance(dim, _HierarchyDimension):
        return dim.split(column, low, high, k_min)
    if not strict and len(column) // 2 < k_min:
        return None
    part = _split_ordered(column, strict, rng)
    if len(part) == 0:  # pragma: no cover - width > 0 means two values
        return None
    counts = np.bincount(part, minlength=2)
    return None if counts.min() < k_min else (part, counts)


_Item = tuple[np.ndarray, np.ndarray, ClassTable, "np.ndarray | None"]


def _children(rows: np.ndarray, sub: np.ndarray, table: ClassTable, part: np.ndarray, n_parts: int) -> list[_Item]:
    """The parts as stack items (rows, rank matrix, parent table, mask), first part popped first.

    A part's own table (its records' classes) is cut from the parent's only when
    the part is judged (see :func:`_partition`)."""
    children = []
    for j in range(n_parts - 1, -1, -1):
        mask = part == j
        children.append((rows[mask], sub[mask], table, mask))
    return children


class _Partitions:
    """The final partitions: their rows (indices into the kept rows) and extents."""

    def __init__(self, q: int) -> None:
        self.rows: list[np.ndarray] = []
        self.low: list[list[int]] = []
        self.high: list[list[int]] = []
        self.splits = [0] * q


def _partition(
    root: np.ndarray, ranks: np.ndarray, dims: Sequence[_Dimension], judge: _Judge, k_min: int, strict: bool,
    rng: np.random.Generator | None,
) -> _Partitions:
    """Split partitions greedily, widest normalized range first, while the parts satisfy the models."""
    q = len(dims)
    out = _Partitions(q)
    tie = rng.random(q).tolist() if rng is not None else [0.0] * q
    stack: list[_Item] = [(root, ranks, judge.subset(root), None)]
    while stack:
        rows, sub, table, mask = stack.pop()
        low, high = sub.min(axis=0).tolist(), sub.max(axis=0).tolist()
        children = None
        if len(rows) >= 2 * k_min:
            if mask is not None:
                table = table.suppress(~mask)  # this partition's records, cut from its parent's table
            if rng is not None:
                tie = rng.random(q).tolist()
            widths = [dims[d].width(low[d], high[d]) for d in range(q)]
            for d in sorted((d for d in range(q) if widths[d] > 0), key=lambda d: (-widths[d], tie[d])):
                found = _candidate_split(dims[d], sub[:, d], low[d], high[d], k_min, strict, rng)
                if found is None or not judge.allows(table, found[0], len(found[1])):
                    continue
                out.splits[d] += 1
                children = _children(rows, sub, table, found[0], len(found[1]))
                break
        if children is None:
            out.rows.append(rows)
            out.low.append(low)
            out.high.append(high)
        else:
            stack.extend(children)
    return out


def _check_parameters(models: Any, suppression_limit: Any, strict: Any, categorical: Any, seed: Any,
                      dataset: Any) -> tuple[list[PrivacyModel], float, int | None]:
    models = _check_models(models)
    suppression_limit = check_real("suppression_limit", suppression_limit, _OWNER, low=0, high=1)
    if not isinstance(strict, bool):
        raise ParameterError(f"The 'strict' parameter of mondrian must be a bool. Got {strict!r} instead.")
    check_choice("categorical", categorical, _OWNER, ("hierarchy", "ordered"))
    if seed is not None and (isinstance(seed, bool) or not isinstance(seed, numbers.Integral)):
        raise ParameterError(f"The 'seed' parameter of mondrian must be an int or None. Got {seed!r} instead.")
    if not isinstance(dataset, Dataset):
        raise ParameterError(f"mondrian expects a Dataset. Got {type(dataset).__name__} instead.")
    if not dataset.quasi_identifiers:
        raise ParameterError("The dataset declares no quasi-identifiers; there is nothing to anonymize.")
    if dataset.n_records == 0:
        raise SchemaError("The table has no records; there is nothing to anonymize.")
    return models, suppression_limit, None if seed is None else int(seed)


def _input_suppressed(dataset: Dataset) -> np.ndarray:
    """Records that arrived suppressed (``"*"`` in every QI): they stay suppressed and form no partition."""
    star_rows = np.ones(dataset.n_records, dtype=np.bool_)
    for name in dataset.quasi_identifiers:
        encoded = dataset.encode(name)
        star = np.flatnonzero(encoded.labels == SUPPRESSED_LABEL)
        star_rows &= encoded.codes == (star[0] if len(star) else -2)
    return star_rows


def _satisfiable_root(judge: _Judge, n_kept: int, suppression_limit: float) -> np.ndarray:
    """The kept rows Mondrian partitions: all, or all but the fewest suppressed within the limit."""
    everyone = np.arange(n_kept, dtype=np.int64)
    before = judge.root_failing(everyone)
    rows, failing = suppression_for_root(judge, everyone)
    if failing or n_kept == 0:
        names = ", ".join(m.name for m in failing) or "every model (no record is left to release)"
        raise InfeasibleError(
            f"The whole table ({n_kept} records) does not satisfy {names}, so no partition of it can, and "
            "suppressing some of its records does not make it. Relax the models."
        )
    removed, allowed = n_kept - len(rows), int(np.floor(suppression_limit * n_kept + 1e-9))
    if removed > allowed:
        raise InfeasibleError(
            f"The whole table ({n_kept} records) does not satisfy {', '.join(m.name for m in before)}; "
            f"it does after suppressing {removed} records, more than the suppression limit allows "
            f"({allowed}, {suppression_limit:g} of {n_kept}). Raise suppression_limit or relax the models."
        )
    return rows


def _release(
    dataset: Dataset, dims: Sequence[_Dimension], keep: np.ndarray, parts: _Partitions, suppressed: int,
) -> tuple[pd.DataFrame, list[np.ndarray], np.ndarray, dict[str, float]]:
    """The released table (QIs replaced by each partition's labels, ``"*"`` for suppressed records),
    the partitions' label columns, each kept row's partition (-1: suppressed) and the NCP per QI."""
    n, q, n_parts = dataset.n_records, len(dims), len(parts.rows)
    sizes = np.fromiter((len(r) for r in parts.rows), dtype=np.int64, count=n_parts)
    row_part = np.full(int(keep.sum()), -1, dtype=np.int64)
    for p, rows in enumerate(parts.rows):
        row_part[rows] = p
    released = row_part >= 0
    out = dataset.frame.copy()
    label_columns: list[np.ndarray] = []
    ncp: dict[str, float] = {}
    lows = np.array(parts.low, dtype=np.int64).reshape(n_parts, q)
    highs = np.array(parts.high, dtype=np.int64).reshape(n_parts, q)
    kept_column = np.empty(len(row_part), dtype=object)
    for d, dim in enumerate(dims):
        part_labels = dim.released(lows[:, d], highs[:, d])
        label_columns.append(part_labels)
        kept_column[:] = SUPPRESSED_LABEL
        kept_column[released] = part_labels[row_part[released]]
        column = np.full(n, SUPPRESSED_LABEL, dtype=object)
        column[keep] = kept_column
        out[dim.name] = pd.array(column, dtype=object)
        ncp[dim.name] = float((sizes @ dim.widths(lows[:, d], highs[:, d]) + suppressed) / n)
    return out, label_columns, row_part, ncp


def _starred(label_columns: list[np.ndarray], sizes: np.ndarray, removed: int, limit: float, n_kept: int) -> int:
    """Records of partitions released as ``"*"`` in every QI (generalized to their hierarchies' roots):
    the release reads them as suppressed, so they count against the suppression limit."""
    starred = int(sizes[np.logical_and.reduce([c == SUPPRESSED_LABEL for c in label_columns])].sum())
    allowed = int(np.floor(limit * n_kept + 1e-9)) - removed
    if starred > allowed:
        raise InfeasibleError(
            f"{starred} records could not be split apart from the rest and would be released as '*' in "
            f"every quasi-identifier, which reads as suppressed: more than the suppression limit allows "
            f"({max(allowed, 0)} more). Raise suppression_limit or relax the models."
        )
    return starred


def _merged_classes(judge: _Judge, label_columns: list[np.ndarray], row_part: np.ndarray, sizes: np.ndarray) -> int:
    """The number of released classes; partitions released with identical labels form one class, checked too."""
    keys = pd.MultiIndex.from_arrays(label_columns) if len(label_columns) > 1 else pd.Index(label_columns[0])
    merged, uniques = pd.factorize(keys)
    if len(uniques) < len(sizes):
        rows = np.flatnonzero(row_part >= 0)
        table = judge.grouped(judge.subset(rows), merged[row_part[rows]].astype(np.int64), len(uniques))
        failing = judge.failing(table)
        if failing:
            names = ", ".join(m.name for m in failing)
            raise InfeasibleError(
                f"Partitions released with identical labels merge into one class that fails {names} "
                f"(a model that is not monotone under merging classes); use strict=True."
            )
    return len(uniques)


# long because its docstring is the user's reference for six parameters and the NCP/GCP details; the body is ~40 lines.
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
        The largest fraction of the records (those that arrived suppressed
        excepted) that may be suppressed.  When the whole table satisfies the
        models, nothing is suppressed: every final partition satisfies them
        too.  When it does not (a skewed sensitive distribution failing
        l-diversity, say), Mondrian suppresses the fewest records that make
        the rest satisfy the models (:func:`suppression_for_root`: the last
        records, in row order, of the most frequent sensitive values), then
        partitions the rest; suppressed records carry ``"*"`` in every QI.
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
        ``models``, ``suppression_limit``, ``seed``, ``suppressed_to_satisfy``
        (records Mondrian suppressed; ``Recoding.suppressed`` adds those that
        arrived suppressed).

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
        The whole table does not satisfy the models and suppressing records
        within ``suppression_limit`` cannot make it (e.g. ``k`` above the
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
    models, suppression_limit, seed = _check_parameters(models, suppression_limit, strict, categorical, seed, dataset)
    star_rows = _input_suppressed(dataset)
    keep = ~star_rows
    dims, ranks = _dimensions(dataset, keep, categorical)
    group_models = [m for m in models if m.judges_suppressed_group]
    models = [m for m in models if not m.judges_suppressed_group]
    read = [*models, *(inner for g in group_models for inner in getattr(g, "models", ()))]
    judge = _Judge(dataset, models, _sensitive(dataset, read), keep)
    rng = None if seed is None else np.random.default_rng(seed)
    root = _satisfiable_root(judge, int(keep.sum()), suppression_limit)
    suppressed_group_holds(judge, root, group_models)
    parts = _partition(root, ranks[root], dims, judge, _min_class_size(models), strict, rng)
    suppressed = int(star_rows.sum()) + int(keep.sum()) - len(root)
    out, label_columns, row_part, ncp = _release(dataset, dims, keep, parts, suppressed)
    sizes = np.fromiter((len(r) for r in parts.rows), dtype=np.int64, count=len(parts.rows))
    suppressed += _starred(label_columns, sizes, int(keep.sum()) - len(root), suppression_limit, int(keep.sum()))
    details: dict[str, Any] = {
        "partitions": len(parts.rows),
        "released_classes": _merged_classes(judge, label_columns, row_part, sizes),
        "splits": {dim.name: parts.splits[d] for d, dim in enumerate(dims)},
        "strict": strict,
        "categorical": categorical,
        "dimensions": {dim.name: "hierarchy" if isinstance(dim, _HierarchyDimension) else "ordered" for dim in dims},
        "ncp": float(sum(ncp.values()) / len(dims)),
        "ncp_per_attribute": ncp,
        "smallest_partition": int(sizes.min()),
        "largest_partition": int(sizes.max()),
        "models": [m.name for m in models],
        "suppression_limit": suppression_limit,
        "suppressed_to_satisfy": int(keep.sum()) - len(root),
        "seed": seed,
    }
    return Recoding(data=out, algorithm="mondrian", suppressed=suppressed, groups=len(parts.rows),
                    seconds=time.perf_counter() - start, details=details)
