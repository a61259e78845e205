"""Benchmarks for veil.dp (issue 6): prints timings, asserts nothing.

Run: .venv/bin/python benchmarks/bench_dp.py
Targets: noisy 3-column histogram over 1,000,000 rows < 1 s;
10,000 private counts through the accountant < 2 s.
"""

from __future__ import annotations

import time

import numpy as np
import pandas as pd

from veil.dp import PrivacyAccountant, PrivacyBudget, PrivateTable


def main() -> None:
    rng = np.random.default_rng(0)  # synthetic data only
    n = 1_000_000
    frame = pd.DataFrame({
        "sex": rng.choice(["F", "M"], n),
        "race": rng.choice(["a", "b", "c", "d", "e"], n),
        "age": rng.integers(17, 91, n),
    })
    cats = {"sex": ["F", "M"], "race": list("abcde"), "age": list(range(17, 91))}
    table = PrivateTable(frame, accountant=PrivacyAccountant(budget=PrivacyBudget(epsilon=10.0)))
    t0 = time.perf_counter()
    table.contingency_table(["sex", "race", "age"], categories=cats, epsilon=1.0)
    t_hist = time.perf_counter() - t0
    print(f"noisy histogram, 1,000,000 rows x 3 columns ({2 * 5 * 74} cells): {t_hist:.3f} s")

    small = PrivateTable(frame.head(1000),
                         accountant=PrivacyAccountant(budget=PrivacyBudget(epsilon=100.0)))
    t0 = time.perf_counter()
    for _ in range(10_000):
        small.count(epsilon=0.001)
    t_counts = time.perf_counter() - t0
    print(f"10,000 private counts through the accountant: {t_counts:.3f} s")
    t0 = time.perf_counter()
    for _ in range(1_000):
        small.count("age > 40", epsilon=0.001)
    print(f"1,000 private counts with a where-predicate: {time.perf_counter() - t0:.3f} s")


if __name__ == "__main__":
    main()
