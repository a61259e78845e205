"""Attacker models: prosecutor, journalist and marketer re-identification risk.

Notation (El Emam 2013; seed 004): the published table U has :math:`n`
records in classes of sizes :math:`f_j`; the population D it was drawn from
has :math:`N` records and the same classes have sizes :math:`F_j \\ge f_j`
there.  Everything is computed from the class sizes, per record (a class of
size :math:`f_j` weighs :math:`f_j`), never per class.  Records suppressed in
the input or by anonymization are counted apart and carry no class.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd

from veil._validation import check_real
from veil.classes import ClassTable
from veil.dataset import Dataset
from veil.errors import ParameterError, SchemaError
from veil.risk._common import as_classes

__all__ = [
    "ProsecutorRisk",
    "JournalistRisk",
    "MarketerRisk",
    "prosecutor_risk",
    "journalist_risk",
    "marketer_risk",
    "population_class_sizes",
]


@dataclass(frozen=True)
class ProsecutorRisk:
    """Prosecutor risk: the attacker knows the target is in the table.

    Attributes
    ----------
    highest, lowest, average : float in [0, 1]
        :math:`\\max_j 1/f_j`, :math:`\\min_j 1/f_j` and the per-record average
        :math:`|K|/n`.
    records_at_risk : float in [0, 1]
        Fraction of (retained) records whose risk exceeds ``threshold``.
    records_at_risk_count : int
    threshold : float
    per_class : numpy.ndarray of float
        :math:`1/f_j` for each class.
    """

    highest: float
    lowest: float
    average: float
    records_at_risk: float
    records_at_risk_count: int
    threshold: float
    per_class: np.ndarray

    def to_dict(self) -> dict[str, Any]:
        return {
            "highest": self.highest,
            "lowest": self.lowest,
            "average": self.average,
            "records_at_risk": self.records_at_risk,
            "records_at_risk_count": self.records_at_risk_count,
            "threshold": self.threshold,
        }


@dataclass(frozen=True)
class JournalistRisk:
    """Journalist risk: the attacker targets whoever is easiest, possibly outside the table.

    Attributes
    ----------
    highest : float
        :math:`1/\\min_j F_j`.
    average : float
        :math:`\\frac{1}{n}\\sum_j f_j / F_j`.
    case : {"sample", "population"}
        ``"population"`` when population class sizes :math:`F_j` were given;
        ``"sample"`` when none was (then :math:`F_j = f_j`: the prosecutor figures).
    """

    highest: float
    average: float
    case: str

    def to_dict(self) -> dict[str, Any]:
        return {"highest": self.highest, "average": self.average, "case": self.case}


@dataclass(frozen=True)
class MarketerRisk:
    """Marketer risk: the expected fraction of records re-identified by linking all of them.

    Attributes
    ----------
    average : float
        :math:`|K|/n` (sample case) or :math:`\\frac{1}{n}\\sum_j f_j/F_j` (population case).
    case : {"sample", "population"}
    """

    average: float
    case: str

    def to_dict(self) -> dict[str, Any]:
        return {"average": self.average, "case": self.case}


def prosecutor_risk(classes: Any, *, threshold: float = 0.2) -> ProsecutorRisk:
    """Prosecutor re-identification risk of each record and its summary.

    Parameters
    ----------
    classes : ClassTable, Dataset or DataFrame
    threshold : float in [0, 1]
        A record is *at risk* when its risk :math:`1/f_j` is strictly above it
        (default 0.2: classes smaller than 5).

    Returns
    -------
    ProsecutorRisk

    Notes
    -----
    The prosecutor knows the target is in the table and its QI values, so the
    chance of picking the right record in its class :math:`j` is
    :math:`1/f_j`.  Highest :math:`1/\\min f_j`, lowest :math:`1/\\max f_j`,
    and the average over records

    .. math:: \\frac{1}{n}\\sum_j f_j \\cdot \\frac{1}{f_j} = \\frac{|K|}{n},

    (a table with classes of sizes 1 and 99 has average 2/100 = 0.02, not the
    per-class mean 0.505).  Never increases under generalization.  A table
    whose records are all suppressed has risk 0 everywhere.

    References
    ----------
    K. El Emam and F. K. Dankar, "Protecting privacy using k-anonymity",
    JAMIA 15(5), 2008 (prosecutor re-identification scenario).
    K. El Emam, *Guide to the De-Identification of Personal Health
    Information*, CRC Press, 2013, ch. 13.

    Examples
    --------
    >>> from veil.datasets import load_din_table
    >>> risk = prosecutor_risk(load_din_table())
    >>> risk.highest, round(risk.lowest, 2), round(risk.average * 11)
    (1.0, 0.33, 8)
    """
    threshold = check_real("threshold", threshold, "prosecutor_risk", low=0.0, high=1.0)
    table = as_classes(classes, owner="prosecutor_risk")
    return prosecutor_from_counts(table.counts, threshold)


def prosecutor_from_counts(counts: np.ndarray, threshold: float) -> ProsecutorRisk:
    """:func:`prosecutor_risk` from the class sizes :math:`f_j` alone (``threshold`` already checked)."""
    n = int(counts.sum())
    if n == 0:
        return ProsecutorRisk(0.0, 0.0, 0.0, 0.0, 0, threshold, np.zeros(0))
    per_class = 1.0 / counts
    at_risk = int(counts[per_class > threshold].sum())
    return ProsecutorRisk(
        highest=float(1.0 / counts.min()),
        lowest=float(1.0 / counts.max()),
        average=len(counts) / n,
        records_at_risk=at_risk / n,
        records_at_risk_count=at_risk,
        threshold=threshold,
        per_class=per_class,
    )


def _require_qis(columns: Any, qis: Sequence[str]) -> None:
    missing = [q for q in qis if q not in columns]
    if missing:
        raise SchemaError(
            f"The population lacks the quasi-identifier {missing[0]!r}; it needs all of: {', '.join(qis)}."
        )


def _population_table(classes: ClassTable, population: Any) -> ClassTable:
    """The population's class table over the sample's QIs, at the sample's levels."""
    qis = classes.quasi_identifiers
    if isinstance(population, ClassTable):
        pop = population
        if tuple(pop.quasi_identifiers) != qis:
            _require_qis(pop.quasi_identifiers, qis)
            pop = pop.project(qis)
    else:
        if isinstance(population, pd.DataFrame):
            _require_qis(population.columns, qis)
            population = Dataset.from_pandas(population, quasi_identifiers=qis)
        if not isinstance(population, Dataset):
            raise TypeError(
                "The population must be a ClassTable, a Dataset or a DataFrame. "
                f"Got {type(population).__name__} instead."
            )
        _require_qis(population.columns, qis)
        if population.n_records == 0:
            raise ParameterError("The population has no records; it must contain the sample.")
        if any(classes.levels):
            pop = ClassTable.from_dataset(
                population, quasi_identifiers=qis, sensitive=(),
                hierarchies=dict(zip(qis, classes.hierarchies)),
            ).generalize(classes.levels)
        else:
            pop = ClassTable.from_dataset(population, quasi_identifiers=qis, sensitive=())
    return pop


