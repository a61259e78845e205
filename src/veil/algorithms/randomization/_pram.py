"""PRAM, post-randomization of categorical columns (Gouweleeuw et al. 1998): matrices, release, estimator.

Gouweleeuw, J. M., Kooiman, P., Willenborg, L. C. R. J., de Wolf, P.-P. (1998).
Post randomisation for statistical disclosure control: theory and
implementation. Journal of Official Statistics 14(4), 463-478.
"""

from __future__ import annotations

import time
from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np
import pandas as pd

from veil._validation import check_int, check_real
from veil.algorithms._recoding import Recoding
from veil.algorithms.randomization._common import Seed, _columns, _generator
from veil.dataset import Dataset
from veil.errors import ParameterError

#: The most categories a PRAM column may have.  PRAM's transition matrix is dense, K x K floats
#: (8 bytes each), and the JSON report lists it: measured on 20,000 rows (2026-11-27), 1,000
#: categories took 2.0 s, 0.3 GB and a 34 MB report; 3,000 took 37 s, 1.7 GB and a 297 MB report; a
#: column of 100,000 distinct values (an id) would ask for 74.5 GiB.  A column with more categories
#: is refused before anything is allocated; generalize or bin it first.
PRAM_MAX_CATEGORIES = 1_000


def check_pram_categories(n_categories: int, column: str | None = None) -> int:
    """Refuse a PRAM matrix over more than :data:`PRAM_MAX_CATEGORIES` categories, before allocating it.

    Raises
    ------
    ParameterError
        ``n_categories`` exceeds the limit; the message names ``column`` (when given), its number
        of distinct values, the limit and the memory the dense matrix would take.
    """
    limit = PRAM_MAX_CATEGORIES
    if n_categories <= limit:
        return n_categories
    what = f"Column {column!r} has {n_categories:,} distinct values" if column is not None else (
        f"A PRAM matrix over {n_categories:,} categories was asked for")
    raise ParameterError(
        f"{what}, more than PRAM handles ({limit:,}): its transition matrix is dense, "
        f"{n_categories:,} x {n_categories:,} floats ({_size(8 * n_categories ** 2)}). Generalize or bin "
        "the column first (e.g. with a hierarchy, veil anonymize, or coarser categories), or leave it out."
    )


def _size(n_bytes: int) -> str:
    """A byte count in words: 74.5 GiB, 190.7 MiB."""
    for unit, scale in (("GiB", 2 ** 30), ("MiB", 2 ** 20), ("KiB", 2 ** 10)):
        if n_bytes >= scale:
            return f"{n_bytes / scale:.1f} {unit}"
    return f"{n_bytes} bytes"


def pram_transition(n_categories: int, p: float) -> np.ndarray:
    """The default PRAM matrix: keep with probability p, else move uniformly to another category.

    .. math:: P_{kk} = p, \\qquad P_{kl} = \\frac{1-p}{K-1}\\ (l \\ne k)

    Parameters
    ----------
    n_categories : int in [1, inf)
        K.  With K = 1 the matrix is [[1]] whatever p.
    p : float in [0, 1]

    Returns
    -------
    numpy.ndarray of float, shape (K, K)
        Row-stochastic.  Singular when p = 1/K (every row equal).

    Raises
    ------
    ParameterError
        K above :data:`PRAM_MAX_CATEGORIES` (the dense matrix would not fit), or p outside [0, 1].
    """
    k = check_int("n_categories", n_categories, "pram_transition", low=1)
    check_pram_categories(k)
    p = check_real("p", p, "pram_transition", low=0.0, high=1.0)
    if k == 1:
        return np.ones((1, 1))
    matrix = np.full((k, k), (1.0 - p) / (k - 1))
    np.fill_diagonal(matrix, p)
    return matrix


def _check_transition(matrix: Any, n: int, where: str) -> np.ndarray:
    try:
        matrix = np.asarray(matrix, dtype=float)
    except (TypeError, ValueError):
        raise ParameterError(f"The transition matrix {where} must be a square array of floats.") from None
    if matrix.ndim != 2 or matrix.shape[0] != matrix.shape[1]:
        raise ParameterError(f"The transition matrix {where} must be square. Got shape {matrix.shape} instead.")
    if n >= 0 and matrix.shape[0] != n:
        raise ParameterError(
            f"The transition matrix {where} must be {n} x {n} (one row and column per category). "
            f"Got shape {matrix.shape} instead."
        )
    if not np.isfinite(matrix).all() or (matrix < 0).any():
        raise ParameterError(f"The transition matrix {where} must have finite nonnegative entries.")
    sums = matrix.sum(axis=1)
    if not np.allclose(sums, 1.0, rtol=0, atol=1e-9):
        row = int(np.flatnonzero(~np.isclose(sums, 1.0, rtol=0, atol=1e-9))[0])
        raise ParameterError(
            f"Each row of the transition matrix {where} must sum to 1. Row {row} sums to {float(sums[row])!r}."
        )
    return matrix / sums[:, None]


