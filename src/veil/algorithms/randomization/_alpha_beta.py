"""The αβ algorithm (Rastogi, Suciu, Hong 2007, Section 4): the release and its query estimator."""

from __future__ import annotations

import math
import time
import warnings
from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np
import pandas as pd

from veil._validation import check_int
from veil.algorithms._recoding import Recoding
from veil.algorithms.randomization._alpha_beta_theory import _check_alpha_beta, alpha_beta_estimate
from veil.algorithms.randomization._common import Seed, Selection, _columns, _generator
from veil.dataset import MISSING, Dataset
from veil.errors import ColumnNotFoundError, ParameterError

#: The largest domain αβ handles: tuples are packed into int64 keys.
_MAX_DOMAIN = np.iinfo(np.int64).max


def _domain(dataset: Dataset, column: str, domains: Mapping[str, Sequence[Any]]) -> tuple[np.ndarray, str]:
    """The public domain of ``column`` (labels) and where it came from."""
    encoded = dataset.encode(column)
    has_missing = encoded.missing_code >= 0
    if column in domains:
        labels = [str(v) for v in domains[column]]
        source = "domains"
    elif column in dataset.hierarchies:
        labels = [str(v) for v in dataset.hierarchies[column].leaves]
        source = "hierarchy"
    elif column in dataset.schema and dataset.schema[column].domain is not None:
        labels = list(dataset.schema[column].domain)
        source = "schema"
    else:
        labels = [str(v) for v in encoded.labels if v != MISSING]
        source = "data"
    if len(set(labels)) != len(labels):
        raise ParameterError(f"The domain of column {column!r} lists a value twice; each value must appear once.")
    if has_missing and MISSING not in labels:
        labels.append(MISSING)  # a missing value is a value of its own, as everywhere in veil
    if not labels:
        raise ParameterError(f"The domain of column {column!r} is empty; give at least one value.")
    return np.array(labels, dtype=object), source


