"""veil side by side with ARX on Adult: the same configurations, alternately, in one run.

Run (from the repository root, with a JDK on PATH and an ARX source checkout fetched once,
outside the repository; nothing is downloaded here)::

    python benchmarks/vs_arx/run.py --arx-src /scratch/arx --out docs/performance.md

It builds ARX with ``build_arx.sh`` (once; ``--rebuild`` to force), starts one JVM running
``ArxBench serve`` and, for every configuration, warms both tools up once, then times
``--runs`` runs of each, alternating veil and ARX (veil first in even rounds, ARX first in odd
ones), so load on a shared machine hits both alike.  The in-process timings start from the
parsed table in memory and the loaded hierarchies: veil's cover ``Dataset.from_pandas`` and
``veil.anonymize()`` (search, apply, verification, report); ARX's cover ``Data.create``, the
attribute definitions and ``ARXAnonymizer.anonymize`` (encoding, Flash search, Loss metric).
For each configuration without suppression, a second alternation with ARX times veil's call with
the search handed the node it found (``min_levels`` = ``max_levels``): the row's floor, what the
call costs besides the search.  A second, smaller table times whole processes (``veil anonymize`` / ``veil risk`` CLI against
one ARX driver JVM, CSV in and out).  The ratios table replaces the text between the
``vs-arx`` markers of ``--out``; every figure also goes to ``--json``.
"""

from __future__ import annotations

import argparse
import datetime as dt
import json
import math
import os
import platform
import statistics
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pandas as pd

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent.parent
START_MARK = "<!-- vs-arx:start -->"
END_MARK = "<!-- vs-arx:end -->"
SEED = 2024


@dataclass(frozen=True)
class Config:
    """One benchmark configuration, spelled the same way for both tools."""

    name: str
    spec: str  # ArxBench's spec: k=5,s=0.05,l=2,t=equal:0.2
    data: str = "adult"  # adult, x10, x30

    def veil_models(self):
        from veil.models import DistinctLDiversity, EqualDistanceTCloseness, HierarchicalTCloseness, KAnonymity

        models, suppression = [], 0.0
        for part in self.spec.split(","):
            key, value = part.split("=", 1)
            if key == "k":
                models.append(KAnonymity(k=int(value)))
            elif key == "s":
                suppression = float(value)
            elif key == "l":
                models.append(DistinctLDiversity(sensitive="salary-class", l=int(value)))
            elif key == "t":
                how, t = value.split(":")
                cls = EqualDistanceTCloseness if how == "equal" else HierarchicalTCloseness
                models.append(cls(sensitive="salary-class", t=float(t)))
        return models, suppression


CONFIGS = [
    *(Config(f"k={k}, {int(s * 100)}%", f"k={k},s={s}") for k in (2, 5, 10) for s in (0.0, 0.05)),
    Config("k=5, 100%", "k=5,s=1.0"),
    Config("k=5 + distinct 2-diversity, 0%", "k=5,s=0.0,l=2"),
    Config("k=5 + distinct 2-diversity, 5%", "k=5,s=0.05,l=2"),
    Config("k=5 + equal 0.2-closeness, 0%", "k=5,s=0.0,t=equal:0.2"),
    Config("k=5 + equal 0.2-closeness, 5%", "k=5,s=0.05,t=equal:0.2"),
    Config("k=5 + hierarchical 0.2-closeness, 0%", "k=5,s=0.0,t=hierarchical:0.2"),
    Config("k=5 + hierarchical 0.2-closeness, 5%", "k=5,s=0.05,t=hierarchical:0.2"),
    Config("Adult ×10, k=5, 5%", "k=5,s=0.05", "x10"),
    Config("Adult ×30, k=5, 5%", "k=5,s=0.05", "x30"),
]
PROCESS_CONFIGS = [CONFIGS[2], CONFIGS[3], CONFIGS[8], CONFIGS[-1]]


def replicate(frame: pd.DataFrame, copies: int, seed: int = SEED) -> pd.DataFrame:
    """Adult ``copies`` times, ages shifted by a seeded offset in [-2, 3] clipped to [17, 90].

    The same construction as ``bench_anonymize.py``: every value stays in Adult's hierarchies,
    and the table has many more distinct QI combinations than Adult (about 67,600 on ×30).
    """
    big = pd.concat([frame] * copies, ignore_index=True)
    age = big["age"].astype(int).to_numpy() + np.random.default_rng(seed).integers(-2, 4, size=len(big))
    big["age"] = np.clip(age, 17, 90).astype(str)
    return big


