"""Time ``veil explore`` on a 3,000-row wage survey against the anonymizations it contains.

Run: ``PYTHONPATH=src .venv/bin/python benchmarks/bench_explore_survey.py`` (from the repository root).

The table is generated (seeded) in the shape of a public wage survey: year,
age, five ordered categories with number prefixes (``1. < HS Grad`` …),
3,000 rows.  The sweep is 24 points (k = 2, 5, 10, 20 × distinct l = 1, 2 of
``health`` × suppression 0, 0.05, 0.1) with ``--auto-hierarchies`` (age given
finer, ``interval:1,2,4,8,16,32``, for a lattice of some thousands of nodes).
Measured, one run each (the machine is shared: the ratio matters more than
the seconds):

* ``explore``: the whole command in-process (read, hierarchies, 24 points,
  the lattice view of the chosen point, the JSON written);
* ``explore --no-lattice``: the same without the lattice view;
* ``anonymizations``: the 24 points as 24 separate in-process runs, each
  reading the file, building the hierarchies and calling ``veil.anonymize``.

Target (issue 33, item 7): ``explore`` at most 3 times ``anonymizations``.
"""

from __future__ import annotations

import sys
import tempfile
import time
from pathlib import Path

import numpy as np
import pandas as pd
from typer.testing import CliRunner

import veil
from veil.cli import app
from veil.dataset import Dataset
from veil.hierarchy import resolve
from veil.models import DistinctLDiversity, KAnonymity

QIS = ["year", "age", "maritl", "race", "education", "jobclass"]
KS, LS, SUPPRESSION = (2, 5, 10, 20), (1, 2), (0.0, 0.05, 0.1)
AGE = "interval:1,2,4,8,16,32"


def survey(path: Path, n: int = 3000) -> None:
    rng = np.random.default_rng(0)
    pd.DataFrame({
        "year": rng.integers(2003, 2010, n).astype(str),
        "age": rng.integers(18, 81, n).astype(str),
        "maritl": rng.choice(["1. Never Married", "2. Married", "3. Widowed", "4. Divorced", "5. Separated"], n,
                             p=[.22, .68, .01, .07, .02]),
        "race": rng.choice(["1. White", "2. Black", "3. Asian", "4. Other"], n, p=[.83, .09, .06, .02]),
        "education": rng.choice(["1. < HS Grad", "2. HS Grad", "3. Some College", "4. College Grad",
                                 "5. Advanced Degree"], n, p=[.09, .32, .22, .23, .14]),
        "jobclass": rng.choice(["1. Industrial", "2. Information"], n),
        "health": rng.choice(["1. <=Good", "2. >=Very Good"], n),
    }).to_csv(path, index=False)


def explore_seconds(data: Path, folder: Path, *extra: str) -> float:
    args = ["explore", str(data), "--qi", ",".join(QIS), "--sensitive", "health", "--auto-hierarchies",
            "--hierarchy", f"age={AGE}", "--k", ",".join(map(str, KS)), "--l", ",".join(map(str, LS)),
            "--suppression", ",".join(map(str, SUPPRESSION)), "--json", str(folder / f"x{len(extra)}.json"), "-q",
            *extra]
    began = time.perf_counter()
    result = CliRunner().invoke(app, args)
    seconds = time.perf_counter() - began
    assert result.exit_code == 0, result.output
    return seconds


def anonymizations_seconds(data: Path) -> float:
    began = time.perf_counter()
    for k in KS:
        for l in LS:
            for share in SUPPRESSION:
                dataset = Dataset.read(data, quasi_identifiers=QIS, sensitive=["health"])
                dataset = dataset.with_hierarchies(resolve(dataset, {"age": AGE}, auto=True).hierarchies)
                models = [KAnonymity(k=k), DistinctLDiversity(sensitive="health", l=l)]
                veil.anonymize(dataset, models, suppression_limit=share, shuffle=False)
    return time.perf_counter() - began


def main() -> None:
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        data = folder / "wage.csv"
        survey(data)
        singles = anonymizations_seconds(data)
        whole = explore_seconds(data, folder)
        bare = explore_seconds(data, folder, "--no-lattice")
    print(f"24 anonymizations: {singles:.2f} s; explore: {whole:.2f} s ({whole / singles:.2f}x); "
          f"explore --no-lattice: {bare:.2f} s ({bare / singles:.2f}x); python {sys.version.split()[0]}")


if __name__ == "__main__":
    main()
