"""``veil synthesize --engine duckdb`` on an Adult-like Parquet file of N rows: wall time and peak memory.

Run: ``PYTHONPATH=src .venv/bin/python benchmarks/bench_synthesize_scale.py [--rows 100000000]
[--scratch /work/scratch/synth100m] [--format csv|parquet]``.

The file is generated once (kept in the scratch folder, never in the
repository) by DuckDB from the bundled Adult (30,162 rows, 9 columns):
``--rows`` records drawn with replacement (record ``hash(i) mod 30162`` for
i = 0 … N-1), age as an integer column, the rest text, written as Parquet.
Then ``veil synthesize FILE --engine duckdb --epsilon 1 --domain domain.json``
runs in a child process, with the full domain given (Adult's published
categories, age in 20 bins of 5 years, as ``bench_synthesize.py``), and
writes the N synthetic rows in chunks; its wall time and its peak resident
memory (the child and its children: ``getrusage(RUSAGE_CHILDREN)``) are
printed and written to ``benchmarks/results/synthesize_scale_<N>_<format>.json``.
The synthetic table is removed afterwards; the generated input is kept.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import resource
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "benchmarks"))
sys.path.insert(0, str(ROOT / "src"))

from bench_synthesize import adult_domain  # noqa: E402

from veil.datasets import load_adult  # noqa: E402


def generate(path: Path, rows: int) -> float:
    """Write ``rows`` Adult records drawn with replacement to ``path`` (Parquet); the seconds taken."""
    import duckdb

    frame = load_adult().frame
    frame = frame.assign(age=frame["age"].astype("int64"))
    t0 = time.perf_counter()
    tmp = path.with_name(path.name + ".part")
    con = duckdb.connect()
    try:
        con.execute(f"SET temp_directory = '{path.parent / 'duckdb_tmp'}'")
        con.execute("SET memory_limit = '2GB'")
        con.register("adult_frame", frame)
        con.execute("CREATE TABLE adult AS SELECT row_number() OVER () - 1 AS i, * FROM adult_frame")
        cols = ", ".join(f'a."{c}"' for c in frame.columns)
        con.execute(f"COPY (SELECT {cols} FROM range({int(rows)}) r JOIN adult a "
                    f"ON a.i = hash(r.range) % {len(frame)}) TO '{tmp}' (FORMAT parquet, ROW_GROUP_SIZE 1000000)")
    finally:
        con.close()
    tmp.replace(path)
    return time.perf_counter() - t0


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=int, default=10_000_000,
                        help="records (the issue's target is 100,000,000; the default fits `make bench`'s timeout)")
    parser.add_argument("--scratch", type=Path, default=Path(tempfile.gettempdir()) / "veil-synth-scale")
    parser.add_argument("--format", choices=("csv", "parquet"), default="csv", help="of the synthetic table")
    parser.add_argument("--epsilon", type=float, default=1.0)
    args = parser.parse_args()
    args.scratch.mkdir(parents=True, exist_ok=True)
    data = args.scratch / f"adult_{args.rows}.parquet"
    if not data.exists():
        print(f"generating {args.rows:,} rows into {data} ...", flush=True)
        print(f"generated in {generate(data, args.rows):.1f} s ({data.stat().st_size / 2**20:.0f} MiB)", flush=True)
    domain = args.scratch / "domain.json"
    domain.write_text(json.dumps(adult_domain(load_adult().frame)))
    out = args.scratch / f"synthetic_{args.rows}.{args.format}"
    report = args.scratch / f"synthetic_{args.rows}.json"
    cmd = [sys.executable, "-c", "import sys; from veil.cli import main; sys.exit(main())", "synthesize", str(data), "--engine", "duckdb", "--epsilon",
           str(args.epsilon), "--domain", str(domain), "-o", str(out), "--json", str(report), "--seed", "0"]
    env = {**os.environ, "PYTHONPATH": str(ROOT / "src")}
    t0 = time.perf_counter()
    done = subprocess.run(cmd, env=env, capture_output=True, text=True)
    seconds = time.perf_counter() - t0
    peak_gib = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 2**20  # KiB on Linux
    if done.returncode != 0:
        sys.exit(f"veil synthesize failed ({done.returncode}): {done.stderr.strip()}")
    rep = json.loads(report.read_text())
    size = out.stat().st_size
    out.unlink()
    result = {"rows_in": args.rows, "rows_out": rep["rows"], "seconds": round(seconds, 1),
              "peak_rss_gib": round(peak_gib, 3), "output_format": args.format,
              "output_mib": round(size / 2**20, 1), "marginal_error": rep["marginal_error"],
              "command": "veil " + " ".join(cmd[3:]), "machine": platform.platform(), "cpus": os.cpu_count(),
              "load_average_after": [round(x, 1) for x in os.getloadavg()]}
    print(json.dumps(result, indent=2))
    results = ROOT / "benchmarks" / "results" / f"synthesize_scale_{args.rows}_{args.format}.json"
    results.parent.mkdir(exist_ok=True)
    results.write_text(json.dumps(result, indent=2) + "\n")
    shutil.rmtree(args.scratch / "duckdb_tmp", ignore_errors=True)


if __name__ == "__main__":
    main()
