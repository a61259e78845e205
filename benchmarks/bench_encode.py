"""Time ``Dataset.encode`` on Adult x30 (905k rows): read the CSV, then encode every column.

Usage: ``PYTHONPATH=src python benchmarks/bench_encode.py [--copies 30] [--repeat 3]``.
Prints the best of ``--repeat`` runs for reading the file and for encoding all
its columns (a fresh dataset each run), as wall-clock and as CPU time of this
process (``time.process_time``, less disturbed by other work on a shared machine).
Run it with ``PYTHONPATH`` pointing at two checkouts, alternately, to compare them.
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
    parser.add_argument("--t-closeness", action="store_true",
                        help="Time anonymize(k=5 + hierarchical 0.2-closeness, 5%%) on Adult instead "
                        "(fresh dataset and hierarchies each run: encoding and leaf look-ups included).")
    args = parser.parse_args()
    if args.t_closeness:
        hierarchical_t_closeness(args.repeat)
        return

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
            wall, cpu = time.perf_counter(), time.process_time()
            dataset = Dataset.read(path)
            reads.append((time.perf_counter() - wall, time.process_time() - cpu))
            wall, cpu = time.perf_counter(), time.process_time()
            for column in dataset.columns:
                dataset.encode(column)
            encodes.append((time.perf_counter() - wall, time.process_time() - cpu))
        print(f"rows={dataset.n_records} columns={len(dataset.columns)}")
        for name, runs in (("read", reads), ("encode", encodes)):
            print(f"{name:6s} best wall {min(w for w, _ in runs):.3f} s, best cpu {min(c for _, c in runs):.3f} s")


def hierarchical_t_closeness(repeat: int) -> None:
    from veil import anonymize
    from veil.datasets import adult_path, load_adult
    from veil.hierarchy import from_csv
    from veil.models import HierarchicalTCloseness, KAnonymity

    runs = []
    for _ in range(repeat):
        salary = from_csv(adult_path("adult_hierarchy_salary-class.csv"), name="salary-class")
        dataset = load_adult().with_hierarchies({"salary-class": salary})
        wall, cpu = time.perf_counter(), time.process_time()
        anonymize(dataset, [KAnonymity(k=5), HierarchicalTCloseness(sensitive="salary-class", t=0.2)],
                  suppression_limit=0.05)
        runs.append((time.perf_counter() - wall, time.process_time() - cpu))
    print(f"k=5 + hierarchical 0.2-closeness, 5%: best wall {min(w for w, _ in runs):.3f} s, "
          f"best cpu {min(c for _, c in runs):.3f} s")


if __name__ == "__main__":
    main()
