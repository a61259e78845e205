"""The lattice search without suppression, with and without the pair bound (issue #16).

Run from the repository root::

    PYTHONPATH=src python benchmarks/bench_pairs.py                      # Adult, k = 2, 5, 10
    PYTHONPATH=src python benchmarks/bench_pairs.py --synthetic 60000    # a skewed synthetic table
    PYTHONPATH=src python benchmarks/bench_pairs.py --synthetic 300000 --max-visits 100000000

Each table's base class table is built once; then ``veil.algorithms.lattice.search`` (metric
``loss``, k-anonymity, no suppression) runs alternately with the pair bound
(``veil.algorithms._pairs``) and without it (``veil.algorithms._nodes.pair_bound`` replaced, in
this process only, by one that gives none), ``--runs`` times each after a warm-up; the median
wall time is printed with the node, the nodes judged and the nodes refuted, which must agree.
``--max-visits`` lifts the cap on the class visits the pairs may spend
(``veil.algorithms._pairs.MAX_VISITS``) to show what it avoids.  The synthetic table has 7
attributes of 100, 60, 30, 12, 8, 4 and 2 values (Zipf-distributed, seed 0), each with a
hierarchy grouping values by threes.
"""

from __future__ import annotations

import argparse
import statistics
import time

import numpy as np
import pandas as pd


def synthetic(rows: int):
    from veil.dataset import Dataset
    from veil.hierarchy import Hierarchy

    rng = np.random.default_rng(0)
    columns, hierarchies = {}, {}
    for q, size in enumerate([100, 60, 30, 12, 8, 4, 2]):
        values = [f"v{i}" for i in range(size)]
        depth = max(0, int(np.log(size) / np.log(3)) - 1)
        lines = []
        for i, value in enumerate(values):
            line, group = [value], i
            for d in range(depth):
                group //= 3
                line.append(f"L{d}_{group}")
            lines.append(line + ["*"])
        name = f"q{q}"
        hierarchies[name] = Hierarchy.from_rows(lines, name=name)
        columns[name] = np.array(values, dtype=object)[rng.zipf(1.5, rows) % size]
    return Dataset.from_pandas(pd.DataFrame(columns), quasi_identifiers=list(hierarchies), hierarchies=hierarchies)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--synthetic", type=int, default=0, help="rows of the synthetic table (0: Adult)")
    parser.add_argument("--runs", type=int, default=7)
    parser.add_argument("--max-visits", type=int, default=None)
    args = parser.parse_args()

    import veil.algorithms._nodes as nodes
    import veil.algorithms._pairs as pairs
    from veil.algorithms.lattice import search
    from veil.classes import ClassTable
    from veil.datasets import load_adult
    from veil.models import KAnonymity
    from veil.utility import get_metric

    if args.max_visits is not None:
        pairs.MAX_VISITS = args.max_visits
    dataset = synthetic(args.synthetic) if args.synthetic else load_adult()
    classes = ClassTable.from_dataset(dataset)
    print(f"{'synthetic' if args.synthetic else 'Adult'}: {dataset.n_records} rows, {classes.n_classes} base classes")
    loss = get_metric("loss").loss
    with_pairs = nodes.pair_bound
    for k in (2, 5, 10, 20):
        times: dict[bool, list[float]] = {True: [], False: []}
        seen = {}
        for run in range(args.runs + 1):
            for asked in (True, False):
                nodes.pair_bound = with_pairs if asked else (lambda *a: None)
                start = time.perf_counter()
                result = search(classes, [KAnonymity(k=k)], loss=loss, metric_name="loss", suppression_limit=0.0)
                if run:
                    times[asked].append(time.perf_counter() - start)
                seen[asked] = (result.node, result.nodes_checked, result.extra["nodes_refuted"])
        nodes.pair_bound = with_pairs
        assert seen[True][:2] == seen[False][:2], seen
        print(f"k={k:<3} with pairs {statistics.median(times[True]) * 1e3:7.2f} ms   without "
              f"{statistics.median(times[False]) * 1e3:7.2f} ms   node {seen[True][0]}, "
              f"{seen[True][1]} judged, {seen[True][2]} refuted")


if __name__ == "__main__":
    main()
