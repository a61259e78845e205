"""Time ``veil.engines``: group-count and the whole ``anonymize_file`` through DuckDB.

Run: ``.venv/bin/python benchmarks/bench_engines.py [--json PATH] [--rows N]``.

Each measurement runs in a fresh child process (this script with
``--child``), which reports its wall time and its peak resident memory
(``VmHWM`` from ``/proc/self/status``: the high-water mark of that process,
DuckDB's native allocations included; ``ru_maxrss`` is not used because Linux
carries it over from the parent).  The peak after the imports is reported too,
so the figures say what the work itself added.

Data:

* Adult (30,162 rows, the bundled ``;``-separated CSV), 8 QIs, ``salary-class``
  sensitive;
* 1,000,000 rows: Adult replicated, ``age`` shifted by a random int in [-2, 2]
  (clipped to [17, 90]) and ~1% of rows given another native country (seeded),
  the table of ``benchmarks/bench_core.py``, written as a CSV into a temporary
  folder (not timed).

Measurements (all after the file exists; reading the file is included):

* ``group_count`` alone (the pass that builds the class table);
* ``anonymize_file`` with k=5 and 5% suppression, and with distinct
  2-diversity of salary-class added: group-count, class table, search, apply
  (write + shuffle) and verification (a group-count of the output);
* the same job in memory (``Dataset.read`` + ``veil.anonymize`` +
  ``write_table``), for reference;
* DuckDB with ``memory_limit="256MB"``, to show that memory stays bounded.
"""

from __future__ import annotations

import argparse
import json
import platform
import subprocess
import sys
import tempfile
import time
from pathlib import Path

MIB = 1024 * 1024
SEED = 20240611


def peak_bytes() -> int:
    """This process's peak resident set size (``VmHWM``), in bytes."""
    with open("/proc/self/status") as handle:
        for line in handle:
            if line.startswith("VmHWM:"):
                return int(line.split()[1]) * 1024
    raise RuntimeError("VmHWM is not available (Linux only)")


def big_csv(rows: int, folder: Path) -> Path:
    """Adult replicated to ``rows`` rows and perturbed (as in bench_core.py), as a CSV."""
    import numpy as np
    import pandas as pd

    from veil.datasets import load_adult

    frame = load_adult().frame
    rng = np.random.default_rng(SEED)
    reps = -(-rows // len(frame))
    big = pd.concat([frame] * reps, ignore_index=True).iloc[:rows].copy()
    age = big["age"].astype(int).to_numpy() + rng.integers(-2, 3, size=rows)
    big["age"] = np.clip(age, 17, 90).astype(str)
    countries = np.asarray(sorted(set(frame["native-country"].tolist())), dtype=object)
    swap = rng.random(rows) < 0.01
    country = big["native-country"].to_numpy(dtype=object).copy()
    country[swap] = countries[rng.integers(0, len(countries), size=int(swap.sum()))]
    big["native-country"] = country
    path = folder / f"adult-{rows}.csv"
    big.to_csv(path, index=False)
    return path


def child(scenario: str, path: str, out_dir: str) -> None:
    """One measurement in this (fresh) process; prints a JSON line."""
    from veil.datasets import ADULT_QUASI_IDENTIFIERS, load_adult
    from veil.engines import DuckDBEngine, anonymize_file
    from veil.models import DistinctLDiversity, KAnonymity

    qis = list(ADULT_QUASI_IDENTIFIERS)
    hierarchies = load_adult().hierarchies
    after_imports = peak_bytes()
    k5 = [KAnonymity(k=5)]
    k5_l2 = [KAnonymity(k=5), DistinctLDiversity(sensitive="salary-class", l=2)]
    extra: dict[str, object] = {}
    start = time.perf_counter()
    if scenario == "group_count":
        counts = DuckDBEngine().group_count(path, qis, ["salary-class"])
        extra = {"combinations": len(counts)}
    elif scenario in ("duckdb-k5", "duckdb-k5-l2", "duckdb-k5-256MB"):
        engine = DuckDBEngine(memory_limit="256MB") if scenario.endswith("256MB") else DuckDBEngine()
        report = anonymize_file(
            path, engine=engine, quasi_identifiers=qis, sensitive=["salary-class"], hierarchies=hierarchies,
            models=k5_l2 if scenario.endswith("l2") else k5, suppression_limit=0.05,
            output=str(Path(out_dir) / f"{scenario}.csv"), seed=1, kinds={"age": "numeric"},
        )
        extra = {"phases": report["seconds"], "classes": report["classes"],
                 "transformation": report["transformation"], "suppressed": report["suppressed"]}
    elif scenario == "memory-k5":
        import veil
        from veil.dataset import Dataset
        from veil.release import write_table

        dataset = Dataset.read(path, quasi_identifiers=qis, sensitive=["salary-class"], kinds={"age": "numeric"})
        result = veil.anonymize(dataset.with_hierarchies(hierarchies), k5, suppression_limit=0.05, seed=1)
        write_table(result.data, Path(out_dir) / f"{scenario}.csv")
        extra = {"transformation": result.transformation, "suppressed": result.report["suppressed"]}
    else:
        raise SystemExit(f"unknown scenario {scenario!r}")
    seconds = time.perf_counter() - start
    print(json.dumps({"scenario": scenario, "seconds": seconds, "peak": peak_bytes(),
                      "peak_after_imports": after_imports, **extra}))


def measure(scenario: str, path: Path, out_dir: Path) -> dict:
    done = subprocess.run(
        [sys.executable, __file__, "--child", scenario, str(path), str(out_dir)],
        capture_output=True, text=True, check=True,
    )
    return json.loads(done.stdout.strip().splitlines()[-1])


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=int, default=1_000_000)
    parser.add_argument("--json", type=Path, default=None, help="also write the results here")
    parser.add_argument("--child", nargs=3, metavar=("SCENARIO", "PATH", "OUT"), help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        child(*args.child)
        return 0

    from veil.datasets import adult_path

    results: dict[str, object] = {"python": platform.python_version(), "platform": platform.platform()}
    rows = []
    with tempfile.TemporaryDirectory(prefix="veil-bench-engines-") as tmp:
        folder = Path(tmp)
        start = time.perf_counter()
        big = big_csv(args.rows, folder)
        results["generate_seconds"] = time.perf_counter() - start
        results["big_csv_bytes"] = big.stat().st_size
        for label, path, scenarios in (
            ("Adult", Path(adult_path()), ("group_count", "duckdb-k5", "duckdb-k5-l2", "memory-k5")),
            (f"{args.rows:,} rows", big, ("group_count", "duckdb-k5", "duckdb-k5-l2", "duckdb-k5-256MB", "memory-k5")),
        ):
            for scenario in scenarios:
                m = measure(scenario, path, folder)
                results[f"{label}: {scenario}"] = m
                phases = m.get("phases")
                detail = ", ".join(f"{k} {v:.2f}" for k, v in phases.items()) if phases else ""
                rows.append((label, scenario, m["seconds"], m["peak"], m["peak"] - m["peak_after_imports"], detail))

    print(f"big CSV: {results['big_csv_bytes'] / MIB:.0f} MiB, generated in {results['generate_seconds']:.1f} s")
    print(f"{'data':<18} {'scenario':<17} {'seconds':>8} {'peak RSS':>9} {'+imports':>9}  phases (s)")
    for label, scenario, seconds, peak, added, detail in rows:
        print(f"{label:<18} {scenario:<17} {seconds:8.2f} {peak / MIB:7.0f} M {added / MIB:7.0f} M  {detail}")
    if args.json:
        args.json.write_text(json.dumps(results, indent=2) + "\n", encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
