"""MST on Adult at ε=1, δ=1e-9: the average 2-way total-variation error and the time.

Run: ``PYTHONPATH=src .venv/bin/python benchmarks/bench_synthesize.py [--runs 5]``.  Prints one
line per run and the mean, and writes ``benchmarks/results/synthesize.json``.

The data is the bundled Adult (30,162 rows, 9 columns).  Its domain is given
as a user would: the categories of the eight text columns as Adult's
documentation publishes them (listed here from the bundled file, which holds
exactly those), and age in 20 bins of 5 years over [0, 100].  The error is
the mean over all 36 pairs of columns of the total-variation distance between
the 2-way marginals of the original (binned) and of the synthetic table; the
time is the whole ``veil.dp.synthesize`` call (measuring, fitting, sampling
and the error figures of the report), on this machine's 2 shared cores, so
the figures are noisy.
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
    args = parser.parse_args()
    frame = load_adult().frame
    domain = adult_domain(frame)
    runs = []
    for i in range(args.runs):
        t0 = time.perf_counter()
        result = synthesize(frame, epsilon=args.epsilon, delta=args.delta, domain=domain, seed=i)
        seconds = time.perf_counter() - t0
        err = result.report["marginal_error"]
        runs.append({"seconds": seconds, **err})
        print(f"run {i}: {seconds:6.2f} s  TV 1-way {err['1way']:.4f}  2-way {err['2way']:.4f}  "
              f"3-way {err['3way']:.4f}")
    summary = {key: statistics.mean(r[key] for r in runs) for key in ("seconds", "1way", "2way", "3way")}
    summary["2way_sd"] = statistics.stdev(r["2way"] for r in runs) if len(runs) > 1 else 0.0
    print(f"mean over {len(runs)} runs: {summary['seconds']:.2f} s, 2-way TV {summary['2way']:.4f} "
          f"(sd {summary['2way_sd']:.4f})")
    RESULTS.parent.mkdir(exist_ok=True)
    RESULTS.write_text(json.dumps({"data": "adult (bundled, 30162 rows, 9 columns)", "epsilon": args.epsilon,
                                   "delta": args.delta, "age": AGE, "runs": runs, "mean": summary,
                                   "machine": platform.platform(), "python": platform.python_version()},
                                  indent=2) + "\n")


if __name__ == "__main__":
    main()