def pram_estimate(observed_counts: Any, transition: Any) -> np.ndarray:
    """The unbiased estimate of the original category counts after PRAM.

    Each original value k becomes l with probability :math:`P_{kl}`, so the
    expected observed counts are :math:`E[\\mathbf{o}] = P^\\top \\mathbf{t}`;
    the estimator solves :math:`P^\\top \\hat{\\mathbf{t}} = \\mathbf{o}`
    (Gouweleeuw et al. 1998; Kooiman et al.'s moment estimator).

    Parameters
    ----------
    observed_counts : array of K numbers
        Counts of each category in the released column, in the matrix's order.
    transition : array (K, K) or pandas.DataFrame
        The PRAM matrix used (row = original, column = released).

    Returns
    -------
    numpy.ndarray of float, shape (K,)
        May contain negative values (an unbiased estimator is not constrained
        to the simplex); clip and rescale as a post-processing step if needed.

    Raises
    ------
    ParameterError
        The matrix is not a valid transition matrix, the sizes differ, or the
        matrix is singular or numerically so (condition number above 1e12;
        e.g. p = 1/K makes every row equal): the counts are not recoverable.
    """
    observed = np.asarray(observed_counts, dtype=float)
    if observed.ndim != 1:
        raise ParameterError(f"observed_counts must be one-dimensional. Got shape {observed.shape} instead.")
    matrix = _check_transition(transition, len(observed), "of pram_estimate")
    cond = np.linalg.cond(matrix)
    if not np.isfinite(cond) or cond > 1e12:
        raise ParameterError(
            "The transition matrix of pram_estimate is singular (condition number "
            f"{cond:.3g}): distinct original distributions give the same expected output, so the "
            "original counts cannot be recovered. Use a matrix with a dominant diagonal (e.g. p > 1/K)."
        )
    return np.linalg.solve(matrix.T, observed)


def _check_counts(counts: Any) -> np.ndarray:
    """The frequencies of :func:`invariant_transition` as a float array: 1-D, finite, nonnegative, one positive."""
    t = np.asarray(counts, dtype=float)
    if t.ndim != 1 or len(t) == 0:
        raise ParameterError("The 'counts' parameter of invariant_transition must be a non-empty 1-D array.")
    if not np.isfinite(t).all() or (t < 0).any() or not (t > 0).any():
        raise ParameterError(
            "The 'counts' parameter of invariant_transition must be finite and nonnegative, with at "
            "least one positive count."
        )
    return t


def invariant_transition(counts: Any, p: float) -> np.ndarray:
    """An invariant PRAM matrix: the original frequencies are its fixed point.

    For the K⁺ categories with positive counts :math:`T_k`, and
    :math:`T_{\\min}` the smallest of them:

    .. math::

        P_{kk} = 1 - (1-p)\\frac{T_{\\min}}{T_k}, \\qquad
        P_{kl} = \\frac{(1-p)\\,T_{\\min}}{(K^+ - 1)\\,T_k}\\ (l \\ne k).

    Then :math:`\\sum_k T_k P_{kl} = T_l - (1-p)T_{\\min} + (1-p)T_{\\min} = T_l`,
    so the expected released frequencies equal the original ones and users
    need no estimator.  The rarest category is kept with probability p;
    commoner ones with higher probability (they need less protection and
    send the same expected number of records away).  Categories with count 0
    get an identity row and receive nothing (their count stays 0).

    Parameters
    ----------
    counts : array of K nonnegative numbers
        The original frequencies, at least one positive.
    p : float in [0, 1]
        The smallest diagonal entry (the rarest category's keep probability);
        the θ of Gouweleeuw et al. is 1 − p.

    Returns
    -------
    numpy.ndarray of float, shape (K, K)

    Notes
    -----
    The matrix depends on the data: its ratios :math:`T_{\\min}/T_k` disclose
    the original frequencies.  Publish it only if those frequencies may be
    published (they are what the release preserves in expectation anyway).
    The other classic construction, :math:`R = PQ` with the "backward"
    matrix :math:`Q_{lk} = P_{kl}T_k/\\sum_j P_{jl}T_j` (used by sdcMicro), is
    also invariant; this one is explicit and keeps the diagonal as large as
    possible for common categories.

    References
    ----------
    Gouweleeuw, Kooiman, Willenborg, de Wolf (1998), the invariant PRAM
    construction.
    """
    t = _check_counts(counts)
    p = check_real("p", p, "invariant_transition", low=0.0, high=1.0)
    k = check_pram_categories(len(t))
    matrix = np.eye(k)
    positive = np.flatnonzero(t > 0)
    k_pos = len(positive)
    if k_pos == 1:
        return matrix
    ratio = t[positive].min() / t[positive]  # T_min / T_k, in (0, 1]
    block = np.repeat(((1.0 - p) * ratio / (k_pos - 1))[:, None], k_pos, axis=1)
    np.fill_diagonal(block, 1.0 - (1.0 - p) * ratio)
    matrix[np.ix_(positive, positive)] = block
    return matrix


