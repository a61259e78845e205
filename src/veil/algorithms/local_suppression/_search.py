"""Local suppression: blank the fewest cells so that every record has at least k compatible records.

sdcMicro's ``localSuppression`` (and mu-Argus's) reaches k-anonymity by
blanking single key values, not records, under the rule that a blanked cell
matches any value (:mod:`veil.risk._individual_blanks`).  sdcMicro is greedy:
it walks the records at risk and blanks one value at a time, in the order of
an importance vector, until no record is at risk.

veil solves each record's problem exactly.  For a record of a class smaller
than k it finds the smallest set :math:`B` of keys whose blanking leaves at
least k records agreeing with it on the other keys (ties: the least important
keys first):

.. math:: \\min |B| \\quad \\text{s.t.} \\quad |\\{ j : x_{ja} = x_{ia}\\ \\forall a \\notin B \\}| \\ge k

The agreeing records are counted on the *original* values, and blanking a cell
only adds matches under the rule, so once every record has such a :math:`B`
every record has at least k compatible records whatever the others' blanks:
correct by construction, and each record blanks no more cells than it needs
on its own.  The search is over the key subsets, in order of size then
importance, each one a grouping of the class table (the distinct key
combinations), stopping at the first size that settles every record: no loop
over records.

A record whose every key must be blanked is released with ``*`` in every key:
a suppressed record, counted against the suppression limit.
"""

from __future__ import annotations

import math
import time
from collections.abc import Sequence
from typing import Any
from dataclasses import dataclass
from itertools import combinations

import numpy as np

from veil.algorithms._recoding import SUPPRESSED_LABEL, Recoding
from veil.classes import ClassTable, factorize_keys, pack_codes
from veil.errors import InfeasibleError, ParameterError
from veil.risk._individual import risk_from_frequencies
from veil.algorithms.local_suppression._combs import blanks_by_combinations, parse_combs
from veil.risk._individual_blanks import blank_matching_frequencies, smallest_over_combinations

__all__ = ["local_suppression", "importance_order", "MISSING_RULE", "LOCAL_SUPPRESSION_WORK_LIMIT"]

#: How the release is read: the rule the verification counts classes under (named in the report).
MISSING_RULE = "a blanked cell ('*') matches any value"

#: The most work (class cells grouped over every key subset) the search starts on.
LOCAL_SUPPRESSION_WORK_LIMIT = 3_000_000_000


def importance_order(dataset, quasi_identifiers: Sequence[str], importance: Sequence[str] | str | None) -> list[str]:
    """The keys from the most important (blanked last) to the least (blanked first).

    Default (as sdcMicro): keys with fewer distinct values are more important.

    Raises
    ------
    ParameterError
        ``importance`` does not name every key exactly once.
    """
    qis = list(quasi_identifiers)
    if importance is None:
        sizes = {name: dataset.encode(name).n_values for name in qis}
        return sorted(qis, key=lambda name: (sizes[name], qis.index(name)))
    names = [s.strip() for s in importance.split(",")] if isinstance(importance, str) else [str(s) for s in importance]
    unknown = [n for n in names if n not in qis]
    missing = [n for n in qis if n not in names]
    if unknown or missing or len(set(names)) != len(names):
        what = (f"{unknown[0]!r} is not a quasi-identifier" if unknown else
                f"{missing[0]!r} is missing" if missing else "a quasi-identifier is named twice")
        raise ParameterError(f"The importance list must name every quasi-identifier once ({', '.join(qis)}); "
                             f"{what}.")
    return names


def _subsets(q: int, rank: Sequence[int]) -> list[int]:
    """Every non-empty subset of ``q`` keys as a bit mask, by size, then by the importance of what it blanks
    (``rank[j]``: 0 for the least important key; a subset holding a more important key comes later)."""
    out: list[int] = []
    for size in range(1, q + 1):
        masks = [sum(1 << j for j in c) for c in combinations(range(q), size)]
        masks.sort(key=lambda m: sum(1 << rank[j] for j in range(q) if m >> j & 1))
        out.extend(masks)
    return out


