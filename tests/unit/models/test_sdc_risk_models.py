"""ARX's risk-based models as search criteria: average risk, sample and population uniques, k-map estimated
from the sample (Poisson / zero-truncated Poisson), with ARX's figures."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest

import veil
from veil.classes import ClassTable
from veil.dataset import Dataset
from veil.errors import ParameterError
from veil.hierarchy import Hierarchy
from veil.models import KAnonymity
from veil.models._population import EstimatedKMap, PopulationUniques, derived_k
from veil.models._requirements import parse_requirements
from veil.risk import population_uniqueness

# ARX's test data (src/test/.../DataProvider.java) and TestRiskMetrics: before anonymization every record is
# unique (average risk 1.0); after the optimal 2-anonymity without suppression, 3 classes of 7 records
# (average risk 3/7 = 0.42857142857142855, highest 0.5)
ARX_ROWS = [("34", "male", "81667"), ("45", "female", "81675"), ("66", "male", "81925"), ("70", "female", "81931"),
            ("34", "female", "81931"), ("70", "male", "81931"), ("45", "male", "81931")]


def _arx_dataset() -> Dataset:
    frame = pd.DataFrame(ARX_ROWS, columns=["age", "gender", "zipcode"])
    zips = ["81667", "81675", "81925", "81931"]
    hierarchies = {
        "age": Hierarchy.from_rows([["34", "<50", "*"], ["45", "<50", "*"], ["66", ">=50", "*"], ["70", ">=50", "*"]]),
        "gender": Hierarchy.from_rows([["male", "*"], ["female", "*"]]),
        "zipcode": Hierarchy.from_rows([[z, z[:4] + "*", z[:3] + "**", z[:2] + "***", z[:1] + "****", "*****"]
                                        for z in zips]),
    }
    return Dataset.from_pandas(frame, quasi_identifiers=["age", "gender", "zipcode"]).with_hierarchies(hierarchies)


def test_arx_average_risk_after_2_anonymity():
    dataset = _arx_dataset()
    assert veil.risk.assess(dataset).prosecutor.average == 1.0
    result = veil.anonymize(dataset, [KAnonymity(k=2)], suppression_limit=0.0)
    after = result.report["risk_after"]["prosecutor"]
    assert after["average"] == 0.42857142857142855 and after["highest"] == 0.5


def test_avg_risk_requirement_drives_the_search():
    from veil.models import AverageRisk

    # average risk <= 0.45 holds at ARX's 2-anonymous node (3/7) and not before (1.0)
    (requirement,) = parse_requirements("avg_risk<=0.45")
    assert requirement.model.__name__ == "AverageRisk"
    result = veil.anonymize(_arx_dataset(), [AverageRisk(threshold=0.45)], suppression_limit=0.0)
    assert result.report["risk_after"]["prosecutor"]["average"] <= 0.45


def test_derived_k_by_hand():
    # lambda = pi k = 0.05: Poisson cdf(0) = exp(-0.05) = 0.9512 >= 0.95 -> c = 0 -> ARX's k' = 0 + 2
    assert derived_k(5, 0.05, 0.05, "poisson") == 2
    # zero-truncated: P(1) / (1 - P(0)) = 0.05 exp(-0.05) / (1 - exp(-0.05)) = 0.9752 >= 0.95 -> c = 1 -> k' = 2
    assert derived_k(5, 0.05, 0.05, "zero-truncated-poisson") == 2
    # lambda = 0.5 k = 2.5 (k = 5): Poisson cdf: 0.0821, 0.2873, 0.5438, 0.7576, 0.8912, 0.9580 -> c = 5 -> 7,
    # capped at k = 5
    assert derived_k(5, 2.5, 0.05, "poisson") == 5
    lam = 1.0  # k = 10, pi = 0.1: cdf 0.3679, 0.7358, 0.9197, 0.9810 -> c = 3 -> k' = 5
    assert derived_k(10, lam, 0.05, "poisson") == 5
    truncated = [sum(math.exp(-lam) * lam ** i / math.factorial(i) for i in range(1, c + 1)) / (1 - math.exp(-lam))
                 for c in range(1, 6)]
    c = 1 + next(i for i, v in enumerate(truncated) if v >= 0.95)
    assert derived_k(10, lam, 0.05, "zero-truncated-poisson") == c + 1


def test_estimated_kmap_is_k_prime_anonymity():
    classes = ClassTable.from_pandas(pd.DataFrame({"q": list("aabbbbc")}), quasi_identifiers=["q"])
    model = EstimatedKMap(k=10, fraction=0.1, estimator="poisson", alpha=0.05)  # k' = 5 (above)
    # classes of 2, 4 and 1 records, all under k' = 5
    assert model.violating(classes).all() and model.smallest_class == 5
    (requirement,) = parse_requirements("kmap(k=10,estimator=poisson,alpha=0.05,fraction=0.1)")
    assert requirement.arguments == (("k", 10), ("estimator", "poisson"), ("alpha", 0.05), ("fraction", 0.1))


def test_population_uniques_matches_the_estimators():
    rng = np.random.default_rng(5)
    frame = pd.DataFrame({"a": rng.integers(0, 30, 2000).astype(str), "b": rng.integers(0, 20, 2000).astype(str)})
    classes = ClassTable.from_pandas(frame, quasi_identifiers=["a", "b"])
    estimates = population_uniqueness(classes, sampling_fraction=0.05)
    for name in ("pitman", "zayatz", "snb", "dankar"):
        model = PopulationUniques(threshold=1.0, fraction=0.05, estimator=name)
        assert model.achieved_level(classes) == getattr(estimates, name).fraction
    level = PopulationUniques(threshold=1.0, fraction=0.05).achieved_level(classes)
    assert PopulationUniques(threshold=level, fraction=0.05).check(classes)  # tight at its level
    assert not PopulationUniques(threshold=level * 0.999, fraction=0.05).check(classes)
    (requirement,) = parse_requirements("pop_uniques(fraction=0.05,estimator=pitman)<=0.01")
    assert requirement.arguments == (("fraction", 0.05), ("estimator", "pitman"))


def test_unknown_estimators_refused():
    with pytest.raises(ParameterError, match="'estimator'.*pitman"):
        PopulationUniques(threshold=0.1, fraction=0.1, estimator="guess")
    with pytest.raises(ParameterError, match="'estimator'.*poisson"):
        EstimatedKMap(k=5, fraction=0.1, estimator="normal")


def test_sample_uniques_requirement():
    classes = ClassTable.from_pandas(pd.DataFrame({"q": list("abbbbb")}), quasi_identifiers=["q"])
    (requirement,) = parse_requirements("sample_uniques<=0.2")
    model = requirement.model(threshold=0.5, share=0.2)
    assert model.achieved_level(classes) == pytest.approx(1 / 6) and model.check(classes)
