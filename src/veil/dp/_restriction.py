"""Query restriction: the early defence, which is NOT a privacy guarantee."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Sequence

import numpy as np
import pandas as pd

from veil._validation import check_int
from veil.dp._predicate import Predicate, parse_predicate
from veil.errors import ColumnNotFoundError, ParameterError

__all__ = ["QueryAuditor", "QueryRefusedError"]


class QueryRefusedError(ParameterError):
    """The auditor refused a query (identifier in the predicate, or too few rows)."""


@dataclass(frozen=True, kw_only=True)
class QueryAuditor:
    """Answer exact counts and sums, refusing queries that touch identifiers or few rows.

    Parameters
    ----------
    data : pandas.DataFrame or Dataset
    identifiers : sequence of str
        Columns a predicate may not use ("queries must not depend on identifiers").
    threshold : int in [1, inf)
        Refuse when the answer set has fewer rows than this ("queries must not
        be answered if the answer uses less than a threshold of rows").
        (Real systems also refuse answer sets whose complement is small; that
        does not stop the differencing attack either.)

    Warnings
    --------
    This is **not** a privacy guarantee.  Two allowed queries can be subtracted
    (the differencing attack, Denning 1980): ``count where dept = 'A'`` minus
    ``count where dept = 'A' and age != 43`` reveals whether the one person
    aged 43 in A is there, and the same with sums reveals her salary.  Use
    :class:`PrivateTable` for answers with a guarantee.

    References
    ----------
    Denning, D. (1980). Secure statistical databases with random sample queries.
    ACM TODS.  Adam, N., Wortmann, J. (1989). Security-control methods for
    statistical databases: a comparative study. ACM Comput. Surv.
    """

    data: Any
    identifiers: Sequence[str] = ()
    threshold: int = 5

    def __post_init__(self) -> None:
        frame = self.data.frame if hasattr(self.data, "frame") else self.data
        if not isinstance(frame, pd.DataFrame):
            raise ParameterError("QueryAuditor needs a pandas DataFrame (or an object with .frame).")
        object.__setattr__(self, "data", frame)
        check_int("threshold", self.threshold, "QueryAuditor", low=1)
        ids = tuple(self.identifiers)
        for c in ids:
            if c not in frame.columns:
                raise ColumnNotFoundError(f"The identifier column {c!r} is not in the table.")
        object.__setattr__(self, "identifiers", ids)

    def _allowed_mask(self, where: str | Predicate | None) -> np.ndarray:
        frame: pd.DataFrame = self.data
        if where is None:
            mask = np.ones(len(frame), dtype=bool)
        else:
            pred = parse_predicate(where) if isinstance(where, str) else where
            used = sorted(pred.columns & set(self.identifiers))
            if used:
                raise QueryRefusedError(
                    f"The query is refused: its predicate uses the identifier column(s) "
                    f"{', '.join(used)}."
                )
            mask = pred.mask(frame)
        size = int(np.count_nonzero(mask))
        if size < self.threshold:
            raise QueryRefusedError(
                f"The query is refused: its answer set has fewer than "
                f"{self.threshold} rows."
            )
        return mask

    def count(self, where: str | Predicate | None = None) -> int:
        """The exact count, if the query is allowed."""
        return int(np.count_nonzero(self._allowed_mask(where)))

    def sum(self, column: str, where: str | Predicate | None = None) -> float:
        """The exact sum of ``column``, if the query is allowed."""
        if column in self.identifiers:
            raise QueryRefusedError(f"The query is refused: it aggregates the identifier {column!r}.")
        if column not in self.data.columns:
            raise ColumnNotFoundError(f"The column {column!r} is not in the table.")
        mask = self._allowed_mask(where)
        return float(self.data[column].to_numpy(dtype=float)[mask].sum())
