"""The class table's grouping by value codes equals the general path: the leaf-code matrix grouped by
:func:`veil.classes.group_codes` (classes, their order, sizes and each row's class)."""

import numpy as np
import pandas as pd
from hypothesis import given, settings
from hypothesis import strategies as st

from veil.classes import ClassTable, group_codes
from veil.dataset import Dataset
from veil.hierarchy import Hierarchy

VALUES = ["a", "b", "c", "d", "e", "f"]


def reference(table: ClassTable, frame: pd.DataFrame, keep: np.ndarray):
    """Each kept row's leaf codes, grouped the general way (one matrix of leaf codes)."""
    columns = [h.leaf_index(frame[name].to_numpy(dtype=object)[keep]) for name, h in
               zip(table.quasi_identifiers, table.hierarchies)]
    matrix = np.column_stack(columns).astype(np.int32)
    return group_codes(matrix, [h.n_values(0) for h in table.hierarchies])


@settings(max_examples=60, deadline=None)
@given(
    n=st.integers(1, 60), q=st.integers(1, 3), seed=st.integers(0, 2**16),
    hierarchies=st.booleans(), suppress=st.booleans(), wide=st.booleans(),
)
def test_build_groups_as_the_leaf_code_matrix_does(n, q, seed, hierarchies, suppress, wide):
    rng = np.random.default_rng(seed)
    names = [f"q{i}" for i in range(q)]
    frame = pd.DataFrame({name: rng.choice(VALUES[: rng.integers(1, 7)], size=n) for name in names})
    given_h = {}
    if hierarchies:  # leaves in a shuffled order (not the encoding's sorted one), extra leaves unused
        for name in names:
            leaves = list(rng.permutation(VALUES + (["x%d" % i for i in range(40)] if wide else [])))
            given_h[name] = Hierarchy.from_rows([[v, "*"] for v in leaves], name=name)
    dataset = Dataset.from_pandas(frame, quasi_identifiers=names, hierarchies=given_h)
    star = rng.random(n) < 0.3 if suppress else None
    if star is not None:
        star[0] = False  # a class at least
    table = ClassTable.from_dataset(dataset, suppressed_rows=star)
    keep = np.ones(n, dtype=bool) if star is None else ~star
    codes, inverse = reference(table, frame, keep)
    np.testing.assert_array_equal(table.codes, codes)
    np.testing.assert_array_equal(table.row_classes()[keep], inverse)
    np.testing.assert_array_equal(table.counts, np.bincount(inverse, minlength=len(codes)))


def test_sparse_keys_keep_the_first_row_order():
    # 3 QIs of 40 leaves over 20 rows: a sparse key space (hashed), classes in first-row order, although
    # the rows' 5 values per QI span a dense one
    rng = np.random.default_rng(3)
    values = [f"v{i:02d}" for i in range(40)]
    frame = pd.DataFrame({f"q{i}": rng.choice(values[:5], size=20) for i in range(3)})
    given_h = {name: Hierarchy.from_rows([[v, "*"] for v in rng.permutation(values)], name=name) for name in frame}
    table = ClassTable.from_dataset(Dataset.from_pandas(frame, quasi_identifiers=list(frame), hierarchies=given_h))
    codes, inverse = reference(table, frame, np.ones(20, dtype=bool))
    np.testing.assert_array_equal(table.codes, codes)
    np.testing.assert_array_equal(table.row_classes(), inverse)
