"""Columns encoded and released side by side (the column pool) give the release made one by one."""

import numpy as np
import pandas as pd
import pytest

import veil
import veil.data._pool as pool_module
from veil import Dataset
from veil.data import PARALLEL_ROWS
from veil.datasets import ADULT_QUASI_IDENTIFIERS, load_adult
from veil.models import DistinctLDiversity, KAnonymity


@pytest.mark.slow
@pytest.mark.parametrize("mode", ["blank", "drop", "keep"])
def test_the_release_is_the_same_with_and_without_the_pool(mode, monkeypatch):
    adult = load_adult()
    copies = PARALLEL_ROWS // adult.n_records + 2  # past the threshold with 5% dropped too
    frame = pd.concat([adult.frame] * copies, ignore_index=True)
    frame["age"] = (frame["age"].astype(int) + np.random.default_rng(3).integers(-2, 3, len(frame))).clip(17, 90)
    frame["age"] = frame["age"].astype(str)
    models = [KAnonymity(k=5), DistinctLDiversity("salary-class", l=2)]

    def release():
        dataset = Dataset.from_pandas(frame, quasi_identifiers=list(ADULT_QUASI_IDENTIFIERS),
                                      sensitive=["salary-class"], kinds={"age": "numeric"})
        result = veil.anonymize(dataset.with_hierarchies(adult.hierarchies), models, suppression_limit=0.05,
                                seed=11, suppressed=mode)
        return result.data, result.report["suppressed"]

    pools = []
    pool = pool_module.column_pool
    monkeypatch.setattr(pool_module, "column_pool", lambda: pools.append(1) or pool())
    together, suppressed = release()
    assert pools and suppressed > 0  # the pool did the work
    monkeypatch.setattr(pool_module, "PARALLEL_ROWS", 10**12)  # every job one after another
    monkeypatch.setattr(pool_module, "HASHED_PARALLEL_ROWS", 10**12)
    used = len(pools)
    alone, _ = release()
    assert len(pools) == used  # no job went to the pool
    pd.testing.assert_frame_equal(together, alone)
