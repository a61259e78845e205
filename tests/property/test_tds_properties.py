"""Property tests of top-down specialization (HDTDS) on small random tables.

For random tables, random (irregular, possibly single-child) taxonomies and
random k-anonymity / LKC-privacy / l-diversity requirements: the released table
satisfies every model when re-checked from its rows, no row is lost or moved,
every released value generalizes the original one, no further specialization
of the final cut is valid, and the local validity checks decide exactly as the
models' own check on the whole table.
"""

from __future__ import annotations

from dataclasses import dataclass

import pandas as pd
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from veil.algorithms.tds import SCORES, top_down_specialization
from veil.anonymization import verify
from veil.classes import ClassTable
from veil.dataset import Dataset
from veil.errors import InfeasibleError, ParameterError, VerificationError
from veil.hierarchy import Hierarchy
from veil.models import DistinctLDiversity, KAnonymity, LKCPrivacy

SENSITIVE = ["flu", "hiv", "cold"]


@st.composite
def taxonomies(draw, name: str) -> tuple[list[str], Hierarchy]:
    """Values and a random monotone hierarchy: each level maps every group below to a random parent."""
    n_values = draw(st.integers(min_value=1, max_value=6))
    values = [f"{name}{i}" for i in range(n_values)]
    depth = draw(st.integers(min_value=0, max_value=2))
    columns = [values]
    groups = list(range(n_values))
    for d in range(depth):
        n_groups = max(groups) + 1
        parents = draw(st.lists(st.integers(0, max(n_groups - 1, 0)), min_size=n_groups, max_size=n_groups))
        groups = [parents[g] for g in groups]
        columns.append([f"{name}L{d + 1}_{g}" for g in groups])
    rows = [[column[i] for column in columns] + ["*"] for i in range(n_values)]
    return values, Hierarchy.from_rows(rows, name=name)


@st.composite
def tables(draw) -> Dataset:
    n = draw(st.integers(min_value=2, max_value=30))
    n_qi = draw(st.integers(min_value=1, max_value=4))
    frame, hierarchies = {}, {}
    for q in range(n_qi):
        name = f"q{q}"
        values, hierarchy = draw(taxonomies(name))
        hierarchies[name] = hierarchy
        frame[name] = draw(st.lists(st.sampled_from(values), min_size=n, max_size=n))
    frame["s"] = draw(st.lists(st.sampled_from(SENSITIVE), min_size=n, max_size=n))
    frame["y"] = draw(st.lists(st.sampled_from(["0", "1", "2"]), min_size=n, max_size=n))
    return Dataset.from_pandas(
        pd.DataFrame(frame), quasi_identifiers=list(hierarchies), sensitive=["s"], insensitive=["y"],
        hierarchies=hierarchies,
    )


@st.composite
def requirements(draw, dataset: Dataset) -> list:
    n_qi = len(dataset.quasi_identifiers)
    present = sorted(set(dataset.frame["s"]))
    kind = draw(st.sampled_from(["k", "lkc", "lkc+l"]))
    if kind == "k":
        return [KAnonymity(k=draw(st.integers(1, 4)))]
    c = draw(st.sampled_from([1.0, 0.5, 0.75]))
    values = tuple(sorted(draw(st.sets(st.sampled_from(present), min_size=1, max_size=2))))
    model = LKCPrivacy(L=draw(st.integers(1, n_qi)), K=draw(st.integers(1, 4)), C=c,
                       sensitive="s" if c < 1 else None, values=values if c < 1 else None)
    if kind == "lkc+l":
        return [model, DistinctLDiversity(sensitive="s", l=draw(st.integers(1, 2)))]
    return [model]


@dataclass(frozen=True)
class _WholeTableLKC(LKCPrivacy):
    """Checked on the whole candidate table, never locally."""


@dataclass(frozen=True)
class _WholeTableK(KAnonymity):
    """Checked on the whole candidate table, never locally."""


def _whole_table(model):
    if type(model) is LKCPrivacy:
        return _WholeTableLKC(L=model.L, K=model.K, C=model.C, sensitive=model.sensitive, values=model.values)
    if type(model) is KAnonymity:
        return _WholeTableK(k=model.k)
    return model


def _level_of(h: Hierarchy, leaf: int, value: str) -> int | None:
    for level in range(h.n_levels):
        if h.labels[level][h.maps[level][leaf]] == value:
            return level
    return None


