"""Dataset.encode_all: the codes of encode, columns encoded side by side, errors in column order."""

import multiprocessing
import sys

import numpy as np
import pandas as pd
import pytest

from veil import Dataset
from veil.data._pool import PARALLEL_ROWS
from veil.errors import SchemaError


def _frame(n: int) -> pd.DataFrame:
    rng = np.random.default_rng(5)
    return pd.DataFrame({
        "city": rng.choice(["Oslo", "Bergen", "Tromsø", "Bodø"], n),
        "age": rng.integers(17, 90, n).astype(str),
        "job": rng.choice([f"job {i}" for i in range(40)], n),
    })


def _codes(dataset: Dataset, columns) -> list[tuple[list[int], list[str]]]:
    return [(e.codes.tolist(), [str(v) for v in e.labels]) for e in dataset.encode_all(columns)]


def test_side_by_side_gives_the_codes_of_one_column_after_another():
    frame = _frame(PARALLEL_ROWS + 100)
    kinds = {"age": "numeric"}
    together = Dataset.from_pandas(frame, quasi_identifiers=["city", "age", "job"], kinds=kinds)
    alone = Dataset.from_pandas(frame, quasi_identifiers=["city", "age", "job"], kinds=kinds)
    expected = [(alone.encode(c).codes.tolist(), [str(v) for v in alone.encode(c).labels]) for c in frame.columns]
    assert _codes(together, list(frame.columns)) == expected
    assert _codes(together, ["job", "city", "job"]) == [expected[2], expected[0], expected[2]]  # cached, in order


def test_the_first_failing_column_in_order_raises():
    frame = _frame(PARALLEL_ROWS + 100)
    frame.loc[7, "age"] = "old"
    frame["size"] = frame["age"]
    dataset = Dataset.from_pandas(frame, quasi_identifiers=["city", "size", "age"], kinds={"age": "numeric",
                                                                                          "size": "numeric"})
    with pytest.raises(SchemaError, match="'size'"):
        dataset.encode_all(["city", "size", "age"])


def _child(queue) -> None:
    dataset = Dataset.from_pandas(_frame(PARALLEL_ROWS + 100), quasi_identifiers=["city", "age", "job"])
    queue.put(_codes(dataset, ["city", "age", "job"]))


@pytest.mark.skipif(sys.platform == "win32", reason="fork is POSIX")
def test_a_forked_child_encodes_on_a_pool_of_its_own():
    # the parent's pool threads do not exist in a child made by fork: a pool copied as it
    # is would queue the child's work forever
    Dataset.from_pandas(_frame(PARALLEL_ROWS + 100), quasi_identifiers=["city", "age"]).encode_all(["city", "age"])
    context = multiprocessing.get_context("fork")
    queue = context.Queue()
    child = context.Process(target=_child, args=(queue,))
    child.start()
    got = queue.get(timeout=60)
    child.join(timeout=60)
    assert child.exitcode == 0
    expected = Dataset.from_pandas(_frame(PARALLEL_ROWS + 100), quasi_identifiers=["city", "age", "job"])
    assert got == _codes(expected, ["city", "age", "job"])


def test_side_by_side_shares_the_jobs_and_raises_the_first_failing_in_order(monkeypatch):
    import os

    from veil.data._pool import side_by_side

    monkeypatch.setattr(os, "cpu_count", lambda: 2)  # the calling thread and one pool thread

    threads: dict[int, str] = {}

    def job(i: int):
        def run():
            import threading
            import time

            threads[i] = threading.current_thread().name
            time.sleep(0.02)  # a job long enough for the pool thread to take the next one
            if i in (3, 4):
                raise ValueError(f"job {i}")
            return i * i
        return run

    assert side_by_side({i: job(i) for i in range(6) if i not in (3, 4)}, PARALLEL_ROWS) == {0: 0, 1: 1, 2: 4, 5: 25}
    assert len(set(threads.values())) == 2  # the calling thread and a pool thread each ran a share
    with pytest.raises(ValueError, match="job 3"):  # 3 and 4 both fail, whichever thread ran them: 3 comes first
        side_by_side({i: job(i) for i in range(6)}, PARALLEL_ROWS)
    threads.clear()
    assert side_by_side({i: job(i) for i in (0, 1)}, PARALLEL_ROWS - 1) == {0: 0, 1: 1}
    assert set(threads.values()) == {"MainThread"}  # below the threshold: one after another, here


def test_text_columns_go_side_by_side_from_fewer_rows_than_gathers(monkeypatch):
    import os

    import veil.data._pool as pool_module

    monkeypatch.setattr(os, "cpu_count", lambda: 2)  # two cores, as CI has (one core: no pool at all)
    from veil.data._pool import HASHED_PARALLEL_ROWS

    assert HASHED_PARALLEL_ROWS < PARALLEL_ROWS
    frame = _frame(HASHED_PARALLEL_ROWS + 100)
    pools = []
    pool = pool_module.column_pool
    monkeypatch.setattr(pool_module, "column_pool", lambda: pools.append(1) or pool())
    together = Dataset.from_pandas(frame, quasi_identifiers=["city", "age", "job"])
    alone = Dataset.from_pandas(frame, quasi_identifiers=["city", "age", "job"])
    expected = [(alone.encode(c).codes.tolist(), [str(v) for v in alone.encode(c).labels]) for c in frame.columns]
    assert not pools  # one column at a time: no pool
    assert _codes(together, list(frame.columns)) == expected
    assert pools  # three text columns: side by side
