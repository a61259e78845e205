"""Matching a published table's classes with a population table (δ-presence, k-map)."""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from typing import Any, ClassVar

import numpy as np
import pandas as pd

from veil.classes import ClassTable
from veil.errors import ColumnNotFoundError, ParameterError
from veil.models._base import PrivacyModel
from veil.models._facts import Param, RequirementKey

__all__ = ["population_counts", "generalized_labels", "in_release_labels", "PopulationModel", "PopulationUniques", "EstimatedKMap", "derived_k",
           "UNIQUENESS_ESTIMATORS", "CELL_SIZE_ESTIMATORS"]


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
    frame = _population_frame(population, classes, owner)
    qis = list(classes.quasi_identifiers)
    mapped = {name: generalized_labels(frame[name], h, level)
              for name, h, level in zip(qis, classes.hierarchies, classes.levels)}
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


def generalized_labels(values: pd.Series, hierarchy: Any, level: int) -> np.ndarray:
    """``values`` as labels of ``hierarchy`` at ``level``: an original value (a leaf) mapped to its
    label there, any other value (already generalized) kept; a missing value is :data:`MISSING`."""
    from veil.dataset import MISSING, format_labels

    labels = format_labels(values).fillna(MISSING).astype(str).to_numpy(dtype=object)
    index = pd.Index(hierarchy.labels[0]).get_indexer(labels)
    out = labels.copy()
    leaf = index >= 0
    if level > 0 and leaf.any():
        out[leaf] = hierarchy.labels[level][hierarchy.maps[level][index[leaf]]]
    return out


def in_release_labels(models: Any, hierarchies: Any, levels: Any) -> list[Any]:
    """``models`` with each population (a DataFrame) generalized to ``levels`` (``{column: level}``)
    through ``hierarchies``: the labels a full-domain release shows, so that a model judged on the
    written release (whose classes are its labels as they are) matches the population there."""
    out = []
    for model in models:
        population = getattr(model, "population", None)
        if isinstance(model, PopulationModel) and isinstance(population, pd.DataFrame):
            frame = population.copy()
            for name, level in levels.items():
                if name in frame.columns and name in hierarchies:
                    frame[name] = generalized_labels(frame[name], hierarchies[name], int(level))
            model = replace(model, population=frame)
        out.append(model)
    return out


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


#: The population-uniqueness estimators of :class:`PopulationUniques` (``veil.risk.population_uniqueness``).
UNIQUENESS_ESTIMATORS = ("pitman", "zayatz", "snb", "dankar")
#: The cell-size estimators of :class:`EstimatedKMap` (El Emam & Dankar's D3 and D4).
CELL_SIZE_ESTIMATORS = ("poisson", "zero-truncated-poisson")


@dataclass(frozen=True)
class PopulationUniques(PrivacyModel):
    """At most a share ``threshold`` of the population is unique on the QIs, as ``estimator`` estimates it
    from the sample (ARX's ``PopulationUniqueness`` criterion).

    Parameters
    ----------
    threshold : float, in (0, 1]
    fraction : float, in (0, 1]
        The sampling fraction :math:`\\pi = n/N` (ARX's population model).
    estimator : {"pitman", "zayatz", "snb", "dankar"}
        The model of :func:`veil.risk.population_uniqueness` (``dankar``: Dankar et al.'s rule).

    Notes
    -----
    A table-level model.  An estimate that fails (a model that does not fit)
    does not meet the threshold (ARX reports it as 0 and lets it pass).
    :meth:`violating` marks the sample uniques: with none, every estimator gives 0.
    Not monotone (the estimates follow the class-size distribution).

    References
    ----------
    Dankar, El Emam, Neisa & Roffey, BMC Med Inform Decis Mak 12:66, 2012; ARX's
    ``PopulationUniqueness``; docs/risk.md, section 3.
    """

    threshold: float
    fraction: float
    estimator: str = "dankar"

    reference: ClassVar[str] = "Dankar et al., BMC Med Inform Decis Mak 12:66, 2012; ARX PopulationUniqueness"
    config_key: ClassVar[str] = "population-uniques"
    label: ClassVar[str] = "population uniques ({estimator}) <= {threshold:g}"
    parameters: ClassVar[tuple[Param, ...]] = (Param("threshold", "float", low=0, high=1, closed="right"),
                                               Param("fraction", "float", low=0, high=1, closed="right"),
                                               Param("estimator", "str"))
    requirement_keys: ClassVar[tuple[RequirementKey, ...]] = (
        RequirementKey("pop_uniques", "threshold", "<=", "estimated population uniques, "
                       "pop_uniques(fraction=0.01,estimator=pitman)<=0.01 (estimator: pitman, zayatz, snb, dankar)",
                       fixed={"estimator": "dankar"}),
    )

    def __post_init__(self) -> None:
        super().__post_init__()
        if self.estimator not in UNIQUENESS_ESTIMATORS:
            raise ParameterError(f"The 'estimator' parameter of PopulationUniques must be one of "
                                 f"{', '.join(UNIQUENESS_ESTIMATORS)}. Got {self.estimator!r} instead.")

    def achieved_level(self, classes: ClassTable) -> float | None:
        """The estimated share of population uniques (None when the estimator fails; 0.0 with no class)."""
        from veil.risk import population_uniqueness

        if classes.n_classes == 0:
            return 0.0
        return getattr(population_uniqueness(classes, sampling_fraction=self.fraction), self.estimator).fraction

    def check(self, classes: ClassTable) -> bool:
        level = self.achieved_level(classes)
        return level is not None and level <= self.threshold

    def violating(self, classes: ClassTable) -> np.ndarray:
        return (classes.counts == 1) if not self.check(classes) else np.zeros(classes.n_classes, dtype=np.bool_)


