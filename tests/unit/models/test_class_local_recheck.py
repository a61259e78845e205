"""The fact the lattice search relies on to skip a second check after suppression
(:func:`veil.algorithms._nodes.needs_recheck`): a class-local model whose check is
"no class violates" passes once the classes it finds violating are suppressed, and a
search that skips the second check finds what one that asks again finds."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from veil.algorithms._nodes import Evaluator, Lattice, needs_recheck
from veil.classes import ClassTable
from veil.hierarchy import Hierarchy
from veil.models import (
    AlphaKAnonymity, AverageRisk, BasicBetaLikeness, DeltaDisclosure, DistinctLDiversity, EnhancedBetaLikeness,
    EntropyLDiversity, EqualDistanceTCloseness, HierarchicalTCloseness, KAnonymity, MaxProsecutorRisk,
    OrderedDistanceTCloseness, PresentValuesDeltaDisclosure, RecordsAtRiskShare, RecursiveCLDiversity,
)

SENSITIVE_HIERARCHY = Hierarchy.from_rows([["a", "ab", "*"], ["b", "ab", "*"], ["c", "cd", "*"], ["d", "cd", "*"]])

CLASS_LOCAL = [
    KAnonymity(k=3), DistinctLDiversity(sensitive="s", l=2), EntropyLDiversity(sensitive="s", l=1.5),
    RecursiveCLDiversity(sensitive="s", c=2, l=2), EqualDistanceTCloseness(sensitive="s", t=0.2),
    OrderedDistanceTCloseness(sensitive="s", t=0.15), HierarchicalTCloseness(sensitive="s", t=0.2),
    DeltaDisclosure(sensitive="s", delta=1.0), PresentValuesDeltaDisclosure(sensitive="s", delta=1.0),
    AlphaKAnonymity(sensitive="s", alpha=0.6, k=2), BasicBetaLikeness(sensitive="s", beta=1.0),
    EnhancedBetaLikeness(sensitive="s", beta=1.0), MaxProsecutorRisk(threshold=0.3),
]


@pytest.fixture(scope="module")
def classes() -> ClassTable:
    rng = np.random.default_rng(11)
    n = 400
    frame = pd.DataFrame({
        "a": rng.integers(0, 12, n).astype(str), "b": rng.integers(0, 6, n).astype(str),
        "s": rng.choice(list("abcd"), n, p=[0.5, 0.3, 0.15, 0.05]),
    })
    hierarchies = {
        "a": Hierarchy.from_rows([[str(i), f"{i // 4}x", "*"] for i in range(12)]),
        "b": Hierarchy.flat([str(i) for i in range(6)]),
        "s": SENSITIVE_HIERARCHY,
    }
    return ClassTable.from_pandas(frame, quasi_identifiers=["a", "b"], sensitive=["s"], hierarchies=hierarchies)


def test_the_search_models_that_are_asked_again():
    assert not any(needs_recheck(model) for model in CLASS_LOCAL)
    assert needs_recheck(AverageRisk(threshold=0.3))  # its check is not "no class violates"
    assert needs_recheck(RecordsAtRiskShare(threshold=0.3, share=0.1))


@pytest.mark.parametrize("model", CLASS_LOCAL, ids=lambda m: type(m).__name__)
def test_suppressing_the_violating_classes_meets_a_class_local_model(classes, model):
    suppressing = 0
    for node in Lattice((0, 0), (2, 1)).nodes().tolist():
        table = classes.generalize(node)
        mask = model.violating(table)
        assert model.check(table.suppress(mask))
        suppressing += bool(mask.any()) and not mask.all()
    assert suppressing  # some node has classes that violate and classes that do not


@pytest.mark.parametrize("model", CLASS_LOCAL, ids=lambda m: type(m).__name__)
def test_evaluations_match_asking_again(classes, model):
    """The evaluator's verdicts equal those of suppressing and asking every model again."""
    models = [KAnonymity(k=2), model]
    verdicts = set()
    for limit in (4, 40):
        evaluator = Evaluator(classes, models, limit, lambda c: float(c.n_classes))
        for node in Lattice((0, 0), (2, 1)).nodes().tolist():
            table = classes.generalize(node)
            mask = np.logical_or.reduce([m.violating(table) for m in models])
            suppressed = int(table.counts[mask].sum())
            expected = suppressed <= limit and all(m.check(table.suppress(mask)) for m in models)
            found = evaluator.evaluate(tuple(node))
            assert (found.satisfied, found.suppressed_records) == (expected, suppressed)
            verdicts.add(expected)
    assert verdicts == {True, False}
