"""veil's SafePub side by side with ARX's on Adult: the information loss of each release, as a distribution.

Run (from the repository root, with a JDK on PATH; ARX is built by ``build_arx.sh`` from a source
checkout fetched once by hand, outside the repository)::

    python benchmarks/vs_arx/safepub.py --arx-src /scratch/arx --runs 20 --out docs/algorithms/safepub.md \
        benchmarks/vs_arx/README.md

Both tools release Adult (30,162 records, all nine columns quasi-identifiers with ARX's hierarchies,
as in ARX's SafePub tests) under the same (ε, δ), the same search budget and the same number of
steps, ``--runs`` times each (both are random).  ARX runs in one JVM (``ArxSafePub.java``: ARX 3.9's
``EDDifferentialPrivacy`` without a generalization scheme, i.e. its ``DataDependentEDDPAlgorithm``,
``Metric.createLossMetric()``, suppression limit 1, ``setDPSearchBudget(share · ε)``,
``setHeuristicSearchStepLimit(steps, EXPANSIONS)``); veil runs in this process
(``veil.anonymize(..., algorithm="safepub")``) three ways: its default (the smoothed score, one
exponential-mechanism draw over the whole lattice), ``score=granularity`` (ARX's score, one draw over
the whole lattice) and ``score=granularity search=walk`` (ARX's score and walk with the same steps,
then a draw among the nodes it scored).  One warm-up run of each is not counted.

The loss of a release is measured by one function, :func:`granularity_loss`, on the released table
of either tool: SafePub's objective (Bild et al. 2018, Section 5.1; ARX's
``MetricMDNMLoss.getScore`` times -(k - 1)), normalised by the number of input records,

    loss = (S + (1/d) Σ_released records Σ_i leaves(value_i) / |dom_i|) / N,

where S counts the records not released (unsampled or in a class under k), d the columns and
leaves(v)/|dom_i| the share of column i's hierarchy rows that value v covers (1 for ``*``).  It is
0 for the input released unchanged and 1 when nothing is released.  For ARX it is also recovered
from ARX's own score of the node it released (``-score · (k - 1) / N``), as a check.

The table of results replaces the text between the ``safepub-vs-arx`` markers of ``--out``; every
figure also goes to ``--json``.
"""

from __future__ import annotations

import argparse
import datetime as dt
import json
import os
import platform
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import pandas as pd
from run import write_section  # the section writer of the ARX comparison (this folder)

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent.parent
START_MARK = "<!-- safepub-vs-arx:start -->"
END_MARK = "<!-- safepub-vs-arx:end -->"
TOOLS = (("veil", "veil (default: smoothed score, one draw over the whole lattice)"),
         ("veil_granularity", "veil, score=granularity (ARX's score, one draw over the whole lattice)"),
         ("veil_walk", "veil, score=granularity search=walk (ARX's score and walk, then a draw among the nodes scored)"),
         ("arx", "ARX 3.9 (the best pivot by exact score)"))
#: The algorithm options of each veil row (``steps`` is added to the walk's).
VEIL_OPTIONS = {"veil": {}, "veil_granularity": {"score": "granularity"},
                "veil_walk": {"score": "granularity", "search": "walk"}}
#: The rows that draw over the whole lattice (no steps).
LATTICE_ROWS = ("veil", "veil_granularity")
NAMES = ("sex", "age", "race", "marital-status", "education", "native-country", "workclass", "occupation",
         "salary-class")


def shares(adult_dir: Path) -> dict[str, list[dict[str, float]]]:
    """Per column and level: value -> the share of the hierarchy's rows it covers (ARX's domain share)."""
    out = {}
    for name in NAMES:
        table = pd.read_csv(adult_dir / f"adult_hierarchy_{name}.csv", sep=";", header=None, dtype=str,
                            keep_default_na=False)
        out[name] = [(table[level].value_counts() / len(table)).to_dict() for level in table.columns]
    return out


def granularity_loss(released: pd.DataFrame, node: list[int], records: int,
                     share: dict[str, list[dict[str, float]]]) -> float:
    """SafePub's loss of a released table (see the module notes): suppressed or missing records count 1."""
    total = 0.0
    for name, level in zip(NAMES, node):
        table = {**share[name][level], "*": 1.0}
        values = released[name].astype(str).map(table)
        if values.isna().any():
            raise ValueError(f"{name}: a released value is not in the hierarchy at level {level}")
        total += float(values.sum())
    suppressed = records - len(released)
    return (suppressed * len(NAMES) + total) / (len(NAMES) * records)


