"""CPU time of the lattice search alone on Adult, per configuration (issue #16).

Run from the repository root::

    PYTHONPATH=src python benchmarks/bench_search.py                 # this tree
    python benchmarks/bench_search.py --compare OLD_SRC --rounds 3   # this tree against another one

Each configuration builds Adult's base class table (8 QIs, ``salary-class`` sensitive),
then times ``veil.algorithms.lattice.search`` alone (metric ``loss``) with
``time.process_time()``: the best of ``--runs`` runs.  ``--compare OLD_SRC`` alternates
this source tree (``src``) with another one (e.g. ``git archive OLD src | tar -x -C DIR``,
then ``DIR/src``) in fresh processes, ``--rounds`` times, and prints the best of each per
configuration, so that both trees see the same load on a shared machine.  The chosen node
and the number of nodes judged are printed too: a faster search must judge the same nodes.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import time
from pathlib import Path

CONFIGS = {
    "k=10, 0%": (10, 0.0, None), "k=5, 0%": (5, 0.0, None), "k=2, 0%": (2, 0.0, None),
    "k=5, 5%": (5, 0.05, None), "k=5 + distinct 2-diversity, 0%": (5, 0.0, "l"),
    "k=5 + distinct 2-diversity, 5%": (5, 0.05, "l"), "k=5 + equal 0.2-closeness, 0%": (5, 0.0, "t"),
    "k=5 + equal 0.2-closeness, 5%": (5, 0.05, "t"),
    "k=5 + hierarchical 0.2-closeness, 0%": (5, 0.0, "th"),
    "k=5 + hierarchical 0.2-closeness, 5%": (5, 0.05, "th"),
    "k=5, 100%": (5, 1.0, None),
}


def measure(names: list[str], runs: int) -> dict:
    import pandas as pd

    from veil import Dataset
    from veil.algorithms import lattice
    from veil.classes import ClassTable
    from veil.datasets import ADULT_QUASI_IDENTIFIERS, adult_path, load_adult
    from veil.models import DistinctLDiversity, EqualDistanceTCloseness, HierarchicalTCloseness, KAnonymity
    from veil.utility import get_metric

    frame = pd.read_csv(adult_path(), sep=";", dtype=str, keep_default_na=False)
    dataset = Dataset.from_pandas(frame, quasi_identifiers=list(ADULT_QUASI_IDENTIFIERS), sensitive=["salary-class"],
                                  kinds={"age": "numeric"}).with_hierarchies(dict(load_adult().hierarchies))
    metric = get_metric("loss")
    out = {}
    for name in names:
        k, limit, extra = CONFIGS[name]
        models = [KAnonymity(k=k)]
        if extra == "l":
            models.append(DistinctLDiversity("salary-class", l=2))
        elif extra == "t":
            models.append(EqualDistanceTCloseness("salary-class", t=0.2))
        elif extra == "th":  # salary-class's hierarchy comes with the dataset's (load_adult's)
            models.append(HierarchicalTCloseness("salary-class", t=0.2))
        best, result = float("inf"), None
        for _ in range(runs):
            base = ClassTable.from_dataset(dataset, sensitive=["salary-class"])
            start = time.process_time()
            result = lattice.search(base, models, loss=lambda c, k=k: metric.loss(c, k=k), metric_name="loss",
                                    suppression_limit=limit)
            best = min(best, time.process_time() - start)
        out[name] = {"cpu_ms": round(best * 1e3, 2), "node": list(result.node), "nodes_checked": result.nodes_checked}
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=15)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--only", help="configurations whose name contains this text")
    parser.add_argument("--compare", metavar="OLD_SRC", help="another tree's src folder to alternate with")
    parser.add_argument("--child", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args()
    names = [n for n in CONFIGS if args.only is None or args.only in n]
    if args.child or args.compare is None:
        print(json.dumps(measure(names, args.runs)))
        return
    here = str(Path(__file__).resolve().parent.parent / "src")
    trees = {"this tree": here, "other": args.compare}
    best: dict[str, dict[str, dict]] = {}
    load = os.getloadavg()[0]
    for round_ in range(args.rounds):
        # which tree goes first alternates: the first process of a round runs on a cooler machine
        for label, src in list(trees.items())[::1 if round_ % 2 == 0 else -1]:
            cmd = [sys.executable, __file__, "--child", "--runs", str(args.runs)] + (["--only", args.only] if args.only else [])
            done = subprocess.run(cmd, env={**os.environ, "PYTHONPATH": src}, capture_output=True, text=True, check=True)
            for name, row in json.loads(done.stdout).items():
                seen = best.setdefault(name, {}).get(label)
                if seen is None or row["cpu_ms"] < seen["cpu_ms"]:
                    best[name][label] = row
    print(f"load average {load:.1f} -> {os.getloadavg()[0]:.1f}")
    for name, rows in best.items():
        mine, other = rows["this tree"], rows["other"]
        same = ("same node" if (mine["node"], mine["nodes_checked"]) == (other["node"], other["nodes_checked"])
                else f"NODES DIFFER: other {other['node']}, {other['nodes_checked']} nodes")
        print(f"{name:34s} other {other['cpu_ms']:8.2f} ms  this {mine['cpu_ms']:8.2f} ms  "
              f"ratio {mine['cpu_ms'] / other['cpu_ms']:.2f}  ({same}, {mine['nodes_checked']} nodes)")


if __name__ == "__main__":
    main()
