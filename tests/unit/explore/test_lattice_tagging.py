"""The lattice view settles monotone models by predictive tagging: the same statuses as judging every node."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
from hypothesis import given, settings
from hypothesis import strategies as st

from veil.classes import ClassTable
from veil.dataset import Dataset
from veil.explore import FAILING, PRUNED, SATISFYING, lattice_view
from veil.hierarchy import resolve
from veil.models import DistinctLDiversity, EqualDistanceTCloseness, KAnonymity


def _judge_every_node(dataset, models, limit_share):
    """Each node judged on its own (the rule of the full-domain search), by brute force."""
    base = ClassTable.from_dataset(dataset)
    heights = [h.height for h in base.hierarchies]
    limit = math.floor(limit_share * base.n_records + 1e-9)
    nodes = np.stack([g.ravel() for g in np.meshgrid(*[np.arange(h + 1) for h in heights], indexing="ij")], axis=1)
    out = {}
    for node in nodes:
        table = base.generalize(tuple(int(x) for x in node))
        mask = np.zeros(table.n_classes, dtype=bool)
        for model in models:
            mask |= np.asarray(model.violating(table), dtype=bool)
        ok = int(table.counts[mask].sum()) <= limit and all(m.check(table.suppress(mask)) for m in models)
        out[tuple(int(x) for x in node)] = ok
    return out


@settings(max_examples=15, deadline=None)
@given(seed=st.integers(0, 10_000), k=st.integers(2, 6), l=st.integers(1, 2), share=st.sampled_from([0.0, 0.05, 0.2]),
       closeness=st.booleans())
def test_tagging_gives_the_statuses_of_judging_every_node(seed, k, l, share, closeness):
    """Monotone models (k, distinct l) are tagged; t-closeness with suppression is not monotone, so each
    node is judged, its class table rolled up along the lattice: both as the brute force says."""
    rng = np.random.default_rng(seed)
    n = 80
    frame = pd.DataFrame({
        "age": rng.integers(18, 80, n).astype(str), "zip": rng.choice(["4767", "4768", "4790", "4791", "4711"], n),
        "edu": rng.choice(["1. low", "2. mid", "3. high", "4. top"], n), "dx": rng.choice(["a", "b", "c"], n),
    })
    data = Dataset.from_pandas(frame, quasi_identifiers=["age", "zip", "edu"], sensitive=["dx"])
    data = data.with_hierarchies(resolve(data, {"age": "interval:5,10,20,40", "zip": "mask:1"}, auto=True).hierarchies)
    models = [KAnonymity(k=k), EqualDistanceTCloseness(sensitive="dx", t=0.3) if closeness
              else DistinctLDiversity(sensitive="dx", l=l)]
    view = lattice_view(data, models, suppression_limit=share)
    truth = _judge_every_node(data, models, share)
    for node, status in zip(view.nodes, view.status):
        node = tuple(int(x) for x in node)
        assert (status != FAILING) == truth[node], node
        below = [node[:j] + (node[j] - 1,) + node[j + 1:] for j in range(len(node)) if node[j] > 0]
        if truth[node]:
            assert status == (PRUNED if any(truth[b] for b in below) else SATISFYING), node
