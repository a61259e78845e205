"""Record linkage (Sweeney 2002): join a release to an identified external table.

Each external record's candidate set is the release's records with the same
(generalized) values on the join attributes: the release's class sizes
projected on them, looked up by one vectorised join.  A candidate set of size 1
re-identifies the record.  Records suppressed in the release match no one;
external values a release hierarchy does not cover match no one either.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd

from veil._validation import check_int
from veil.classes import SUPPRESSED, ClassTable
from veil.dataset import Dataset
from veil.errors import ColumnNotFoundError, ParameterError, SchemaError

__all__ = ["LinkageResult", "linkage_attack"]


@dataclass(frozen=True)
class LinkageResult:
    """Outcome of joining a release to an identified external table.

    Attributes
    ----------
    attributes : tuple of str
        The join attributes.
    external_records : int
    matched : int
        External records with at least one candidate in the release.
    unique : int
        External records with exactly one candidate: re-identified.
    below_k : int
        External records with between 1 and ``k - 1`` candidates.
    k : int
    candidates : numpy.ndarray of int64
        The candidate-set size of each external record (0: no match).
    correct : int or None
        Unique matches that are the right person (when ``id_column`` is given).
    """

    attributes: tuple[str, ...]
    external_records: int
    matched: int
    unique: int
    below_k: int
    k: int
    candidates: np.ndarray
    correct: int | None = None

    @property
    def unique_rate(self) -> float:
        """Fraction of external records re-identified uniquely."""
        return self.unique / self.external_records if self.external_records else 0.0

    def to_dict(self) -> dict[str, Any]:
        return {
            "attributes": list(self.attributes), "external_records": self.external_records,
            "matched": self.matched, "unique": self.unique, "unique_rate": self.unique_rate,
            "below_k": self.below_k, "k": self.k, "correct": self.correct,
        }


def _external_frame(external: Any) -> pd.DataFrame:
    if isinstance(external, Dataset):
        return external.frame
    if isinstance(external, pd.DataFrame):
        return external
    raise TypeError(f"The external table must be a Dataset or a DataFrame. Got {type(external).__name__} instead.")


def linkage_attack(
    release: Any, external: Any, *, on: Sequence[str] | None = None, k: int = 2, id_column: str | None = None,
) -> LinkageResult:
    """Sweeney's linkage attack: join a release to an identified table on shared attributes.

    A candidate set of size 1 re-identifies the record (the module docstring describes the join).

    Parameters
    ----------
    release : ClassTable, Dataset or DataFrame
        The published table.  A :class:`ClassTable` carries its generalization: the external values
        are mapped through its hierarchies to its levels before the join (exact birth dates against
        birth decades).  A Dataset or DataFrame is joined exactly on its values.
    external : Dataset or DataFrame
        The adversary's identified table (e.g. a voter list).
    on : sequence of str, optional
        The join attributes; default: the release's quasi-identifiers.
    k : int in [2, inf)
        Candidate sets smaller than ``k`` (but not empty) are counted in ``below_k``.
    id_column : str, optional
        A ground-truth identifier in both tables (simulation): counts the unique matches that are right.

    Returns
    -------
    LinkageResult

    Raises
    ------
    ColumnNotFoundError
        A join attribute is missing from the external table or the release.
    SchemaError
        A table has no records.

    References
    ----------
    L. Sweeney, "k-anonymity: a model for protecting privacy", IJUFKS 10(5), 557-570, 2002
    (the Massachusetts GIC / Cambridge voter list linkage).

    Examples
    --------
    >>> import pandas as pd
    >>> release = pd.DataFrame({"zip": ["1", "1", "2"], "sex": ["F", "M", "F"]})
    >>> voters = pd.DataFrame({"name": ["A", "B"], "zip": ["2", "1"], "sex": ["F", "F"]})
    >>> linkage_attack(release, voters, on=["zip", "sex"]).unique
    2
    """
    k = check_int("k", k, "linkage_attack", low=2)
    frame = _external_frame(external)
    if len(frame) == 0:
        raise SchemaError("The external table has no records; there is nothing to link.")
    attributes = _join_attributes(release, on, frame, id_column)
    ext = pd.DataFrame({a: frame[a].astype(str).to_numpy() for a in attributes})
    candidates, released_ids = _candidates(release, attributes, ext, id_column)
    matched, unique = int(np.count_nonzero(candidates)), int(np.count_nonzero(candidates == 1))
    below_k = int(np.count_nonzero((candidates >= 1) & (candidates < k)))
    correct = None
    if released_ids is not None:  # simulation only: how many unique matches are the right record
        ids = ext.merge(released_ids, how="left", on=list(attributes), sort=False)["_rid"].to_numpy(dtype=object)
        correct = int(np.count_nonzero((candidates == 1) & (ids == frame[id_column].astype(str).to_numpy(object))))
    return LinkageResult(attributes, len(frame), matched, unique, below_k, k, candidates, correct)


def _candidates(
    release: Any, attributes: tuple[str, ...], ext: pd.DataFrame, id_column: str | None
) -> tuple[np.ndarray, pd.DataFrame | None]:
    """The candidate-set size of each external record, and the release's ids by value (with ``id_column``)."""
    if isinstance(release, ClassTable):
        if id_column is not None:
            raise ParameterError("id_column needs the release as a Dataset or DataFrame (a class table has no ids).")
        released, released_ids = _generalize_external(release, attributes, ext), None
    else:
        released, released_ids = _released_groups(release, attributes, id_column)
    released = released.astype({a: str for a in attributes})
    merged = ext.merge(released[list(attributes) + ["count"]], how="left", on=list(attributes), sort=False)
    return merged["count"].to_numpy(dtype=np.float64, na_value=0.0).astype(np.int64), released_ids


