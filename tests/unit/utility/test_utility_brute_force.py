"""Every metric against a plain per-record computation on small tables, with and without suppression.

The brute force walks the records one by one (with pandas), exactly as the
papers define each metric; the library computes the same numbers from the
class table.  Suppression is applied by class (classes smaller than 2) and
read back per record through ``row_classes``.
"""

from __future__ import annotations

import itertools
import math

import numpy as np
import pandas as pd
import pytest

from veil.classes import ClassTable
from veil.hierarchy import Hierarchy
from veil.utility import (
    classification_metric,
    conditional_entropy,
    discernibility,
    iloss,
    kl_divergence,
    non_uniform_entropy,
    precision,
)

ZIP = Hierarchy.from_rows(
    [
        ["47677", "4767*", "476**", "*"],
        ["47678", "4767*", "476**", "*"],
        ["47602", "4760*", "476**", "*"],
        ["47905", "4790*", "479**", "*"],
        ["47909", "4790*", "479**", "*"],
        ["47906", "4790*", "479**", "*"],
        ["47999", "4799*", "479**", "*"],  # a leaf no record has: counts in |D_A| and volumes
    ]
)
AGE = Hierarchy.from_rows(
    [["22", "<30", "*"], ["27", "<30", "*"], ["29", "<30", "*"], ["43", ">=30", "*"], ["47", ">=30", "*"],
     ["52", ">=30", "*"]]
)
SEX = Hierarchy.flat(["F", "M"])
HIERARCHIES = {"zip": ZIP, "age": AGE, "sex": SEX}

FRAME = pd.DataFrame(
    {
        "zip": ["47677", "47602", "47678", "47905", "47909", "47906", "47677", "47602", "47905", "47906"],
        "age": ["29", "22", "27", "43", "52", "47", "29", "22", "43", "52"],
        "sex": ["F", "F", "M", "M", "F", "M", "F", "M", "M", "F"],
        "y": ["a", "a", "b", "b", "c", "c", "a", "b", "b", "a"],
    }
)
QIS = ["zip", "age", "sex"]


def build(frame: pd.DataFrame = FRAME) -> ClassTable:
    return ClassTable.from_pandas(frame, quasi_identifiers=QIS, sensitive=["y"], hierarchies=HIERARCHIES)


def nodes():
    return list(itertools.product(range(4), range(3), range(2)))


def variants(base: ClassTable, node):
    """The node without suppression and with its classes of one record suppressed."""
    table = base.generalize(node)
    yield table
    small = table.counts < 2
    if small.any():
        yield table.suppress(small)


def generalized_frame(classes: ClassTable, frame: pd.DataFrame):
    """Per record: generalized labels (None when suppressed) and the suppression mask."""
    suppressed = classes.row_classes() < 0
    out = frame.copy()
    for name, level in zip(QIS, classes.levels):
        h = HIERARCHIES[name]
        out[name] = h.labels[level][h.maps[level][h.leaf_index(frame[name].to_numpy())]]
    return out, suppressed


def brute_precision(classes, frame):
    _, suppressed = generalized_frame(classes, frame)
    total = 0.0
    for row in range(len(frame)):
        for name, level in zip(QIS, classes.levels):
            h = HIERARCHIES[name]
            total += 1.0 if suppressed[row] else level / h.height
    return 1 - total / (len(frame) * len(QIS))


def brute_iloss(classes, frame, weights):
    _, suppressed = generalized_frame(classes, frame)
    total = 0.0
    for row in range(len(frame)):
        for name, level, w in zip(QIS, classes.levels, weights):
            h = HIERARCHIES[name]
            leaf = h.leaf_index([frame[name].iloc[row]])[0]
            covered = h.n_values(0) if suppressed[row] else int((h.maps[level] == h.maps[level][leaf]).sum())
            total += w * (covered - 1) / h.n_values(0)
    return total / (len(frame) * len(QIS))


def brute_groups(classes, frame):
    out, suppressed = generalized_frame(classes, frame)
    keys = [tuple(out[q].iloc[r] for q in QIS) for r in range(len(frame))]
    return keys, suppressed


def brute_discernibility(classes, frame):
    keys, suppressed = brute_groups(classes, frame)
    retained = [k for k, s in zip(keys, suppressed) if not s]
    return sum(retained.count(k) if not s else len(frame) for k, s in zip(keys, suppressed))


def brute_classification(classes, frame):
    """Each class predicts one majority label (ties: one of them); a record is wrong if it differs."""
    keys, suppressed = brute_groups(classes, frame)
    penalty = 0
    for row, (key, s) in enumerate(zip(keys, suppressed)):
        if s:
            penalty += 1
            continue
        labels = [frame["y"].iloc[r] for r, (k, t) in enumerate(zip(keys, suppressed)) if k == key and not t]
        predicted = max(sorted(set(labels)), key=labels.count)
        penalty += frame["y"].iloc[row] != predicted
    return penalty / len(frame)