def population_class_sizes(classes: ClassTable, population: Any) -> tuple[np.ndarray, np.ndarray, int]:
    """The population size :math:`F_j` of each class of ``classes``, from a population table.

    Parameters
    ----------
    classes : ClassTable
        The published sample U.
    population : ClassTable, Dataset or DataFrame
        The population D, with the same quasi-identifiers; raw values are
        generalized through the sample's hierarchies to the sample's levels.

    Returns
    -------
    (F, population_counts, N)
        ``F[j]`` for each sample class, the population's class sizes (for its
        uniques) and its number of records :math:`N` (suppressed ones excluded).

    Raises
    ------
    ParameterError
        The population has fewer records than the sample, or a sample class
        has more records than the population's (so U is not a sample of D).
    ColumnNotFoundError
        A quasi-identifier is missing from the population.
    """
    qis = classes.quasi_identifiers
    pop = _population_table(classes, population)
    big_n = int(pop.counts.sum())
    if pop.n_records < classes.n_records:
        raise ParameterError(
            f"The population has {pop.n_records} records, fewer than the sample's {classes.n_records}; "
            "a population contains the sample."
        )
    sample_labels = classes.labels().drop(columns="count").astype(str)
    pop_labels = pop.labels().astype({q: str for q in qis})
    pop_labels = pop_labels.rename(columns={"count": "_F"})
    merged = sample_labels.merge(pop_labels, how="left", on=list(qis), sort=False, validate="one_to_one")
    sizes = merged["_F"].to_numpy(dtype=np.float64, na_value=0.0)
    bad = int(np.count_nonzero(sizes < classes.counts))
    if bad:
        raise ParameterError(
            f"{bad} class(es) of the sample have more records than the population holds with the same "
            "quasi-identifier values; the population must contain the sample (same attributes, same "
            "generalization)."
        )
    return sizes.astype(np.int64), pop.counts, big_n


