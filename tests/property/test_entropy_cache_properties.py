"""Non-uniform entropy with its leaf counts counted once per base table equals the plain formula (hypothesis).

``non_uniform_entropy`` counts a QI's leaves only when it needs them and keeps them (and their
sum of :math:`f \\log_2 f`) for the base table's later calls.  These tests compare it, to the bit,
with the formula computed the plain way on random derived tables (every leaf counted at every
call, masked :math:`x \\log_2 x`), on the first call and on later ones, and check that records
suppressed by a table change no other table's counts.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from veil.classes import ClassTable
from veil.utility import non_uniform_entropy
from zip_age_sex import AGE, HEIGHTS, HIERARCHIES_WITH_UNUSED, QIS, ZIP_WITH_UNUSED

ZIP, HIERARCHIES = ZIP_WITH_UNUSED, HIERARCHIES_WITH_UNUSED

rows = st.tuples(st.sampled_from(list(ZIP.leaves)[:6]), st.sampled_from(list(AGE.leaves)), st.sampled_from(["F", "M"]))
frames = st.lists(rows, min_size=1, max_size=40).map(lambda r: pd.DataFrame(r, columns=QIS))
nodes = st.tuples(*(st.integers(0, h) for h in HEIGHTS))
SETTINGS = settings(max_examples=80, deadline=None, suppress_health_check=[HealthCheck.too_slow])


def build(frame: pd.DataFrame) -> ClassTable:
    return ClassTable.from_pandas(frame, quasi_identifiers=QIS, hierarchies=HIERARCHIES)


def suppressed(table: ClassTable, data: st.DataObject) -> ClassTable:
    mask = data.draw(st.lists(st.booleans(), min_size=table.n_classes, max_size=table.n_classes), label="mask")
    return table.suppress(np.array(mask, dtype=np.bool_))


def xlog2x(x: np.ndarray) -> np.ndarray:
    out = np.zeros_like(x)
    positive = x > 0
    out[positive] = x[positive] * np.log2(x[positive])
    return out


def plain_entropy(table: ClassTable, normalized: bool) -> float:
    """Every QI's leaves counted from the base's classes, every term as the definition has it."""
    base = table.base
    weights = base.counts.astype(np.float64)
    costs, tops = [], []
    for i, (name, h, level) in enumerate(zip(table.quasi_identifiers, table.hierarchies, table.levels)):
        f = np.bincount(base.codes[:, base.quasi_identifiers.index(name)], weights=weights, minlength=h.n_values(0))
        grouped = np.bincount(h.maps[level], weights=f, minlength=h.n_values(level))
        with np.errstate(divide="ignore"):
            log_grouped = np.log2(np.where(grouped > 0, grouped, 1.0))
        cost = float(np.dot(f, log_grouped[h.maps[level]]) - xlog2x(f).sum()) if level else 0.0
        tops.append(float(xlog2x(np.array([f.sum()]))[0] - xlog2x(f).sum()))
        known = table.n_records - table.input_suppressed
        if table.suppressed > table.input_suppressed:
            retained = np.bincount(table.codes[:, i], weights=table.counts, minlength=h.n_values(level))
            lost = np.maximum(grouped - retained, 0.0)
            cost += float(np.dot(lost, np.log2(known) - log_grouped)) if known else 0.0
        costs.append(cost)
    total, top = max(sum(costs), 0.0), sum(tops)  # sum(), as the library adds the QIs' terms
    if not normalized:
        return total
    return total / top if top > 0 else 0.0


@SETTINGS
@given(frames, nodes, st.data())
def test_entropy_equals_the_plain_formula_on_first_and_later_calls(frame, node, data):
    base = build(frame)
    tables = [suppressed(base.generalize(node), data) for _ in range(2)]
    if tables[0].n_classes:  # a coarser table from the first: the same leaf counts serve
        coarser = data.draw(st.tuples(*(st.integers(level, h) for level, h in zip(tables[0].levels, HEIGHTS))))
        tables.append(tables[0].generalize(coarser))
    names = data.draw(st.lists(st.sampled_from(QIS), min_size=1, max_size=3, unique=True), label="projection")
    tables.append(base.generalize(node).project(names))
    for normalized in (False, True):
        for table in tables:  # the first call counts the leaves it needs, the later ones read them
            expected = plain_entropy(table, normalized)
            assert non_uniform_entropy(table, normalized=normalized) == expected
            assert non_uniform_entropy(table, normalized=normalized) == expected
