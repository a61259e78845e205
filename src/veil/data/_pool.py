"""Per-column jobs side by side: the thread pool that encodes and gathers long columns.

Arrow's kernels (``index_in``, ``dictionary_encode``, ``take``) and numpy's gathers release
the GIL, so on two cores two columns are encoded in about the time of one.  The calling
thread takes jobs itself (one hand-off per extra core, not one per job).
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Mapping
from typing import Any

__all__ = ["PARALLEL_ROWS", "HASHED_PARALLEL_ROWS", "column_pool", "side_by_side"]

_NONE_LEFT = object()  # what the shared job iterator gives once every job is taken

#: From this many rows on, columns are gathered (a release's) side by side.  Measured on 2
#: cores: no gain at 60k and 120k rows, where the thread hand-offs cost what the second core
#: saves, and 15% at 300k rows.
PARALLEL_ROWS = 200_000
#: From this many rows on, text columns (hashed to codes) are encoded side by side: Adult's 8 QIs
#: (30k rows) encode in 3.9-4.0 ms in two shares against 4.1-4.8 ms one after another (2 cores,
#: 2026-11-27).  Columns that are categorical already are read, not hashed: they go by
#: :data:`PARALLEL_ROWS`.
HASHED_PARALLEL_ROWS = 20_000

_POOL: "tuple[int, Any] | None" = None  # (pid, executor): a forked child makes its own


def column_pool() -> "Any":
    """The thread pool that works on columns side by side (one per process, at most 3 threads,
    which work beside the calling thread).

    Arrow's kernels (``index_in``, ``dictionary_encode``, ``take``) release the GIL, so
    on two cores two long columns are encoded or gathered in about the time of one.  A child made by ``fork``
    gets a pool of its own (the parent's threads do not exist there).
    """
    global _POOL
    import os
    from concurrent.futures import ThreadPoolExecutor

    if _POOL is None or _POOL[0] != os.getpid():
        _POOL = (os.getpid(), ThreadPoolExecutor(max_workers=max(1, _workers()), thread_name_prefix="veil-columns"))
    return _POOL[1]


def _workers() -> int:
    """The pool's threads: one per core beside the calling thread's, at most 3 (0 on one core)."""
    import os

    return max(0, min(3, (os.cpu_count() or 1) - 1))


def side_by_side(jobs: "Mapping[Any, Callable[[], Any]]", rows: int, *, hashing: bool = False) -> dict[Any, Any]:
    """Each job's result by its key: side by side when there are several jobs and ``rows``
    reaches :data:`PARALLEL_ROWS` (:data:`HASHED_PARALLEL_ROWS` for jobs ``hashing`` text),
    else one after another.

    Side by side, the calling thread and :func:`column_pool`'s threads each take the next job
    in the mapping's order until none is left, so a long column does not hold up the others.
    Either way an error is the first failing job's in the mapping's order.
    """
    if len(jobs) < 2 or rows < (HASHED_PARALLEL_ROWS if hashing else PARALLEL_ROWS) or not _workers():
        return {key: job() for key, job in jobs.items()}
    keys = list(jobs)
    pending = iter(keys)
    lock = threading.Lock()
    outcomes: dict[Any, tuple[bool, Any]] = {}

    def run() -> None:
        while True:
            with lock:
                key = next(pending, _NONE_LEFT)
            if key is _NONE_LEFT:
                return
            try:
                outcomes[key] = (True, jobs[key]())
            except BaseException as error:  # re-raised below, in the jobs' order
                outcomes[key] = (False, error)

    futures = [column_pool().submit(run) for _ in range(min(len(keys) - 1, _workers()))]
    run()
    for future in futures:
        future.result()
    for key in keys:
        ok, value = outcomes[key]
        if not ok:
            raise value
    return {key: outcomes[key][1] for key in keys}