# long because its docstring defines the αβ algorithm, its set semantics and the exact sampling of D \ I.
def alpha_beta(
    dataset: Dataset,
    columns: Sequence[str] | None = None,
    *,
    alpha: float,
    beta: float,
    domains: Mapping[str, Sequence[Any]] | None = None,
    seed: Seed = None,
    max_inserted: int = 10_000_000,
) -> Recoding:
    """Publish a randomized view of the table's tuples by the αβ algorithm.

    Over the domain :math:`D = D_1 \\times \\dots \\times D_l` of the chosen
    columns, the view V keeps each tuple of the instance I (the distinct
    tuples of the table) with probability α + β, and inserts each tuple of
    :math:`D \\setminus I` with probability β, all independently.  V, α, β
    and D are published.

    Parameters
    ----------
    dataset : Dataset
    columns : sequence of str, optional
        The columns whose tuples are released (default: the quasi-identifiers).
        Only these columns are published: an inserted tuple has no values
        for the others.
    alpha : float in (0, 1]
        α + β is the probability that a true tuple is kept.  α = 0 would make
        V independent of I (nothing is estimable).
    beta : float in [0, 1), with alpha + beta <= 1
        The probability that each tuple of D ∖ I is inserted.  Choose (α, β)
        with :func:`alpha_beta_parameters`; check a pair with :func:`is_private`.
    domains : mapping of str to sequence, optional
        The public domain :math:`D_j` of a column.  Otherwise a column's
        domain is its hierarchy's leaves, else its schema domain, else (with
        a ``UserWarning``) the values present in the data, which discloses
        which values occur and breaks the assumption that D is public.  A
        column with missing values gets :data:`~veil.dataset.MISSING` added.
    seed : int, numpy.random.Generator or None
        Seed of the randomness (None: fresh OS entropy).  Keep it secret.
    max_inserted : int in [0, inf), default 10,000,000
        Refuse to run when the expected number of inserted tuples
        :math:`\\beta(|D| - |I|)` exceeds this (the output must fit in memory).

    Returns
    -------
    Recoding
        ``data`` is V: one row per published tuple, only ``columns``, labels as
        text (missing values as NaN), rows in random order.  It is **not
        row-aligned** with the input (``details["row_aligned"]`` is False):
        true tuples are dropped and inserted ones are added.  ``details``
        holds ``alpha``, ``beta``, ``domain_size`` (|D|), ``domain_sizes``,
        ``domains`` (the labels, needed by :func:`alpha_beta_query`),
        ``domain_sources``, ``semantics`` ("set"), ``records_in`` and
        ``tuples_out``.  It never holds the seed nor how many tuples are true.

    Raises
    ------
    ColumnNotFoundError
        A column is not in the table.
    ParameterError
        Bad α, β (α + β > 1, α = 0, negative, ...), a value of the table
        missing from its column's domain, a domain above :math:`2^{63}-1`
        tuples, or too many expected insertions.

    Notes
    -----
    **Set semantics.**  The paper's I is a set, and so is V here: duplicate
    records collapse to one tuple of I, which is kept or dropped as a whole.
    The estimator then estimates the number of *distinct* tuples satisfying a
    query.  Bag semantics (keeping each record independently) would break the
    privacy guarantee: an inserted tuple appears at most once, so a tuple
    seen twice in V is certainly in I, a posterior of 1 > γ.

    **No enumeration of D.**  |D| is usually astronomically larger than the
    table, so D is never materialised.  Tuples are packed into int64
    mixed-radix keys; the number of inserted tuples is drawn from
    :math:`\\mathrm{Bin}(|D|-|I|, \\beta)` (given that number, the inserted
    set is a uniform subset of :math:`D \\setminus I`); that many distinct
    ranks are drawn uniformly from :math:`[0, |D|-|I|)` and the j-th rank is
    mapped to the j-th key *not* in I by
    :math:`j + \\#\\{i : t_{(i)} - i \\le j\\}` over the sorted true keys
    :math:`t_{(0)} < t_{(1)} < \\dots`.  This is exact (no rejection loop,
    no retries) and costs :math:`O((|I| + |V|)\\log|I|)`.

    The privacy guarantee (Theorem 4.3) is against d-independent
    adversaries only; this is not differential privacy (see :mod:`veil.dp`).

    References
    ----------
    Rastogi, Suciu, Hong (2007), Section 4, "the αβ algorithm".

    Examples
    --------
    >>> import pandas as pd
    >>> from veil import Dataset
    >>> ds = Dataset.from_pandas(pd.DataFrame({"a": ["x", "y", "y"], "b": ["1", "2", "2"]}),
    ...                          quasi_identifiers=["a", "b"])
    >>> v = alpha_beta(ds, alpha=0.6, beta=0.2, seed=1,
    ...                domains={"a": ["x", "y", "z"], "b": ["1", "2"]})
    >>> v.details["domain_size"], v.details["row_aligned"]
    (6, False)
    """
    start = time.perf_counter()
    owner = "alpha_beta"
    alpha, beta = _check_alpha_beta(alpha, beta, owner)
    max_inserted = check_int("max_inserted", max_inserted, owner, low=0)
    columns = _columns(dataset, columns, owner)
    domains = _check_domains(domains, columns, owner)
    rng = _generator(seed, owner)

    codes, labels, sources = _codes_on_domains(dataset, columns, domains)
    sizes = [len(d) for d in labels]
    domain_size, strides = _mixed_radix(sizes, columns)
    true_keys = np.unique(codes @ strides) if len(codes) else np.empty(0, dtype=np.int64)
    keys = _draw_view(true_keys, domain_size, alpha, beta, max_inserted, rng)
    data = _decode(keys, labels, strides, columns)
    details = {
        "row_aligned": False,
        "semantics": "set",
        "columns": columns,
        "alpha": alpha,
        "beta": beta,
        "domain_size": int(domain_size),
        "domain_sizes": dict(zip(columns, sizes)),
        "domains": {c: [str(v) for v in d] for c, d in zip(columns, labels)},
        "domain_sources": sources,
        "records_in": int(dataset.n_records),
        "tuples_out": int(len(data)),
        "differential_privacy": False,
    }
    return Recoding(data=data, algorithm="alpha-beta", suppressed=0, groups=0,
                    seconds=time.perf_counter() - start, details=details)


