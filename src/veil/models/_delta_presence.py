"""δ-presence (Nergiz, Atzori & Clifton, SIGMOD 2007)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

import numpy as np

from veil.classes import ClassTable
from veil.errors import ParameterError
from veil.models._distributions import exact_ratio
from veil.models._facts import Param, RequirementKey
from veil.models._population import PopulationModel

__all__ = ["DeltaPresence"]


@dataclass(frozen=True)
class DeltaPresence(PopulationModel):
    """The probability that a population member is in the table stays within [δmin, δmax].

    The published table is a subset of a population table; an attacker who knows
    someone's QIs learns that they are in the table with probability
    :math:`|E \\cap T| / |E \\cap P|` for their class.

    Parameters
    ----------
    delta_min : float, in [0, 1]
    delta_max : float, in [0, 1], at least ``delta_min``
    population : ClassTable or pandas.DataFrame
        The population, with the same quasi-identifiers (original or
        generalized values; matched by label).

    Raises
    ------
    ParameterError
        When the population is missing, or a class is absent from it.

    Notes
    -----
    .. math:: \\forall E:\\ \\delta_{min} \\le \\frac{|T_E|}{|P_E|} \\le \\delta_{max}

    The achieved level is ``{"delta_min": min ratio, "delta_max": max ratio}``
    (exact integer ratios rounded once).  Monotone under generalization without
    suppression (the ratio of a merged class is the mediant of its parts'
    ratios, hence between them).  Not monotone with suppression.

    References
    ----------
    M. E. Nergiz, M. Atzori, C. Clifton, 'Hiding the presence of individuals
    from shared databases', SIGMOD 2007, Definition 3.

    Examples
    --------
    >>> import pandas as pd
    >>> from veil.classes import ClassTable
    >>> population = pd.DataFrame({"q": ["a"] * 4 + ["b"] * 2})
    >>> sample = ClassTable.from_pandas(pd.DataFrame({"q": ["a", "a", "b"]}), quasi_identifiers=["q"])
    >>> DeltaPresence(delta_min=0.0, delta_max=0.5, population=population).achieved_level(sample)
    {'delta_min': 0.5, 'delta_max': 0.5}
    """

    delta_min: float
    delta_max: float

    monotone_generalization: ClassVar[bool] = True
    monotone_with_suppression: ClassVar[bool] = False
    reference: ClassVar[str] = "Nergiz, Atzori & Clifton, SIGMOD 2007, Definition 3"
    config_key: ClassVar[str] = "delta-presence"
    label: ClassVar[str] = "({delta_min:g},{delta_max:g})-presence"
    parameters: ClassVar[tuple[Param, ...]] = (Param("delta_min", "float", low=0, high=1),
                                              Param("delta_max", "float", low=0, high=1))
    requirement_keys: ClassVar[tuple[RequirementKey, ...]] = (
        RequirementKey("delta_min", "delta_min", ">=", "delta-presence: the smallest |T_E|/|P_E| over released classes",
                       needs_population=True),
        RequirementKey("delta_max", "delta_max", "<=", "delta-presence: the largest |T_E|/|P_E| over released classes",
                       needs_population=True),
    )

    def __post_init__(self) -> None:
        super().__post_init__()
        lo, hi = self.delta_min, self.delta_max
        if lo > hi:
            raise ParameterError(
                f"The 'delta_min' parameter of DeltaPresence must be at most delta_max ({hi:g}). Got {lo:g} instead."
            )

    def ratios(self, classes: ClassTable) -> np.ndarray:
        """Per class, ``|T_E| / |P_E|``."""
        return exact_ratio(classes.counts, self.population_sizes(classes))

    def violating(self, classes: ClassTable) -> np.ndarray:
        r = self.ratios(classes)
        return (r < self.delta_min) | (r > self.delta_max)

    def achieved_level(self, classes: ClassTable) -> dict[str, float]:
        r = self.ratios(classes)
        if not len(r):
            return {"delta_min": 0.0, "delta_max": 0.0}
        return {"delta_min": float(r.min()), "delta_max": float(r.max())}
