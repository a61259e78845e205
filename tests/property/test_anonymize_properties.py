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
    AlphaKAnonymity, BasicBetaLikeness, DeltaDisclosure, DistinctLDiversity, EnhancedBetaLikeness,
    EntropyLDiversity, EqualDistanceTCloseness, KAnonymity,
)
from veil.pipeline import Outputs, verify_written
from veil.release import table_writer
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
                   monotone_metric=metric != "kl", suppression_limit=limit,
                   terms=spec.terms if spec.has_terms else None)  # the bounds as the pipeline reads them
    assert found.loss == pytest.approx(reference.loss, rel=1e-9, abs=1e-12)
    for model in models:
        assert model.check(found.classes)
    assert found.classes.suppressed <= int(np.floor(limit * classes.n_records + 1e-9))


@st.composite
def generalization_monotone_sets(draw):
    """k-anonymity and a model monotone under generalization but not with suppression."""
    models = [KAnonymity(k=draw(st.integers(min_value=1, max_value=4)))]
    extra = draw(st.sampled_from(["t", "basic beta", "enhanced beta", "delta", "alpha-k"]))
    if extra == "t":
        models.append(EqualDistanceTCloseness(sensitive="s", t=draw(st.sampled_from([0.2, 0.4]))))
    elif extra == "basic beta":
        models.append(BasicBetaLikeness(sensitive="s", beta=draw(st.sampled_from([0.5, 1.0, 2.0]))))
    elif extra == "enhanced beta":
        models.append(EnhancedBetaLikeness(sensitive="s", beta=draw(st.sampled_from([0.5, 1.0, 2.0]))))
    elif extra == "delta":
        models.append(DeltaDisclosure(sensitive="s", delta=draw(st.sampled_from([0.5, 1.0, 2.0]))))
    else:
        models.append(AlphaKAnonymity(sensitive="s", alpha=draw(st.sampled_from([0.5, 0.7])), k=2))
    return models


@settings(max_examples=80, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(dataset=tables(), models=generalization_monotone_sets(), metric=st.sampled_from(["loss", "precision", "height"]))
def test_without_suppression_a_model_monotone_under_generalization_is_searched_top_down(dataset, models, metric):
    # with no record to suppress, the search treats these models as monotone (top-down with
    # tagging): it must still find the exhaustive optimum
    classes = ClassTable.from_dataset(dataset)
    spec = get_metric(metric)

    def loss(c):
        return spec.loss(c)

    try:
        reference = exhaustive_search(classes, models, loss=loss, suppression_limit=0.0)
    except (InfeasibleError, ParameterError) as exc:
        with pytest.raises(type(exc)):
            search(classes, models, loss=loss, metric_name=metric, suppression_limit=0.0)
        return
    found = search(classes, models, loss=loss, metric_name=metric, suppression_limit=0.0, terms=spec.terms)
    assert found.loss == pytest.approx(reference.loss, rel=1e-9, abs=1e-12)
    assert found.classes.suppressed == classes.suppressed
    for model in models:
        assert model.check(found.classes)


def _published_classes(frame, dataset, mode):
    """The classes an attacker sees in the released file: every published row,
    the suppressed group (``*`` in every QI) as one more class when its
    sensitive values are published (``keep``)."""
    qis = list(dataset.quasi_identifiers)
    star = np.array((frame[qis].astype(str) == "*").all(axis=1), dtype=bool)
    withheld = (frame["s"] == "*").to_numpy()
    if mode == "blank":
        # suppressed rows publish no sensitive value; '*' rows that do publish one
        # are a class the search generalized to '*' in every QI
        star = star & withheld
    groups = frame.loc[~star].groupby(qis, sort=False)["s"]
    classes = [list(g) for _, g in groups]
    if mode == "keep" and star.any():
        classes.append(list(frame.loc[star, "s"]))
    return classes


def _by_hand(model, values, overall):
    """Judge one class by the model's definition, from its list of values."""
    counts = pd.Series(values).value_counts()
    if isinstance(model, KAnonymity):
        return True  # k is judged on the generalized classes only (the suppressed group is not a class of QIs)
    if isinstance(model, DistinctLDiversity):
        return len(counts) >= model.l
    if isinstance(model, EntropyLDiversity):
        p = counts.to_numpy() / counts.sum()
        return float(np.exp(-(p * np.log(p)).sum())) >= model.l - 1e-9
    # equal-distance EMD: half the L1 distance to the whole input's distribution
    p = (counts / counts.sum()).reindex(overall.index, fill_value=0.0)
    return 0.5 * float(np.abs(p - overall).sum()) <= model.t + 1e-9


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(dataset=tables(), models=model_sets(), limit=st.sampled_from([0.0, 0.2, 1.0]),
       mode=st.sampled_from(["drop", "blank", "keep"]))
def test_release_satisfies_every_model_including_the_suppressed_rows_as_published(
        dataset, models, limit, mode, tmp_path_factory):
    """For every ``suppressed`` option, the file ``run_config`` publishes satisfies
    every requested model, the suppressed rows included as published: judged by
    the models' definitions on the file's rows, not by veil's class table."""
    try:
        result = anonymize(dataset, models, suppression_limit=limit, suppressed=mode)
    except InfeasibleError:
        return
    except ParameterError as exc:  # k above the table size, or l above the distinct values: refused up front
        assert "larger than the table" in str(exc) or "cannot be met" in str(exc)
        return
    folder = tmp_path_factory.mktemp("release")
    with Outputs({"data": folder / "out.csv"}) as out:
        written = out.write("data", table_writer(result.data))
        verify_written(written, result, dataset, models)
        out.commit()
    frame = pd.read_csv(folder / "out.csv", dtype=str, keep_default_na=False)
    report = result.report
    assert len(frame) + report["suppressed_dropped"] == dataset.n_records
    overall = dataset.frame["s"].value_counts(normalize=True)
    k = max(m.k for m in models if isinstance(m, KAnonymity))
    classes = _published_classes(frame, dataset, mode)
    n_generalized = len(classes) - (1 if mode == "keep" and report["suppressed"] else 0)
    for i, values in enumerate(classes):
        if i < n_generalized:
            assert len(values) >= k
        for model in models:
            assert _by_hand(model, values, overall), (model.name, mode, values)
