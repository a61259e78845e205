"""A sensitive attribute with many values: the whole ``veil anonymize`` process, time and peak memory.

Run from the repository root (``PYTHONPATH=src`` to measure the working tree)::

    PYTHONPATH=src python benchmarks/bench_sensitive_scale.py [--workdir DIR] [--rows 60000]

Data (generated, seeded; not timed): 60,000 rows shaped like a wage survey, 7 quasi-identifiers
(``age`` 18-80, ``sex``, ``education`` as five ordered categories with number prefixes,
``marital``, ``occupation`` of 20 values, ``children`` written as text ``"0.0"``-``"6.0"``,
``year`` 2003-2009) and ``income``, a numeric sensitive attribute of exactly 25,000 distinct
values written with one decimal, skewed (a few values frequent, most seen once or twice), and 3%
of its cells missing (blank).

Jobs, each one ``veil anonymize`` child with ``--auto-hierarchies -k 5`` (target: at most 10 s and
1 GiB each, as a whole process):

* ``k-only``: 5-anonymity alone, ``income`` still sensitive (the reference);
* ``distinct``: distinct 2-diversity on ``income`` (``-l income:2``);
* ``entropy``: entropy 2-diversity (``--require "entropy_l[income]>=2"``);
* ``ordered``: ordered-distance t-closeness (``--require "t_ordered[income]<=0.3"``);
* ``combined`` (not run by default): distinct 3-, entropy 2.5-, recursive (3,2)-diversity and ordered
  t <= 0.3 at once, 5% suppression, suppressed records kept (their group judged too).  With
  ``--rows 6000 --values 1500`` the dense histograms of older versions can hold it: run it with
  each version's ``PYTHONPATH`` to compare them.

Each child runs under ``/usr/bin/time -v``: its wall time, user + system CPU time (which a shared
machine inflates less than the wall time) and peak resident set size are printed as a table, with
the machine (cores, CPU, load average at the start).
"""

from __future__ import annotations

import argparse
import os
import platform
import re
import subprocess
import sys
import tempfile
from pathlib import Path

import numpy as np
import pandas as pd

QUASI_IDENTIFIERS = ["age", "sex", "education", "marital", "occupation", "children", "year"]
JOBS = {
    "k-only": [],
    "distinct": ["-l", "income:2"],
    "entropy": ["--require", "entropy_l[income]>=2"],
    "ordered": ["--require", "t_ordered[income]<=0.3"],
    "combined": ["-l", "income:3", "--require", "entropy_l[income]>=2.5, t_ordered[income]<=0.3, c[income]<=3",
                 "--suppression", "0.05", "--suppressed", "keep"],
}
DEFAULT_JOBS = "k-only,distinct,entropy,ordered"
EDUCATION = ["1. < HS Grad", "2. HS Grad", "3. Some College", "4. College Grad", "5. Advanced Degree"]
MARITAL = ["1. Never Married", "2. Married", "3. Widowed", "4. Divorced", "5. Separated"]


def generate(rows: int, values: int = 25_000, seed: int = 11) -> pd.DataFrame:
    """The wage-survey-shaped table (see the module docstring)."""
    rng = np.random.default_rng(seed)
    pool = np.round(np.sort(rng.choice(np.arange(50_000, 3_000_000), size=values, replace=False)) / 10, 1)
    skew = rng.zipf(1.6, size=rows - values) % values  # a few incomes frequent, most rare
    text = np.char.mod("%.1f", np.concatenate([pool, pool[skew]])).astype(object)  # every value occurs once first
    text[values + rng.choice(rows - values, size=rows * 3 // 100, replace=False)] = ""  # 3% missing, not those
    text = text[rng.permutation(rows)]
    return pd.DataFrame({
        "age": rng.integers(18, 81, rows).astype(str),
        "sex": rng.choice(["1. Male", "2. Female"], rows),
        "education": rng.choice(EDUCATION, rows, p=[0.1, 0.3, 0.25, 0.2, 0.15]),
        "marital": rng.choice(MARITAL, rows, p=[0.3, 0.5, 0.05, 0.1, 0.05]),
        "occupation": rng.choice([f"occupation {i:02d}" for i in range(20)], rows),
        "children": np.char.mod("%.1f", rng.poisson(1.2, rows).clip(0, 6)),
        "year": rng.integers(2003, 2010, rows).astype(str),
        "income": text,
    })


def measure(command: list[str]) -> dict[str, float]:
    """Run ``command`` under ``/usr/bin/time -v``: wall and CPU seconds, peak RSS in MiB, exit status."""
    done = subprocess.run(["/usr/bin/time", "-v", *command], capture_output=True, text=True)
    stats = done.stderr
    wall = re.search(r"Elapsed \(wall clock\) time \(h:mm:ss or m:ss\): (?:(\d+):)?(\d+):([\d.]+)", stats)
    hours, minutes, seconds = (float(x) if x else 0.0 for x in wall.groups())  # type: ignore[union-attr]
    cpu = sum(float(re.search(rf"{what} time \(seconds\): ([\d.]+)", stats).group(1))  # type: ignore[union-attr]
              for what in ("User", "System"))
    rss = int(re.search(r"Maximum resident set size \(kbytes\): (\d+)", stats).group(1))  # type: ignore[union-attr]
    return {"wall": hours * 3600 + minutes * 60 + seconds, "cpu": cpu, "rss_mib": rss / 1024,
            "status": done.returncode}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--workdir", type=Path, help="keep the data and outputs here (default: a temporary folder)")
    parser.add_argument("--rows", type=int, default=60_000)
    parser.add_argument("--values", type=int, default=25_000, help="distinct incomes (at most --rows)")
    parser.add_argument("--jobs", default=DEFAULT_JOBS, help="comma-separated, of: " + ", ".join(JOBS))
    args = parser.parse_args()
    veil = str(Path(sys.executable).parent / "veil")
    with tempfile.TemporaryDirectory() as tmp:
        work = args.workdir or Path(tmp)
        work.mkdir(parents=True, exist_ok=True)
        data = work / "wages.csv"
        generate(args.rows, args.values).to_csv(data, index=False)
        load = os.getloadavg()
        print(f"machine: {os.cpu_count()} cores, {platform.processor() or platform.machine()}, "
              f"load average {load[0]:.1f} at the start; python {platform.python_version()}")
        print(f"{'job':<10} {'wall s':>7} {'cpu s':>7} {'peak RSS MiB':>13}  status")
        failed = 0
        for name in args.jobs.split(","):
            command = [veil, "anonymize", str(data), "--qi", ",".join(QUASI_IDENTIFIERS), "--sensitive", "income",
                       "--kind", "income=numeric", "--auto-hierarchies", "-k", "5", *JOBS[name],
                       "-o", str(work / f"{name}.csv"), "--json", str(work / f"{name}.json"), "-q", "--seed", "1"]
            result = measure(command)
            print(f"{name:<10} {result['wall']:>7.2f} {result['cpu']:>7.2f} {result['rss_mib']:>13.0f}  "
                  f"{result['status']}")
            failed += result["status"] != 0
    return 1 if failed else 0  # a job that failed (the figures are judged by reading them: the machine varies)


if __name__ == "__main__":
    sys.exit(main())
