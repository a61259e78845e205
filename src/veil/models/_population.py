"""Matching a published table's classes with a population table (δ-presence, k-map)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, ClassVar

import numpy as np
import pandas as pd

from veil.classes import ClassTable
from veil.errors import ColumnNotFoundError, ParameterError
from veil.models._base import PrivacyModel

__all__ = ["population_counts", "PopulationModel"]


def _require_population(population: object, owner: str) -> None:
    if population is None:
        raise ParameterError(
            f"{owner} needs a population table (population=...): a ClassTable built with the "
            "same quasi-identifiers, or a DataFrame with the quasi-identifier columns."
        )


def _population_frame(population: object, classes: ClassTable, owner: str) -> pd.DataFrame:
    _require_population(population, owner)
    if isinstance(population, ClassTable):
        if set(population.quasi_identifiers) != set(classes.quasi_identifiers):
            raise ParameterError(
                f"{owner}: the population table's quasi-identifiers "
                f"({', '.join(population.quasi_identifiers)}) differ from the table's "
                f"({', '.join(classes.quasi_identifiers)})."
            )
        return population.labels()
    if isinstance(population, pd.DataFrame):
        missing = [q for q in classes.quasi_identifiers if q not in population.columns]
        if missing:
            raise ColumnNotFoundError(f"{owner}: the population table has no column {missing[0]!r}.")
        frame = population[list(classes.quasi_identifiers)].copy()
        frame["count"] = 1
        return frame
    raise ParameterError(
        f"{owner}: population must be a ClassTable or a pandas DataFrame. Got {type(population).__name__} instead."
    )


def population_counts(classes: ClassTable, population: object, owner: str) -> np.ndarray:
    """For each class of ``classes``, how many population records share its QI labels.

    The population's values are generalized to the table's levels through the
    table's hierarchies when they are original values (leaves); values already
    generalized are matched as they are.  Missing values match
    :data:`veil.dataset.MISSING`.  Matching is one pandas merge on the labels.

    Raises
    ------
    ParameterError
        No population, different QIs, or a class of the table that the
        population does not contain as often (the table must be a sample of it).
    """
    from veil.dataset import MISSING, format_labels

    frame = _population_frame(population, classes, owner)
    qis = list(classes.quasi_identifiers)
    mapped = {}
    for i, name in enumerate(qis):
        h = classes.hierarchies[i]
        level = classes.levels[i]
        values = format_labels(frame[name]).fillna(MISSING).astype(str).to_numpy(dtype=object)
        index = pd.Index(h.labels[0]).get_indexer(values)
        out = values.copy()
        leaf = index >= 0
        if level > 0 and leaf.any():
            out[leaf] = h.labels[level][h.maps[level][index[leaf]]]
        mapped[name] = out
    pop = pd.DataFrame(mapped)
    pop["_population"] = frame["count"].to_numpy(dtype=np.int64)
    pop = pop.groupby(qis, sort=False, dropna=False)["_population"].sum().reset_index()
    table = classes.labels()
    for name in qis:
        table[name] = table[name].astype(str)
    merged = table.merge(pop, on=qis, how="left", sort=False)
    counts = merged["_population"].fillna(0).to_numpy(dtype=np.int64)
    short = counts < classes.counts
    if short.any():
        raise ParameterError(
            f"{owner}: {int(short.sum())} class(es) of the table are larger than the matching "
            "population class (or absent from the population); the population must contain "
            "the table's records, generalized the same way."
        )
    return counts


@dataclass(frozen=True)
class PopulationModel(PrivacyModel):
    """A model judged against the population the table was sampled from (k-map, δ-presence).

    It holds the keyword-only ``population`` (a :class:`~veil.classes.ClassTable`
    or a DataFrame with the quasi-identifier columns; not compared, not shown),
    refuses to be built without one, and matches the table's classes with it.
    """

    population: Any = field(default=None, compare=False, repr=False, kw_only=True)

    needs_population: ClassVar[bool] = True

    def __post_init__(self) -> None:
        super().__post_init__()
        _require_population(self.population, type(self).__name__)

    def population_sizes(self, classes: ClassTable) -> np.ndarray:
        """Per class, the number of population records matching it."""
        return population_counts(classes, self.population, type(self).__name__)
