"""CPU and wall time of veil's fixed cost per anonymization on Adult (issue #16).

Run from the repository root: ``PYTHONPATH=src python benchmarks/bench_fixed_cost.py``
prints one JSON line per configuration: the median ``time.process_time()`` of
``--runs`` calls (after one warm-up), the chosen node and a digest of the
release (identical releases give identical digests).  The ``from pandas:``
configurations time what ``benchmarks/vs_arx`` times: a new ``Dataset`` over the
parsed frame at every call (its encoding included), then ``anonymize``.

``--compare OLD_SRC`` alternates this source tree (``src``) with another one
(e.g. an exported older commit) in fresh processes, ``--rounds`` times (which goes
first alternates from round to round), and
prints the medians of both, with the load average before and after: on a
shared machine both versions then see the same load.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path

CONFIGS = ("k=10, 0%", "k=5, 0%", "k=5, 5%", "k=5 + distinct 2-diversity, 0%", "risk summary",
           "verify written CSV (k=5, 5%)", "from pandas: k=10, 0%", "from pandas: k=5, 5%",
           "from pandas: one node (k=10, 0%)")
#: The node k=10 without suppression finds on Adult (sex, age, race, marital-status,
#: education, native-country, workclass, occupation); "one node" bounds the search to it,
#: so the call is the fixed cost of issue #16 ("a search that checks one node") plus one node.
ONE_NODE = (0, 4, 0, 2, 3, 2, 2, 1)
#: Configurations that wrap the parsed table in a new Dataset at every call, as
#: ``benchmarks/vs_arx`` times veil: ``Dataset.from_pandas`` + ``with_hierarchies`` +
#: ``anonymize``, so the encoding of the columns is paid every time (the others reuse one
#: ``load_adult()`` dataset, whose encodings are cached after the warm-up call).
FROM_PANDAS = "from pandas: "

_FRAME: dict[str, object] = {}


def _fresh(dataset):
    """A new Dataset over the parsed Adult frame (text columns, as ``vs_arx`` reads them)."""
    if not _FRAME:
        import pandas as pd

        from veil.datasets import adult_path

        _FRAME["frame"] = pd.read_csv(adult_path(), sep=";", dtype=str, keep_default_na=False)
    from veil.dataset import Dataset

    fresh = Dataset.from_pandas(_FRAME["frame"], quasi_identifiers=list(dataset.quasi_identifiers),
                                sensitive=list(dataset.sensitive), kinds={"age": "numeric"})
    return fresh.with_hierarchies(dataset.hierarchies)


def _call(name: str, dataset):
    from veil.anonymization import anonymize
    from veil.models import DistinctLDiversity, KAnonymity

    if name.startswith(FROM_PANDAS):
        name, dataset = name[len(FROM_PANDAS):], _fresh(dataset)

    if name.startswith("verify written"):  # the CLI's check of the file it wrote (read included)
        from veil.pipeline import verify_written

        path, result = _written(dataset)
        return verify_written(path, result, dataset, [KAnonymity(k=5)])

    if name == "risk summary":
        from veil.risk import assess

        return assess(dataset, qi_subsets_max_size=0)
    if name == "one node (k=10, 0%)":
        node = dict(zip(dataset.quasi_identifiers, ONE_NODE))
        return anonymize(dataset, [KAnonymity(k=10)], suppression_limit=0.0, seed=7, min_levels=node, max_levels=node)
    models, limit = {
        "k=10, 0%": ([KAnonymity(k=10)], 0.0),
        "k=5, 0%": ([KAnonymity(k=5)], 0.0),
        "k=5, 5%": ([KAnonymity(k=5)], 0.05),
        "k=5 + distinct 2-diversity, 0%": ([KAnonymity(k=5), DistinctLDiversity(l=2, sensitive="salary-class")], 0.0),
    }[name]
    return anonymize(dataset, models, suppression_limit=limit, seed=7)


_WRITTEN: dict[str, object] = {}


def _written(dataset):
    """The k=5, 5% release written once to a temporary CSV (and its result)."""
    if not _WRITTEN:
        import atexit
        import shutil
        import tempfile

        from veil.anonymization import anonymize
        from veil.models import KAnonymity

        result = anonymize(dataset, [KAnonymity(k=5)], suppression_limit=0.05, seed=7)
        folder = tempfile.mkdtemp(prefix="veil-bench-")
        atexit.register(shutil.rmtree, folder, True)
        path = Path(folder) / "release.csv"
        result.data.to_csv(path, index=False)
        _WRITTEN.update(path=path, result=result)
    return _WRITTEN["path"], _WRITTEN["result"]


def _digest(result) -> str:
    data = getattr(result, "data", None)
    if data is None:
        return ""
    text = data.to_csv(index=False).encode()
    return hashlib.sha256(text).hexdigest()[:16]


def measure(runs: int, names: tuple[str, ...] = CONFIGS) -> list[dict]:
    from veil.datasets import load_adult

    dataset = load_adult()
    out = []
    for name in names:
        result = _call(name, dataset)  # warm-up
        times, walls = [], []
        for _ in range(runs):
            start, wall = time.process_time(), time.perf_counter()
            result = _call(name, dataset)
            times.append(time.process_time() - start)
            walls.append(time.perf_counter() - wall)
        node = getattr(result, "transformation", None)
        out.append({"config": name, "cpu_s": statistics.median(times), "wall_s": statistics.median(walls),
                    "node": None if node is None else [int(v) for v in node.values()],
                    "release": _digest(result)})
    return out


def compare(old_src: str, rounds: int, runs: int, names: tuple[str, ...] = CONFIGS) -> None:
    here = str(Path(__file__).resolve().parent.parent / "src")
    results: dict[str, dict[str, list[float]]] = {"before": {}, "after": {}}
    walls: dict[str, dict[str, list[float]]] = {"before": {}, "after": {}}
    facts: dict[str, dict[str, tuple]] = {"before": {}, "after": {}}
    load = [os.getloadavg()[0]]
    for round_ in range(rounds):
        # which tree goes first alternates: the first process of a round runs on a cooler machine
        for label, src in (("before", old_src), ("after", here))[::1 if round_ % 2 == 0 else -1]:
            env = dict(os.environ, PYTHONPATH=src)
            only = [arg for name in names for arg in ("--only", name)] if names != CONFIGS else []
            proc = subprocess.run([sys.executable, __file__, "--runs", str(runs), *only], env=env,
                                  capture_output=True, text=True, check=True)
            for line in proc.stdout.splitlines():
                row = json.loads(line)
                results[label].setdefault(row["config"], []).append(row["cpu_s"])
                walls[label].setdefault(row["config"], []).append(row["wall_s"])
                facts[label][row["config"]] = (row["node"], row["release"])
    load.append(os.getloadavg()[0])
    print(f"load average (1 min) {load[0]:.2f} -> {load[1]:.2f}; {rounds} rounds x {runs} calls")
    print("| configuration | CPU before s | CPU after s | after / before | wall before s | wall after s "
          "| after / before | same node and release |")
    print("|---|---|---|---|---|---|---|---|")
    for name in names:
        b, a = statistics.median(results["before"][name]), statistics.median(results["after"][name])
        wb, wa = statistics.median(walls["before"][name]), statistics.median(walls["after"][name])
        same = facts["before"][name] == facts["after"][name]
        print(f"| {name} | {b:.4f} | {a:.4f} | {a / b:.2f} | {wb:.4f} | {wa:.4f} | {wa / wb:.2f} "
              f"| {'yes' if same else 'NO'} |")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--compare", metavar="OLD_SRC")
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--only", action="append", metavar="TEXT",
                        help="the configurations whose name contains TEXT (repeatable)")
    args = parser.parse_args()
    names = tuple(n for n in CONFIGS if not args.only or any(text in n for text in args.only))
    if args.compare:
        compare(args.compare, args.rounds, args.runs, names)
        return
    for row in measure(args.runs, names):
        print(json.dumps(row))


if __name__ == "__main__":
    main()