def _check_domains(domains: Mapping[str, Sequence[Any]] | None, columns: list[str], owner: str) -> dict:
    """The ``domains`` parameter, refusing a domain for a column that is not released."""
    domains = dict(domains or {})
    for name in domains:
        if name not in columns:
            raise ParameterError(
                f"The 'domains' parameter of {owner} gives a domain for {name!r}, which is not one of "
                f"the released columns ({', '.join(map(repr, columns))})."
            )
    return domains


def _codes_on_domains(
    dataset: Dataset, columns: list[str], domains: Mapping[str, Sequence[Any]],
) -> tuple[np.ndarray, list[np.ndarray], dict[str, str]]:
    """Each record's position in each column's public domain, the domains, and where each came from.

    Warns when a domain had to be taken from the data (it then discloses which values occur).
    """
    labels: list[np.ndarray] = []
    sources: dict[str, str] = {}
    codes = np.empty((dataset.n_records, len(columns)), dtype=np.int64)
    for j, column in enumerate(columns):
        domain, source = _domain(dataset, column, domains)
        sources[column] = source
        encoded = dataset.encode(column)
        position = pd.Index(domain).get_indexer(encoded.labels.astype(object))
        used = np.bincount(encoded.codes, minlength=encoded.n_values) > 0
        outside = used & (position < 0)
        if outside.any():
            bad = encoded.labels[np.flatnonzero(outside)]
            raise ParameterError(
                f"Column {column!r} has the value {bad[0]!r}"
                + (f" (and {len(bad) - 1} other value(s))" if len(bad) > 1 else "")
                + f", which is not in its domain (from {source}); every value of the table must be "
                "in the domain D."
            )
        codes[:, j] = position[encoded.codes]
        labels.append(domain)
    inferred = [c for c, s in sources.items() if s == "data"]
    if inferred:
        warnings.warn(
            f"alpha_beta took the domain of {', '.join(map(repr, inferred))} from the values present "
            "in the data; publishing it discloses which values occur. Pass public domains "
            "(the 'domains' parameter, a hierarchy, or a schema domain).",
            UserWarning,
            stacklevel=3,
        )
    return codes, labels, sources


def _mixed_radix(sizes: list[int], columns: list[str]) -> tuple[int, np.ndarray]:
    """|D| and the strides that pack a tuple of domain positions into one int64 key."""
    domain_size = math.prod(sizes)
    if domain_size > _MAX_DOMAIN:
        raise ParameterError(
            f"The domain of {', '.join(map(repr, columns))} has {domain_size:.3e} tuples, more than "
            f"alpha_beta handles (2^63 - 1, int64 keys); release fewer columns or coarser domains."
        )
    strides = np.ones(len(sizes), dtype=np.int64)
    for j in range(len(sizes) - 2, -1, -1):
        strides[j] = strides[j + 1] * sizes[j + 1]
    return domain_size, strides


def _draw_view(
    true_keys: np.ndarray, domain_size: int, alpha: float, beta: float, max_inserted: int,
    rng: np.random.Generator,
) -> np.ndarray:
    """The keys of V, in random order: true keys kept with probability α + β, others inserted with β.

    The inserted set is drawn without enumerating D (see the Notes of :func:`alpha_beta`):
    Bin(|D| - |I|, β) ranks, mapped to the keys not in I through the sorted true keys.
    """
    n_true = len(true_keys)
    n_free = domain_size - n_true
    expected = beta * n_free
    if expected > max_inserted:
        raise ParameterError(
            f"alpha_beta would insert about {expected:.3e} tuples (beta x |D \\ I| = {beta!r} x "
            f"{n_free}), more than max_inserted={max_inserted}; lower beta, release fewer columns "
            "or coarser domains, or raise max_inserted."
        )
    kept = true_keys[rng.random(n_true) < alpha + beta]
    n_insert = int(rng.binomial(n_free, beta)) if n_free > 0 and beta > 0 else 0
    if n_insert:
        ranks = np.sort(rng.choice(n_free, size=n_insert, replace=False).astype(np.int64))
        shifted = true_keys - np.arange(n_true, dtype=np.int64)  # non-decreasing
        inserted = ranks + np.searchsorted(shifted, ranks, side="right")
    else:
        inserted = np.empty(0, dtype=np.int64)
    keys = np.concatenate([kept, inserted])
    return keys[rng.permutation(len(keys))]