class Arx:
    """One ARX JVM (``ArxBench serve``): a command in, one JSON line out."""

    def __init__(self, classpath: str, adult_dir: str) -> None:
        self.proc = subprocess.Popen(["java", "-cp", classpath, "ArxBench", "serve", adult_dir],
                                     stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)

    def ask(self, command: str) -> dict:
        assert self.proc.stdin and self.proc.stdout
        self.proc.stdin.write(command + "\n")
        self.proc.stdin.flush()
        answer = json.loads(self.proc.stdout.readline())
        if "error" in answer:
            raise RuntimeError(f"ARX: {command}: {answer['error']}")
        return answer

    def close(self) -> None:
        if self.proc.stdin:
            self.proc.stdin.write("quit\n")
            self.proc.stdin.close()
        self.proc.wait(timeout=60)


class Veil:
    """veil's side: the same tables in memory, the same hierarchies."""

    def __init__(self, tables: dict[str, pd.DataFrame]) -> None:
        from veil.datasets import ADULT_QUASI_IDENTIFIERS, load_adult

        self.tables = tables
        self.qis = list(ADULT_QUASI_IDENTIFIERS)
        self.hierarchies = dict(load_adult().hierarchies)

    def dataset(self, data: str, hierarchies: bool = True):
        from veil import Dataset

        ds = Dataset.from_pandas(self.tables[data], quasi_identifiers=self.qis, sensitive=["salary-class"],
                                 kinds={"age": "numeric"})
        return ds.with_hierarchies(self.hierarchies) if hierarchies else ds

    def anonymize(self, config: Config, metric: str = "loss", node: dict | None = None) -> dict:
        """One timed call; ``node`` bounds every attribute's level to it, so that the search judges
        that node alone (the call's work besides the search)."""
        import veil

        models, suppression = config.veil_models()
        start = time.perf_counter()
        result = veil.anonymize(self.dataset(config.data), models, suppression_limit=suppression, metric=metric,
                                seed=1, min_levels=node, max_levels=node)
        seconds = time.perf_counter() - start
        search = result.search
        return {"seconds": seconds, "search_seconds": search.seconds, "node": dict(result.transformation),
                "loss": search.loss, "nodes_checked": search.nodes_checked}

    def risk(self) -> dict:
        from veil.risk import assess

        start = time.perf_counter()
        report = assess(self.dataset("adult", hierarchies=False), qi_subsets_max_size=0)
        seconds = time.perf_counter() - start
        return {"seconds": seconds, "report": {k: v for k, v in report.to_dict().items() if k != "qi_ranking"}}


def alternate(runs: int, veil_run, arx_run) -> tuple[list[dict], list[dict]]:
    """Warm each up once, then ``runs`` rounds alternating which tool goes first."""
    veil_run(), arx_run()
    ours, theirs = [], []
    for i in range(runs):
        if i % 2 == 0:
            ours.append(veil_run())
            theirs.append(arx_run())
        else:
            theirs.append(arx_run())
            ours.append(veil_run())
    return ours, theirs


def summarize(name: str, ours: list[dict], theirs: list[dict]) -> dict:
    v = statistics.median(r["seconds"] for r in ours)
    a = statistics.median(r["seconds"] for r in theirs)
    row = {"name": name, "veil_s": v, "arx_s": a, "ratio": v / a, "veil_runs": ours, "arx_runs": theirs}
    if all("output_seconds" in r for r in theirs):  # ARX's anonymized table, built lazily, timed apart
        row["arx_output_s"] = statistics.median(r["seconds"] + r["output_seconds"] for r in theirs)
        row["ratio_output"] = v / row["arx_output_s"]
    return row


def launch(cmd: list[str]) -> float:
    """Wall time of one child process (it must succeed)."""
    start = time.perf_counter()
    done = subprocess.run(cmd, capture_output=True, text=True)
    wall = time.perf_counter() - start
    if done.returncode != 0:
        raise RuntimeError(f"{cmd[:3]} failed ({done.returncode}): {done.stderr[-2000:]}")
    return wall