@dataclass(frozen=True)
class Rule:
    """When a record is safe: at least ``k`` compatible records, or (``threshold``) an individual risk
    below ``threshold`` (sdcMicro's ``indivRisk`` from the compatible records and their weights)."""

    k: int | None = None
    threshold: float | None = None
    method: str = "approx"

    def met(self, f: np.ndarray, big_f: np.ndarray) -> np.ndarray:
        """Whether records with ``f`` compatible records of summed weight ``big_f`` are safe."""
        if self.threshold is None:
            return f >= self.k
        f = np.maximum(f, 1)
        return risk_from_frequencies(f, np.maximum(big_f, f), method=self.method) < self.threshold


def _agreeing(codes: np.ndarray, counts: np.ndarray, weights: np.ndarray, radices: Sequence[int], keep: list[int],
              rows: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """For the classes ``rows``: the records agreeing with them on the keys ``keep``, and their weights."""
    if not keep:
        return np.full(len(rows), int(counts.sum()), dtype=np.int64), np.full(len(rows), float(weights.sum()))
    key = pack_codes([codes[:, j] for j in keep], [radices[j] for j in keep])
    if key is None:
        key = np.zeros(len(codes), dtype=np.int64)
        for j in keep:
            key = factorize_keys(key * radices[j] + codes[:, j])[0]
    group, _ = factorize_keys(np.asarray(key, dtype=np.int64))
    f = np.bincount(group, weights=counts).astype(np.int64)[group[rows]]
    return f, np.bincount(group, weights=weights)[group[rows]]


def _first_blanks(codes: np.ndarray, counts: np.ndarray, weights: np.ndarray, rule: Rule, rank: Sequence[int],
                  radices: Sequence[int], todo: np.ndarray) -> np.ndarray:
    """Per class of ``todo``, the first subset (in :func:`_subsets` order) that makes it safe; every key
    for a class that no subset makes safe."""
    q = codes.shape[1]
    blanks = np.zeros(len(counts), dtype=np.int64)
    for mask in _subsets(q, rank):
        if len(todo) == 0:
            break
        keep = [j for j in range(q) if not mask >> j & 1]
        settled = rule.met(*_agreeing(codes, counts, weights, radices, keep, todo))
        blanks[todo[settled]] = mask
        todo = todo[~settled]
    blanks[todo] = (1 << q) - 1  # not safe even blanked everywhere (records suppressed before): suppressed too
    return blanks


def minimal_blanks(codes: np.ndarray, counts: np.ndarray, rule: Rule, rank: Sequence[int],
                   weights: np.ndarray | None = None) -> np.ndarray:
    """Per class, the bit mask of the keys to blank (0: none): the smallest set that makes its records
    safe under ``rule`` on the agreeing records, ties broken by ``rank`` (see the module docstring).
    ``weights``: each class's summed sampling weights (default: its records).

    A class blanked in every key is a suppressed record, in no class: it supports no other record, so
    the search is repeated without the classes it blanks everywhere until none is added.
    """
    q = codes.shape[1]
    everything = (1 << q) - 1
    weights = counts.astype(np.float64) if weights is None else weights
    radices = [int(codes[:, j].max()) + 1 if len(codes) else 1 for j in range(q)]
    removed = np.zeros(len(counts), dtype=np.bool_)
    while True:
        live, heavy = np.where(removed, 0, counts), np.where(removed, 0.0, weights)
        todo = np.flatnonzero(~rule.met(counts, weights) & ~removed)
        blanks = _first_blanks(codes, live, heavy, rule, rank, radices, todo)
        added = (blanks == everything) & ~removed
        if not added.any():
            break
        removed |= added
    blanks[removed] = everything
    for mask in np.unique(blanks[(blanks > 0) & (blanks != everything)]).tolist():
        _restore_in_groups(codes, live, heavy, rule, blanks, int(mask), radices)
    return blanks


def _restore_in_groups(codes: np.ndarray, counts: np.ndarray, weights: np.ndarray, rule: Rule, blanks: np.ndarray,
                       mask: int, radices: Sequence[int]) -> None:
    """Among the classes blanked on ``mask``, give back their values to the largest classes of each group
    agreeing on the other keys while the group's blanked records still make each of them safe
    (in place; see the module docstring)."""
    q = codes.shape[1]
    rows = np.flatnonzero(blanks == mask)
    keep = [j for j in range(q) if not mask >> j & 1]
    if len(rows) < 2:
        return
    if keep:
        key = pack_codes([codes[rows, j] for j in keep], [radices[j] for j in keep])
        group = factorize_keys(np.asarray(key, dtype=np.int64))[0] if key is not None else \
            np.unique(codes[np.ix_(rows, keep)], axis=0, return_inverse=True)[1].ravel()
    else:
        group = np.zeros(len(rows), dtype=np.int64)
    order = np.lexsort((-counts[rows], group))  # by group, the largest class first
    g, a, w = group[order], counts[rows][order], weights[rows][order]
    start = np.r_[True, g[1:] != g[:-1]]
    left, left_w = _still_blanked(g, a, start), _still_blanked(g, w, start)
    fits = rule.met(a + left, w + left_w)  # its own records plus those still blanked in its group
    # only a prefix of each group: the first class that does not fit ends it
    ok = fits & _prefix_of_group(fits, start)
    blanks[rows[order[ok]]] = 0


def _still_blanked(g: np.ndarray, a: np.ndarray, start: np.ndarray) -> np.ndarray:
    """Per element of groups laid out in order: the sum of ``a`` over the later elements of its group
    (what stays blanked when it and the ones before it get their values back)."""
    total = np.bincount(g, weights=a)[g]
    before = np.cumsum(a) - a  # earlier groups and earlier elements of this group
    first = np.maximum.accumulate(np.where(start, before, 0))
    return total - (before - first + a)


def _prefix_of_group(fits: np.ndarray, start: np.ndarray) -> np.ndarray:
    """Where ``fits`` holds for every element from the start of its group up to here."""
    failures = np.cumsum(~fits)
    at_start = np.maximum.accumulate(np.where(start, failures - (~fits), 0))
    return failures == at_start


def _rule(dataset, table: ClassTable, k: int | None, risk_threshold: float | None,
          weight: str | None) -> tuple[Rule, np.ndarray | None]:
    """The safety rule and each class's summed sampling weights (None: its records), checked."""
    from veil.risk._individual import sampling_weights

    n = dataset.n_records
    if (k is None) == (risk_threshold is None):
        raise ParameterError("Local suppression needs either k or risk_threshold, not both.")
    if k is not None:
        if isinstance(k, bool) or not isinstance(k, (int, np.integer)) or not 1 <= k <= n:
            raise ParameterError(f"k must be an int between 1 and the number of records ({n}) for local "
                                 f"suppression. Got {k!r} instead.")
        if weight is not None:
            raise ParameterError("A sampling weight applies to the risk threshold rule (risk_threshold), not to k.")
        return Rule(k=int(k)), None
    if isinstance(risk_threshold, bool) or not isinstance(risk_threshold, (int, float)) or \
            not 0.0 < float(risk_threshold) <= 1.0:
        raise ParameterError(f"risk_threshold must be a number in (0, 1]. Got {risk_threshold!r} instead.")
    rule = Rule(threshold=float(risk_threshold))
    if weight is None:
        return rule, None
    row_class = table.row_classes()
    inside = row_class >= 0
    totals = np.bincount(row_class[inside], weights=sampling_weights(dataset, weight)[inside],
                         minlength=table.n_classes)
    return rule, totals


def local_suppression(dataset, *, k: int | None = None, risk_threshold: float | None = None,
                      weight: str | None = None, quasi_identifiers: Sequence[str] | None = None,
                      importance: Sequence[str] | str | None = None, combs: Any = None,
                      base: ClassTable | None = None) -> Recoding:
    """k-anonymity (or individual risk under a threshold) by blanking the fewest key cells
    (sdcMicro's ``localSuppression``, solved per record; and ``localSupp``'s threshold rule).

    Parameters
    ----------
    dataset : Dataset
    k : int in [1, number of records], optional
        Every record compatible with at least ``k`` records.
    risk_threshold : float in (0, 1], optional
        Instead of ``k``: every record's individual risk (``indivRisk``, approx) below it.
    weight : str, optional
        With ``risk_threshold``: the sampling-weight column (default: every weight 1).
    quasi_identifiers : sequence of str, optional
    importance : sequence of str or comma-separated str, optional
        Every key, the most important (blanked last) first; default: fewer values first.
    combs : sequence of int or comma-separated str, optional
        With ``k``: k-anonymity on every set of that many keys (sdcMicro's ``combs``, ``(4, 3)``).
    base : ClassTable, optional
        The dataset's class table at level 0, when the caller has it.

    Returns
    -------
    Recoding
        Every input row, blanked cells ``*``; ``details``: the rule (``missing_rule``), the cells
        blanked per key and in all, the records touched, ``k_achieved`` (and ``max_risk``).

    Raises
    ------
    ParameterError
        A parameter out of range, or work above :data:`LOCAL_SUPPRESSION_WORK_LIMIT`.

    Examples
    --------
    >>> import pandas as pd
    >>> from veil.dataset import Dataset
    >>> frame = pd.DataFrame({"a": ["x", "x", "x", "y"], "b": ["1", "1", "2", "1"]})
    >>> result = local_suppression(Dataset.from_pandas(frame, quasi_identifiers=["a", "b"]), k=2)
    >>> result.data.values.tolist(), result.details["cells_blanked_total"]
    ([['x', '1'], ['x', '1'], ['x', '*'], ['*', '1']], 2)
    """
    start = time.perf_counter()
    qis = list(quasi_identifiers or dataset.quasi_identifiers)
    table = base if base is not None else ClassTable.from_dataset(dataset, quasi_identifiers=qis)
    rule, weights = _rule(dataset, table, k, risk_threshold, weight)
    order = importance_order(dataset, qis, importance)
    sizes = _checked_combs(combs, rule, len(qis), table.n_classes)
    rank = [len(qis) - 1 - order.index(name) for name in qis]  # 0: the least important
    counts = np.asarray(table.counts, dtype=np.int64)
    blanks = minimal_blanks(np.asarray(table.codes), counts, rule, rank, weights)
    if sizes is not None:  # all the keys together solve every set of them too: the fewer cells of the two
        by_sets = blanks_by_combinations(
            np.asarray(table.codes), counts, counts.astype(np.float64), sizes,
            lambda codes, n, w, cols: minimal_blanks(codes, n, rule, [rank[j] for j in cols], w))
        if _cells(by_sets, counts) < _cells(blanks, counts):
            blanks = by_sets
    return _released(dataset, table, qis, blanks, order, rule, weights, sizes, time.perf_counter() - start)


def _checked_combs(combs: Any, rule: Rule, n_keys: int, n_classes: int) -> tuple[int, ...] | None:
    """The key-set sizes (None: all the keys), after refusing what cannot run or would not finish."""
    sizes = parse_combs(combs, n_keys)
    if sizes is not None and rule.threshold is not None:
        raise ParameterError("combs applies to k, not to the risk threshold rule.")
    work = sum(math.comb(n_keys, c) * 2 ** c * c for c in {*(sizes or ()), n_keys}) * n_classes
    if work > LOCAL_SUPPRESSION_WORK_LIMIT:
        raise ParameterError(f"local suppression on {n_keys} quasi-identifiers and {n_classes:,} classes could "
                             f"group up to {work:,} class cells, more than the {LOCAL_SUPPRESSION_WORK_LIMIT:,} it "
                             "starts on; use fewer quasi-identifiers.")
    return sizes


def _cells(blanks: np.ndarray, counts: np.ndarray) -> int:
    """The cells ``blanks`` (a key mask per class) blank in all."""
    bits = np.zeros(len(blanks), dtype=np.int64)
    masks = blanks.copy()
    while masks.any():
        bits += masks & 1
        masks >>= 1
    return int((bits * counts).sum())


def _achieved(table: ClassTable, blanks: np.ndarray, rule: Rule, weights: np.ndarray | None,
              combs: tuple[int, ...] | None) -> dict[str, Any]:
    """What the release achieves under the rule: the fewest compatible records, and (threshold rule)
    the highest individual risk, counted afresh from the blanks."""
    q = len(table.quasi_identifiers)
    kept = blanks != (1 << q) - 1  # a record blanked in every key is a suppressed record, in no class
    bits = ((blanks[kept, None] >> np.arange(q)) & 1).astype(bool)
    codes = np.asarray(table.codes)[kept]
    f = smallest_over_combinations(codes, table.counts[kept], bits, combs)
    out: dict[str, Any] = {"k_achieved": int(f.min()) if len(f) else 0}
    if rule.threshold is not None:
        big_f = f.astype(np.float64) if weights is None else blank_matching_frequencies(codes, weights[kept], bits)
        risk = risk_from_frequencies(f, np.maximum(big_f, f), method=rule.method) if len(f) else np.zeros(0)
        out["max_risk"] = float(risk.max()) if len(risk) else 0.0
        if len(risk) and out["max_risk"] >= rule.threshold:
            raise InfeasibleError(f"Local suppression left an individual risk of {out['max_risk']:.4g}, not under "
                                  f"the threshold {rule.threshold:g}: adding records raised a risk here. Lower "
                                  "the threshold, or use k.")
    return out


def _released(dataset, table: ClassTable, qis: list[str], blanks: np.ndarray, order: list[str], rule: Rule,
              weights: np.ndarray | None, combs: tuple[int, ...] | None, seconds: float) -> Recoding:
    """The released rows (every column, blanked key cells ``*``) and the report's figures."""
    row_class = table.row_classes()
    inside = row_class >= 0
    row_blanks = np.where(inside, blanks[np.maximum(row_class, 0)], 0)
    data = dataset.frame.copy()
    per_key: dict[str, int] = {}
    for j, name in enumerate(qis):
        encoded = dataset.encode(name)
        labels = np.asarray(encoded.labels, dtype=object)[encoded.codes]
        cut = (row_blanks >> j & 1).astype(bool)
        labels[cut] = SUPPRESSED_LABEL
        data[name] = labels
        per_key[name] = int(cut.sum())
    everything = (1 << len(qis)) - 1
    suppressed = int(np.count_nonzero(row_blanks == everything)) + table.input_suppressed
    rule_facts = {"k": rule.k} if rule.threshold is None else {"risk_threshold": rule.threshold}
    details = {
        **rule_facts, **_achieved(table, blanks, rule, weights, combs), "missing_rule": MISSING_RULE,
        "importance": order, "combs": None if combs is None else list(combs),
        "cells_blanked": per_key, "cells_blanked_total": int(sum(per_key.values())),
        "records_with_blanks": int(np.count_nonzero(row_blanks)),
    }
    # the classes left whole, and the classes given blanks (what the report calls groups)
    groups = int(np.count_nonzero(blanks == 0)) + int(np.count_nonzero(blanks))
    return Recoding(data=data, algorithm="local-suppression", suppressed=suppressed, groups=groups,
                    seconds=seconds, details=details)
