"""What runs before a ``veil.anonymize()`` call changes how long the call takes (issue #16).

Run from the repository root::

    PYTHONPATH=src python benchmarks/bench_idle.py                               # without the ARX row
    PYTHONPATH=src python benchmarks/bench_idle.py --arx-build /scratch/arx-build  # with it (see vs_arx/)

The call is the one ``benchmarks/vs_arx`` times for Adult, k=10 without suppression, with the
search handed the node it finds (``min_levels`` = ``max_levels``), so that it is the work besides
the search.  Before each call one of these runs: nothing (back to back), a sleep of 2, 10 or
100 ms, a 100 ms busy loop in the calling thread, an ARX call (with ``--arx-build``), a sum over
a 64 MB array (the data caches flushed), or about 2 ms of other pandas and Python work.  Each
prints the range of ``--rounds`` medians of ``--calls`` calls, as a Markdown table row.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--arx-build", type=Path, help="an ARX build made by vs_arx/build_arx.sh (adds the ARX row)")
    parser.add_argument("--calls", type=int, default=15)
    parser.add_argument("--rounds", type=int, default=3)
    args = parser.parse_args()
    sys.path.insert(0, str(HERE / "vs_arx"))
    import numpy as np
    import pandas as pd
    from run import CONFIGS, Arx, Veil, build  # type: ignore[import-not-found]

    from veil.datasets import adult_path

    adult = pd.read_csv(adult_path(), sep=";", dtype=str, keep_default_na=False)
    veil = Veil({"adult": adult, "x10": adult, "x30": adult})
    config = next(c for c in CONFIGS if c.name == "k=10, 0%")
    node = veil.anonymize(config)["node"]
    other = pd.DataFrame({"a": np.arange(20_000) % 37, "b": np.random.default_rng(1).random(20_000)})
    blob = [{"k": i, "v": str(i) * 3} for i in range(3_000)]
    big = np.ones(64 << 17)  # 64 MB of float64

    def busy() -> None:
        start = time.perf_counter()
        while time.perf_counter() - start < 0.1:
            pass

    def other_work() -> None:
        other.groupby("a")["b"].agg(["mean", "std"])
        json.loads(json.dumps(blob))
        other.sort_values("b").head()

    before = {"nothing (back to back)": lambda: None, "`time.sleep(0.002)`": lambda: time.sleep(0.002),
              "`time.sleep(0.01)`": lambda: time.sleep(0.01), "`time.sleep(0.1)`": lambda: time.sleep(0.1),
              "a 100 ms busy loop in the calling thread": busy}
    arx = None
    if args.arx_build is not None:
        arx = Arx(build(None, args.arx_build, False), str(Path(adult_path()).parent))
        command = f"anonymize {config.spec} {adult_path()}"
        before["an ARX call (its JVM)"] = lambda: arx.ask(command)
    before["a 64 MB array summed (the data caches flushed)"] = big.sum
    before["other pandas and Python work, about 2 ms"] = other_work
    try:
        for _ in range(3):  # warm-up
            veil.anonymize(config, node=node)
            if arx is not None:
                arx.ask(command)
        medians: dict[str, list[float]] = {name: [] for name in before}
        for _ in range(args.rounds):
            for name, first in before.items():
                times = []
                for _ in range(args.calls):
                    first()
                    times.append(veil.anonymize(config, node=node)["seconds"])
                medians[name].append(statistics.median(times) * 1e3)
    finally:
        if arx is not None:
            arx.close()
    print("| before each call | the call |\n|---|---|")
    for name, values in medians.items():
        print(f"| {name} | {min(values):.1f}–{max(values):.1f} ms |")


if __name__ == "__main__":
    main()
