"""One call for a data steward: :func:`assess` and its :class:`RiskReport`.

``assess(classes).to_dict()`` is exactly the object ``veil risk --json``
writes (the contract is in ``docs/risk.md``), and what the anonymize step
records as ``risk_before`` / ``risk_after``.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from veil._validation import check_int, check_real
from veil.dataset import Dataset
from veil.errors import ParameterError
from veil.risk._attacker import (
    JournalistRisk,
    MarketerRisk,
    ProsecutorRisk,
    _population_average,
    population_class_sizes,
    prosecutor_from_counts,
)
from veil.risk._attacks import HomogeneityResult, homogeneity_attack
from veil.risk._common import as_classes
from veil.risk._disclosure import DisclosureResult, disclosure
from veil.risk._qi import QuasiIdentifierScore, _separation_from_counts, quasi_identifier_ranking
from veil.risk._sizes import class_sizes
from veil.risk._uniqueness import PopulationUniqueness, _uniqueness_from_counts, population_from_fraction

__all__ = ["RiskReport", "SensitiveRisk", "assess"]


@dataclass(frozen=True)
class SensitiveRisk:
    """Attribute-disclosure summary of one sensitive attribute."""

    homogeneity: HomogeneityResult
    disclosure: DisclosureResult

    def to_dict(self) -> dict[str, Any]:
        out = self.homogeneity.to_dict()
        out.pop("sensitive")
        d = self.disclosure.to_dict()
        d.pop("sensitive")
        return {**out, **d}


@dataclass(frozen=True)
class RiskReport:
    """Re-identification risk of a table: attacker models, uniqueness, likely QIs.

    Attributes
    ----------
    records : int
        All records, suppressed ones included.
    classes : int
    suppressed_records : int
        Records suppressed (in the input or by anonymization); not assessed.
    input_suppressed_records : int
        Of which arrived already suppressed (``*`` in every QI).
    records_assessed : int
        :math:`n`, the records in classes.
    prosecutor : ProsecutorRisk
    journalist : JournalistRisk
    marketer : MarketerRisk
    sample_uniques : float
        Fraction of assessed records alone in their class.
    sample_uniques_count : int
    population_uniques : PopulationUniqueness or None
        When a sampling fraction or a population was given.
    quasi_identifiers : tuple of QuasiIdentifierScore
        Sorted by separation (most separating first).
    quasi_identifier_names : tuple of str
    sensitive : dict of str to SensitiveRisk
    """

    records: int
    classes: int
    suppressed_records: int
    input_suppressed_records: int
    records_assessed: int
    prosecutor: ProsecutorRisk
    journalist: JournalistRisk
    marketer: MarketerRisk
    sample_uniques: float
    sample_uniques_count: int
    population_uniques: PopulationUniqueness | None
    quasi_identifiers: tuple[QuasiIdentifierScore, ...]
    quasi_identifier_names: tuple[str, ...]
    sensitive: dict[str, SensitiveRisk] = field(default_factory=dict)

    def to_dict(self) -> dict[str, Any]:
        """The ``veil risk --json`` object (see ``docs/risk.md``); JSON-safe, no NaN."""
        out: dict[str, Any] = {
            "records": self.records,
            "classes": self.classes,
            "suppressed_records": self.suppressed_records,
            "input_suppressed_records": self.input_suppressed_records,
            "records_assessed": self.records_assessed,
            "quasi_identifier_names": list(self.quasi_identifier_names),
            "prosecutor": self.prosecutor.to_dict(),
            "journalist": self.journalist.to_dict(),
            "marketer": self.marketer.to_dict(),
            "sample_uniques": self.sample_uniques,
            "sample_uniques_count": self.sample_uniques_count,
            "population_uniques": None if self.population_uniques is None else self.population_uniques.to_dict(),
            "quasi_identifiers": [s.to_dict() for s in self.quasi_identifiers],
        }
        if self.sensitive:
            out["sensitive"] = {name: risk.to_dict() for name, risk in self.sensitive.items()}
        return out


def _default_scores(
    qis: tuple[str, ...], counts: np.ndarray, project: Callable[[int], np.ndarray],
) -> tuple[QuasiIdentifierScore, ...]:
    """Each QI alone and all QIs together: q + 1 regroups (``project(i)``: the sizes over QI ``i`` alone)."""
    n = int(counts.sum())
    scores = [QuasiIdentifierScore(qis, len(counts) / n if n else 0.0, _separation_from_counts(counts), len(counts))]
    if len(qis) > 1:
        for i, name in enumerate(qis):
            sub = project(i)
            scores.append(QuasiIdentifierScore((name,), len(sub) / n if n else 0.0,
                                               _separation_from_counts(sub), len(sub)))
    scores.sort(key=lambda s: (-s.separation, -s.distinction, len(s.attributes), s.attributes))
    return tuple(scores)


def _sizes_and_projection(
    classes: Any, population: Any, qi_subsets_max_size: int | None, sensitive: Sequence[str] | None,
) -> tuple[Any, Callable[[int], np.ndarray]]:
    """The table (class sizes only when that is all the report needs) and its one-QI projection.

    A :class:`Dataset` assessed without a population, sensitive attributes or
    a subset ranking goes through :func:`class_sizes` (no hierarchy, no
    histogram); anything else through the class table.
    """
    if isinstance(classes, Dataset) and population is None and not sensitive and qi_subsets_max_size in (None, 0):
        sizes = class_sizes(classes)
        return sizes, sizes.project_counts
    table = as_classes(classes, owner="assess")
    return table, lambda i: table.project([table.quasi_identifiers[i]]).counts


def _journalist_marketer(
    table: Any, prosecutor: Any, population: Any, population_fraction: float | None,
) -> tuple[JournalistRisk, MarketerRisk, PopulationUniqueness | None]:
    """Journalist and marketer risk, and population uniqueness, from the population or the sample."""
    counts = table.counts
    n = int(counts.sum())
    if population is None:
        uniqueness = None
        if population_fraction is not None:
            big_n = population_from_fraction(n, population_fraction, "population_fraction", "assess")
            uniqueness = _uniqueness_from_counts(counts, big_n)
        return (JournalistRisk(prosecutor.highest, prosecutor.average, "sample"),
                MarketerRisk(prosecutor.average, "sample"), uniqueness)
    sizes, pop_counts, big_n = population_class_sizes(table, population)
    average = _population_average(counts, sizes)
    highest = float(1.0 / sizes.min()) if n else 0.0
    uniqueness = _uniqueness_from_counts(counts, big_n)
    observed = float(np.count_nonzero(pop_counts == 1)) / big_n if big_n else 0.0
    uniqueness = PopulationUniqueness(**{**uniqueness.__dict__, "observed": observed})
    return JournalistRisk(highest, average, "population"), MarketerRisk(average, "population"), uniqueness


# assess is over 60 lines by its numpydoc docstring (every parameter, the formulas, references and an
# example); the body checks the parameters and gathers the figures from the helpers above.
def assess(
    classes: Any,
    *,
    population_fraction: float | None = None,
    population: Any = None,
    threshold: float = 0.2,
    qi_subsets_max_size: int | None = None,
    sensitive: Sequence[str] | None = None,
) -> RiskReport:
    """Assess the re-identification risk of a table, before or after anonymization.

    Parameters
    ----------
    classes : ClassTable, Dataset or DataFrame
        The table (a ClassTable at any generalization, suppression included).
    population_fraction : float in (0, 1], optional
        The table is a sample of this fraction of a population: enables the
        population-uniqueness estimates.
    population : ClassTable, Dataset or DataFrame, optional
        The population itself: journalist and marketer risk use its class
        sizes :math:`F_j`; uniqueness is estimated with :math:`\\pi = n/N`
        and the observed value is reported.  Not together with
        ``population_fraction``.
    threshold : float in [0, 1]
        Prosecutor risk above which a record is *at risk* (default 0.2).
    qi_subsets_max_size : int in [0, inf), optional
        The QI ranking: ``None`` (default, cheap) scores each QI alone and all
        QIs together; ``0`` skips it (empty list); ``m`` scores every subset
        of at most ``m`` QIs (:math:`\\sum_{i \\le m}\\binom{q}{i}` regroups).
    sensitive : sequence of str, optional
        Sensitive attributes to add homogeneity and Brickell–Shmatikov
        disclosure for (default none, which keeps this call fast).

    Returns
    -------
    RiskReport
        ``to_dict()`` is the ``veil risk --json`` object.

    Raises
    ------
    ParameterError
        Both ``population`` and ``population_fraction``; a fraction outside
        (0, 1], or so small that the population it implies (:math:`n/\\pi`)
        exceeds 2**53 (:data:`MAX_POPULATION_SIZE`); a
        population smaller than the table or not containing it.
    SchemaError
        A table with no records.

    Notes
    -----
    All figures are per record over the :math:`n` records in classes;
    suppressed records are counted apart.  Prosecutor: :math:`1/f_j`,
    average :math:`|K|/n`.  Journalist and marketer: :math:`F_j` from the
    population when given (``case = "population"``), else :math:`F_j = f_j`
    (``case = "sample"``).  See :func:`prosecutor_risk`,
    :func:`journalist_risk`, :func:`marketer_risk`,
    :func:`population_uniqueness`, :func:`quasi_identifier_ranking`.

    A :class:`Dataset` assessed with ``qi_subsets_max_size`` ``None`` or
    ``0``, no ``population`` and no ``sensitive`` needs only the class sizes:
    they are counted from the QIs' codes, without a class table, hierarchies
    for QIs that have none, or histograms;
    the figures are the class table's.

    References
    ----------
    K. El Emam, *Guide to the De-Identification of Personal Health
    Information*, CRC Press, 2013.
    F. Prasser, F. Kohlmayer et al., "ARX — a comprehensive tool for
    anonymizing biomedical data", AMIA 2014 (the risk analysis these
    figures mirror).

    Examples
    --------
    >>> from veil.datasets import load_din_table
    >>> report = assess(load_din_table())
    >>> report.to_dict()["prosecutor"]["highest"], report.journalist.case
    (1.0, 'sample')
    """
    threshold = check_real("threshold", threshold, "assess", low=0.0, high=1.0)
    if population is not None and population_fraction is not None:
        raise ParameterError("Give either population or population_fraction to assess, not both.")
    if population_fraction is not None:
        population_fraction = check_real("population_fraction", population_fraction, "assess",
                                         low=0.0, high=1.0, closed="right")
    if qi_subsets_max_size is not None:
        qi_subsets_max_size = check_int("qi_subsets_max_size", qi_subsets_max_size, "assess", low=0)
    if isinstance(sensitive, str):  # one attribute's name, not its letters
        sensitive = [sensitive]
    table, project = _sizes_and_projection(classes, population, qi_subsets_max_size, sensitive)
    counts = table.counts
    n = int(counts.sum())
    if population_fraction is not None:  # the implied population n / fraction, before any figure is computed
        population_from_fraction(n, population_fraction, "population_fraction", "assess")
    prosecutor = prosecutor_from_counts(counts, threshold)
    f1 = int(np.count_nonzero(counts == 1))
    journalist, marketer, uniqueness = _journalist_marketer(table, prosecutor, population, population_fraction)
    if qi_subsets_max_size is None:
        scores = _default_scores(table.quasi_identifiers, counts, project) if table.quasi_identifiers else ()
    elif qi_subsets_max_size == 0:
        scores = ()
    else:
        scores = quasi_identifier_ranking(table, max_size=qi_subsets_max_size)
    sensitive_risks: dict[str, SensitiveRisk] = {}
    for name in sensitive or ():
        sensitive_risks[name] = SensitiveRisk(homogeneity_attack(table, name), disclosure(table, name))
    return RiskReport(
        records=table.n_records,
        classes=table.n_classes,
        suppressed_records=table.suppressed,
        input_suppressed_records=table.input_suppressed,
        records_assessed=n,
        prosecutor=prosecutor,
        journalist=journalist,
        marketer=marketer,
        sample_uniques=f1 / n if n else 0.0,
        sample_uniques_count=f1,
        population_uniques=uniqueness,
        quasi_identifiers=scores,
        quasi_identifier_names=table.quasi_identifiers,
        sensitive=sensitive_risks,
    )
