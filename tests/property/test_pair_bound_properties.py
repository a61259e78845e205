"""Properties of the pair-marginal bound (veil.algorithms._pairs): it never refutes a node that
could pass, its count never exceeds the records the node suppresses, it is exact on two
attributes, and a search that uses it finds the exhaustive search's optimum."""

import numpy as np
import pandas as pd
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from veil.algorithms._pairs import PairBound
from veil.algorithms.lattice import Lattice, exhaustive_search, search
from veil.classes import ClassTable
from veil.dataset import Dataset
from veil.errors import InfeasibleError, ParameterError
from veil.hierarchy import Hierarchy
from veil.models import DistinctLDiversity, EntropyLDiversity, KAnonymity, RecursiveCLDiversity
from veil.utility import get_metric

LOSS = get_metric("loss")


@st.composite
def tables(draw, min_qis=2, max_qis=4):
    """A table of 2-4 QIs with random monotone hierarchies (some levels shared by all values)."""
    n = draw(st.integers(min_value=1, max_value=60))
    n_qi = draw(st.integers(min_value=min_qis, max_value=max_qis))
    columns, hierarchies = {}, {}
    for q in range(n_qi):
        n_values = draw(st.integers(min_value=1, max_value=6))
        values = [f"v{i}" for i in range(n_values)]
        groups, levels = list(range(n_values)), [values]
        for d in range(draw(st.integers(min_value=0, max_value=2))):
            fan = draw(st.integers(min_value=2, max_value=3))
            groups = [g // fan for g in groups]
            levels.append([f"L{d + 1}_{g}" for g in groups])
        name = f"q{q}"
        hierarchies[name] = Hierarchy.from_rows([[lvl[i] for lvl in levels] + ["*"] for i in range(n_values)],
                                                name=name)
        columns[name] = draw(st.lists(st.sampled_from(values), min_size=n, max_size=n))
    columns["s"] = draw(st.lists(st.sampled_from(["a", "b", "c"]), min_size=n, max_size=n))
    return Dataset.from_pandas(pd.DataFrame(columns), quasi_identifiers=list(hierarchies), sensitive=["s"],
                               hierarchies=hierarchies)


def _every_node(classes):
    return [tuple(int(x) for x in row) for row in Lattice(classes.levels, tuple(h.height for h in classes.hierarchies)).nodes()]


@settings(max_examples=80, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(dataset=tables(), smallest=st.integers(min_value=2, max_value=6), share=st.sampled_from([0.0, 0.1, 0.3]),
       start=st.lists(st.integers(min_value=0, max_value=3), min_size=4, max_size=4))
def test_a_refuted_node_suppresses_at_least_the_count_and_more_than_the_limit(dataset, smallest, share, start):
    classes = ClassTable.from_dataset(dataset)
    # the base may itself be generalized: the nodes are then the levels at or above it
    classes = classes.generalize(tuple(min(s, h.height) for s, h in zip(start, classes.hierarchies)))
    limit = int(np.floor(share * classes.n_records))
    bound = PairBound(classes, smallest, limit)
    for node in _every_node(classes):
        table = classes.generalize(node)
        suppressed = int(table.counts[table.counts < smallest].sum())
        need = bound.refutes(node)
        if need:
            assert limit < need <= suppressed
        if len(node) == 2 and len(bound.pairs) == 1 and suppressed > limit:  # the pair is the whole table
            assert need == suppressed


DIVERSITY = {
    "none": lambda: [],
    "distinct 2": lambda: [DistinctLDiversity(sensitive="s", l=2)],
    "entropy 2": lambda: [EntropyLDiversity(sensitive="s", l=2.0)],
    "entropy 2.5": lambda: [EntropyLDiversity(sensitive="s", l=2.5)],
    "recursive (3, 2)": lambda: [RecursiveCLDiversity(sensitive="s", c=3.0, l=2)],
}


@settings(max_examples=100, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(dataset=tables(), diversity=st.sampled_from(sorted(DIVERSITY)), k=st.integers(min_value=1, max_value=4))
def test_a_class_smaller_than_a_models_floor_violates_it(dataset, diversity, k):
    """The fact the pairs rely on: a model's ``smallest_class`` is a true floor."""
    classes = ClassTable.from_dataset(dataset)
    for model in [KAnonymity(k=k)] + DIVERSITY[diversity]():
        try:
            violating = np.asarray(model.violating(classes), dtype=bool)
        except ParameterError:  # l above the distinct values of the whole table
            continue
        assert violating[classes.counts < model.smallest_class].all(), model.name


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(dataset=tables(min_qis=3), k=st.integers(min_value=1, max_value=5), diversity=st.sampled_from(sorted(DIVERSITY)))
def test_the_search_without_suppression_finds_the_exhaustive_optimum(dataset, k, diversity):
    classes = ClassTable.from_dataset(dataset)
    models = [KAnonymity(k=k)] + DIVERSITY[diversity]()
    try:
        reference = exhaustive_search(classes, models, loss=LOSS.loss, suppression_limit=0.0)
    except (InfeasibleError, ParameterError) as exc:  # ParameterError: l above the distinct values
        with pytest.raises(type(exc)) as raised:
            search(classes, models, loss=LOSS.loss, metric_name="loss", suppression_limit=0.0)
        assert getattr(raised.value, "best", None) == getattr(exc, "best", None)
        return
    found = search(classes, models, loss=LOSS.loss, metric_name="loss", suppression_limit=0.0)
    assert found.loss == pytest.approx(reference.loss, rel=1e-9, abs=1e-12)
    assert found.classes.counts.min() >= k


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(dataset=tables(), k=st.integers(min_value=1, max_value=5), share=st.sampled_from([0.0, 0.1]),
       pick=st.integers(min_value=0, max_value=10_000))
def test_a_search_of_one_pinned_node_judges_it_as_the_exhaustive_search_does(dataset, k, share, pick):
    """Every level pinned (the pairs are not asked): the node passes, with the exhaustive search's
    loss, or the search is infeasible with the same records to suppress."""
    classes = ClassTable.from_dataset(dataset)
    nodes = _every_node(classes)
    node = nodes[pick % len(nodes)]
    models = [KAnonymity(k=k)]
    try:
        reference = exhaustive_search(classes, models, loss=LOSS.loss, suppression_limit=share,
                                      min_levels=node, max_levels=node)
    except InfeasibleError as exc:
        with pytest.raises(InfeasibleError) as raised:
            search(classes, models, loss=LOSS.loss, metric_name="loss", suppression_limit=share,
                   min_levels=node, max_levels=node)
        assert raised.value.best == exc.best
        return
    found = search(classes, models, loss=LOSS.loss, metric_name="loss", suppression_limit=share,
                   min_levels=node, max_levels=node)
    assert found.node == reference.node == node
    assert found.nodes_checked == 1 and found.extra["nodes_refuted"] == 0
    assert found.loss == pytest.approx(reference.loss, rel=1e-9, abs=1e-12)
    assert found.extra["suppressed_records"] == reference.extra["suppressed_records"]
