"""Time the randomizing and microaggregating algorithms: αβ, PRAM and MDAV.

Run: ``.venv/bin/python benchmarks/bench_randomization.py [--json PATH]``.
Prints a table of median wall-clock times (after the data is loaded and
encoded once, so each figure is the algorithm's own cost) and, with
``--json``, writes them to PATH.  Asserts nothing.

* αβ on Adult's 8 QIs (|D| = 514,304,000 over the hierarchies' leaves) with
  the recommended pair for d = 5·n/|D|, γ = 0.5 (≈150,000 inserted tuples),
  and with β raised to insert ≈1,000,000; median of 11 and 5 runs.
* αβ over a 10^12-tuple domain (4 columns of 1,000 values, 5,000 records,
  β = 1e-7): D is never enumerated; median of 11.
* PRAM on Adult's sex, race and education (p = 0.8), plain and invariant;
  median of 11.
* MDAV on Adult's age (its only numeric column), k = 5; median of 5.  And,
  since Adult has a single numeric column, on a synthetic 30,162 x 3
  standard-normal table (seeded), k = 5; median of 3.
"""

from __future__ import annotations

import argparse
import json
import platform
import statistics
import time
from collections.abc import Callable
from pathlib import Path

import numpy as np
import pandas as pd

from veil.algorithms.microaggregation import mdav
from veil.algorithms.randomization import alpha_beta, alpha_beta_parameters, pram
from veil.dataset import Dataset
from veil.datasets import load_adult

SEED = 20240611


def median_seconds(run: Callable[[], object], repeats: int) -> float:
    times = []
    for _ in range(repeats):
        start = time.perf_counter()
        run()
        times.append(time.perf_counter() - start)
    return statistics.median(times)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--json", type=Path, help="also write the results to this JSON file")
    args = parser.parse_args()

    adult = load_adult()
    qis = list(adult.quasi_identifiers)
    for column in adult.columns:
        adult.encode(column)  # encode once: the figures below are the algorithms' own cost
    n_distinct = len(adult.frame[qis].drop_duplicates())
    m = 1
    for q in qis:
        m *= len(adult.hierarchies[q].leaves)
    params = alpha_beta_parameters(d=5 * n_distinct / m, gamma=0.5)
    beta_1m = 1_000_000 / m

    rng = np.random.default_rng(SEED)
    values = [f"v{i:03d}" for i in range(1000)]
    wide = Dataset.from_pandas(pd.DataFrame({c: rng.choice(values, 5_000) for c in "wxyz"}),
                               quasi_identifiers=list("wxyz"))
    for column in "wxyz":
        wide.encode(column)
    synthetic = Dataset.from_pandas(
        pd.DataFrame(rng.normal(size=(adult.n_records, 3)), columns=["a", "b", "c"]),
        quasi_identifiers=["a", "b", "c"],
    )

    results: list[dict[str, object]] = []

    def record(name: str, seconds: float, repeats: int, note: str) -> None:
        results.append({"benchmark": name, "median_s": round(seconds, 4), "repeats": repeats, "note": note})
        print(f"{name:<58} {seconds * 1000:>10.1f} ms   (median of {repeats}; {note})", flush=True)

    out = alpha_beta(adult, alpha=params.alpha, beta=params.beta, seed=SEED)
    record("alpha_beta, Adult 8 QIs, recommended (d=5n/|D|, gamma=0.5)",
           median_seconds(lambda: alpha_beta(adult, alpha=params.alpha, beta=params.beta), 11), 11,
           f"|D|={m:,}, |V|={len(out.data):,}, alpha={params.alpha:.4f}, beta={params.beta:.2e}")
    out = alpha_beta(adult, alpha=0.5, beta=beta_1m, seed=SEED)
    record("alpha_beta, Adult 8 QIs, ~1,000,000 inserted",
           median_seconds(lambda: alpha_beta(adult, alpha=0.5, beta=beta_1m), 5), 5,
           f"|V|={len(out.data):,}")
    out = alpha_beta(wide, alpha=0.5, beta=1e-7, domains={c: values for c in "wxyz"}, seed=SEED)
    record("alpha_beta, |D| = 10^12, 5,000 records, beta = 1e-7",
           median_seconds(lambda: alpha_beta(wide, alpha=0.5, beta=1e-7,
                                             domains={c: values for c in "wxyz"}), 11), 11,
           f"|V|={len(out.data):,}")
    three = ["sex", "race", "education"]
    record("pram, Adult sex/race/education, p = 0.8",
           median_seconds(lambda: pram(adult, three, p=0.8), 11), 11, f"{adult.n_records:,} rows")
    record("pram, Adult sex/race/education, invariant, p = 0.8",
           median_seconds(lambda: pram(adult, three, p=0.8, invariant=True), 11), 11, f"{adult.n_records:,} rows")
    out = mdav(adult, ["age"], k=5)
    record("mdav, Adult age, k = 5",
           median_seconds(lambda: mdav(adult, ["age"], k=5), 5), 5,
           f"{out.groups:,} groups, SSE/SST={out.details['information_loss']:.2e}")
    out = mdav(synthetic, ["a", "b", "c"], k=5)
    record("mdav, synthetic 30,162 x 3 normal, k = 5",
           median_seconds(lambda: mdav(synthetic, ["a", "b", "c"], k=5), 3), 3,
           f"{out.groups:,} groups, SSE/SST={out.details['information_loss']:.4f}")

    if args.json:
        payload = {
            "python": platform.python_version(),
            "machine": platform.machine(),
            "numpy": np.__version__,
            "results": results,
        }
        args.json.write_text(json.dumps(payload, indent=2) + "\n")
        print(f"wrote {args.json}")


if __name__ == "__main__":
    main()
