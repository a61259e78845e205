"""Where one ``veil.anonymize()`` call's time goes, step by step (issue #16).

Run from the repository root::

    PYTHONPATH=src python benchmarks/bench_steps.py                         # Adult, k=10 0%, one node
    PYTHONPATH=src python benchmarks/bench_steps.py --data x30 --config "k=5, 5%" --calls 7
    python benchmarks/bench_steps.py --compare OLD_SRC --rounds 2           # this tree against another
    PYTHONPATH=src python benchmarks/bench_steps.py --idle 50               # each call after 50 ms idle

The call is what ``benchmarks/vs_arx`` times: ``Dataset.from_pandas`` over the parsed table
(``adult``, or Adult replicated ``x10`` / ``x30`` as ``vs_arx/run.py`` makes it), then
``veil.anonymize``.  Each pipeline step is timed with ``time.perf_counter`` around the
pipeline's own call (the wrappers are installed in this process only): the identifier scan,
the input's class table, the search, apply, the check of the release and the report; the
median over ``--calls`` calls after one warm-up is printed in ms.  "encode" is what the call
spends before the scan encoding the class table's columns (``anonymize`` encodes them
first, so that the scan reads the sensitive column's codes).  ``--compare`` runs this tree
and another in fresh processes, alternately, and prints both.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
STEPS = ("encode", "scan", "class table", "search", "apply", "check", "report", "total")


def _install(times: dict[str, list[float]]) -> None:
    """Wrap the pipeline's steps so that each call's time lands in ``times``."""
    import veil.anonymization as anonymization
    import veil.pipeline._run as run
    from veil.data import Dataset
    from veil.pipeline import ReleasePolicy
    from veil.pipeline._memory import MemoryRows

    def timed(function, step):
        def call(*args, **kwargs):
            start = time.perf_counter()
            try:
                return function(*args, **kwargs)
            finally:
                times.setdefault(step, []).append(time.perf_counter() - start)
        return call

    run.search = timed(run.search, "search")
    run.pipeline_report = timed(run.pipeline_report, "report")
    MemoryRows.class_table = timed(MemoryRows.class_table, "class table")
    MemoryRows.apply = timed(MemoryRows.apply, "apply")
    MemoryRows.verify = timed(MemoryRows.verify, "check")
    ReleasePolicy.check_identifiers = timed(ReleasePolicy.check_identifiers, "scan")
    Dataset.encode_all = timed(Dataset.encode_all, "encode")
    assert anonymization  # the entry point below reads the wrapped names at call time


def measure(data: str, config: str, calls: int, idle: float = 0.0) -> dict[str, float]:
    sys.path.insert(0, str(HERE / "vs_arx"))
    import pandas as pd
    from run import CONFIGS, Veil, replicate  # type: ignore[import-not-found]

    from veil.datasets import adult_path

    adult = pd.read_csv(adult_path(), sep=";", dtype=str, keep_default_na=False)
    tables = {"adult": adult, "x10": replicate(adult, 10) if data == "x10" else adult,
              "x30": replicate(adult, 30) if data == "x30" else adult}
    veil = Veil(tables)
    chosen = next(c for c in CONFIGS if c.name.endswith(config))
    chosen = type(chosen)(chosen.name, chosen.spec, data)
    times: dict[str, list[float]] = {}
    _install(times)
    encode: list[float] = []
    for i in range(calls + 1):
        first = len(times.get("encode", []))
        if idle:  # as between the side-by-side benchmark's calls, while the other tool runs
            time.sleep(idle / 1e3)
        start = time.perf_counter()
        veil.anonymize(chosen)
        total = time.perf_counter() - start
        # the call's first encode_all is anonymize's own (the class table's then finds the columns
        # cached; the check's encodes the released frame, within "check")
        encode.append(times["encode"][first])
        if i == 0:  # the warm-up
            times.clear()
            encode.clear()
            continue
        times.setdefault("total", []).append(total)
    times["encode"] = encode
    return {step: round(statistics.median(times[step]) * 1e3, 2) for step in STEPS if times.get(step)}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data", choices=("adult", "x10", "x30"), default="adult")
    parser.add_argument("--config", default="k=10, 0%", help="a configuration of vs_arx/run.py, by name")
    parser.add_argument("--calls", type=int, default=21)
    parser.add_argument("--compare", metavar="OLD_SRC")
    parser.add_argument("--rounds", type=int, default=2)
    parser.add_argument("--idle", type=float, default=0.0, metavar="MS",
                        help="sleep this long before each call (the side-by-side benchmark's calls start after idling)")
    args = parser.parse_args()
    if not args.compare:
        print(json.dumps(measure(args.data, args.config, args.calls, args.idle)))
        return
    rows: dict[str, list[dict]] = {"before": [], "after": []}
    for round_ in range(args.rounds):
        order = (("before", args.compare), ("after", str(HERE.parent / "src")))
        for label, src in order[::1 if round_ % 2 == 0 else -1]:
            env = dict(os.environ, PYTHONPATH=src)
            out = subprocess.run([sys.executable, __file__, "--data", args.data, "--config", args.config,
                                  "--calls", str(args.calls), "--idle", str(args.idle)],
                                 env=env, capture_output=True, text=True, check=True)
            rows[label].append(json.loads(out.stdout))
    print(f"{args.data}, {args.config}: median ms per step, {args.rounds} rounds x {args.calls} calls")
    print("| step | before ms | after ms |")
    print("|---|---|---|")
    for step in STEPS:
        before = [r[step] for r in rows["before"] if step in r]
        after = [r[step] for r in rows["after"] if step in r]
        show = lambda values: "–".join(f"{v:.1f}" for v in sorted({min(values), max(values)})) if values else "—"
        print(f"| {step} | {show(before)} | {show(after)} |")


if __name__ == "__main__":
    main()
