"""veil evaluate on four releases of Adult made by veil, and its time on a 1M-row release.

Run from the repository root::

    PYTHONPATH=src python benchmarks/bench_evaluate.py            # the four releases (under a minute)
    PYTHONPATH=src python benchmarks/bench_evaluate.py --scale    # also the 1M-row release

Adult (the bundled 30,162 records) is split once (seed 2024) into the 80% the releases are made
from and a 20% control.  The releases, each by veil's CLI: k=5 (Adult's hierarchies, 5%
suppression), k=5 + distinct 2-diversity on salary-class, PRAM (keep probability 0.8) on sex,
race, marital-status and education, and additive noise (150% of the standard deviation, sdcMicro's
default) on age.  Each is evaluated with every attack (500 targets each, the 8 QIs known,
salary-class secret); the table prints each risk with its interval, and the time of the whole
`veil evaluate` process: wall clock and, in brackets, CPU (user + system; on a shared machine the
wall clock also counts the time other processes held the cores).
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np
import pandas as pd

ROOT = Path(__file__).resolve().parent.parent
QI = ["sex", "age", "race", "marital-status", "education", "native-country", "workclass", "occupation"]
SECRET = "salary-class"
VEIL = [sys.executable, "-c", "from veil.cli import main; main()"]


def veil(*args: object) -> None:
    subprocess.run([*VEIL, *map(str, args)], check=True, capture_output=True, text=True)


def make_releases(folder: Path) -> dict[str, tuple[Path, Path | None]]:
    from veil.datasets import adult_path, load_adult
    from veil.evaluate import split

    train, control = split(load_adult().frame, 0.2, seed=2024)
    train.to_csv(folder / "train.csv", index=False)
    control.to_csv(folder / "control.csv", index=False)
    hierarchies = [f"--hierarchy={q}={adult_path(f'adult_hierarchy_{q}.csv')}" for q in QI]
    base = [folder / "train.csv", "--qi", ",".join(QI), "--sensitive", SECRET, *hierarchies, "--suppression", "0.05"]
    out = {}
    for name, models in (("k=5", ["-k", "5"]), ("k=5 + l=2", ["-k", "5", "-l", "2"])):
        stem = folder / name.replace(" ", "").replace("+", "_").replace("=", "")
        veil("anonymize", *base, *models, "-o", f"{stem}.csv", "--json", f"{stem}.json", "-q")
        out[name] = (Path(f"{stem}.csv"), Path(f"{stem}.json"))
    veil("randomize", folder / "train.csv", "--method", "pram", "--columns", "sex,race,marital-status,education",
         "--p", "0.8", "-o", folder / "pram.csv")  # the other columns are copied
    out["PRAM p=0.8"] = (folder / "pram.csv", None)
    rest = [c for c in train.columns if c != "age"]
    veil("perturb", folder / "train.csv", "--method", "noise", "--columns", "age", "--insensitive", ",".join(rest),
         "-o", folder / "noise.csv")
    out["noise on age"] = (folder / "noise.csv", None)
    return out


def children_cpu() -> float:
    """CPU seconds (user + system) of the finished child processes so far."""
    import resource

    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def evaluate_all(folder: Path, releases: dict[str, tuple[Path, Path | None]]) -> list[tuple[str, dict, float, float]]:
    rows = []
    for name, (release, report) in releases.items():
        json_out = folder / f"ev-{release.stem}.json"
        args = ["evaluate", folder / "train.csv", release, "--control", folder / "control.csv", "--aux", ",".join(QI),
                "--secret", SECRET, "--json", json_out, "--seed", "1"]
        if report is not None:
            from veil.datasets import adult_path

            args += ["--report", report] + [f"--hierarchy={q}={adult_path(f'adult_hierarchy_{q}.csv')}"
                                            for q in QI]
        start, cpu = time.perf_counter(), children_cpu()
        veil(*args)
        rows.append((name, json.loads(json_out.read_text()), time.perf_counter() - start, children_cpu() - cpu))
    return rows


def table(rows: list[tuple[str, dict, float, float]]) -> str:
    def cell(r: dict) -> str:
        flag = "" if r["meaningful"] else "†"
        return f"{r['risk']:.3f} [{r['ci'][0]:.2f}, {r['ci'][1]:.2f}]{flag}"

    lines = ["| release | singling out (multi) | linkability | inference of salary-class | linkage | "
             "homogeneity | record linkage | `veil evaluate` s (CPU s) |", "|---|---|---|---|---|---|---|---|"]
    for name, r, seconds, cpu in rows:
        own = r["attacks"]
        lines.append(f"| {name} | {cell(r['singling_out']['multivariate'])} | {cell(r['linkability'])} | "
                     f"{cell(r['inference'][SECRET])} | {cell(own['linkage'])} | {cell(own['homogeneity'][SECRET])} | "
                     f"{cell(own['record_linkage'][SECRET])} | {seconds:.1f} ({cpu:.1f}) |")
    return "\n".join(lines) + "\n\n† no better than the random-guess baseline: says nothing about the release."


def scale() -> str:
    """All attacks on a 1M-row release (Adult ×34, ages moved by up to 3 years), in process."""
    import resource

    from veil.datasets import load_adult
    from veil.evaluate import evaluate

    adult = load_adult().frame
    rng = np.random.default_rng(0)
    big = pd.concat([adult] * 34, ignore_index=True).iloc[:1_000_000]
    big["age"] = np.clip(big["age"].astype(int).to_numpy() + rng.integers(-3, 4, len(big)), 17, 90)
    release = big.sample(frac=1, random_state=1).reset_index(drop=True)
    control = adult.sample(5000, random_state=2).reset_index(drop=True)
    for name in control.columns:  # records of the same kind that are not the original's
        control[name] = control[name].to_numpy()[rng.permutation(len(control))]
    start = time.perf_counter()
    evaluate(big, release, control, secret=[SECRET], aux=QI, seed=0)
    seconds = time.perf_counter() - start
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024 / 1024
    return f"1,000,000-row release, every attack, 500 targets each: {seconds:.1f} s, peak {peak:.2f} GiB (whole process)"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--scale", action="store_true", help="also time every attack on a 1M-row release")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        print(table(evaluate_all(folder, make_releases(folder))))
    if args.scale:
        print(scale())


if __name__ == "__main__":
    main()