def _pram_matrix(
    column: str,
    categories: np.ndarray,
    p: float | Mapping[str, float] | None,
    transition: Mapping[str, Any] | None,
    counts: np.ndarray,
    invariant: bool,
) -> np.ndarray:
    k = len(categories)
    where = f"for column {column!r}"
    if transition is not None:
        matrix = transition.get(column)
        if matrix is None:
            raise ParameterError(
                f"The 'transition' parameter of pram has no matrix for column {column!r}; give one "
                "per column."
            )
        if isinstance(matrix, pd.DataFrame):
            rows = [str(v) for v in matrix.index]
            cols = [str(v) for v in matrix.columns]
            wanted = [str(v) for v in categories]
            if set(rows) != set(wanted) or set(cols) != set(wanted) or len(rows) != k or len(cols) != k:
                raise ParameterError(
                    f"The transition matrix {where} must be labelled, rows and columns, with exactly the "
                    f"column's {k} categories (its index and columns differ from them)."
                )
            frame = matrix.copy()
            frame.index, frame.columns = rows, cols
            matrix = frame.loc[wanted, wanted].to_numpy(dtype=float)
        return _check_transition(matrix, k, where)
    p_col = p.get(column) if isinstance(p, Mapping) else p
    if p_col is None:
        raise ParameterError(f"The 'p' parameter of pram has no value for column {column!r}.")
    p_col = check_real("p", p_col, "pram", low=0.0, high=1.0)
    if invariant:
        return invariant_transition(counts, p_col)
    return pram_transition(k, p_col)


