"""Time ``Dataset.encode`` on Adult x30 (905k rows): read the CSV, then encode every column.

Usage: ``PYTHONPATH=src python benchmarks/bench_encode.py [--copies 30] [--repeat 3]``.
Prints the best of ``--repeat`` runs for reading the file and for encoding all
its columns (the encoding cache is cleared between runs).
"""

from __future__ import annotations

import argparse
import tempfile
import time
from pathlib import Path


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--copies", type=int, default=30)
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()

    from veil.dataset import Dataset
    from veil.datasets import adult_path

    text = Path(adult_path()).read_text(encoding="utf-8")
    header, _, body = text.partition("\n")
    body = body if body.endswith("\n") else body + "\n"
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "adult_x.csv"
        path.write_text(header + "\n" + body * args.copies, encoding="utf-8")
        reads, encodes = [], []
        for _ in range(args.repeat):
            start = time.perf_counter()
            dataset = Dataset.read(path)
            reads.append(time.perf_counter() - start)
            start = time.perf_counter()
            for column in dataset.columns:
                dataset.encode(column)
            encodes.append(time.perf_counter() - start)
        print(f"rows={dataset.n_records} columns={len(dataset.columns)}")
        print(f"read   best {min(reads):.3f} s")
        print(f"encode best {min(encodes):.3f} s (all {len(dataset.columns)} columns)")


if __name__ == "__main__":
    main()
