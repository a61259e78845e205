"""The KL divergence's covering classes read from ``ClassTable.base_map`` equal those found by box (hypothesis).

``kl_divergence`` needs, for each class of the original (base) table, the retained class whose box
covers it.  For a table derived from the base itself it starts from the table's ``base_map`` (the
class holding each base class's records) and looks up by box only the base classes whose records
were suppressed; for any other original it maps every base class to its box and looks the box up.
These tests derive random tables (roll-ups, suppressions, roll-ups of suppressed tables,
projections) and check that both ways give the same classes, and that the value equals the
formula computed the plain way (boxes found one by one in Python, no fast path), to the bit.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from veil.classes import ClassTable
from veil.utility import kl_divergence
from veil.utility._kl import _boxes_cover, _cover
from zip_age_sex import AGE, HEIGHTS, HIERARCHIES_WITH_UNUSED, QIS, ZIP_WITH_UNUSED

ZIP, HIERARCHIES = ZIP_WITH_UNUSED, HIERARCHIES_WITH_UNUSED

rows = st.tuples(
    st.sampled_from(list(ZIP.leaves)[:6]), st.sampled_from(list(AGE.leaves)), st.sampled_from(["F", "M"]),
    st.sampled_from(["a", "b", "c"]),
)
frames = st.lists(rows, min_size=1, max_size=40).map(lambda r: pd.DataFrame(r, columns=QIS + ["y"]))
nodes = st.tuples(*(st.integers(0, h) for h in HEIGHTS))
SETTINGS = settings(max_examples=80, deadline=None, suppress_health_check=[HealthCheck.too_slow])


def build(frame: pd.DataFrame) -> ClassTable:
    return ClassTable.from_pandas(frame, quasi_identifiers=QIS, sensitive=["y"], hierarchies=HIERARCHIES)


def suppress_some(table: ClassTable, data: st.DataObject) -> ClassTable:
    mask = data.draw(st.lists(st.booleans(), min_size=table.n_classes, max_size=table.n_classes), label="mask")
    return table.suppress(np.array(mask, dtype=np.bool_))


def derive(base: ClassTable, data: st.DataObject) -> tuple[ClassTable, bool]:
    """A random table derived from ``base`` (generalized, suppressed, maybe rolled up and suppressed
    again), and whether no record was suppressed before the last roll-up."""
    table = suppress_some(base.generalize(data.draw(nodes, label="node")), data)
    suppression_last = True
    if table.n_classes and data.draw(st.booleans(), label="roll up"):  # (a table with no class cannot)
        coarser = data.draw(st.tuples(*(st.integers(level, h) for level, h in zip(table.levels, HEIGHTS))))
        suppression_last = table.suppressed == table.input_suppressed or coarser == table.levels
        table = table.generalize(coarser)
        if data.draw(st.booleans(), label="suppress again"):
            table = suppress_some(table, data)
    return table, suppression_last


def plain_kl(base: ClassTable, table: ClassTable, sensitive: str | None) -> float:
    """The formula with every box looked up in a dict: no base map, no fast path."""
    boxes = {tuple(codes): c for c, codes in enumerate(table.codes.tolist())}
    maps = [h.maps[level] for h, level in zip(table.hierarchies, table.levels)]
    cover = np.array([boxes.get(tuple(int(m[code]) for m, code in zip(maps, codes)), -1)
                      for codes in base.codes.tolist()], dtype=np.int64)
    volume = np.ones(table.n_classes)
    for i, (h, level) in enumerate(zip(table.hierarchies, table.levels)):
        volume *= h.leaf_counts(level)[table.codes[:, i]]
    domain = float(np.prod([h.n_values(0) for h in table.hierarchies]))
    n = base.n_retained
    if sensitive is None:
        f1 = base.counts.astype(np.float64)[:, None]
        density = (table.counts / volume)[:, None]
        spread = np.array([float(n - table.n_retained)])
    else:
        f1 = base.sensitive[sensitive].counts.astype(np.float64)
        mass = table.sensitive[sensitive].counts
        density = mass / volume[:, None]
        spread = f1.sum(axis=0) - mass.sum(axis=0)
    f2 = np.maximum(spread, 0.0)[None, :] / domain + np.where(
        (cover >= 0)[:, None], density[np.maximum(cover, 0)] if len(density) else 0.0, 0.0
    )
    positive = f1 > 0
    return max(float((f1[positive] * np.log2(f1[positive] / f2[positive])).sum()) / n, 0.0)


@SETTINGS
@given(frames, st.data())
def test_base_map_is_the_class_of_each_base_class(frame, data):
    """``base_map`` sends each base class to the class holding its records, -1 when suppressed."""
    base = build(frame)
    table, _ = derive(base, data)
    base_map = table.base_map
    assert base_map.shape == (base.n_classes,) and base_map.dtype == np.int64
    kept = base_map >= 0
    assert np.array_equal(np.bincount(base_map[kept], weights=base.counts[kept], minlength=table.n_classes),
                          table.counts)
    assert int(base.counts[~kept].sum()) == table.suppressed - table.input_suppressed
    # a base class's leaves generalize to the codes of the class holding it
    for i, (h, level) in enumerate(zip(table.hierarchies, table.levels)):
        assert np.array_equal(h.maps[level][base.codes[kept, i]], table.codes[base_map[kept], i])


@SETTINGS
@given(frames, st.data())
def test_cover_from_the_base_map_equals_the_cover_by_box(frame, data):
    base = build(frame)
    table, suppression_last = derive(base, data)
    by_box = _boxes_cover(base, table)
    assert np.array_equal(_cover(base, table), by_box)
    if suppression_last:  # the normal case: the base map alone is the cover
        assert np.array_equal(table.base_map, by_box)


@SETTINGS
@given(frames, st.data(), st.sampled_from([None, "y"]))
def test_kl_equals_the_plain_formula_to_the_bit(frame, data, sensitive):
    base = build(frame)
    table, _ = derive(base, data)
    expected = plain_kl(base, table, sensitive)
    assert kl_divergence(None, table, sensitive=sensitive) == expected
    assert kl_divergence(base, table, sensitive=sensitive) == expected
    # another original with the same classes (not the table's base): the boxes are looked up
    assert kl_divergence(build(frame), table, sensitive=sensitive) == expected


@SETTINGS
@given(frames, st.data(), st.sampled_from([None, "y"]))
def test_kl_of_a_projection_equals_the_plain_formula(frame, data, sensitive):
    base = build(frame)
    table, _ = derive(base, data)
    names = data.draw(st.lists(st.sampled_from(QIS), min_size=1, max_size=3, unique=True), label="projection")
    if table.n_classes == 0:
        return
    projected = table.project(names)
    # the original kl_divergence compares with: the base itself when the QIs are its own, in its order
    original = base if names == QIS else base.project(names)
    assert kl_divergence(None, projected, sensitive=sensitive) == plain_kl(original, projected, sensitive)
