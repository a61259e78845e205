"""What every algorithm other than the lattice search returns: a recoded table.

The lattice search picks one level per attribute (full-domain generalization)
and the released table follows from the node.  Mondrian, top-down
specialization, Datafly, microaggregation and the randomized algorithms
produce a released table directly; :class:`Recoding` carries it, row-aligned
with the input, together with what the algorithm reports about itself.

:func:`veil.anonymize` shuffles ``data``, re-verifies it from scratch with
:func:`veil.anonymization.verify` (the released labels are read as they are)
and reports; an algorithm never has to trust itself.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import pandas as pd

__all__ = ["Recoding", "SUPPRESSED_LABEL"]

#: The label a suppressed record carries in every quasi-identifier.
SUPPRESSED_LABEL = "*"


@dataclass
class Recoding:
    """A released table produced by a local-recoding or randomizing algorithm.

    Attributes
    ----------
    data : pandas.DataFrame
        Every input column, in input order and row-aligned with the input (row
        ``i`` of ``data`` is input record ``i``; rows are shuffled later), QIs
        replaced by their released labels (strings); suppressed records carry
        ``"*"`` in every QI.  Randomizing algorithms that add or remove rows
        are not row-aligned and say so in ``details``.
    algorithm : str
        Short name (``"mondrian"``, ``"hdtds"``, ...).
    suppressed : int
        Records released with ``*`` in every QI.
    groups : int
        Equivalence classes (partitions, clusters) formed, suppressed ones excluded.
    seconds : float
        Time spent in the algorithm.
    details : dict
        Algorithm-specific, JSON-serializable facts (cuts, splits, parameters).
    """

    data: pd.DataFrame
    algorithm: str
    suppressed: int = 0
    groups: int = 0
    seconds: float = 0.0
    details: dict[str, Any] = field(default_factory=dict)
