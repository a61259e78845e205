"""Time every privacy model at once (``veil.models.evaluate``) and the ``veil check`` process.

Run: ``.venv/bin/python benchmarks/bench_models.py``.  Prints:

* Adult (30,162 rows, 8 QIs, salary-class sensitive): class-table build and
  evaluate (target: evaluate < 100 ms after load);
* the whole ``veil check`` process on Adult's CSV (target: < 2 s);
* 1,000,000 rows built by replicating Adult with ages shifted by a random
  offset in [-20, 20] (about 180,000 classes): build and evaluate
  (target: < 2 s after load).
"""

from __future__ import annotations

import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np
import pandas as pd

from veil.classes import ClassTable
from veil.dataset import Dataset
from veil.datasets import ADULT_QUASI_IDENTIFIERS, adult_path, load_adult
from veil.models import evaluate


def best_of(fn, repeat: int = 5) -> float:
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        fn()
        times.append(time.perf_counter() - start)
    return min(times)


def main() -> None:
    adult = load_adult()
    build = best_of(lambda: ClassTable.from_dataset(adult), 3)
    classes = ClassTable.from_dataset(adult)
    ev = best_of(lambda: evaluate(classes))
    print(f"Adult: {classes.n_records:,} rows, {classes.n_classes:,} classes; "
          f"class table {build * 1e3:.1f} ms, all models {ev * 1e3:.1f} ms")

    with tempfile.TemporaryDirectory() as tmp:
        out = Path(tmp) / "report.json"
        cmd = [str(Path(sys.executable).parent / "veil"), "check", adult_path(), "--sep", ";",
               "--qi", ",".join(ADULT_QUASI_IDENTIFIERS), "--sensitive", "salary-class", "--json", str(out)]
        start = time.perf_counter()
        subprocess.run(cmd, check=True, capture_output=True)
        print(f"veil check process on Adult: {time.perf_counter() - start:.2f} s")

    frame = pd.read_csv(adult_path(), sep=";", dtype=str, keep_default_na=False)
    rng = np.random.default_rng(7)
    reps = -(-1_000_000 // len(frame))
    big = pd.concat([frame] * reps, ignore_index=True).iloc[:1_000_000].copy()
    age = big["age"].astype(int).to_numpy() + rng.integers(-20, 21, size=len(big))
    big["age"] = np.clip(age, 17, 99).astype(str)
    dataset = Dataset.from_pandas(big, quasi_identifiers=ADULT_QUASI_IDENTIFIERS, sensitive=["salary-class"],
                                  kinds={"age": "numeric"})
    start = time.perf_counter()
    big_classes = ClassTable.from_dataset(dataset)
    build = time.perf_counter() - start
    ev = best_of(lambda: evaluate(big_classes), 3)
    print(f"1M rows: {big_classes.n_records:,} rows, {big_classes.n_classes:,} classes; "
          f"class table {build:.2f} s, all models {ev * 1e3:.1f} ms, total after load {build + ev:.2f} s")


if __name__ == "__main__":
    main()