@settings(max_examples=120, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data(), score=st.sampled_from(SCORES))
def test_output_satisfies_models_and_no_valid_specialization_remains(data, score):
    dataset = data.draw(tables())
    models = data.draw(requirements(dataset))
    try:
        result = top_down_specialization(dataset, models, label="y", score=score)
    except InfeasibleError:
        # then the fully generalized table (one class) really fails a model
        base = ClassTable.from_dataset(dataset, sensitive=["s", "y"])
        top = base.generalize(tuple(h.height for h in base.hierarchies))
        assert not all(m.check(top) for m in models)
        return
    except ParameterError as exc:  # l above the distinct sensitive values: refused up front
        assert "cannot be met" in str(exc)
        return
    out = result.data
    # no row lost or moved; non-QI columns untouched
    assert len(out) == dataset.n_records
    for name in ("s", "y"):
        assert out[name].tolist() == dataset.frame[name].tolist()
    # re-checked from the released rows
    verify(out, dataset, models, label="y")
    # every released value is the original value or one of its ancestors
    for name in dataset.quasi_identifiers:
        h = dataset.hierarchies[name]
        leaves = h.leaf_index(dataset.frame[name].to_numpy())
        for leaf, value in zip(leaves, out[name]):
            assert _level_of(h, int(leaf), value) is not None, (name, value)
    # anti-monotone stop: every value of the final cut that has children cannot be specialized
    for name in dataset.quasi_identifiers:
        h = dataset.hierarchies[name]
        leaves = h.leaf_index(dataset.frame[name].to_numpy())
        released = out[name].to_numpy(dtype=object)
        for value in pd.unique(released):
            rows = released == value
            level = _level_of(h, int(leaves[rows][0]), value)  # labels are unique across levels here
            if level == 0:
                continue
            children = h.labels[level - 1][h.maps[level - 1][leaves[rows]]]
            # a value whose records share one child would have been specialized (it splits no class)
            assert len(set(children)) >= 2, (name, value)
            specialized = out.copy()
            column = specialized[name].to_numpy(dtype=object).copy()
            column[rows] = children
            specialized[name] = column
            with pytest.raises(VerificationError):
                verify(specialized, dataset, models, label="y")


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data())
def test_local_checks_agree_with_whole_table_checks(data):
    dataset = data.draw(tables())
    models = data.draw(requirements(dataset))
    try:
        local = top_down_specialization(dataset, models, label="y")
    except (InfeasibleError, ParameterError) as exc:
        with pytest.raises(type(exc)):
            top_down_specialization(dataset, [_whole_table(m) for m in models], label="y")
        return
    whole = top_down_specialization(dataset, [_whole_table(m) for m in models], label="y")
    assert local.data.equals(whole.data)
    assert local.details["trace"] == whole.details["trace"]


@st.composite
def tables_with_ages(draw) -> Dataset:
    """A numeric ``age`` QI without a taxonomy (grown at runtime) beside 0-2 taxonomy QIs."""
    n = draw(st.integers(min_value=2, max_value=30))
    frame, hierarchies = {"age": [str(a) for a in draw(st.lists(st.integers(0, 40), min_size=n, max_size=n))]}, {}
    for q in range(draw(st.integers(min_value=0, max_value=2))):
        name = f"q{q}"
        values, hierarchy = draw(taxonomies(name))
        hierarchies[name] = hierarchy
        frame[name] = draw(st.lists(st.sampled_from(values), min_size=n, max_size=n))
    frame["s"] = draw(st.lists(st.sampled_from(SENSITIVE), min_size=n, max_size=n))
    frame["y"] = draw(st.lists(st.sampled_from(["0", "1", "2"]), min_size=n, max_size=n))
    return Dataset.from_pandas(
        pd.DataFrame(frame), quasi_identifiers=["age", *hierarchies], sensitive=["s"], insensitive=["y"],
        kinds={"age": "numeric"}, hierarchies=hierarchies,
    )


@settings(max_examples=100, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data())
def test_runtime_intervals_hold_their_values_and_cannot_be_split_further(data):
    dataset = data.draw(tables_with_ages())
    models = data.draw(requirements(dataset))
    try:
        result = top_down_specialization(dataset, models, label="y", intervals={"age": (0, 50)})
    except (InfeasibleError, ParameterError):
        return
    out = result.data
    verify(out, dataset, models, label="y")
    ages = dataset.frame["age"].astype(int).to_numpy()
    released = out["age"].to_numpy(dtype=object)
    for value in pd.unique(released):
        low, high = (float(x) for x in value[1:-1].split("-"))
        rows = released == value
        assert ((low <= ages[rows]) & (ages[rows] < high)).all(), value
        # anti-monotone stop: splitting the interval between any two of its values breaks a model
        inside = sorted(set(ages[rows]))
        for left_max in inside[:-1]:
            specialized = out.copy()
            column = released.copy()
            column[rows & (ages <= left_max)] = value + "L"
            specialized["age"] = column
            with pytest.raises(VerificationError):
                verify(specialized, dataset, models, label="y")
