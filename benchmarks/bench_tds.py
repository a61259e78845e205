"""Time top-down specialization (HDTDS) on Adult.

Run: ``.venv/bin/python benchmarks/bench_tds.py`` (from the repository root);
``--json PATH`` also writes the numbers as JSON.

Adult: 30,162 records, the 8 standard QIs with ARX's hierarchies, class label
``salary-class`` (also the sensitive attribute; LKC protects ``>50K``).  For
each requirement and score: the median of 3 runs of
:func:`veil.algorithms.tds.top_down_specialization` (the whole call: class
table, search, self-check and the recoded rows), after one warm-up run, with
the number of scored and partition-preserving specializations, the
candidates found invalid, the validity checks and the equivalence classes of
the output.  Target: a few seconds at most per run.
"""

from __future__ import annotations

import argparse
import json
import platform
import statistics
import time
from pathlib import Path

from veil.algorithms.tds import SCORES, top_down_specialization
from veil.datasets import load_adult
from veil.models import KAnonymity, LKCPrivacy

RUNS = 3
LABEL = "salary-class"


def requirements() -> dict[str, list]:
    def lkc(L: int, K: int, C: float) -> LKCPrivacy:
        return LKCPrivacy(L=L, K=K, C=C, sensitive=LABEL, values=(">50K",))

    return {
        "k=5": [KAnonymity(k=5)],
        "LKC L=3 K=5 C=0.8": [lkc(3, 5, 0.8)],
        "LKC L=3 K=20 C=0.5": [lkc(3, 20, 0.5)],
        "LKC L=4 K=10 C=0.6": [lkc(4, 10, 0.6)],
        "LKC L=4 K=20 C=0.5": [lkc(4, 20, 0.5)],
        "LKC L=2 K=5 C=1": [LKCPrivacy(L=2, K=5)],
    }


def run(dataset, models: list, score: str) -> dict:
    top_down_specialization(dataset, models, label=LABEL, score=score)  # warm-up
    seconds = []
    result = None
    for _ in range(RUNS):
        start = time.perf_counter()
        result = top_down_specialization(dataset, models, label=LABEL, score=score)
        seconds.append(time.perf_counter() - start)
    assert result is not None
    details = result.details
    return {
        "median_s": round(statistics.median(seconds), 4),
        "runs_s": [round(s, 4) for s in seconds],
        "specializations": details["specializations"],
        "partition_preserving": details["partition_preserving"],
        "invalidated": details["invalidated"],
        "validity_checks": details["validity_checks"],
        "classes": result.groups,
    }


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--json", type=Path, help="also write the results to this JSON file")
    args = parser.parse_args()
    adult = load_adult()
    rows = []
    print(f"Adult: {adult.n_records} records, QIs {', '.join(adult.quasi_identifiers)}; label {LABEL}")
    print(f"{'requirement':<22} {'score':<20} {'median s':>9} {'spec.':>6} {'free':>5} {'inval.':>6} "
          f"{'checks':>6} {'classes':>8}")
    for name, models in requirements().items():
        for score in SCORES:
            numbers = run(adult, models, score)
            rows.append({"requirement": name, "score": score, **numbers})
            print(f"{name:<22} {score:<20} {numbers['median_s']:>9.3f} {numbers['specializations']:>6} "
                  f"{numbers['partition_preserving']:>5} {numbers['invalidated']:>6} "
                  f"{numbers['validity_checks']:>6} {numbers['classes']:>8}", flush=True)
    if args.json:
        payload = {
            "machine": {"python": platform.python_version(), "platform": platform.platform()},
            "runs": RUNS,
            "results": rows,
        }
        args.json.write_text(json.dumps(payload, indent=2) + "\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