def process_table(configs: list[Config], paths: dict[str, Path], classpath: str, adult_dir: str, runs: int,
                  tmp: Path) -> list[dict]:
    """Whole processes, CSV in and out: the ``veil`` CLI against one ARX driver JVM each.

    veil's modules are compiled to bytecode first, as an installed package has them (and as
    ``make`` does): where ``PYTHONDONTWRITEBYTECODE`` is set, each process would otherwise compile
    them from source, as each JVM would if ARX's classes were compiled at every start."""
    import compileall

    import veil
    from veil.datasets import ADULT_QUASI_IDENTIFIERS

    compileall.compile_dir(str(Path(veil.__file__).parent), quiet=1)

    veil_bin = str(Path(sys.executable).parent / "veil")
    qis = ",".join(ADULT_QUASI_IDENTIFIERS)
    hier = [f"--hierarchy={q}={adult_dir}/adult_hierarchy_{q}.csv" for q in ADULT_QUASI_IDENTIFIERS]
    rows = []
    for config in configs:
        models, suppression = config.veil_models()
        flags = [f"--k={m.k}" for m in models if type(m).__name__ == "KAnonymity"]
        flags += [f"--l-diversity=salary-class:{m.l}" for m in models if type(m).__name__ == "DistinctLDiversity"]
        csv = str(paths[config.data])
        veil_cmd = [veil_bin, "anonymize", csv, "--qi", qis, "--sensitive", "salary-class", "--kind", "age=numeric",
                    *hier, *flags, "--suppression", str(suppression), "--sep", ";", "--seed", "1",
                    "-o", str(tmp / "veil-out.csv"), "--json", str(tmp / "veil-out.json")]
        arx_cmd = ["java", "-cp", classpath, "ArxBench", "once", adult_dir, config.spec, csv, str(tmp / "arx-out.csv")]
        ours, theirs = alternate(runs, lambda: {"seconds": launch(veil_cmd)}, lambda: {"seconds": launch(arx_cmd)})
        rows.append(summarize(config.name, ours, theirs))
    veil_cmd = [veil_bin, "risk", str(paths["adult"]), "--qi", qis, "--sep", ";", "--max-qi-size", "0",
                "--json", str(tmp / "veil-risk.json")]
    arx_cmd = ["java", "-cp", classpath, "ArxBench", "risk-once", adult_dir, str(paths["adult"])]
    ours, theirs = alternate(runs, lambda: {"seconds": launch(veil_cmd)}, lambda: {"seconds": launch(arx_cmd)})
    rows.append(summarize("risk summary", ours, theirs))
    return rows


def geometric_mean(values: list[float]) -> float:
    return math.exp(sum(math.log(v) for v in values) / len(values))


def levels(node: dict | None) -> str:
    return "—" if node is None else "".join(str(node[q]) for q in node)