def brute_conditional_entropy(classes, frame):
    keys, suppressed = brute_groups(classes, frame)
    groups: dict = {}
    for row, (key, s) in enumerate(zip(keys, suppressed)):
        groups.setdefault("*" if s else key, []).append(frame["y"].iloc[row])
    total = 0.0
    for labels in groups.values():
        for v in set(labels):
            p = labels.count(v) / len(labels)
            total -= len(labels) * p * math.log2(p)
    return total / len(frame)


def brute_entropy(classes, frame):
    out, suppressed = generalized_frame(classes, frame)
    total = 0.0
    for name, level in zip(QIS, classes.levels):
        h = HIERARCHIES[name]
        for row in range(len(frame)):
            original = frame[name].iloc[row]
            same = (frame[name] == original).sum()
            if suppressed[row]:
                wider = len(frame)
            else:
                wider = (out[name] == out[name].iloc[row]).sum()
            total -= math.log2(same / wider)
    return total


def brute_kl(classes, frame, sensitive):
    """Sum over original combinations x of F1(x) log2(F1(x)/F2(x)), F2 built record by record."""
    out, suppressed = generalized_frame(classes, frame)
    cols = QIS + ([sensitive] if sensitive else [])
    n = len(frame)
    f1 = frame.groupby(cols).size() / n
    domain = math.prod(HIERARCHIES[q].n_values(0) for q in QIS)
    total = 0.0
    for x, p in f1.items():
        x = dict(zip(cols, x if isinstance(x, tuple) else (x,)))
        f2 = 0.0
        for row in range(n):
            if sensitive and frame[sensitive].iloc[row] != x[sensitive]:
                continue
            if suppressed[row]:
                f2 += 1 / (n * domain)
                continue
            volume, inside = 1, True
            for name, level in zip(QIS, classes.levels):
                h = HIERARCHIES[name]
                value = out[name].iloc[row]
                leaves = h.labels[0][h.labels[level][h.maps[level]] == value]
                volume *= len(leaves)
                inside &= x[name] in set(leaves)
            if inside:
                f2 += 1 / (n * volume)
        total += p * math.log2(p / f2)
    return total


@pytest.fixture(scope="module")
def base():
    return build()


@pytest.mark.parametrize("node", nodes())
def test_record_metrics_match_brute_force(base, node):
    for table in variants(base, node):
        assert precision(table) == pytest.approx(brute_precision(table, FRAME), abs=1e-12)
        assert iloss(table) == pytest.approx(brute_iloss(table, FRAME, (1, 1, 1)), abs=1e-12)
        assert iloss(table, weights=(0.5, 2.0, 0.0)) == pytest.approx(
            brute_iloss(table, FRAME, (0.5, 2.0, 0.0)), abs=1e-12
        )
        assert discernibility(table) == brute_discernibility(table, FRAME)
        assert classification_metric(table, "y") == pytest.approx(brute_classification(table, FRAME), abs=1e-12)
        assert conditional_entropy(table, "y") == pytest.approx(brute_conditional_entropy(table, FRAME), abs=1e-12)
        assert non_uniform_entropy(table) == pytest.approx(brute_entropy(table, FRAME), abs=1e-9)


@pytest.mark.parametrize("node", nodes())
def test_kl_matches_brute_force(base, node):
    for table in variants(base, node):
        assert kl_divergence(base, table) == pytest.approx(brute_kl(table, FRAME, None), abs=1e-12)
        assert kl_divergence(base, table, sensitive="y") == pytest.approx(brute_kl(table, FRAME, "y"), abs=1e-12)


def test_suppressed_then_generalized_keeps_the_suppressed_records(base):
    # suppress at a fine node, then roll up: the suppressed records stay out of the classes
    fine = base.generalize((1, 1, 0))
    table = fine.suppress(fine.counts < 2).generalize((2, 1, 1))
    assert table.suppressed > 0
    assert precision(table) == pytest.approx(brute_precision(table, FRAME), abs=1e-12)
    assert discernibility(table) == brute_discernibility(table, FRAME)
    assert non_uniform_entropy(table) == pytest.approx(brute_entropy(table, FRAME), abs=1e-9)
    assert kl_divergence(None, table) == pytest.approx(brute_kl(table, FRAME, None), abs=1e-12)
    assert kl_divergence(None, table, sensitive="y") == pytest.approx(brute_kl(table, FRAME, "y"), abs=1e-12)


def test_projection_uses_its_own_quasi_identifiers(base):
    projected = base.project(["age", "zip"]).generalize((1, 2))
    frame = FRAME
    # brute force on the two QIs: precision 1 - (1/2 + 2/3) / 2
    assert precision(projected) == pytest.approx(1 - (1 / 2 + 2 / 3) / 2)
    # non-uniform entropy of the projection = the sum of the two QIs' terms of the full table
    full = base.generalize((2, 1, 0))
    assert non_uniform_entropy(projected) == pytest.approx(non_uniform_entropy(full))
    assert kl_divergence(None, projected) >= 0
    assert kl_divergence(base, projected) == pytest.approx(kl_divergence(None, projected))
    assert len(frame) == projected.n_records
