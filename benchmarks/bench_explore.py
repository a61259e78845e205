"""Time ``veil explore``'s k sweep on Adult against the single searches it contains.

Run: ``PYTHONPATH=src .venv/bin/python benchmarks/bench_explore.py`` (from the repository root).

Adult (30,162 records, 8 QIs, ARX hierarchies), k = 2..50, 5 % suppression,
loss metric, the lattice search: 49 points.  Measured, one run each (the
machine is shared, so the ratios matter more than the seconds):

* ``sweep``: :func:`veil.explore.explore` over the 49 points (one Dataset,
  its encodings cached across points);
* ``singles, fresh``: 49 separate ``load_adult()`` + ``veil.anonymize`` runs,
  what 49 runs of ``veil anonymize`` would do in-process (reading and
  encoding the data each time);
* ``searches only``: the sum of the lattice searches' own times
  (``result.search.seconds``) inside those single runs;
* ``encode``: reading + encoding Adult and building its level-0 class table,
  the part a sweep could share across points;
* ``sweep + workload``: the same sweep with the decision-tree workload on salary-class.

Numbers go to ``benchmarks/results/explore.json`` and ``docs/explore.md``.
"""

from __future__ import annotations

import platform
import time
from pathlib import Path

import veil
from veil.classes import ClassTable
from veil.datasets import load_adult
from veil.explore import SweepSpec, explore
from veil.models import KAnonymity
from veil.pipeline import publishing

ROOT = Path(__file__).resolve().parent.parent
RESULTS = ROOT / "benchmarks" / "results" / "explore.json"
KS = tuple(range(2, 51))


def main() -> None:
    start = time.perf_counter()
    fresh = load_adult()
    base = ClassTable.from_dataset(fresh)
    encode = time.perf_counter() - start
    print(f"encode (read + encode + level-0 class table): {encode:.3f} s ({base.n_classes} classes)")

    dataset = load_adult()
    start = time.perf_counter()
    exploration = explore(dataset, SweepSpec(k=KS, suppression=(0.05,)))
    sweep = time.perf_counter() - start
    print(f"sweep of {len(KS)} points: {sweep:.2f} s, {sum(p['frontier'] for p in exploration.points)} on the frontier")

    singles = searches = 0.0
    for k in KS:
        began = time.perf_counter()
        result = veil.anonymize(load_adult(), [KAnonymity(k=k)], suppression_limit=0.05, shuffle=False)
        singles += time.perf_counter() - began
        searches += result.search.seconds
        assert result.transformation == exploration.points[k - 2]["transformation"]
    print(f"singles, fresh: {singles:.2f} s; searches only: {searches:.2f} s")
    print(f"sweep / singles = {sweep / singles:.2f}; sweep / searches = {sweep / searches:.2f}")

    start = time.perf_counter()
    explore(dataset, SweepSpec(k=KS, suppression=(0.05,)), target="salary-class", classifier="decision-tree")
    with_workload = time.perf_counter() - start
    print(f"sweep + decision-tree workload: {with_workload:.2f} s")
    figures = {
        "points": len(KS), "encode_s": round(encode, 3), "sweep_s": round(sweep, 3),
        "singles_fresh_s": round(singles, 3), "searches_only_s": round(searches, 3),
        "sweep_over_singles": round(sweep / singles, 3), "sweep_over_searches": round(sweep / searches, 3),
        "sweep_with_workload_s": round(with_workload, 3),
    }
    with publishing({"json": RESULTS}) as out:
        out.write_json("json", {"machine": platform.platform(), "python": platform.python_version(), "k_sweep": figures})


if __name__ == "__main__":
    main()
