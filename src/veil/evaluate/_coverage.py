"""Which original values a released value covers.

A release may show an original value as it is, or generalized: an interval
(``[20, 30)``), a masked string (``123**``), a date cut to its month or year
(``2020-05``), a group named by a hierarchy, or ``*``.  A generalized value
matches every original value it covers.  With the release's hierarchy and level
(``--hierarchy`` and the release's report), each original value is mapped to its
label and covered exactly.  Without it, the label is read:

* ``*`` (or a label of ``*`` only) covers every value;
* ``[a, b)`` / ``[a, b]`` covers the numbers in it;
* a label with ``*`` in some positions covers the values of its length that
  agree everywhere else (masking);
* ``YYYY`` or ``YYYY-MM`` covers the dates that start with it and a ``-``;
* any other label covers itself only.

Coverage is computed per distinct value and distinct label, never per record:
a boolean table ``values × labels`` (bounded by :data:`MAX_CELLS`; past it, a
column whose labels are all plain values is compared by equality).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

import numpy as np
import pandas as pd

__all__ = ["Coverage", "coverage", "MAX_CELLS", "STAR"]

STAR = "*"
#: The most cells of a dense values × labels coverage table (50M booleans, 50 MB).
MAX_CELLS = 50_000_000
_INTERVAL = re.compile(r"^\s*[\[(]\s*(-?[0-9.eE+-]+)\s*,\s*(-?[0-9.eE+-]+)\s*([\])])\s*$")
_DATE_PREFIX = re.compile(r"^[0-9]{4}(-[0-9]{2})?$")


@dataclass(frozen=True)
class Coverage:
    """The coverage of one column: ``table[v, l]`` says whether label ``l`` covers value ``v``.

    In equality mode (``table is None``), label ``l`` covers value ``label_value[l]`` only
    (``-1``: no value), or every value where ``covers_all[l]``.
    """

    table: np.ndarray | None
    label_value: np.ndarray
    covers_all: np.ndarray

    def covers(self, values: np.ndarray, labels: np.ndarray) -> np.ndarray:
        """A ``len(values) × len(labels)`` boolean matrix: does each label cover each value?"""
        if self.table is not None:
            return self.table[np.ix_(values, labels)]
        return (values[:, None] == self.label_value[labels][None, :]) | self.covers_all[labels][None, :]

    @property
    def generalized(self) -> np.ndarray:
        """Per label: does it cover more than one value (or none of them)?"""
        if self.table is None:
            return self.covers_all.copy()
        return self.table.sum(axis=0) != 1


def coverage(values: np.ndarray, labels: np.ndarray, mapped: np.ndarray | None = None) -> Coverage:
    """The coverage of ``labels`` (distinct released texts) over ``values`` (distinct original texts).

    ``mapped`` (optional) is each value's label under the release's hierarchy at its level:
    then a label covers exactly the values mapped to it (and ``*`` covers all).
    """
    values = np.asarray(values, dtype=object)
    labels = np.asarray(labels, dtype=object)
    star = np.array([_is_star(label) for label in labels], dtype=np.bool_) if len(labels) else np.zeros(0, np.bool_)
    index = pd.Index(values)
    label_value = index.get_indexer(labels).astype(np.int64)
    if mapped is not None:
        target = pd.Index(labels).get_indexer(np.asarray(mapped, dtype=object))
        if len(values) * len(labels) <= MAX_CELLS:
            table = np.zeros((len(values), len(labels)), dtype=np.bool_)
            ok = target >= 0
            table[np.flatnonzero(ok), target[ok]] = True
            table[:, star] = True
            return Coverage(table, label_value, star)
        return Coverage(None, label_value, star)
    plain = (label_value >= 0) | star
    if plain.all() or len(values) * len(labels) > MAX_CELLS:
        return Coverage(None, label_value, star)
    table = np.zeros((len(values), len(labels)), dtype=np.bool_)
    hit = label_value >= 0
    table[label_value[hit], np.flatnonzero(hit)] = True
    table[:, star] = True
    rest = np.flatnonzero(~plain)
    texts = np.array([str(v) for v in values], dtype=object)
    _intervals(table, texts, labels, rest)
    _masks(table, texts, labels, rest)
    _date_prefixes(table, texts, labels, rest)
    return Coverage(table, label_value, star)


def _is_star(label: object) -> bool:
    text = str(label)
    return bool(text) and set(text) == {STAR}


def _intervals(table: np.ndarray, texts: np.ndarray, labels: np.ndarray, rest: np.ndarray) -> None:
    """Fill the columns of interval labels: the numbers of ``texts`` inside each."""
    bounds = [(i, _INTERVAL.match(str(labels[i]))) for i in rest]
    bounds = [(i, m) for i, m in bounds if m is not None]
    if not bounds:
        return
    numbers = pd.to_numeric(pd.Series(texts), errors="coerce").to_numpy(dtype=np.float64)
    cols = np.array([i for i, _ in bounds])
    low = np.array([float(m.group(1)) for _, m in bounds])
    high = np.array([float(m.group(2)) for _, m in bounds])
    closed = np.array([m.group(3) == "]" for _, m in bounds])
    x = numbers[:, None]
    inside = (x >= low[None, :]) & ((x < high[None, :]) | (closed[None, :] & (x == high[None, :])))
    table[:, cols] |= inside


def _masks(table: np.ndarray, texts: np.ndarray, labels: np.ndarray, rest: np.ndarray) -> None:
    """Fill the columns of masked labels (``12***``): same length, equal where the label shows a character."""
    masked = [i for i in rest if STAR in str(labels[i]) and not _INTERVAL.match(str(labels[i]))]
    if not masked:
        return
    lengths = np.array([len(t) for t in texts])
    for width in sorted({len(str(labels[i])) for i in masked}):  # one pass per label width (a handful)
        cols = np.array([i for i in masked if len(str(labels[i])) == width])
        rows = np.flatnonzero(lengths == width)
        if not len(rows) or width == 0:
            continue
        vchars = _chars(texts[rows], width)
        lchars = _chars(np.array([str(labels[c]) for c in cols], dtype=object), width)
        agree = (vchars[:, None, :] == lchars[None, :, :]) | (lchars[None, :, :] == STAR)
        table[np.ix_(rows, cols)] |= agree.all(axis=2)


def _chars(texts: np.ndarray, width: int) -> np.ndarray:
    """Strings of one width as a ``len × width`` array of characters (no loop over the strings)."""
    return np.asarray(texts, dtype=f"<U{width}").view("<U1").reshape(len(texts), width)


def _date_prefixes(table: np.ndarray, texts: np.ndarray, labels: np.ndarray, rest: np.ndarray) -> None:
    """Fill the columns of ``YYYY`` / ``YYYY-MM`` labels: the dates that start with them."""
    dated = [i for i in rest if _DATE_PREFIX.match(str(labels[i]))]
    if not dated:
        return
    series = pd.Series(texts, dtype=object).astype(str)
    for width in sorted({len(str(labels[i])) for i in dated}):
        cols = np.array([i for i in dated if len(str(labels[i])) == width])
        head = series.str.slice(0, width).to_numpy(dtype=object)
        follows = (series.str.slice(width, width + 1) == "-").to_numpy()
        names = np.array([str(labels[c]) for c in cols], dtype=object)
        table[:, cols] |= (head[:, None] == names[None, :]) & follows[:, None]
