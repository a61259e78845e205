"""Reading a released label range ``"[first-last]"`` in its column's order.

A local recoding of an ordered quasi-identifier (Mondrian's median splits, and
Mondrian's ``categorical="ordered"``) releases a class's extent as
``"[first-last]"``: the smallest and largest of its values in the column's
order.  The ends are the column's own labels, which may hold dashes themselves
(a date ``2020-01-31``, a category ``Self-emp-inc``), so the label is read at
every dash where both sides are labels of the column.  The column's order is
the order of its encoded labels (:meth:`veil.dataset.Dataset.encode`): by
value, by date, the declared order of an ordinal, the label order of a
categorical column.

Examples
--------
>>> import pandas as pd
>>> from veil.dataset import Dataset
>>> ds = Dataset.from_pandas(pd.DataFrame({"d": ["2020-01-05", "2020-02-01", "2020-03-09"]}),
...                          quasi_identifiers=["d"], kinds={"d": "date"})
>>> in_label_range(ds, "d", np.array(["[2020-01-05-2020-02-01]"] * 3, dtype=object), np.arange(3)).tolist()
[True, True, False]
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pandas as pd

__all__ = ["in_label_range"]


def in_label_range(dataset: Any, name: str, released: np.ndarray, rows: np.ndarray) -> np.ndarray:
    """Whether each ``released`` label of ``name`` is a range ``"[first-last]"`` of two labels of the
    column that holds its record's value (rows ``rows`` of ``dataset``) in the column's order.

    A label that reads as a range at more than one dash holds the value when one reading does."""
    encoded = dataset.encode(name)
    ok = np.zeros(len(released), dtype=np.bool_)
    texts = pd.Series(released, dtype=object).astype(str)
    bracketed = (texts.str.startswith("[") & texts.str.endswith("]")).to_numpy(dtype=bool)
    if not bracketed.any():
        return ok
    ranges = pd.Index(pd.unique(texts[bracketed]))
    which = ranges.get_indexer(texts)  # each row's range, -1: not a range
    pieces = pd.Series(ranges.str[1:-1], dtype=object).str.split("-")
    index = pd.Index(np.asarray(encoded.labels, dtype=object).astype(str))
    if not index.is_unique:  # pragma: no cover - the encoded labels are distinct texts
        return ok
    code = encoded.codes[rows]
    at = np.maximum(which, 0)
    for cut in range(1, int(pieces.str.len().max())):  # the dash at which the range is read
        first = index.get_indexer(pieces.str[:cut].str.join("-").fillna(""))
        last = index.get_indexer(pieces.str[cut:].str.join("-").fillna(""))
        read = (first >= 0) & (last >= first)
        ok |= (which >= 0) & read[at] & (first[at] <= code) & (code <= last[at])
    return ok
