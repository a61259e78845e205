"""Ordered categories: telling the order of a column's values, and merging only neighbours.

Survey tables write ordinal answers as text: with number or letter prefixes
(``1. < HS Grad`` … ``5. Advanced Degree``, ``a) Never``), as ranges
(``10-19``, ``20-29``, ``70+``), or as the words of a known scale (education
levels, Likert answers).  :func:`category_order` reads such an order from the
values alone; :func:`ordered_groups` builds the hierarchy whose levels merge
neighbouring values in runs of 2, 4, 8, … (the ``ordered:2,4`` builder), so
that a group never joins the lowest and the highest answer while skipping the
ones between.  Everything works on the distinct values, never on rows.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd

from veil.errors import HierarchyError
from veil.hierarchy._hierarchy import Hierarchy

__all__ = ["Order", "category_order", "ordered_groups", "SCALES"]

_NUM = r"\d+(?:\.\d+)?"
_RANGE = re.compile(rf"^\s*({_NUM})\s*(?:-|–|—|to)\s*({_NUM})\s*$", re.IGNORECASE)
_TOP = re.compile(rf"^\s*(?:(?:>=|≥|>)\s*({_NUM})|({_NUM})\s*(?:\+|or more|or over|and over|or older|and older))\s*$",
                  re.IGNORECASE)
_BOTTOM = re.compile(rf"^\s*(?:<=|≤|<|under|below|less than)\s*({_NUM})\s*$", re.IGNORECASE)
_NUMBER_PREFIX = re.compile(r"^\s*(\d{1,3})\s*(?:[.):]|\s-\s)\s*\S")
_LETTER_PREFIX = re.compile(r"^\s*([A-Za-z])\s*[.)]\s+\S")

#: Known ordinal scales: per scale, (pattern over the normalized text, rank).  The text is
#: case-folded, with ``-``, ``_`` and ``/`` read as blanks and blanks collapsed.
SCALES: dict[str, tuple[tuple[str, float], ...]] = {
    "education levels": (
        (r"preschool|pre school|kindergarten|none|no schooling|no education", 0.0),
        (r"1st 4th|elementary( school)?|primary( school)?", 1.0), (r"5th 6th", 1.1),
        (r"7th 8th|middle school|junior high( school)?", 1.2), (r"9th", 1.3), (r"10th", 1.4), (r"11th", 1.5),
        (r"12th( no diploma)?", 1.6),
        (r"((less than|lower than|below|under|no|some) (a )?|< ?)(high school|hs)( grad(uate)?| diploma)?", 1.8),
        (r"hs grad(uate)?|high school( grad(uate)?| diploma)?|hs|ged|secondary( school)?", 2.0),
        (r"some college|some university|college no degree", 3.0),
        (r"assoc( voc| acdm)?|associate('?s)?( degree)?|assoc(iate)? (vocational|academic)", 4.0),
        (r"bachelors?|bachelor'?s( degree)?|college grad(uate)?|college degree|undergraduate( degree)?|"
         r"university( degree)?|ba|bsc|bs", 5.0),
        (r"masters?|master'?s( degree)?|graduate( degree| school)?|post ?graduate|advanced degree|prof school|"
         r"professional( school| degree)?", 6.0),
        (r"doctorate|doctoral( degree)?|phd|ph\.d\.?", 7.0),
    ),
    "a Likert scale of agreement": (
        (r"strongly disagree|completely disagree", 0.0), (r"disagree", 1.0),
        (r"(somewhat|slightly|mostly|tend to|mildly) disagree", 1.5),
        (r"neither agree nor disagree|neither disagree nor agree|neutral|undecided|neither", 2.0),
        (r"(somewhat|slightly|mostly|tend to|mildly) agree", 2.5), (r"agree", 3.0),
        (r"strongly agree|completely agree", 4.0),
    ),
    "a Likert scale of satisfaction": (
        (r"very dissatisfied|very unsatisfied", 0.0), (r"dissatisfied|unsatisfied", 1.0),
        (r"(somewhat|slightly) dissatisfied", 1.5), (r"neutral|neither satisfied nor dissatisfied", 2.0),
        (r"(somewhat|slightly) satisfied", 2.5), (r"satisfied", 3.0), (r"very satisfied", 4.0),
    ),
    "a quality scale": (
        (r"very poor|very bad", 0.0), (r"poor|bad", 1.0), (r"fair|average|ok|okay", 2.0), (r"good", 3.0),
        (r"very good", 4.0), (r"excellent", 5.0),
    ),
    "a frequency scale": (
        (r"never", 0.0), (r"rarely|seldom|almost never", 1.0), (r"sometimes|occasionally", 2.0),
        (r"often|frequently", 3.0), (r"usually|most of the time|almost always", 3.5), (r"always", 4.0),
    ),
    "a low-to-high scale": (
        (r"very low", 0.0), (r"low", 1.0), (r"medium|moderate|average|middle", 2.0), (r"high", 3.0),
        (r"very high", 4.0),
    ),
}
_COMPILED = {name: tuple((re.compile(p), r) for p, r in entries) for name, entries in SCALES.items()}


@dataclass(frozen=True)
class Order:
    """The order read from a column's values.

    Attributes
    ----------
    rank : numpy.ndarray of float
        Per value (in the order given), its position on the scale; equal
        ranks (``Assoc-voc``, ``Assoc-acdm``) always stay together.
    description : str
        What the order was read from (``number prefixes``, ``ranges such as
        '10-19'``, ``education levels``), for the reason ``auto`` prints.
    ranges : bool
        The values are numeric ranges (a merged group is labelled ``10-29``).
    """

    rank: np.ndarray
    description: str
    ranges: bool = False


def _normalized(text: pd.Series) -> pd.Series:
    return text.str.casefold().str.replace(r"[-_/]+", " ", regex=True).str.replace(r"\s+", " ", regex=True).str.strip()


def _range_order(text: pd.Series) -> Order | None:
    plain = text.str.extract(_RANGE)
    top = text.str.extract(_TOP)
    bottom = text.str.extract(_BOTTOM)
    low = pd.to_numeric(plain[0], errors="coerce")
    top_at = pd.to_numeric(top[0].fillna(top[1]), errors="coerce")
    bottom_at = pd.to_numeric(bottom[0], errors="coerce")
    if low.isna().all() or (low.isna() & top_at.isna() & bottom_at.isna()).any():
        return None
    if (pd.to_numeric(plain[1], errors="coerce") < low).any():
        return None
    rank = low.fillna(top_at).fillna(bottom_at - 0.5).to_numpy(dtype=float)
    if len(np.unique(rank)) < len(rank):
        return None
    example = text[low.notna()].iloc[0].strip()
    return Order(rank, f"ranges such as {example!r}", ranges=bool(low.notna().all()))


def _prefix_order(text: pd.Series) -> Order | None:
    numbers = text.str.extract(_NUMBER_PREFIX)[0]
    if numbers.notna().all():
        rank = numbers.astype(int).to_numpy(dtype=float)
        if len(np.unique(rank)) == len(rank):
            return Order(rank, f"number prefixes {int(rank.min())} to {int(rank.max())}")
    letters = text.str.extract(_LETTER_PREFIX)[0]
    if letters.notna().all():
        folded = letters.str.casefold()
        if folded.nunique() == len(folded):
            rank = folded.map(ord).to_numpy(dtype=float)
            return Order(rank, f"letter prefixes {chr(int(rank.min()))} to {chr(int(rank.max()))}")
    return None


#: No known scale has more words than this; a column with more values is no scale.
_SCALE_WORDS = 40


def _scale_order(text: pd.Series) -> Order | None:
    if len(text) > _SCALE_WORDS:
        return None
    normal = _normalized(text)
    for name, entries in _COMPILED.items():
        rank = np.full(len(normal), np.nan)
        for pattern, value in entries:  # the scale's few words, not the values
            hit = np.isnan(rank) & normal.map(lambda t, p=pattern: p.fullmatch(t) is not None).to_numpy()
            rank[hit] = value
        if not np.isnan(rank).any() and len(np.unique(rank)) >= 2:
            return Order(rank, name)
    return None


def category_order(values: Sequence[Any]) -> Order | None:
    """The order of ordered categories, read from the values, or ``None`` for nominal ones.

    Tried in turn: numeric ranges (``10-19``, with ``<10`` and ``70+``), number
    prefixes (``1. …``, ``2) …``), letter prefixes (``a. …``), then the known
    scales of :data:`SCALES`.  Every value must fit one rule, or the column is
    not read as ordered.

    Examples
    --------
    >>> category_order(["2. HS Grad", "1. < HS Grad", "3. Some College"]).rank.tolist()
    [2.0, 1.0, 3.0]
    >>> category_order(["Agree", "Strongly disagree", "Neutral"]).description
    'a Likert scale of agreement'
    >>> category_order(["Male", "Female"]) is None
    True
    """
    text = pd.Series([str(v) for v in values], dtype=object)
    if len(text) < 2:
        return None
    first = text.iloc[0]
    ranged = any(p.match(first) for p in (_RANGE, _TOP, _BOTTOM))  # one value tells most columns apart
    prefixed = any(p.match(first) for p in (_NUMBER_PREFIX, _LETTER_PREFIX))
    return (ranged and _range_order(text)) or (prefixed and _prefix_order(text)) or _scale_order(text)


def _label(members: list[str], ranges: bool) -> str:
    if len(members) == 1:
        return members[0]
    if ranges:
        first, last = _RANGE.match(members[0]), _RANGE.match(members[-1])
        if first and last:
            return f"{first.group(1)}-{last.group(2)}"
    return f"{members[0].strip()} to {members[-1].strip()}"


def ordered_groups(values: Sequence[Any], sizes: Sequence[int], *, top: str = "*", name: str = "") -> Hierarchy:
    """Ordered categories merged with their neighbours: runs of ``sizes[0]`` ranks, then ``sizes[1]``, … then ``top``.

    Each size must be a multiple of the one before (so the levels nest); a
    group is labelled ``first to last`` (``10-29`` for ranges).

    Raises
    ------
    HierarchyError
        The values have no order :func:`category_order` can read (naming the
        column), or sizes that are not increasing multiples of each other.
    """
    leaves = list(dict.fromkeys(str(v) for v in values))
    order = category_order(leaves)
    what = name or "the attribute"
    if order is None:
        raise HierarchyError(
            f"The values of {what!r} have no order veil can read (number or letter prefixes, ranges such as "
            "10-19, or a known scale such as education levels); use group:..., a taxonomy or a hierarchy file."
        )
    sizes = [int(s) for s in sizes]
    if not sizes or sizes[0] < 2 or any(b % a or b <= a for a, b in zip(sizes, sizes[1:])):
        raise HierarchyError(f"ordered: sizes must be increasing integers >= 2, each a multiple of the one "
                             f"before; got {sizes}.")
    frame = pd.DataFrame({"leaf": leaves, "rank": order.rank}).sort_values(["rank", "leaf"], kind="stable")
    dense = pd.factorize(frame["rank"], sort=True)[0]
    columns = [frame["leaf"].to_numpy(dtype=object)]
    for size in sizes:
        group = dense // size
        labels = {g: _label(frame["leaf"][group == g].tolist(), order.ranges) for g in np.unique(group)}
        columns.append(np.array([labels[g] for g in group], dtype=object))
    columns.append(np.full(len(leaves), top, dtype=object))
    return Hierarchy.from_rows(np.column_stack(columns).tolist(), name=name)
