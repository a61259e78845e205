"""Property tests of Mondrian (veil.algorithms.mondrian).

For random small tables (numeric QIs and categorical QIs with random monotone
hierarchies), random k, optional sensitive models, strict or relaxed: the
released table satisfies every model when re-checked from its rows
(``verify``), no row is lost or moved, every released label contains the
record's original value, and strict Mondrian does not depend on row order.
"""

from __future__ import annotations

import re

import numpy as np
import pandas as pd
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from veil.algorithms.mondrian import mondrian
from veil.anonymization import verify
from veil.classes import ClassTable
from veil.dataset import Dataset
from veil.errors import InfeasibleError, ParameterError
from veil.hierarchy import Hierarchy
from veil.models import (
    DistinctLDiversity, EntropyLDiversity, EqualDistanceTCloseness, KAnonymity, RecursiveCLDiversity,
)

RANGE = re.compile(r"^\[(.+?)-(.+)\]$")


@st.composite
def tables(draw):
    """4-60 records: 1-2 numeric QIs, 1-2 categorical QIs with random hierarchies, sensitive ``s``."""
    n = draw(st.integers(min_value=4, max_value=60))
    columns: dict[str, list[str]] = {"row": [str(i) for i in range(n)]}
    hierarchies, kinds, qis = {}, {}, []
    for q in range(draw(st.integers(min_value=1, max_value=2))):
        name = f"n{q}"
        high = draw(st.integers(min_value=0, max_value=30))
        columns[name] = [str(v) for v in draw(st.lists(st.integers(0, high), min_size=n, max_size=n))]
        kinds[name] = "numeric"
        qis.append(name)
    for q in range(draw(st.integers(min_value=1, max_value=2))):
        n_values = draw(st.integers(min_value=1, max_value=7))
        values = [f"v{i}" for i in range(n_values)]
        groups = list(range(n_values))
        levels = [values]
        for d in range(draw(st.integers(min_value=0, max_value=2))):
            fan = draw(st.integers(min_value=2, max_value=3))
            groups = [g // fan for g in groups]
            levels.append([f"L{d + 1}_{g}" for g in groups])
        name = f"c{q}"
        rows = [[level[i] for level in levels] + ["*"] for i in range(n_values)]
        hierarchies[name] = Hierarchy.from_rows(rows, name=name)
        columns[name] = draw(st.lists(st.sampled_from(values), min_size=n, max_size=n))
        qis.append(name)
    columns["s"] = draw(st.lists(st.sampled_from(["a", "b", "c"]), min_size=n, max_size=n))
    order = draw(st.permutations(qis))
    return Dataset.from_pandas(
        pd.DataFrame(columns), quasi_identifiers=list(order), sensitive=["s"], insensitive=["row"],
        kinds=kinds, hierarchies=hierarchies,
    )


@st.composite
def model_sets(draw):
    models = [KAnonymity(k=draw(st.integers(min_value=1, max_value=6)))]
    extra = draw(st.sampled_from(["none", "distinct", "entropy", "recursive", "t"]))
    if extra == "distinct":
        models.append(DistinctLDiversity(sensitive="s", l=draw(st.integers(1, 2))))
    elif extra == "entropy":
        models.append(EntropyLDiversity(sensitive="s", l=draw(st.sampled_from([1.0, 1.5]))))
    elif extra == "recursive":
        models.append(RecursiveCLDiversity(sensitive="s", c=draw(st.sampled_from([2.0, 3.0])), l=2))
    elif extra == "t":
        models.append(EqualDistanceTCloseness(sensitive="s", t=draw(st.sampled_from([0.2, 0.4]))))
    return models


def _covers(dataset: Dataset, released: pd.DataFrame) -> None:
    for name in dataset.quasi_identifiers:
        pairs = pd.DataFrame({"v": dataset.frame[name], "l": released[name]}).drop_duplicates()
        if dataset.schema.kind(name).value == "numeric":
            for value, label in pairs.itertuples(index=False, name=None):
                if label == "*":  # a suppressed record
                    continue
                match = RANGE.match(label)
                low, high = (match.group(1), match.group(2)) if match else (label, label)
                assert float(low) <= float(value) <= float(high), (name, value, label)
        else:
            frame = dataset.hierarchies[name].to_frame()
            ancestors = {row[0]: set(row) for row in frame.itertuples(index=False, name=None)}
            for value, label in pairs.itertuples(index=False, name=None):
                assert label in ancestors[value], (name, value, label)


def _root_fails(dataset: Dataset, models) -> bool:
    """Whether the whole table, as one class, fails a model."""
    classes = ClassTable.from_dataset(dataset)
    top = classes.generalize([h.height for h in classes.hierarchies])
    return not all(m.check(top) for m in models)


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(dataset=tables(), models=model_sets(), strict=st.booleans(), seed=st.sampled_from([None, 0, 11]),
       limit=st.sampled_from([0.0, 0.3, 1.0]))
def test_release_satisfies_the_models_and_keeps_every_row(dataset, models, strict, seed, limit):
    try:
        result = mondrian(dataset, models, strict=strict, seed=seed, suppression_limit=limit)
    except ParameterError:
        assume(False)  # l above the number of distinct sensitive values: no table can meet it
    except InfeasibleError:
        assert _root_fails(dataset, models)
        return
    data = result.data
    assert len(data) == dataset.n_records and list(data.columns) == dataset.columns
    assert data["row"].tolist() == dataset.frame["row"].tolist()
    assert data["s"].tolist() == dataset.frame["s"].tolist()
    # suppressed records carry "*" in every QI, within the limit, and only when the whole table fails
    star = np.all([data[q].to_numpy() == "*" for q in dataset.quasi_identifiers], axis=0)
    assert int(star.sum()) == result.suppressed <= np.floor(limit * dataset.n_records + 1e-9)
    assert result.suppressed == 0 or _root_fails(dataset, models)
    classes = verify(data, dataset, models, suppressed="drop")  # the partitions: suppressed records left out
    k = models[0].k
    assert classes.counts.min() >= k and result.details["smallest_partition"] >= k
    assert classes.counts.sum() == dataset.n_records - result.suppressed
    assert result.details["released_classes"] == classes.n_classes <= result.groups
    assert 0.0 <= result.details["ncp"] <= 1.0
    _covers(dataset, data)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(dataset=tables(), k=st.integers(min_value=1, max_value=5), data=st.data())
def test_strict_release_does_not_depend_on_row_order(dataset, k, data):
    try:
        base = mondrian(dataset, [KAnonymity(k=k)])
    except InfeasibleError:
        assume(False)
    order = np.array(data.draw(st.permutations(range(dataset.n_records))))
    permuted = Dataset.from_pandas(
        dataset.frame.iloc[order].reset_index(drop=True), quasi_identifiers=dataset.quasi_identifiers,
        sensitive=["s"], insensitive=["row"],
        kinds={q: "numeric" for q in dataset.quasi_identifiers if q.startswith("n")},
        hierarchies=dataset.hierarchies,
    )
    again = mondrian(permuted, [KAnonymity(k=k)])
    assert again.data.equals(base.data.iloc[order].reset_index(drop=True))
