"""Property tests of the lattice search and of ``anonymize``.

For random small tables, random hierarchies and random k / l / suppression
limits: the pruned search returns the same optimum (same loss) as evaluating
every node, and the released table satisfies every requested model when it is
re-checked from its rows.
"""

import numpy as np
import pandas as pd
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from veil.algorithms.lattice import exhaustive_search, search
from veil.anonymization import anonymize
from veil.classes import ClassTable
from veil.dataset import Dataset
from veil.errors import InfeasibleError, ParameterError
from veil.hierarchy import Hierarchy
from veil.models import (
    DistinctLDiversity, EntropyLDiversity, EqualDistanceTCloseness, KAnonymity,
)
from veil.utility import get_metric


@st.composite
def tables(draw):
    """A small table with 2-3 QIs, each with a random monotone hierarchy, and a sensitive column."""
    n = draw(st.integers(min_value=4, max_value=40))
    n_qi = draw(st.integers(min_value=2, max_value=3))
    columns, hierarchies = {}, {}
    for q in range(n_qi):
        n_values = draw(st.integers(min_value=1, max_value=6))
        values = [f"v{i}" for i in range(n_values)]
        depth = draw(st.integers(min_value=1, max_value=3))
        rows = []
        # random monotone hierarchy: each level groups the previous level's groups
        groups = list(range(n_values))
        levels = [values]
        for d in range(depth - 1):
            fan = draw(st.integers(min_value=2, max_value=3))
            groups = [g // fan for g in groups]
            levels.append([f"L{d + 1}_{g}" for g in groups])
        for i, v in enumerate(values):
            rows.append([lvl[i] for lvl in levels] + ["*"])
        name = f"q{q}"
        hierarchies[name] = Hierarchy.from_rows(rows, name=name)
        columns[name] = draw(st.lists(st.sampled_from(values), min_size=n, max_size=n))
    columns["s"] = draw(st.lists(st.sampled_from(["a", "b", "c"]), min_size=n, max_size=n))
    frame = pd.DataFrame(columns)
    return Dataset.from_pandas(
        frame, quasi_identifiers=[f"q{q}" for q in range(n_qi)], sensitive=["s"], hierarchies=hierarchies
    )


@st.composite
def model_sets(draw):
    k = draw(st.integers(min_value=1, max_value=5))
    models = [KAnonymity(k=k)]
    extra = draw(st.sampled_from(["none", "distinct", "entropy", "t"]))
    if extra == "distinct":
        models.append(DistinctLDiversity(sensitive="s", l=draw(st.integers(1, 2))))
    elif extra == "entropy":
        models.append(EntropyLDiversity(sensitive="s", l=draw(st.sampled_from([1.0, 1.5]))))
    elif extra == "t":
        models.append(EqualDistanceTCloseness(sensitive="s", t=draw(st.sampled_from([0.3, 0.6]))))
    return models


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(dataset=tables(), models=model_sets(),
       limit=st.sampled_from([0.0, 0.1, 0.3, 1.0]),
       metric=st.sampled_from(["loss", "precision", "height", "entropy", "discernibility", "classification"]))
def test_search_finds_the_exhaustive_optimum(dataset, models, limit, metric):
    classes = ClassTable.from_dataset(dataset)
    spec = get_metric(metric)
    label = "s" if spec.needs_label else None

    def loss(c):
        return spec.loss(c, label=label)

    try:
        reference = exhaustive_search(classes, models, loss=loss, suppression_limit=limit)
    except (InfeasibleError, ParameterError) as exc:  # infeasible, or l above the distinct values
        with pytest.raises(type(exc)):
            search(classes, models, loss=loss, metric_name=metric, suppression_limit=limit)
        return
    found = search(classes, models, loss=loss, metric_name=metric,
                   monotone_metric=metric != "kl", suppression_limit=limit)
    assert found.loss == pytest.approx(reference.loss, rel=1e-9, abs=1e-12)
    for model in models:
        assert model.check(found.classes)
    assert found.classes.suppressed <= int(np.floor(limit * classes.n_records + 1e-9))


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(dataset=tables(), models=model_sets(), limit=st.sampled_from([0.0, 0.2, 1.0]),
       seed=st.integers(0, 100), drop=st.booleans())
def test_anonymize_output_satisfies_models_and_reconciles_rows(dataset, models, limit, seed, drop):
    try:
        result = anonymize(dataset, models, suppression_limit=limit, seed=seed, drop_suppressed=drop)
    except InfeasibleError:
        return
    except ParameterError as exc:  # k above the table size, or l above the distinct values: refused up front
        assert "larger than the table" in str(exc) or "cannot be met" in str(exc)
        return
    out = result.data
    report = result.report
    # rows: input = output + dropped; suppressed rows are '*' in every QI
    assert report["records"] == dataset.n_records
    assert len(out) + report["suppressed_dropped"] == dataset.n_records
    qis = list(dataset.quasi_identifiers)
    starred = int((out[qis] == "*").all(axis=1).sum())
    if not drop:
        assert starred >= report["suppressed"]
    if out.empty:  # every record suppressed and dropped: nothing is released
        assert drop and report["suppressed"] == dataset.n_records
        return
    # re-check from the released rows, independently of the search
    released = ClassTable.from_pandas(out, quasi_identifiers=qis, sensitive=["s"])
    for model in models:
        assert model.check(result.verified), model.name
        if drop and isinstance(model, EqualDistanceTCloseness):
            # with dropped records, t is judged against the whole input's distribution
            # (suppressed records included, as in the search), which the rows alone lack
            continue
        assert model.check(released), model.name
    # the sensitive column is released unchanged (as a multiset, rows are shuffled)
    kept = out["s"].value_counts().to_dict()
    original = dataset.frame["s"].value_counts().to_dict()
    if not drop:
        assert kept == original