def markdown(results: dict) -> str:
    """The section written between the markers of ``--out``."""
    lines = [START_MARK, "", "## veil side by side with ARX (`benchmarks/vs_arx/`)", "",
             f"Measured {results['date']} with ARX {results['arx_revision']} built from its public source "
             f"(`build_arx.sh`), Java {results['java']}, Python {results['python']}, {results['cpus']} cores; "
             f"load average {_load(results.get('load_average_start'))} at the start, "
             f"{_load(results.get('load_average_end'))} at the end. {results['note']}", "",
             "In process: median of "
             f"{results['runs']} runs per tool after one warm-up, veil and ARX alternating in one run. veil's time "
             "covers `Dataset.from_pandas` + `veil.anonymize()` (search, apply, verification, report); ARX's covers "
             "`Data.create` + definitions + `ARXAnonymizer.anonymize` (encoding, Flash, Loss metric). Both start "
             "from the parsed table in memory. Ratio = veil / ARX (below 1: veil is faster). ARX builds the "
             "anonymized table lazily, after `anonymize` returns; veil's `anonymize()` returns it, verified. The "
             "columns \"ARX + table s\" and \"veil / (ARX + table)\" add ARX's `result.getOutput()` with every row "
             "read through its iterator (timed apart in the same run), so both tools have made the anonymized "
             "table; the issue's target is on the first ratio. \"ARX search s\" is ARX's own figure for its search "
             "(`ARXResult.getTime()`, whole milliseconds). Nodes are the levels of "
             "sex, age, race, marital-status, education, native-country, workclass, occupation.", "",
             "| configuration | veil s | ARX s | veil / ARX | ARX + table s | veil / (ARX + table) | veil search s "
             "| ARX search s | veil node | ARX node | veil nodes checked | ARX nodes checked "
             "| veil node, `--metric arx-loss` |",
             "|---|---|---|---|---|---|---|---|---|---|---|---|---|"]
    for row in results["in_process"]:
        v, a = row["veil_runs"][-1], row["arx_runs"][-1]
        table = (f"{row['arx_output_s']:.3f} | {row['ratio_output']:.2f}" if "ratio_output" in row else "— | —")
        if "node" in v:
            lines.append(f"| {row['name']} | {row['veil_s']:.3f} | {row['arx_s']:.3f} | **{row['ratio']:.2f}** | "
                         f"{table} | {statistics.median(r['search_seconds'] for r in row['veil_runs']):.3f} | "
                         f"{statistics.median(r['arx_time_ms'] for r in row['arx_runs']) / 1e3:.3f} | "
                         f"{levels(v['node'])} | {levels(a['node'])} | {v['nodes_checked']:,} | "
                         f"{a['nodes_checked']:,} | {_arx_loss_node(row, a)} |")
        else:
            lines.append(f"| {row['name']} | {row['veil_s']:.3f} | {row['arx_s']:.3f} | **{row['ratio']:.2f}** | "
                         f"{table} | — | — | — | — | — | — | — |")
    ratios = [r["ratio"] for r in results["in_process"]]
    with_table = [r["ratio_output"] for r in results["in_process"] if "ratio_output" in r]
    searched = [r for r in results["in_process"] if "node" in r["veil_runs"][-1]]
    differ = sum(levels(r["veil_runs"][-1]["node"]) != levels(r["arx_runs"][-1]["node"]) for r in searched)
    with_arx = [r for r in searched if r.get("veil_arx_loss_node")]
    same_arx = sum(levels(r["veil_arx_loss_node"]) == levels(r["arx_runs"][-1]["node"]) for r in with_arx)
    lines += ["", f"Geometric mean of veil / ARX over the {len(ratios)} rows: **{geometric_mean(ratios):.2f}** "
              f"(target of issue #16: at most 0.4, and at most 0.5 on every row). Rows at most 0.5: "
              f"{sum(r <= 0.5 for r in ratios)} of {len(ratios)}."
              + (f" Against ARX with its anonymized table made, over the {len(with_table)} anonymization rows: "
                 f"**{geometric_mean(with_table):.2f}**, {sum(r <= 0.5 for r in with_table)} rows at most 0.5."
                 if with_table else ""), "",
              "The risk summary is `veil.risk.assess(dataset, qi_subsets_max_size=0)` against ARX's "
              "`getSampleBasedReidentificationRisk()` and `getSampleBasedUniquenessRisk()` on the input handle. "
              "Where the nodes differ, each tool returns the optimum of its own metric: veil's `loss` sums ILoss "
              "over the attributes, ARX's Loss aggregates them with a geometric mean and another normalization "
              f"(issue #16, item 3); here {differ} of the {len(searched)} optima differ. The last column is the node "
              "veil picks with `--metric arx-loss` (ARX's Loss formula; not timed): the same node as ARX in "
              f"{same_arx} of the {len(with_arx)} configurations where it was computed.", "",
              *_floor_table(results),
              "Whole processes (CSV in, CSV and JSON out for veil; CSV out for ARX): the `veil anonymize` / "
              f"`veil risk` CLI against one `java ArxBench once` JVM each, median of {results['process_runs']} "
              "alternating runs after one warm-up; veil's modules compiled to bytecode first, as installed.", "",
              "| configuration | veil process s | ARX process s | veil / ARX |", "|---|---|---|---|"]
    for row in results["processes"]:
        lines.append(f"| {row['name']} | {row['veil_s']:.2f} | {row['arx_s']:.2f} | **{row['ratio']:.2f}** |")
    if results["processes"]:
        lines += ["", "Geometric mean of the whole-process ratios: "
                  f"**{geometric_mean([r['ratio'] for r in results['processes']]):.2f}**."]
    lines += ["", "Rerun (about 2 minutes on 2 cores once ARX is built, its build the first time; "
              "run it on a quiet machine):", "", "```sh",
              "git clone https://github.com/arx-deidentifier/arx /scratch/arx   # once, by hand; v3.9.2",
              "git -C /scratch/arx checkout v3.9.2",
              "python benchmarks/vs_arx/run.py --arx-src /scratch/arx --out docs/performance.md", "```", "",
              END_MARK]
    return "\n".join(lines)