def derived_k(k: int, lam: float, alpha: float, estimator: str) -> int:
    """ARX's sample class size standing for ``k`` population records at significance ``alpha``.

    ``lam`` is :math:`\\lambda = \\pi k`.  Poisson (D3): :math:`c + 2`, with :math:`c` the smallest
    count whose Poisson(:math:`\\lambda`) distribution function reaches :math:`1 - \\alpha`;
    zero-truncated Poisson (D4): :math:`c + 1`, with :math:`c \\ge 1` the smallest count whose
    zero-truncated distribution function reaches it (ARX's ``KMap.calculateKPoisson`` and
    ``calculateKZeroPoisson``; never above ``k``).
    """
    from scipy.stats import poisson

    counts = np.arange(0, max(int(k), 1) + 64 + int(10 * lam))
    cdf = poisson.cdf(counts, lam)
    if estimator == "poisson":
        reached = np.flatnonzero(cdf >= 1.0 - alpha)
        value = int(reached[0]) + 2 if len(reached) else int(k)
    else:
        truncated = (cdf - poisson.pmf(0, lam)) / (1.0 - poisson.pmf(0, lam))
        reached = np.flatnonzero((truncated >= 1.0 - alpha) & (counts >= 1))
        value = int(reached[0]) + 1 if len(reached) else int(k)
    return min(int(k), value)


@dataclass(frozen=True)
class EstimatedKMap(PrivacyModel):
    """k-map with the population class sizes estimated from the sample (ARX's ``KMap`` with an estimator).

    Every class must stand for at least ``k`` people of the population; with a
    sampling fraction :math:`\\pi`, a class of the sample holding :math:`k'`
    records does so at significance ``alpha`` under a Poisson (D3, Pannekoek
    1999) or zero-truncated Poisson (D4) model of the cell sizes (El Emam &
    Dankar 2008): the model is k'-anonymity with :math:`k'` = :func:`derived_k`.

    Parameters
    ----------
    k : int, in [1, inf)
    fraction : float, in (0, 1]
        The sampling fraction :math:`\\pi`.
    estimator : {"poisson", "zero-truncated-poisson"}
    alpha : float, in [0, 1]
        The significance level (ARX's; 0.05 by default here).

    Notes
    -----
    Monotone under generalization and with suppression, as k-anonymity.  ARX's
    Poisson threshold is one count above the zero-truncated one's construction
    (c + 2 against c + 1); veil follows ARX so that both give the same k'.

    References
    ----------
    K. El Emam, F. K. Dankar, JAMIA 15(5), 2008; J. Pannekoek, Statistica
    Neerlandica 53(1), 1999; ARX's ``KMap``.
    """

    k: int
    fraction: float
    estimator: str = "poisson"
    alpha: float = 0.05

    monotone_generalization: ClassVar[bool] = True
    monotone_with_suppression: ClassVar[bool] = True
    class_local: ClassVar[bool] = True
    reference: ClassVar[str] = "El Emam & Dankar, JAMIA 15(5), 2008 (k-map, estimators D3/D4); ARX KMap"
    config_key: ClassVar[str] = "k-map-estimated"
    label: ClassVar[str] = "{k}-map ({estimator}, alpha {alpha:g}, fraction {fraction:g})"
    parameters: ClassVar[tuple[Param, ...]] = (Param("k", "int", low=1),
                                               Param("fraction", "float", low=0, high=1, closed="right"),
                                               Param("estimator", "str"), Param("alpha", "float", low=0, high=1))
    requirement_keys: ClassVar[tuple[RequirementKey, ...]] = (
        RequirementKey("kmap", None, ">=", "k-map from the sample, kmap(k=5,estimator=poisson,alpha=0.05,"
                       "fraction=0.01) (estimator: poisson, zero-truncated-poisson)"),
    )

    def __post_init__(self) -> None:
        super().__post_init__()
        if self.estimator not in CELL_SIZE_ESTIMATORS:
            raise ParameterError(f"The 'estimator' parameter of EstimatedKMap must be one of "
                                 f"{', '.join(CELL_SIZE_ESTIMATORS)}. Got {self.estimator!r} instead.")

    @property
    def smallest_class(self) -> int:
        return derived_k(self.k, self.fraction * self.k, self.alpha, self.estimator)

    def violating(self, classes: ClassTable) -> np.ndarray:
        return classes.counts < min(self.smallest_class, max(classes.n_retained, 1))

    def achieved_level(self, classes: ClassTable) -> int:
        """The smallest class of the sample (what :math:`k'` is compared with)."""
        return int(classes.counts.min()) if classes.n_classes else 0
