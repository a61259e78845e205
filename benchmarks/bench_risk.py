"""Benchmark of veil.risk (prints numbers; no asserts).

Reference (ARX 3.9, this machine, Adult with 8 QIs): risk summary 24-31 ms;
distinction and separation of all 255 QI subsets 0.5-0.9 s.

Run: .venv/bin/python benchmarks/bench_risk.py
"""

from __future__ import annotations

import statistics
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pandas as pd

from veil.classes import ClassTable
from veil.dataset import Dataset
from veil.datasets import ADULT_QUASI_IDENTIFIERS, adult_path, load_adult
from veil.risk import assess, journalist_risk, marketer_risk, population_uniqueness, prosecutor_risk, \
    quasi_identifier_ranking


def timed(fn, repeat=7):
    fn()  # warm-up (imports, caches)
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        fn()
        times.append(time.perf_counter() - start)
    return statistics.median(times), min(times)


def million_rows(seed: int = 0) -> pd.DataFrame:
    """Adult replicated to 1,000,000 rows; ages of a third of the copies shifted by ±1 year."""
    frame = pd.read_csv(adult_path(), sep=";", dtype=str, keep_default_na=False)
    reps = -(-1_000_000 // len(frame))
    big = pd.concat([frame] * reps, ignore_index=True).iloc[:1_000_000].copy()
    rng = np.random.default_rng(seed)
    age = big["age"].astype(int).to_numpy()
    shift = np.where(rng.random(len(big)) < 1 / 3, rng.choice([-1, 1], len(big)), 0)
    big["age"] = np.clip(age + shift, 17, 90).astype(str)
    return big


def summary_paths() -> None:
    """The risk summary of issue #16 from the parsed Adult frame: class sizes alone against the class table."""
    frame = pd.read_csv(adult_path(), sep=";", dtype=str, keep_default_na=False)
    qis = list(ADULT_QUASI_IDENTIFIERS)

    def dataset() -> Dataset:
        return Dataset.from_pandas(frame, quasi_identifiers=qis, sensitive=["salary-class"], kinds={"age": "numeric"})

    for _ in range(2):  # alternate, so load hits both alike
        med, best = timed(lambda: assess(dataset(), qi_subsets_max_size=0), repeat=11)
        print(f"  risk summary, class sizes (Dataset.from_pandas + assess): median {med * 1e3:.1f} ms, "
              f"best {best * 1e3:.1f} ms   [target: half of ARX's]")
        med, best = timed(lambda: assess(ClassTable.from_dataset(dataset()), qi_subsets_max_size=0), repeat=11)
        print(f"  risk summary, through the class table:                 median {med * 1e3:.1f} ms, "
              f"best {best * 1e3:.1f} ms")


def main() -> None:
    summary_paths()
    classes = ClassTable.from_dataset(load_adult())
    print(f"Adult: {classes.n_records:,} records, {classes.n_classes:,} classes, 8 QIs")

    med, best = timed(lambda: assess(classes, population_fraction=0.01, qi_subsets_max_size=0))
    print(f"  risk summary (3 attacker models + 3 uniqueness models + Dankar), pi=0.01: "
          f"median {med * 1e3:.1f} ms, best {best * 1e3:.1f} ms   [ARX 24-31 ms; target < 30 ms]")
    med, best = timed(lambda: assess(classes, population_fraction=0.5, qi_subsets_max_size=0))
    print(f"  same, pi=0.5 (SNB + Zayatz path): median {med * 1e3:.1f} ms, best {best * 1e3:.1f} ms")
    med, best = timed(lambda: population_uniqueness(classes, sampling_fraction=0.01))
    print(f"    of which population uniqueness: median {med * 1e3:.1f} ms")
    med, best = timed(lambda: quasi_identifier_ranking(classes), repeat=5)
    print(f"  distinction + separation, all 255 QI subsets: median {med * 1e3:.0f} ms, best {best * 1e3:.0f} ms"
          "   [ARX 0.5-0.9 s; target < 0.25 s]")

    qi = ",".join(ADULT_QUASI_IDENTIFIERS)
    out = Path("/tmp/veil_bench_risk.json")
    times = []
    for _ in range(3):
        start = time.perf_counter()
        subprocess.run([str(Path(sys.executable).parent / "veil"), "risk", adult_path(), "--qi", qi,
                        "--population-fraction", "0.01", "--json", str(out)],
                       check=True, capture_output=True)
        times.append(time.perf_counter() - start)
    print(f"  whole `veil risk` process (255 subsets, JSON): median {statistics.median(times):.2f} s"
          "   [target < 2 s]")

    big = million_rows()
    start = time.perf_counter()
    dataset = Dataset.from_pandas(big, quasi_identifiers=list(ADULT_QUASI_IDENTIFIERS))
    big_classes = ClassTable.from_dataset(dataset)
    print(f"1M rows: {big_classes.n_records:,} records, {big_classes.n_classes:,} classes "
          f"(class table built in {time.perf_counter() - start:.2f} s)")
    med, best = timed(lambda: (prosecutor_risk(big_classes), journalist_risk(big_classes),
                               marketer_risk(big_classes)), repeat=5)
    print(f"  prosecutor + journalist + marketer: median {med * 1e3:.1f} ms   [target < 2 s]")
    med, best = timed(lambda: assess(big_classes, population_fraction=0.1, qi_subsets_max_size=0), repeat=3)
    print(f"  assess with uniqueness (pi=0.1): median {med * 1e3:.1f} ms")


if __name__ == "__main__":
    main()
