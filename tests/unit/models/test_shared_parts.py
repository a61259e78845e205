"""The parts several models share: requirement-key aliases and the family base classes."""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

import numpy as np
import pandas as pd
import pytest

from veil.classes import ClassTable
from veil.errors import ColumnNotFoundError, ParameterError
from veil.models import (
    BasicBetaLikeness,
    DeltaPresence,
    EntropyLDiversity,
    HierarchicalTCloseness,
    KAnonymity,
    KLinkAnonymity,
    KMap,
    PrivacyModel,
    registry,
)
from veil.models._facts import Param, RequirementKey


@pytest.mark.parametrize(("alias", "key", "model"), [
    ("l_entropy", "entropy_l", EntropyLDiversity),
    ("t_hier", "t_hierarchical", HierarchicalTCloseness),
    ("distinct_l", "l", registry.model_class("distinct-l-diversity")),
])
def test_an_alias_is_the_same_requirement_under_another_name(alias, key, model):
    cls, spec = registry.requirement_key(alias)
    main_cls, main = registry.requirement_key(key)
    assert cls is main_cls is model
    assert spec.key == alias and main.key == key
    assert (spec.parameter, spec.direction, spec.description, spec.report_field) == (
        main.parameter, main.direction, main.description, main.report_field)


def test_a_taken_alias_refuses_the_registration():
    @dataclass(frozen=True)
    class Squatter(PrivacyModel):
        k: int

        config_key: ClassVar[str] = "squatter"
        parameters: ClassVar[tuple[Param, ...]] = (Param("k", "int", low=1),)
        requirement_keys: ClassVar[tuple[RequirementKey, ...]] = (
            RequirementKey("squat", "k", ">=", "toy", aliases=("t_hier",)),
        )

        def violating(self, classes):
            return np.zeros(classes.n_classes, dtype=bool)

        def achieved_level(self, classes):
            return 0

    with pytest.raises(ParameterError, match="'t_hier' of Squatter is taken by HierarchicalTCloseness"):
        registry.register(Squatter)
    assert "squatter" not in registry.MODELS


def test_k_link_judges_one_table_as_k_anonymity_but_is_not_k_anonymity():
    # classes of 2 and 3 records: both models achieve 2, hold at k=2 and fail at k=3
    classes = ClassTable.from_pandas(pd.DataFrame({"q": list("aabbb")}), quasi_identifiers=["q"])
    for model in (KAnonymity, KLinkAnonymity):
        assert model(k=2).achieved_level(classes) == 2
        assert model(k=2).check(classes) and not model(k=3).check(classes)
        assert model(k=3).violating(classes).tolist() == [True, False]
    # the pipeline reads the k of k-anonymity by type; k-link must not be taken for it
    assert not isinstance(KLinkAnonymity(k=2), KAnonymity)


def test_population_is_keyword_only_and_named_in_the_error():
    population = pd.DataFrame({"q": list("aaab")})
    with pytest.raises(TypeError):
        KMap(2, population)  # type: ignore[misc]
    with pytest.raises(ParameterError, match=r"^KMap needs a population table"):
        KMap(k=2)
    # both parameters wrong: the population is reported first (the bounds are checked after it)
    with pytest.raises(ParameterError, match=r"^DeltaPresence needs a population table"):
        DeltaPresence(delta_min=0.6, delta_max=0.5)


def test_a_sensitive_model_names_itself_when_the_attribute_is_missing():
    classes = ClassTable.from_pandas(pd.DataFrame({"q": list("ab"), "s": list("xy")}), quasi_identifiers=["q"])
    with pytest.raises(ColumnNotFoundError, match=r"^BasicBetaLikeness: 's' is not a sensitive attribute"):
        BasicBetaLikeness(sensitive="s", beta=1).check(classes)
