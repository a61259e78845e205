"""``veil risk --engine duckdb`` on an N-row Adult-like Parquet file (8 QIs): wall time and peak RSS.

The file is generated in chunks (never the whole table in memory), with a
fixed seed.  ``--mode rows`` (default) draws whole Adult records, so the data
has Adult's joint distribution and at most Adult's distinct combinations;
``--mode marginals`` draws each column independently from Adult's value
frequencies, the worst case: millions of distinct combinations, hence a class
table millions of rows long (memory grows with the classes, not the records).  Then ``veil risk --engine duckdb`` runs in a child
process, and its wall time and peak resident memory (``ru_maxrss`` of the
child) are printed.

Usage::

    python benchmarks/bench_engines_scale.py --rows 10000000            # the figure in docs/performance.md
    python benchmarks/bench_engines_scale.py --rows 10000000 --mode marginals   # worst case
    python benchmarks/bench_engines_scale.py --rows 100000000 --folder /big/disk  # the 100M run
"""

from __future__ import annotations

import argparse
import os
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.parquet as pq

from veil.datasets import ADULT_QUASI_IDENTIFIERS, adult_path

CHUNK = 1_000_000


def generate(path: Path, rows: int, seed: int = 0, mode: str = "rows") -> None:
    """Write ``rows`` Adult-like rows (the 8 QIs and salary-class) to ``path``, one chunk at a time."""
    adult = pd.read_csv(adult_path(), sep=";", dtype=str, keep_default_na=False)
    columns = [*ADULT_QUASI_IDENTIFIERS, "salary-class"]
    # per column: its distinct values and their frequencies in Adult
    marginals = {c: adult[c].value_counts(normalize=True) for c in columns}
    rng = np.random.default_rng(seed)
    schema = pa.schema([(c, pa.string()) for c in columns])
    with pq.ParquetWriter(path, schema) as writer:
        done = 0
        while done < rows:
            n = min(CHUNK, rows - done)
            arrays = []
            if mode == "rows":  # whole Adult records: the joint distribution
                picked = rng.integers(0, len(adult), size=n)
                arrays = [pa.array(adult[c].to_numpy(dtype=object)[picked], pa.string()) for c in columns]
            for c in (columns if mode == "marginals" else []):
                values, weights = marginals[c].index.to_numpy(dtype=object), marginals[c].to_numpy()
                codes = rng.choice(len(values), size=n, p=weights)
                arrays.append(pa.DictionaryArray.from_arrays(pa.array(codes, pa.int32()), pa.array(values, pa.string())).cast(pa.string()))
            writer.write_table(pa.Table.from_arrays(arrays, schema=schema))
            done += n


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=int, default=10_000_000)
    parser.add_argument("--folder", type=Path, default=None, help="Where the Parquet file goes (default: a temp folder).")
    parser.add_argument("--mode", choices=["rows", "marginals"], default="rows",
                        help="Draw whole Adult records (default) or each column independently (worst case).")
    parser.add_argument("--keep", action="store_true", help="Keep the generated file.")
    args = parser.parse_args()
    folder = Path(args.folder or tempfile.mkdtemp(prefix="veil-scale-"))
    folder.mkdir(parents=True, exist_ok=True)
    data = folder / f"adult_like_{args.mode}_{args.rows}.parquet"
    if not data.exists():
        tick = time.perf_counter()
        generate(data, args.rows, mode=args.mode)
        print(f"generated {args.rows:,} rows in {time.perf_counter() - tick:.1f} s "
              f"({data.stat().st_size / 1e6:.0f} MB)", flush=True)
    report = folder / "risk.json"
    command = [sys.executable, "-c", "from veil.cli import app; app(prog_name='veil')", "risk", str(data),
               "--qi", ",".join(ADULT_QUASI_IDENTIFIERS), "--sensitive", "salary-class",
               "--engine", "duckdb", "--max-qi-size", "2", "--json", str(report)]
    tick = time.perf_counter()
    subprocess.run(command, check=True, stdout=subprocess.DEVNULL, env=dict(os.environ))
    wall = time.perf_counter() - tick
    peak_mb = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024  # KiB on Linux
    classes = __import__("json").loads(report.read_text())["classes"]
    print(f"veil risk --engine duckdb: {args.rows:,} rows ({args.mode}), 8 QIs, {classes:,} classes: wall {wall:.1f} s, peak RSS {peak_mb:.0f} MB")
    if not args.keep:
        data.unlink()
        report.unlink(missing_ok=True)


if __name__ == "__main__":
    main()