def compile_driver(arx_src: Path | None, build_dir: Path) -> str:
    """ARX built once by build_arx.sh; ArxSafePub.java (and ArxBench.java, whose reader it uses) recompiled."""
    classpath = build_dir / "classpath.txt"
    if not classpath.exists():
        if arx_src is None:
            sys.exit(f"safepub.py: no ARX build in {build_dir}; give --arx-src (an ARX source checkout)")
        env = dict(os.environ, ARX_SRC=str(arx_src), ARX_BUILD=str(build_dir))
        subprocess.run(["bash", str(HERE / "build_arx.sh")], env=env, check=True)
    path = classpath.read_text().strip()
    subprocess.run(["javac", "-encoding", "UTF-8", "-d", str(build_dir / "bench"), "-cp", path,
                    str(HERE / "ArxSafePub.java"), str(HERE / "ArxBench.java")], check=True)
    return path


def arx_runs(classpath: str, adult_dir: Path, runs: int, epsilon: float, delta: float, share: float, steps: int,
             tmp: Path, table: dict) -> list[dict]:
    """``runs`` ARX releases after one warm-up (one JVM), each measured by :func:`granularity_loss`."""
    folder = tmp / f"arx-{share:g}-{steps}"
    folder.mkdir()
    cmd = ["java", "-cp", classpath, "ArxSafePub", str(adult_dir), str(adult_dir / "adult.csv"), str(runs + 1),
           repr(epsilon), repr(delta), repr(share * epsilon), str(steps), str(folder)]
    done = subprocess.run(cmd, capture_output=True, text=True, check=True)
    lines = [json.loads(line) for line in done.stdout.splitlines() if line.startswith("{")]
    out = []
    for line in lines[1:]:
        released = pd.read_csv(folder / f"arx-{line['run']}.csv", sep=";", dtype=str, keep_default_na=False)
        records = len(released)
        released = released[~(released == "*").all(axis=1)]  # ARX keeps a suppressed record as a row of '*'
        loss = granularity_loss(released, line["node"], records, table)
        out.append({"loss": loss, "seconds": line["seconds"], "node": line["node"], "k": line["k"],
                    "loss_from_score": -float(line["score"]) * (line["k"] - 1) / records})
    return out


def veil_runs(adult_dir: Path, runs: int, epsilon: float, delta: float, share: float, table: dict,
              options: dict) -> list[dict]:
    """``runs`` veil releases after one warm-up, each measured by :func:`granularity_loss`."""
    import veil
    from veil.hierarchy import from_csv
    from veil.models import DifferentialPrivacy

    frame = pd.read_csv(adult_dir / "adult.csv", sep=";", dtype=str, keep_default_na=False)
    hierarchies = {n: from_csv(str(adult_dir / f"adult_hierarchy_{n}.csv"), name=n) for n in NAMES}
    out = []
    for run in range(runs + 1):
        start = time.perf_counter()
        data, report = veil.anonymize(frame, [DifferentialPrivacy(epsilon=epsilon, delta=delta, search_budget=share)],
                                      quasi_identifiers=list(NAMES), hierarchies=hierarchies, algorithm="safepub",
                                      suppression=1.0, suppressed="drop",
                                      options=options)
        seconds = time.perf_counter() - start
        node = [report["transformation"][n] for n in NAMES]
        if run:
            out.append({"loss": granularity_loss(data, node, len(frame), table), "seconds": seconds, "node": node,
                        "k": report["recoding"]["details"]["k"]})
    return out


def summary(values: list[float]) -> dict:
    return {"mean": statistics.fmean(values), "sd": statistics.stdev(values) if len(values) > 1 else 0.0,
            "min": min(values), "max": max(values), "n": len(values)}