def _decode(keys: np.ndarray, labels: list[np.ndarray], strides: np.ndarray, columns: list[str]) -> pd.DataFrame:
    """The view as a table of labels (the missing label back to NaN)."""
    out: dict[str, Any] = {}
    for j, column in enumerate(columns):
        values = labels[j][(keys // strides[j]) % len(labels[j])]
        values = np.where(values == MISSING, np.nan, values) if MISSING in set(labels[j]) else values
        out[column] = pd.Series(values, dtype=object)
    return pd.DataFrame(out, columns=columns)



def _selected_domain(column: str, domain_arr: np.ndarray, choice: Any) -> np.ndarray:
    """The mask over ``column``'s public domain that ``choice`` (labels or a function) selects."""
    if callable(choice):
        mask = np.asarray(choice(domain_arr.astype(str)), dtype=bool)
        if mask.shape != domain_arr.shape:
            raise ParameterError(
                f"The selection function for column {column!r} must return one boolean per domain "
                f"value ({len(domain_arr)}). Got shape {mask.shape} instead."
            )
        return mask
    if isinstance(choice, str):
        choice = [choice]
    wanted = {str(v) for v in choice}
    return np.array([v in wanted for v in domain_arr], dtype=bool)


def alpha_beta_query(release: Recoding, where: Mapping[str, Selection] | None = None) -> float:
    """Estimate a conjunctive counting query from an αβ release.

    ``SELECT count(DISTINCT tuple) FROM I WHERE c1 IN S1 AND c2 IN S2 ...``:
    counts :math:`n_V` in the published view, computes :math:`n_D` from the
    published domains (a product of per-column counts, never enumerating D)
    and returns :func:`alpha_beta_estimate`.

    Parameters
    ----------
    release : Recoding
        The result of :func:`alpha_beta`.
    where : mapping of str to (collection of labels or callable), optional
        Per column, the selected labels, or a function from an array of
        domain labels (str) to a boolean mask.  Columns not named are
        unrestricted; ``None`` counts every tuple.  Missing values are
        selected by the label :data:`~veil.dataset.MISSING`.

    Returns
    -------
    float
        The unbiased estimate of the number of distinct true tuples selected.
        Disjunctions follow by linearity: split them into disjoint
        conjunctions and add the estimates.

    Raises
    ------
    ParameterError
        ``release`` is not an αβ release, or a selection function returns a
        mask of the wrong shape.
    ColumnNotFoundError
        ``where`` names a column that was not released.
    """
    if release.algorithm != "alpha-beta" or "domains" not in release.details:
        raise ParameterError(
            f"alpha_beta_query needs the result of alpha_beta. Got a {release.algorithm!r} release instead."
        )
    details = release.details
    domains = details["domains"]
    where = dict(where or {})
    unknown = [c for c in where if c not in domains]
    if unknown:
        raise ColumnNotFoundError(
            f"Column {unknown[0]!r} (in 'where') was not released; the released columns are: "
            f"{', '.join(domains)}."
        )
    n_d = 1
    selected = np.ones(len(release.data), dtype=bool)
    for column, domain in domains.items():
        if column not in where:
            n_d *= len(domain)
            continue
        domain_arr = np.asarray(domain, dtype=object)
        mask = _selected_domain(column, domain_arr, where[column])
        n_d *= int(mask.sum())
        chosen = set(domain_arr[mask].tolist())
        values = release.data[column].astype(object).where(release.data[column].notna(), MISSING)
        selected &= values.isin(chosen).to_numpy()
    return alpha_beta_estimate(int(selected.sum()), n_d, details["alpha"], details["beta"])
