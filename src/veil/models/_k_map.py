"""k-map (Sweeney 2002; El Emam & Dankar 2008)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

import numpy as np

from veil.classes import ClassTable
from veil.models._facts import Param, RequirementKey
from veil.models._population import PopulationModel

__all__ = ["KMap"]


@dataclass(frozen=True)
class KMap(PopulationModel):
    """Every class of the table matches at least ``k`` people of the population.

    k-anonymity judged against the population the table was sampled from
    rather than against the table itself.

    Parameters
    ----------
    k : int, in [1, inf)
    population : ClassTable or pandas.DataFrame
        The population, with the same quasi-identifiers (matched by label).

    Raises
    ------
    ParameterError
        When the population is missing, or a class is absent from it.

    Notes
    -----
    .. math:: \\forall E:\\ |P_E| \\ge k

    Monotone under generalization and with suppression, like k-anonymity: a
    merged class matches at least as many people as each part, and whether a
    class satisfies the model does not depend on the other classes.

    References
    ----------
    K. El Emam, F. K. Dankar, 'Protecting privacy using k-anonymity', JAMIA
    15(5), 2008 (k-map); L. Sweeney, PhD thesis, MIT, 2001.

    Examples
    --------
    >>> import pandas as pd
    >>> from veil.classes import ClassTable
    >>> population = pd.DataFrame({"q": ["a"] * 4 + ["b"] * 2})
    >>> sample = ClassTable.from_pandas(pd.DataFrame({"q": ["a", "a", "b"]}), quasi_identifiers=["q"])
    >>> KMap(k=2, population=population).achieved_level(sample)
    2
    """

    k: int

    monotone_generalization: ClassVar[bool] = True
    monotone_with_suppression: ClassVar[bool] = True
    reference: ClassVar[str] = "El Emam & Dankar, JAMIA 15(5), 2008 (k-map)"
    config_key: ClassVar[str] = "k-map"
    label: ClassVar[str] = "{k}-map"
    parameters: ClassVar[tuple[Param, ...]] = (Param("k", "int", low=1),)
    requirement_keys: ClassVar[tuple[RequirementKey, ...]] = (
        RequirementKey("k_map", "k", ">=", "k-map: the smallest population class matching a released class",
                       needs_population=True),
    )

    def violating(self, classes: ClassTable) -> np.ndarray:
        return self.population_sizes(classes) < self.k

    def achieved_level(self, classes: ClassTable) -> int:
        sizes = self.population_sizes(classes)
        return int(sizes.min()) if len(sizes) else 0
