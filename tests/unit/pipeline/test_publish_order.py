"""The released row order is the seeded permutation of the released rows, as it always was."""

import numpy as np
import pytest

from veil.datasets import load_adult
from veil.classes import ClassTable
from veil.pipeline._memory import publish


@pytest.mark.parametrize("mode", ["blank", "drop", "keep"])
@pytest.mark.parametrize("shuffle", [True, False])
def test_publish_orders_rows_by_the_seeded_permutation(mode, shuffle):
    dataset = load_adult()
    classes = ClassTable.from_dataset(dataset).generalize((1, 1, 1, 1, 1, 1, 1, 1))
    star = np.zeros(dataset.n_records, dtype=bool)
    star[::7] = True
    classes = classes.suppress(np.isin(np.arange(classes.n_classes), classes.row_classes()[star]))
    star = classes.row_classes() < 0
    _, rows = publish(None, star, dataset, mode, list(dataset.quasi_identifiers), shuffle=shuffle, seed=11,
                      classes=classes)
    expected = np.flatnonzero(~star) if mode == "drop" else np.arange(len(star))
    if shuffle:
        expected = expected[np.random.default_rng(11).permutation(len(expected))]
    np.testing.assert_array_equal(rows, expected)