def _population_average(counts: np.ndarray, sizes: np.ndarray) -> float:
    n = int(counts.sum())
    return float(np.sum(counts / sizes) / n) if n else 0.0


def journalist_risk(classes: Any, *, population: Any = None) -> JournalistRisk:
    """Journalist re-identification risk: highest and average.

    Parameters
    ----------
    classes : ClassTable, Dataset or DataFrame
        The published table U.
    population : ClassTable, Dataset or DataFrame, optional
        The population D the table was sampled from.  Without it the
        population class sizes are unknown and taken equal to the sample's
        (:math:`F_j = f_j`), which gives the prosecutor figures; the result's
        ``case`` says which applied.

    Returns
    -------
    JournalistRisk

    Notes
    -----
    The journalist re-identifies anybody, so targets the smallest class in the
    population: highest risk :math:`1/\\min_j F_j`.  Averaged over the
    published records: :math:`\\frac{1}{n}\\sum_j f_j/F_j`.

    References
    ----------
    K. El Emam and F. K. Dankar, JAMIA 15(5), 2008 (journalist scenario).
    K. El Emam, *Guide to the De-Identification of Personal Health
    Information*, 2013, ch. 13.

    Examples
    --------
    >>> from veil.datasets import load_din_table
    >>> journalist_risk(load_din_table()).case
    'sample'
    """
    table = as_classes(classes, owner="journalist_risk")
    n = int(table.counts.sum())
    if population is None:
        if n == 0:
            return JournalistRisk(0.0, 0.0, "sample")
        return JournalistRisk(float(1.0 / table.counts.min()), table.n_classes / n, "sample")
    sizes, _, _ = population_class_sizes(table, population)
    if n == 0:
        return JournalistRisk(0.0, 0.0, "population")
    return JournalistRisk(float(1.0 / sizes.min()), _population_average(table.counts, sizes), "population")


def marketer_risk(classes: Any, *, population: Any = None) -> MarketerRisk:
    """Marketer re-identification risk: the expected fraction of records re-identified.

    Parameters
    ----------
    classes : ClassTable, Dataset or DataFrame
    population : ClassTable, Dataset or DataFrame, optional
        See :func:`journalist_risk`.

    Returns
    -------
    MarketerRisk

    Notes
    -----
    Linking every published record to the identified population, a class of
    :math:`f_j` published records and :math:`F_j` candidates yields
    :math:`f_j / F_j` expected correct matches, so

    .. math:: \\text{marketer} = \\frac{1}{n}\\sum_j \\frac{f_j}{F_j},

    which is :math:`|K|/n` when the population is the sample.

    References
    ----------
    K. El Emam, *Guide to the De-Identification of Personal Health
    Information*, 2013, ch. 13 (marketer risk).
    F. K. Dankar and K. El Emam, "A method for evaluating marketer
    re-identification risk", EDBT/ICDT Workshops, 2010.

    Examples
    --------
    >>> from veil.datasets import load_din_table
    >>> round(marketer_risk(load_din_table()).average * 11)
    8
    """
    table = as_classes(classes, owner="marketer_risk")
    n = int(table.counts.sum())
    if population is None:
        return MarketerRisk(table.n_classes / n if n else 0.0, "sample")
    sizes, _, _ = population_class_sizes(table, population)
    return MarketerRisk(_population_average(table.counts, sizes), "population")
