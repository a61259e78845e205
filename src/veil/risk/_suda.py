"""SUDA2: minimal sample uniques, SUDA and DIS-SUDA scores (Elliot et al.; Manning, Haglin & Keane 2008).

A set of quasi-identifiers :math:`S` is a *sample unique* (SU) of a record
when no other record shares its values on :math:`S`; it is a *minimal* sample
unique (MSU) when no proper subset of :math:`S` is one.  Records with small
MSUs are the ones an intruder picks out with little knowledge ("special
uniques").  Uniqueness is monotone (a superset of an SU is an SU), which is
what every SUDA search exploits.

The search (veil's, on the class table: the distinct QI combinations and
their counts, so any engine's table will do) walks the attribute lattice
level by level up to ``max_size``, with the pruning that makes SUDA2 fast:

* only classes of one record can have an MSU (a record sharing all its values
  has no SU at all), so only they are tracked;
* :math:`S` is an MSU of a record exactly when it is unique on :math:`S`
  and on none of the :math:`|S|` subsets one attribute smaller (these cover
  every proper subset, by monotonicity);
* a record with an SU on :math:`S` is never a candidate for a superset of
  :math:`S`, and a set with no candidate left prunes all its supersets.

Scores, per MSU of size :math:`s` among :math:`M` attributes, summed over the
record's MSUs (sdcMicro's ``suda2``):

* ``original_scores=True`` (Elliot et al., sdcMicro's default since 5.0.2):
  :math:`w(s) = (M - s)!`;
* ``original_scores=False`` (the IHSN implementation):
  :math:`w(s) = (2^{M-s} - 1)\\, s!\\,(M-s)!/M!`.

DIS-SUDA (Elliot, Skinner & Dale; sdcMicro's formula): with :math:`U` the
sample uniques, :math:`P` the records in classes of exactly two, :math:`f` the
sampling fraction (``dis_fraction``), :math:`D = Uf / (Uf + P(1-f))`,
:math:`Q = 1 + (8 - M)/20` and :math:`A = \\sum_{i: \\mathrm{score}_i > 0} \\mathrm{score}_i^{-Q}`,

.. math:: \\mathrm{DIS}_i = 1 \\big/ \\left(1 + \\frac{U/D - U}{\\mathrm{score}_i^{Q} A}\\right)

(0 for a record with no MSU).  An attribute's contribution is the share of the
total score from MSUs that contain it (in percent; the shares of the
attributes add up to more than 100 when MSUs have several attributes).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from itertools import combinations
from typing import Any

import numpy as np

from veil._validation import check_int, check_real
from veil.classes import ClassTable, factorize_keys, pack_codes
from veil.errors import ParameterError

__all__ = ["Suda2Result", "suda2", "suda2_work", "check_suda2_work", "SUDA2_WORK_LIMIT"]

#: The most work (class cells read over every attribute subset searched) suda2 starts on;
#: about a minute on one core.
SUDA2_WORK_LIMIT = 3_000_000_000


def msu_weights(n_attributes: int, *, original_scores: bool = True) -> np.ndarray:
    """``w(s)`` for s = 1..M (index s-1): the score of one MSU of size s."""
    m = n_attributes
    sizes = range(1, m + 1)
    if original_scores:
        return np.array([float(math.factorial(m - s)) for s in sizes])
    return np.array([(2.0 ** (m - s) - 1.0) * math.factorial(s) * math.factorial(m - s) / math.factorial(m)
                     for s in sizes])


def suda2_work(n_classes: int, n_attributes: int, max_size: int) -> int:
    """The work suda2 would do before pruning: class cells read over every subset of at most ``max_size``."""
    return int(sum(math.comb(n_attributes, s) * s for s in range(1, max_size + 1))) * int(n_classes)


def check_suda2_work(n_classes: int, n_attributes: int, max_size: int) -> None:
    """Refuse, with the estimate, a search whose work is above :data:`SUDA2_WORK_LIMIT`."""
    work = suda2_work(n_classes, n_attributes, max_size)
    if work > SUDA2_WORK_LIMIT:
        raise ParameterError(
            f"suda2 on {n_attributes} quasi-identifiers, {n_classes:,} classes and MSUs up to size {max_size} "
            f"would read about {work:,} class cells, more than the {SUDA2_WORK_LIMIT:,} it starts on (about a "
            "minute); lower the max size or use fewer quasi-identifiers."
        )


@dataclass(frozen=True, eq=False)
class Suda2Result:
    """MSUs, SUDA and DIS-SUDA scores of the classes of a table.

    Attributes
    ----------
    quasi_identifiers : tuple of str
    max_size : int
    original_scores : bool
    dis_fraction : float
    msu_counts : numpy.ndarray of int64, shape (n_classes, max_size)
        Per class: its MSUs of each size (nonzero only for classes of one record).
    score, dis_score : numpy.ndarray of float64, shape (n_classes,)
    counts : numpy.ndarray of int64
        Records per class.
    contribution : numpy.ndarray of float64, shape (n_classes, n_qi)
        Per class, per attribute: the score from MSUs containing the attribute.
    """

    quasi_identifiers: tuple[str, ...]
    max_size: int
    original_scores: bool
    dis_fraction: float
    msu_counts: np.ndarray
    score: np.ndarray
    dis_score: np.ndarray
    counts: np.ndarray
    contribution: np.ndarray

    @property
    def n_records(self) -> int:
        return int(self.counts.sum())

    def attribute_contribution(self) -> dict[str, float]:
        """Percent of the total score from MSUs that contain each attribute (0 when no score)."""
        total = float(self.score.sum())
        sums = self.contribution.sum(axis=0)
        return {name: (100.0 * float(s) / total if total else 0.0) for name, s in zip(self.quasi_identifiers, sums)}

    def to_dict(self) -> dict[str, Any]:
        """The ``suda2`` object of ``veil risk --json``."""
        n = self.n_records
        special = int(self.counts[self.msu_counts.sum(axis=1) > 0].sum())
        return {
            "max_size": self.max_size,
            "special_uniques": special,
            "max_score": float(self.score.max()) if len(self.score) else 0.0,
            "dis_suda": {"mean": float((self.dis_score * self.counts).sum() / n) if n else 0.0,
                         "max": float(self.dis_score.max()) if len(self.dis_score) else 0.0},
            "attribute_contribution": self.attribute_contribution(),
            "msus_by_size": {str(s + 1): int(c) for s, c in enumerate(self.msu_counts.sum(axis=0))},
            "original_scores": self.original_scores,
            "dis_fraction": self.dis_fraction,
        }


def _projection_counts(codes: np.ndarray, radices: Sequence[int], counts: np.ndarray,
                       subset: tuple[int, ...], rows: np.ndarray) -> np.ndarray:
    """For the classes ``rows``: how many records share their values on the attributes ``subset``."""
    columns = [codes[:, j] for j in subset]
    key = pack_codes(columns, [radices[j] for j in subset])
    if key is None:  # renumber attribute by attribute
        key = np.zeros(len(codes), dtype=np.int64)
        for j in subset:
            key = factorize_keys(key * radices[j] + codes[:, j])[0]
    group, _ = factorize_keys(np.asarray(key, dtype=np.int64))
    sizes = np.bincount(group, weights=counts)
    return sizes[group[rows]]


def _search(codes: np.ndarray, counts: np.ndarray, max_size: int,
            progress: Callable[[int, int], None] | None) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """``(rows, msus, members)``: the classes of one record, and per MSU found its row
    (into ``rows``), size and attribute mask (level by level, pruned; see the module docstring)."""
    q = codes.shape[1]
    radices = [int(codes[:, j].max()) + 1 if len(codes) else 1 for j in range(q)]
    rows = np.flatnonzero(counts == 1)
    found_row: list[np.ndarray] = []
    found_set: list[np.ndarray] = []
    previous: dict[tuple[int, ...], np.ndarray | None] = {(): np.zeros(len(rows), dtype=np.bool_)}
    total = sum(math.comb(q, s) for s in range(1, max_size + 1))
    done = 0
    for size in range(1, max_size + 1):
        current: dict[tuple[int, ...], np.ndarray | None] = {}
        for subset in combinations(range(q), size):
            done += 1
            parents = [previous.get(subset[:i] + subset[i + 1:]) for i in range(size)]
            if any(p is None for p in parents):  # a parent with no candidate left: nothing below it either
                current[subset] = None
                continue
            covered = np.logical_or.reduce(parents) if size > 1 else parents[0]
            candidate = ~covered
            if not candidate.any():
                current[subset] = None
                continue
            unique = _projection_counts(codes, radices, counts, subset, rows) == 1
            msu = candidate & unique
            if msu.any():
                found_row.append(np.flatnonzero(msu))
                found_set.append(np.full(int(msu.sum()), sum(1 << j for j in subset), dtype=np.int64))
            current[subset] = covered | unique
        if progress is not None:  # once per size: the subsets of a size are alike in cost
            progress(done, total)
        previous = current
        if all(v is None for v in previous.values()):
            break
    if progress is not None:
        progress(total, total)
    msu_rows = np.concatenate(found_row) if found_row else np.zeros(0, dtype=np.int64)
    masks = np.concatenate(found_set) if found_set else np.zeros(0, dtype=np.int64)
    return rows, msu_rows, masks


def _dis_scores(score: np.ndarray, counts: np.ndarray, n_attributes: int, dis_fraction: float) -> np.ndarray:
    """DIS-SUDA per class (the module docstring's formula; 0 where the score is 0)."""
    uniques = float(np.count_nonzero(counts == 1))
    pairs = 2.0 * float(np.count_nonzero(counts == 2))
    scored = score > 0
    out = np.zeros(len(score))
    if not scored.any():
        return out
    dis = uniques * dis_fraction / (uniques * dis_fraction + pairs * (1.0 - dis_fraction))
    q_exp = 1.0 + (8.0 - n_attributes) / 20.0
    powered = score[scored] ** q_exp
    adjust = float((1.0 / powered).sum())
    out[scored] = 1.0 / (1.0 + (uniques / dis - uniques) / (powered * adjust))
    return out


def suda2(
    data: Any,
    *,
    quasi_identifiers: Sequence[str] | None = None,
    max_size: int | None = None,
    dis_fraction: float = 0.01,
    original_scores: bool = True,
    progress: Callable[[int, int], None] | None = None,
) -> Suda2Result:
    """Minimal sample uniques and SUDA / DIS-SUDA scores of a table (sdcMicro's ``suda2``).

    Parameters
    ----------
    data : ClassTable, Dataset or DataFrame
        A :class:`ClassTable` from any engine will do (only the distinct QI
        combinations and their counts are read).
    quasi_identifiers : sequence of str, optional
    max_size : int in [1, number of QIs], optional
        The largest MSU searched (default: all QIs).
    dis_fraction : float in (0, 1]
        The DIS score's sampling fraction (sdcMicro's ``DisFraction``, 0.01).
    original_scores : bool
        Elliot's weights :math:`(M-s)!` (default, as sdcMicro) or the IHSN
        implementation's (see the module docstring).
    progress : callable, optional
        ``progress(done, total)``, over the attribute subsets.

    Returns
    -------
    Suda2Result
        Per class; ``to_dict()`` is the ``suda2`` JSON object.

    Raises
    ------
    ParameterError
        ``max_size`` out of range; work above :data:`SUDA2_WORK_LIMIT`.

    References
    ----------
    Elliot, Manning & Ford 2002; Manning, Haglin & Keane 2008 (module docstring).

    Examples
    --------
    >>> import pandas as pd
    >>> frame = pd.DataFrame({"a": [2, 1, 1], "b": [0, 3, 0], "c": [0, 6, 0]})
    >>> suda2(frame, quasi_identifiers=["a", "b", "c"]).attribute_contribution()
    {'a': 50.0, 'b': 37.5, 'c': 37.5}
    """
    from veil.risk._common import as_classes

    table = data if isinstance(data, ClassTable) and quasi_identifiers is None else \
        as_classes(data, quasi_identifiers=quasi_identifiers, owner="suda2")
    q = len(table.quasi_identifiers)
    size = q if max_size is None else check_int("max_size", max_size, "suda2", low=1, high=q)
    dis_fraction = check_real("dis_fraction", dis_fraction, "suda2", low=0.0, high=1.0, closed="right")
    check_suda2_work(table.n_classes, q, size)
    codes, counts = np.asarray(table.codes), np.asarray(table.counts, dtype=np.int64)
    rows, msu_rows, masks = _search(codes, counts, size, progress)
    return _assemble(tuple(table.quasi_identifiers), counts, rows[msu_rows], masks, size,
                     bool(original_scores), dis_fraction)


def _assemble(qis: tuple[str, ...], counts: np.ndarray, msu_class: np.ndarray, masks: np.ndarray, size: int,
              original_scores: bool, dis_fraction: float) -> Suda2Result:
    """The result from the MSUs found (each one's class and attribute mask): counts, scores, contributions."""
    q = len(qis)
    bits = (masks[:, None] >> np.arange(q)) & 1 if len(masks) else np.zeros((0, q), dtype=np.int64)
    sizes = bits.sum(axis=1)
    per_msu = msu_weights(q, original_scores=original_scores)[sizes - 1] if len(sizes) else np.zeros(0)
    msu_counts = np.zeros((len(counts), size), dtype=np.int64)
    np.add.at(msu_counts, (msu_class, sizes - 1), 1)
    score = np.bincount(msu_class, weights=per_msu, minlength=len(counts)).astype(np.float64)
    contribution = np.zeros((len(counts), q))
    np.add.at(contribution, msu_class, bits * per_msu[:, None])
    dis = _dis_scores(score, counts, q, dis_fraction)
    return Suda2Result(qis, size, original_scores, dis_fraction, msu_counts, score, dis, counts, contribution)
