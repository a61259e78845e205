"""A full-domain transformation in the form an engine applies it: small mappings and suppressed classes."""

from __future__ import annotations

from dataclasses import dataclass

from veil.classes import ClassTable

__all__ = ["FullDomainRecoding"]


@dataclass(frozen=True)
class FullDomainRecoding:
    """A full-domain transformation in the form an engine applies: mappings and suppressed classes.

    Full-domain (global) recoding replaces every value of a QI by its ancestor
    at one level of the QI's hierarchy, so the whole transformation is a small
    mapping per QI plus the classes suppressed.  (The local recodings of
    :mod:`veil.algorithms`, :class:`veil.algorithms.Recoding`, are per record
    and are not applied by engines.)

    Attributes
    ----------
    quasi_identifiers : tuple of str
    levels : tuple of int
        The generalization level of each QI.
    mappings : dict of str to dict of str to str
        Per QI, each leaf label (:data:`~veil.dataset.MISSING` for a missing
        value) to its released label at the QI's level.  Small: one entry per
        value of the hierarchy.
    suppressed : tuple of tuple of str
        The released QI tuples (classes) whose records are suppressed.
    """

    quasi_identifiers: tuple[str, ...]
    levels: tuple[int, ...]
    mappings: dict[str, dict[str, str]]
    suppressed: tuple[tuple[str, ...], ...]

    @classmethod
    def from_classes(cls, classes: ClassTable) -> "FullDomainRecoding":
        """The recoding of a (generalized, suppressed) class table: its levels,
        and the classes of the unsuppressed table at those levels that it lacks.

        Examples
        --------
        >>> import pandas as pd
        >>> from veil.hierarchy import Hierarchy
        >>> frame = pd.DataFrame({"zip": ["47677", "47678", "47905"]})
        >>> h = Hierarchy.from_rows([["47677", "4767*", "*"], ["47678", "4767*", "*"],
        ...                          ["47905", "4790*", "*"]])
        >>> table = ClassTable.from_pandas(frame, quasi_identifiers=["zip"], hierarchies={"zip": h})
        >>> node = table.generalize([1])
        >>> recoding = FullDomainRecoding.from_classes(node.suppress(node.counts < 2))
        >>> recoding.mappings["zip"]["47678"], recoding.suppressed
        ('4767*', (('4790*',),))
        """
        qis = classes.quasi_identifiers
        mappings = {}
        for name, h, level in zip(qis, classes.hierarchies, classes.levels):
            released = h.labels[level][h.maps[level]]
            mappings[name] = dict(zip((str(v) for v in h.labels[0]), (str(v) for v in released)))
        full = classes.base.generalize(classes.levels)
        suppressed: tuple[tuple[str, ...], ...] = ()
        if full.n_classes != classes.n_classes and qis:
            every = full.labels()[list(qis)].astype(str)
            kept = classes.labels()[list(qis)].astype(str).drop_duplicates()
            merged = every.merge(kept, on=list(qis), how="left", indicator=True)
            gone = merged.loc[merged["_merge"] == "left_only", list(qis)]
            suppressed = tuple(sorted(gone.itertuples(index=False, name=None)))
        return cls(tuple(qis), tuple(int(l) for l in classes.levels), mappings, suppressed)
