"""The lattice search's loss bounds, measured against read from the metrics' terms (issue #16).

Run from the repository root::

    PYTHONPATH=src python benchmarks/bench_bounds.py               # Adult
    PYTHONPATH=src python benchmarks/bench_bounds.py --copies 30   # Adult x30, as vs_arx/run.py makes it

The base class table is built once; then ``veil.algorithms._bounds.loss_bounds`` of every node
of the full lattice (6,480 nodes on Adult) runs ``--runs`` times for each metric that declares
its terms (``Metric.terms``), alternately measured (one-attribute generalizations) and from the
terms, after a warm-up; the median ms is printed with the largest difference between the two
bounds.  The warm-up counts each attribute's marginal once (``veil.utility._inputs.leaf_counts``,
kept per base table), as the first search of a run does: the figure "from the terms" is the
bounds alone; the first search also pays for the 8 marginals (about 0.4 ms on Adult), which the
report then reads.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path

import numpy as np


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--copies", type=int, default=1, help="Adult replicated this many times")
    parser.add_argument("--runs", type=int, default=21)
    args = parser.parse_args()

    import pandas as pd

    from veil import Dataset
    from veil.algorithms._bounds import loss_bounds
    from veil.algorithms._nodes import prepare
    from veil.classes import ClassTable
    from veil.datasets import ADULT_QUASI_IDENTIFIERS, adult_path, load_adult
    from veil.models import KAnonymity
    from veil.utility import METRICS

    sys.path.insert(0, str(Path(__file__).resolve().parent / "vs_arx"))
    from run import replicate  # the side-by-side benchmark's Adult xN

    frame = pd.read_csv(adult_path(), sep=";", dtype=str, keep_default_na=False)
    if args.copies > 1:
        frame = replicate(frame, args.copies)
    dataset = Dataset.from_pandas(frame, quasi_identifiers=list(ADULT_QUASI_IDENTIFIERS), sensitive=["salary-class"],
                                  kinds={"age": "numeric"}).with_hierarchies(dict(load_adult().hierarchies))
    classes = ClassTable.from_dataset(dataset)
    lattice = prepare(classes, [KAnonymity(k=5)], None, None)
    print(f"Adult x{args.copies}: {classes.n_records:,} rows, {classes.n_classes:,} base classes, "
          f"{len(lattice.nodes()):,} nodes; median ms of {args.runs} runs")
    print("| metric | measured ms | from the terms ms | largest difference |")
    print("|---|---|---|---|")
    for name, metric in METRICS.items():
        if not metric.has_terms:
            continue
        loss, terms = metric.loss, metric.terms
        measured = loss_bounds(classes, lattice, loss)
        read = loss_bounds(classes, lattice, loss, terms)  # the warm-up: the marginals are counted here
        times: dict[bool, list[float]] = {False: [], True: []}
        for _ in range(args.runs):
            for with_terms in (False, True):
                start = time.perf_counter()
                loss_bounds(classes, lattice, loss, terms if with_terms else None)
                times[with_terms].append(time.perf_counter() - start)
        print(f"| `{name}` | {statistics.median(times[False]) * 1e3:.2f} | {statistics.median(times[True]) * 1e3:.2f} "
              f"| {float(np.abs(measured - read).max()):.1e} |")


if __name__ == "__main__":
    main()