def _floor_table(results: dict) -> list[str]:
    """The rows without suppression again, veil's search handed the node it found: the call's work
    besides the search, against ARX in an alternation of its own."""
    rows = [r for r in results["in_process"] if "node_given" in r]
    if not rows:
        return []
    lines = ["Without suppression, a second alternation with ARX times the same veil call with the search handed "
             "the node it found (`min_levels` = `max_levels` = that node: the search judges one node; the encoding, "
             "class table, apply, verification and report are as before). Its ratio is the row's floor: a faster "
             "search cannot bring the row below it.", "",
             "| configuration | veil, node given s | ARX s (this alternation) | veil, node given / ARX | veil / ARX "
             "(above) |", "|---|---|---|---|---|"]
    for row in rows:
        given = row["node_given"]
        lines.append(f"| {row['name']} | {given['veil_s']:.3f} | {given['arx_s']:.3f} | **{given['ratio']:.2f}** | "
                     f"{row['ratio']:.2f} |")
    return lines + [""]


def _arx_loss_node(row: dict, arx: dict) -> str:
    node = row.get("veil_arx_loss_node")
    if not node:
        return "—"
    return levels(node) + (" (= ARX)" if levels(node) == levels(arx["node"]) else "")


def _load(values) -> str:
    return "?" if not values else f"{float(values[0]):.1f}"


def write_section(out: Path, section: str, start: str = START_MARK, end: str = END_MARK) -> None:
    """Replace the part of ``out`` between the ``start`` and ``end`` marks by ``section`` (or append it)."""
    text = out.read_text() if out.exists() else ""
    if start in text and end in text:
        head, rest = text.split(start, 1)
        text = head + section + rest.split(end, 1)[1]
    else:
        text = text.rstrip("\n") + "\n\n" + section + "\n"
    out.write_text(text)