def _join_attributes(release: Any, on: Sequence[str] | None, frame: pd.DataFrame, id_column: str | None) -> tuple[str, ...]:
    """The join attributes: ``on``, else the release's quasi-identifiers; all in the external table."""
    if on is not None:
        attributes = tuple(on)
    elif isinstance(release, ClassTable):
        attributes = tuple(release.quasi_identifiers)
    elif isinstance(release, Dataset) and release.quasi_identifiers:
        attributes = tuple(release.quasi_identifiers)
    else:
        raise ParameterError("linkage_attack needs the join attributes: pass on=[...].")
    if not attributes:
        raise ParameterError("linkage_attack needs at least one join attribute.")
    missing = [a for a in attributes if a not in frame.columns]
    if missing:
        raise ColumnNotFoundError(
            f"The external table lacks the join attribute {missing[0]!r}; its columns are: "
            f"{', '.join(map(str, frame.columns))}."
        )
    if id_column is not None and id_column not in frame.columns:
        raise ColumnNotFoundError(f"The external table lacks the id column {id_column!r}.")
    return attributes


def _generalize_external(release: ClassTable, attributes: tuple[str, ...], ext: pd.DataFrame) -> pd.DataFrame:
    """Map the external values through the release's hierarchies (in place) and return its released classes."""
    for a in attributes:
        if a not in release.quasi_identifiers:
            raise ColumnNotFoundError(f"{a!r} is not a quasi-identifier of the release.")
    table = release.project(attributes) if attributes != release.quasi_identifiers else release
    for i, a in enumerate(attributes):
        h, level = table.hierarchies[i], table.levels[i]
        index = pd.Index(h.labels[0]).get_indexer(ext[a].to_numpy(dtype=object))
        mapped = np.full(len(ext), "\x00unmatched", dtype=object)
        ok = index >= 0
        mapped[ok] = h.labels[level][h.maps[level][index[ok]]]
        ext[a] = mapped
    return table.labels()


def _released_groups(release: Any, attributes: tuple[str, ...], id_column: str | None
                     ) -> tuple[pd.DataFrame, pd.DataFrame | None]:
    """The released combinations of a Dataset or DataFrame with their counts (suppressed records left
    out), and with ``id_column`` the id of each combination's first record."""
    rframe = release.frame if isinstance(release, Dataset) else release
    if not isinstance(rframe, pd.DataFrame):
        raise TypeError(
            f"The release must be a ClassTable, a Dataset or a DataFrame. Got {type(release).__name__} instead."
        )
    if len(rframe) == 0:
        raise SchemaError("The release has no records; there is nothing to link.")
    missing = [a for a in attributes if a not in rframe.columns]
    if missing:
        raise ColumnNotFoundError(f"The release lacks the join attribute {missing[0]!r}.")
    if id_column is not None and id_column not in rframe.columns:
        raise ColumnNotFoundError(f"The release lacks the id column {id_column!r}.")
    rel = pd.DataFrame({a: rframe[a].astype(str).to_numpy() for a in attributes})
    suppressed = (rel == SUPPRESSED).all(axis=1).to_numpy()
    rel = rel.loc[~suppressed]
    released = rel.groupby(list(attributes), sort=False, observed=True).size().rename("count").reset_index()
    if id_column is None:
        return released, None
    rel = rel.assign(_id=rframe[id_column].astype(str).to_numpy()[~suppressed])
    ids = rel.groupby(list(attributes), sort=False, observed=True)["_id"].first().rename("_rid").reset_index()
    return released, ids