def render(results: dict) -> str:
    lines = [START_MARK, "",
             f"Adult ({results['records']} records, all {len(NAMES)} columns quasi-identifiers), ε = "
             f"{results['epsilon']:g}, δ = {results['delta']:g}, {results['runs']} releases of each tool per row "
             f"(after one warm-up). Loss: SafePub's granularity with every record not released counting 1 "
             f"(0 = the input, 1 = nothing released), measured by one function on both tools' released "
             f"tables. ARX {results['arx']}; {results['date']}, {results['cpus']} cores shared with other work "
             "(times are noisy).", "",
             "| search budget (share of ε) | steps | k | tool | loss mean | sd | min | max | s per release (mean) |",
             "|---|---|---|---|---|---|---|---|---|"]
    for row in results["rows"]:
        for tool, name in (t for t in TOOLS if t[0] in row):
            loss, secs = row[tool]["loss"], row[tool]["seconds"]
            steps = "—" if tool in LATTICE_ROWS else row["steps"]  # the whole lattice: no walk
            lines.append(f"| {row['share']:g} (ε_search = {row['share'] * results['epsilon']:g}) | {steps} | "
                         f"{row['k']} | {name} | {loss['mean']:.4f} | {loss['sd']:.4f} | "
                         f"{loss['min']:.4f} | {loss['max']:.4f} | {secs['mean']:.2f} |")
    lines += ["", f"Rerun: `{results['command']}`", "", END_MARK]
    return "\n".join(lines)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--arx-src", type=Path, help="an ARX source checkout (fetched by hand; see build_arx.sh)")
    parser.add_argument("--arx-build", type=Path, default=Path(tempfile.gettempdir()) / "veil-arx-build")
    parser.add_argument("--adult", type=Path, default=ROOT / "src" / "veil" / "datasets" / "data" / "adult",
                        help="folder of adult.csv and ARX's adult_hierarchy_*.csv")
    parser.add_argument("--runs", type=int, default=20)
    parser.add_argument("--epsilon", type=float, default=2.0)
    parser.add_argument("--delta", type=float, default=1e-5)
    parser.add_argument("--shares", default="0.1,0.5", help="search budgets, as shares of ε (ARX's tests: 1 of 2)")
    parser.add_argument("--steps", default="100", help="steps of the search (ARX's tests: 10 and 100)")
    parser.add_argument("--out", type=Path, nargs="*", default=[],
                        help="Markdown files whose safepub-vs-arx section is replaced")
    parser.add_argument("--render", type=Path, help="rewrite the --out sections from an earlier run's JSON, run nothing")
    parser.add_argument("--json", type=Path, default=ROOT / "benchmarks" / "results" / "safepub_vs_arx.json")
    args = parser.parse_args()
    if args.render is not None:
        for out in args.out:
            write_section(out, render(json.loads(args.render.read_text())), START_MARK, END_MARK)
        return
    classpath = compile_driver(args.arx_src, args.arx_build)
    table = shares(args.adult)
    records = len(pd.read_csv(args.adult / "adult.csv", sep=";", dtype=str))
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        for steps in (int(s) for s in args.steps.split(",")):
            for share in (float(s) for s in args.shares.split(",")):
                arx = arx_runs(classpath, args.adult, args.runs, args.epsilon, args.delta, share, steps, Path(tmp),
                               table)
                found = {"arx": arx}
                for name, options in VEIL_OPTIONS.items():
                    walked = {**options, "steps": steps} if options.get("search") == "walk" else options
                    found[name] = veil_runs(args.adult, args.runs, args.epsilon, args.delta, share, table, walked)
                gap = max(abs(r["loss"] - r["loss_from_score"]) for r in arx)
                rows.append({"share": share, "steps": steps, "k": found["veil"][0]["k"], "arx_score_check": gap,
                             **{name: {"loss": summary([r["loss"] for r in runs]),
                                       "seconds": summary([r["seconds"] for r in runs]), "runs": runs}
                                for name, runs in found.items()}})
                print(f"share {share:g}, steps {steps}: " + ", ".join(
                    f"{name} {rows[-1][name]['loss']['mean']:.4f}" for name in found) +
                    f" (ARX's score agrees to {gap:.2g})", flush=True)
    revision = args.arx_build / "arx_revision.txt"
    results = {"records": records, "epsilon": args.epsilon, "delta": args.delta, "runs": args.runs, "rows": rows,
               "arx": revision.read_text().strip() if revision.exists() else "unknown",
               "date": dt.date.today().isoformat(), "cpus": os.cpu_count(), "python": platform.python_version(),
               "command": "python benchmarks/vs_arx/safepub.py --arx-src ARX_CHECKOUT "
                          f"--runs {args.runs} --shares {args.shares} --steps {args.steps} "
                          "--out docs/algorithms/safepub.md benchmarks/vs_arx/README.md"}
    args.json.parent.mkdir(parents=True, exist_ok=True)
    args.json.write_text(json.dumps(results, indent=1) + "\n")
    for out in args.out:
        write_section(out, render(results), START_MARK, END_MARK)
    print(render(results))


if __name__ == "__main__":
    main()