def _draw(matrix: np.ndarray, codes: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """One released category per code, from the code's row of ``matrix`` (inverse CDF, vectorised).

    The rows' CDFs are laid end to end (row k shifted by k), so one ``searchsorted`` of
    ``u + code`` finds every record's draw (see the Notes of :func:`pram`).
    """
    k = len(matrix)
    cdf = np.cumsum(matrix, axis=1)
    cdf[:, -1] = 1.0
    cdf += np.arange(k)[:, None]  # in place: one K x K array besides the matrix
    flat = cdf.ravel()
    u = rng.random(len(codes))
    drawn = np.searchsorted(flat, u + codes, side="right") - codes * k
    return np.clip(drawn, 0, k - 1)  # u + k rounding up to k + 1 (probability ~2^-53)


# long because its docstring documents every parameter, the sampling and why PRAM is not DP.
def pram(
    dataset: Dataset,
    columns: Sequence[str] | None = None,
    *,
    p: float | Mapping[str, float] | None = None,
    transition: Mapping[str, Any] | None = None,
    invariant: bool = False,
    seed: Seed = None,
) -> Recoding:
    """Post-randomize categorical columns through Markov transition matrices (PRAM).

    Each value of each chosen column is replaced, independently, by a value
    drawn from the row of its category in the column's transition matrix:
    :math:`\\Pr[\\text{released} = l \\mid \\text{original} = k] = P_{kl}`.

    Parameters
    ----------
    dataset : Dataset
    columns : sequence of str, optional
        The columns to randomize (default: the quasi-identifiers), each
        independently.
    p : float in [0, 1], or mapping of column to float
        The keep probability: :func:`pram_transition` (keep with probability
        p, else move uniformly to another category), or with ``invariant=True``
        :func:`invariant_transition` over the column's counts.  p = 1 leaves
        the data unchanged.
    transition : mapping of column to array (K, K) or pandas.DataFrame
        Explicit matrices instead of ``p``: square, nonnegative, rows summing
        to 1, rows and columns in the order of the column's categories
        (``dataset.encode(column).labels`` without the missing label: the
        values present plus any declared schema domain, in the attribute's
        order), or a DataFrame labelled with those categories.
    invariant : bool, default False
        With ``p``: use the invariant matrix, whose expected output
        frequencies equal the input's (it is built from, and so discloses,
        the input frequencies; see :func:`invariant_transition`).
    seed : int, numpy.random.Generator or None
        Seed of the randomness (None: fresh OS entropy).  Keep it secret.

    Returns
    -------
    Recoding
        ``data`` is row-aligned with the input (``details["row_aligned"]``):
        every input column, the randomized ones as text labels; missing
        values stay missing and are never produced (they are not a category).
        ``details["transitions"]`` holds each column's ``categories`` and
        ``matrix`` (what users need for :func:`pram_estimate`).

    Raises
    ------
    ColumnNotFoundError
        A column is not in the table.
    ParameterError
        Neither or both of ``p`` and ``transition``, ``p`` outside [0, 1], a
        matrix that is not square, has negative entries, rows not summing to
        1, or the wrong size or labels for its column; ``invariant`` with
        ``transition``; a column with more than :data:`PRAM_MAX_CATEGORIES`
        categories (its dense matrix would not fit; checked for every column
        before any matrix is built).

    Notes
    -----
    Sampling is vectorised by inverse CDF: with :math:`C = \\mathrm{cumsum}(P)`
    per row and one uniform u per record, the released code is
    :math:`\\#\\{l : C_{kl} \\le u\\}` for a record of category k, found by a
    single ``searchsorted`` over the rows laid end to end (row k shifted by
    k).  Zero-probability categories are never drawn.

    PRAM is not differential privacy (see :mod:`veil.dp`); with
    :func:`pram_transition` on K categories, each record's released value
    satisfies local ε-DP with :math:`\\varepsilon = \\ln(p(K-1)/(1-p))` for p ≥ 1/K
    (k-ary randomized response), but the release as a whole is judged here
    by its transition matrix only.

    References
    ----------
    Gouweleeuw et al. (1998); sdcMicro ``pram`` (Templ, Kowarik, Meindl 2015).

    Examples
    --------
    >>> import pandas as pd
    >>> from veil import Dataset
    >>> ds = Dataset.from_pandas(pd.DataFrame({"c": ["a", "b", "a", "c"]}), quasi_identifiers=["c"])
    >>> out = pram(ds, p=1.0, seed=0)
    >>> out.data["c"].tolist()
    ['a', 'b', 'a', 'c']
    """
    start = time.perf_counter()
    owner = "pram"
    if (p is None) == (transition is None):
        raise ParameterError(
            "pram needs exactly one of 'p' (keep probability) and 'transition' (explicit matrices). "
            f"Got {'neither' if p is None else 'both'} instead."
        )
    if invariant and transition is not None:
        raise ParameterError("The 'invariant' parameter of pram applies to 'p' only; "
                             "pass an invariant matrix through 'transition' instead.")
    columns = _columns(dataset, columns, owner)
    for mapping, name in ((transition, "transition"), (p if isinstance(p, Mapping) else None, "p")):
        for key in mapping or {}:
            if key not in columns:
                raise ParameterError(
                    f"The {name!r} parameter of pram names {key!r}, which is not one of the randomized "
                    f"columns ({', '.join(map(repr, columns))})."
                )
    rng = _generator(seed, owner)
    for column in columns:  # every column's size before any matrix or copy is made
        encoded = dataset.encode(column)
        check_pram_categories(encoded.n_values - int(encoded.missing_code >= 0), column)
    data = dataset.frame.copy()
    transitions: dict[str, Any] = {}
    for column in columns:
        encoded = dataset.encode(column)
        keep = np.arange(encoded.n_values) != encoded.missing_code
        categories = encoded.labels[keep]
        present = encoded.codes != encoded.missing_code
        codes = encoded.codes[present]  # the missing code is the last, so codes index categories
        counts = np.bincount(codes, minlength=len(categories)).astype(float)
        if len(categories) == 0:  # every value missing: nothing to randomize
            transitions[column] = {"categories": [], "matrix": []}
            continue
        matrix = _pram_matrix(column, categories, p, transition, counts, invariant)
        released = np.full(dataset.n_records, np.nan, dtype=object)
        released[present] = categories[_draw(matrix, codes, rng)]
        data[column] = pd.Series(released, dtype=object)
        transitions[column] = {"categories": [str(c) for c in categories], "matrix": matrix.tolist()}
    details = {
        "row_aligned": True,
        "columns": columns,
        "invariant": bool(invariant),
        "transitions": transitions,
        "differential_privacy": False,
    }
    return Recoding(data=data, algorithm="pram", suppressed=0, groups=0,
                    seconds=time.perf_counter() - start, details=details)
