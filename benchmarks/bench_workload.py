"""Workload utility on Adult (Brickell & Shmatikov): U_base, U_san, U_max for the three classifiers.

Run: ``PYTHONPATH=src .venv/bin/python benchmarks/bench_workload.py`` (from the repository root).

Adult (30,162 records) with its 8 QIs and the demo's ARX hierarchies,
anonymized by ``veil.anonymize`` with the loss metric and 5 % suppression,
(a) k = 5 and (b) the demo's k = 5 + distinct 2-diversity on salary-class;
the target is salary-class, the split 2/3 train, 1/3 test (stratified,
random_state 0).  The release is the shuffled one ``anonymize`` returns, matched
back to the original through its transformation (``veil.utility.align_release``).
Numbers go to ``benchmarks/results/workload.json`` and ``docs/utility.md``.
"""

from __future__ import annotations

import platform
import time
from pathlib import Path

import veil
from veil.datasets import load_adult
from veil.models import DistinctLDiversity, KAnonymity
from veil.pipeline import publishing
from veil.utility import workload

ROOT = Path(__file__).resolve().parent.parent
RESULTS = ROOT / "benchmarks" / "results" / "workload.json"

CONFIGURATIONS = {
    "k=5, 5% suppression": [KAnonymity(k=5)],
    "k=5 + distinct 2-diversity (salary-class), 5% suppression (the demo)": [
        KAnonymity(k=5), DistinctLDiversity(sensitive="salary-class", l=2)],
}


def main() -> None:
    dataset = load_adult()
    results = {}
    for name, models in CONFIGURATIONS.items():
        release = veil.anonymize(dataset, models, suppression_limit=0.05, metric="loss", seed=0)
        start = time.perf_counter()
        result = workload(dataset, release.data, target="salary-class", random_state=0).to_dict()
        seconds = time.perf_counter() - start
        results[name] = {"transformation": release.transformation, "suppressed": release.report["suppressed"],
                         "workload": result, "seconds": round(seconds, 3)}
        print(f"{name}: transformation {release.transformation}, {release.report['suppressed']} suppressed, "
              f"{seconds:.1f} s")
        print(f"  {'classifier':<22}{'U_base':>8}{'U_san':>8}{'U_max':>8}{'gap':>8}{'ratio':>8}")
        for classifier, s in result["classifiers"].items():
            print(f"  {classifier:<22}{s['u_base']:>8.4f}{s['u_san']:>8.4f}{s['u_max']:>8.4f}"
                  f"{s['gap']:>8.4f}{s['ratio']:>8.4f}")
        print(f"  A_acc = {result['a_acc']:.4f} (baseline p(T, s_max) = {result['a_base']:.4f})")
    with publishing({"json": RESULTS}) as out:
        out.write_json("json", {"machine": platform.platform(), "python": platform.python_version(),
                                "results": results})


if __name__ == "__main__":
    main()
