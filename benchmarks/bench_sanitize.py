"""Benchmark of ``veil.sanitize.scan``: 1,000,000 rows x 20 columns (target < 10 s).

Builds a synthetic table of strings (as ``veil scan`` reads a CSV), vectorised
with numpy, then times ``scan`` and, for reference, ``safe_harbor``.

    .venv/bin/python benchmarks/bench_sanitize.py [--rows 1000000]
"""

from __future__ import annotations

import argparse
import time

import numpy as np
import pandas as pd


def _digits(rng: np.random.Generator, n: int, width: int, low: int = 0) -> pd.Series:
    return pd.Series(rng.integers(low, 10**width, n)).astype("str").str.zfill(width)


def build(rows: int, seed: int = 0) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    ids = pd.Series(np.arange(rows)).astype("str")
    first = np.array(["Alice", "Bob", "Carol", "Dave", "Eve", "Frank", "Grace", "Heidi", "Ivan", "Judy"])
    last = np.array(["Smith", "Jones", "Brown", "Taylor", "Wilson", "Davies", "Evans", "Thomas"])
    streets = np.array(["Oak", "Elm", "Main", "Pine", "Maple", "Cedar"])
    s = pd.Series
    return pd.DataFrame({
        "record_id": "R" + ids.str.zfill(7),
        "full_name": s(rng.choice(first, rows)) + " " + s(rng.choice(last, rows)),
        "email": "user" + ids + "@example.org",
        "phone": "(" + _digits(rng, rows, 3, 200) + ") " + _digits(rng, rows, 3, 200) + "-" + _digits(rng, rows, 4),
        "ssn": _digits(rng, rows, 3, 100).str.slice(0, 3).str.replace("^0", "1", regex=True) + "-"
               + _digits(rng, rows, 2, 10) + "-" + _digits(rng, rows, 4, 1000),
        "card": s(rng.choice(["4111111111111111", "5500005555555559", "4012888888881881"], rows)),
        "ip": "10." + s(rng.integers(0, 256, rows)).astype("str") + "." + s(rng.integers(0, 256, rows)).astype("str")
              + "." + s(rng.integers(1, 255, rows)).astype("str"),
        "url": "https://example.org/u/" + ids,
        "address": s(rng.integers(1, 9999, rows)).astype("str") + " " + s(rng.choice(streets, rows)) + " Street",
        "zip": _digits(rng, rows, 5),
        "dob": "19" + _digits(rng, rows, 2) + "-0" + s(rng.integers(1, 10, rows)).astype("str") + "-1"
               + s(rng.integers(0, 10, rows)).astype("str"),
        "admission_date": "2020-0" + s(rng.integers(1, 10, rows)).astype("str") + "-2"
                          + s(rng.integers(0, 9, rows)).astype("str"),
        "age": s(rng.integers(0, 100, rows)).astype("str"),
        "sex": s(rng.choice(["M", "F"], rows)),
        "race": s(rng.choice(["A", "B", "C", "D"], rows)),
        "diagnosis": s(rng.choice(["flu", "cold", "asthma", "diabetes"], rows)),
        "weight": s(np.round(rng.normal(70, 10, rows), 1)).astype("str"),
        "score": s(rng.integers(0, 1000, rows)).astype("str"),
        "device_serial": "SN-" + _digits(rng, rows, 6),
        "notes": s(rng.choice(["seen by the nurse, follow up in two weeks if symptoms persist", "ok"], rows)),
    })


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=int, default=1_000_000)
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()

    from veil.sanitize import safe_harbor, scan

    t0 = time.perf_counter()
    frame = build(args.rows)
    print(f"built {len(frame):,} rows x {frame.shape[1]} columns in {time.perf_counter() - t0:.2f} s")
    times = []
    for _ in range(args.repeat):
        t0 = time.perf_counter()
        report = scan(frame)
        times.append(time.perf_counter() - t0)
    print(f"scan: best {min(times):.2f} s, median {sorted(times)[len(times) // 2]:.2f} s over {args.repeat} runs "
          f"(sample 10,000 values per column for patterns; nunique on full columns)")
    for name, f in report.columns.items():
        print(f"  {name:16} {f.kind:20} {f.category:18} {f.confidence:.2f}")
    t0 = time.perf_counter()
    result = safe_harbor(frame, scan=report, as_of="2025-01-01")
    print(f"safe_harbor (apply, given the scan): {time.perf_counter() - t0:.2f} s; "
          f"{len(result.report.done)} actions, {len(result.report.undecided)} undecided")


if __name__ == "__main__":
    main()
