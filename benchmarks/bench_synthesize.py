"""MST or AIM on Adult at ε=1, δ=1e-9: the average total-variation error and the time.

Run: ``PYTHONPATH=src .venv/bin/python benchmarks/bench_synthesize.py [--runs 5] [--algorithm aim]``.
Prints one line per run and the mean, and writes ``benchmarks/results/synthesize.json`` (MST) or
``benchmarks/results/synthesize_aim.json`` (AIM).

AIM's workload is all 84 3-way marginals of the 9 columns (weight 1 each, no
filter on their number of cells); its figure is the report's
``workload_error``, the mean total-variation distance over those 84 marginals.

The data is the bundled Adult (30,162 rows, 9 columns).  Its domain is given
as a user would: the categories of the eight text columns as Adult's
documentation publishes them (listed here from the bundled file, which holds
exactly those), and age in 20 bins of 5 years over [0, 100].  The error is
(MST) the mean over all 36 pairs of columns of the total-variation distance between
the 2-way marginals of the original (binned) and of the synthetic table; the
time is the whole ``veil.dp.synthesize`` call (measuring, fitting, sampling
and the error figures of the report), wall-clock and CPU (all threads), on
this machine's 2 shared cores, so the wall-clock figures are noisy.
"""

from __future__ import annotations

import argparse
import json
import platform
import statistics
import time
from pathlib import Path

from veil.datasets import load_adult
from veil.dp import synthesize

RESULTS = Path(__file__).resolve().parent / "results" / "synthesize.json"
RESULTS_AIM = Path(__file__).resolve().parent / "results" / "synthesize_aim.json"
AGE = {"min": 0, "max": 100, "bins": 20}


def adult_domain(frame) -> dict:
    """Adult's published categories per text column, and the age bins."""
    domain = {c: sorted(map(str, frame[c].unique())) for c in frame.columns if c != "age"}
    domain["age"] = AGE
    return domain


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--epsilon", type=float, default=1.0)
    parser.add_argument("--delta", type=float, default=1e-9)
    parser.add_argument("--algorithm", choices=("mst", "aim"), default="mst")
    args = parser.parse_args()
    frame = load_adult().frame
    domain = adult_domain(frame)
    runs = []
    for i in range(args.runs):
        t0, c0 = time.perf_counter(), time.process_time()
        result = synthesize(frame, epsilon=args.epsilon, delta=args.delta, domain=domain, seed=i,
                            algorithm=args.algorithm)
        seconds, cpu = time.perf_counter() - t0, time.process_time() - c0
        err = result.report["marginal_error"]
        runs.append({"seconds": seconds, "cpu_seconds": cpu, **err, "workload_error": result.report["workload_error"]})
        print(f"run {i}: {seconds:6.2f} s (CPU {cpu:6.2f} s)  TV 1-way {err['1way']:.4f}  2-way {err['2way']:.4f}  "
              f"3-way {err['3way']:.4f}  workload {result.report['workload_error']:.4f}")
    keys = ("seconds", "cpu_seconds", "1way", "2way", "3way", "workload_error")
    summary = {key: statistics.mean(r[key] for r in runs) for key in keys}
    main_key = "workload_error" if args.algorithm == "aim" else "2way"
    summary[f"{main_key}_sd"] = statistics.stdev(r[main_key] for r in runs) if len(runs) > 1 else 0.0
    print(f"mean over {len(runs)} runs: {summary['seconds']:.2f} s, {main_key} TV {summary[main_key]:.4f} "
          f"(sd {summary[main_key + '_sd']:.4f})")
    out = RESULTS_AIM if args.algorithm == "aim" else RESULTS
    out.parent.mkdir(exist_ok=True)
    out.write_text(json.dumps({"algorithm": args.algorithm, "data": "adult (bundled, 30162 rows, 9 columns)",
                               "epsilon": args.epsilon, "delta": args.delta, "age": AGE, "runs": runs,
                               "mean": summary, "machine": platform.platform(),
                               "python": platform.python_version()}, indent=2) + "\n")


if __name__ == "__main__":
    main()