def build(arx_src: Path | None, build_dir: Path, rebuild: bool) -> str:
    classpath = build_dir / "classpath.txt"
    if rebuild or not classpath.exists():
        if arx_src is None:
            sys.exit(f"run.py: no ARX build in {build_dir}; give --arx-src (an ARX source checkout)")
        env = dict(os.environ, ARX_SRC=str(arx_src), ARX_BUILD=str(build_dir))
        subprocess.run(["bash", str(HERE / "build_arx.sh")], env=env, check=True)
    path = classpath.read_text().strip()
    driver, source = build_dir / "bench" / "ArxBench.class", HERE / "ArxBench.java"
    if not driver.exists() or driver.stat().st_mtime < source.stat().st_mtime:  # the driver changed: it alone
        subprocess.run(["javac", "-encoding", "UTF-8", "-d", str(build_dir / "bench"), "-cp", path, str(source)],
                       check=True)
    return path


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--arx-src", type=Path, help="an ARX source checkout (fetched by hand; see build_arx.sh)")
    parser.add_argument("--arx-build", type=Path, default=Path(tempfile.gettempdir()) / "veil-arx-build")
    parser.add_argument("--rebuild", action="store_true", help="rebuild ARX even if --arx-build holds a build")
    parser.add_argument("--out", type=Path, help="Markdown file whose vs-arx section is replaced")
    parser.add_argument("--json", type=Path, default=ROOT / "benchmarks" / "results" / "vs_arx.json")
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--process-runs", type=int, default=3)
    parser.add_argument("--only", help="run only the configurations whose name contains this text")
    parser.add_argument("--note", default="", help="a sentence on the machine's state, printed in the doc")
    parser.add_argument("--in-process-from", type=Path,
                        help="reuse the in-process rows of this earlier --json output; time only the processes")
    parser.add_argument("--render", type=Path, help="only write the section of --out from this earlier --json output")
    args = parser.parse_args()
    if args.render is not None:
        results = json.loads(args.render.read_text())
        if args.note:
            results["note"] = args.note
        if args.out is not None:
            write_section(args.out, markdown(results))
        return

    from veil.datasets import adult_path

    classpath = build(args.arx_src, args.arx_build, args.rebuild)
    adult_dir = str(Path(adult_path()).parent)
    configs = [c for c in CONFIGS if args.only is None or args.only in c.name]
    adult = pd.read_csv(adult_path(), sep=";", dtype=str, keep_default_na=False)
    tables = {"adult": adult, "x10": replicate(adult, 10), "x30": replicate(adult, 30)}
    java = subprocess.run(["java", "-version"], capture_output=True, text=True).stderr.splitlines()[0]
    results = {"date": dt.datetime.now(dt.timezone.utc).strftime("%Y-%m-%d %H:%M UTC"),
               "arx_revision": (args.arx_build / "arx_revision.txt").read_text().strip(),
               "java": java.split('"')[1] if '"' in java else java, "python": platform.python_version(),
               "cpus": os.cpu_count(), "runs": args.runs, "process_runs": args.process_runs,
               "load_average_start": os.getloadavg(), "note": args.note, "in_process": [], "processes": []}
    with tempfile.TemporaryDirectory() as tmp_name:
        tmp = Path(tmp_name)
        paths = {"adult": Path(adult_path())}
        for name in ("x10", "x30"):
            paths[name] = tmp / f"adult-{name}.csv"
            tables[name].to_csv(paths[name], sep=";", index=False)
        if args.in_process_from is not None:
            earlier = json.loads(args.in_process_from.read_text())
            results.update({key: earlier[key] for key in ("date", "in_process", "runs", "load_average_start")})
        else:
            veil_side, arx = Veil(tables), Arx(classpath, adult_dir)
            try:
                for config in configs:
                    command = f"anonymize {config.spec} {paths[config.data]}"
                    ours, theirs = alternate(args.runs, lambda: veil_side.anonymize(config), lambda: arx.ask(command))
                    row = summarize(config.name, ours, theirs)
                    if config.veil_models()[1] == 0.0:  # the row's floor: veil's search handed the node it found
                        node = ours[-1]["node"]
                        given, again = alternate(args.runs, lambda: veil_side.anonymize(config, node=node),
                                                 lambda: arx.ask(command))
                        assert all(r["node"] == node for r in given), "the bounded search found another node"
                        row["node_given"] = summarize(config.name, given, again)
                    # not timed: the node veil picks under ARX's own metric (issue #16, item 3)
                    row["veil_arx_loss_node"] = veil_side.anonymize(config, metric="arx-loss")["node"]
                    results["in_process"].append(row)
                    print(f"{config.name:40s} veil {row['veil_s']:.3f} s  ARX {row['arx_s']:.3f} s  "
                          f"ratio {row['ratio']:.2f}", flush=True)
                if args.only is None or args.only in "risk summary":
                    ours, theirs = alternate(args.runs, veil_side.risk, lambda: arx.ask(f"risk {paths['adult']}"))
                    row = summarize("risk summary", ours, theirs)
                    results["in_process"].append(row)
                    print(f"{'risk summary':40s} veil {row['veil_s']:.3f} s  ARX {row['arx_s']:.3f} s  "
                          f"ratio {row['ratio']:.2f}", flush=True)
            finally:
                arx.close()
        args.json.parent.mkdir(parents=True, exist_ok=True)
        args.json.write_text(json.dumps(results, indent=2, default=str) + "\n")  # kept if the processes fail
        if args.process_runs > 0 and args.only is None:
            results["processes"] = process_table(PROCESS_CONFIGS, paths, classpath, adult_dir, args.process_runs, tmp)
            for row in results["processes"]:
                print(f"process: {row['name']:31s} veil {row['veil_s']:.2f} s  ARX {row['arx_s']:.2f} s  "
                      f"ratio {row['ratio']:.2f}", flush=True)
    results["load_average_end"] = os.getloadavg()
    args.json.parent.mkdir(parents=True, exist_ok=True)
    args.json.write_text(json.dumps(results, indent=2, default=str) + "\n")
    section = markdown(results)
    print(section)
    if args.out is not None:
        write_section(args.out, section)


if __name__ == "__main__":
    main()
