"""veil evaluate side by side with Anonymeter on Adult: the same tables, parameters and attacks.

Run (from the repository root; Anonymeter pins an older numpy, so it lives in its own virtual
environment, made here on first use from PyPI, outside the repository)::

    python benchmarks/vs_anonymeter/run.py --anonymeter-venv /scratch/anonymeter-venv --out docs/performance.md

Adult (the bundled 30,162 records) is split once (seeded) into 80% the releases are made from
and a 20% control.  Three releases: a copy (its rows shuffled: high risk), a column shuffle
(every column permuted on its own: low risk) and veil's k=5 release with Adult's hierarchies and
5% suppression.  Each tool runs the univariate and multivariate singling-out attacks (n_cols=3),
linkability (the QIs cut in two halves, one neighbour) and inference of salary-class from the 8
QIs, with 500 attacks each, ``--runs`` times; the table gives each tool's risk and interval from
its last run and the median time per attack.  veil runs its attacks on the release as it is; on
the k=5 release it is also given the release's hierarchies (generalized values match what they
cover), which Anonymeter cannot read.
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
START_MARK = "<!-- vs-anonymeter:start -->"
END_MARK = "<!-- vs-anonymeter:end -->"
QI = ["sex", "age", "race", "marital-status", "education", "native-country", "workclass", "occupation"]
SECRET = "salary-class"
SEED = 2024


def ensure_venv(path: Path) -> Path:
    python = path / "bin" / "python"
    if not python.exists():
        subprocess.run([sys.executable, "-m", "venv", str(path)], check=True)
        subprocess.run([str(python), "-m", "pip", "install", "--quiet", "anonymeter"], check=True)
    return python


def releases(folder: Path) -> dict[str, dict]:
    """Write the original, the control and the three releases; return the releases' facts."""
    from veil.anonymization import anonymize
    from veil.dataset import Dataset
    from veil.datasets import load_adult
    from veil.evaluate import split
    from veil.models import KAnonymity

    adult = load_adult()
    train, control = split(adult.frame, 0.2, seed=SEED)
    train.to_csv(folder / "original.csv", index=False)
    control.to_csv(folder / "control.csv", index=False)
    rng = np.random.default_rng(SEED)
    train.sample(frac=1, random_state=SEED).to_csv(folder / "copy.csv", index=False)
    shuffled = train.copy()
    for name in shuffled.columns:
        shuffled[name] = shuffled[name].to_numpy()[rng.permutation(len(shuffled))]
    shuffled.to_csv(folder / "shuffled.csv", index=False)
    data = Dataset.from_pandas(train, quasi_identifiers=QI, sensitive=[SECRET]).with_hierarchies(dict(adult.hierarchies))
    result = anonymize(data, [KAnonymity(k=5)], suppression_limit=0.05)
    result.data.to_csv(folder / "k5.csv", index=False)
    levels = dict(result.report["transformation"])
    return {"copy": {}, "column shuffle": {}, "k=5": {}, "k=5, hierarchies given": {
        "path": "k5.csv", "hierarchies": dict(adult.hierarchies), "levels": levels}}


def veil_side(folder: Path, name: str, facts: dict, runs: int, n_attacks: int) -> dict:
    import pandas as pd

    from veil.evaluate import evaluate

    path = facts.get("path") or {"copy": "copy.csv", "column shuffle": "shuffled.csv", "k=5": "k5.csv"}[name]
    tables = [pd.read_csv(folder / f) for f in ("original.csv", path, "control.csv")]
    times = {"singling_out": [], "linkability": [], "inference": []}
    out = {}
    halves = (QI[:4], QI[4:])
    for run in range(runs):
        for attack, key in (("singling-out", "singling_out"), ("linkability", "linkability"),
                            ("inference", "inference")):
            t = time.perf_counter()
            r = evaluate(*tables, attacks=[attack], secret=[SECRET], aux=QI, link_aux=halves, n_attacks=n_attacks,
                         quasi_identifiers=QI, hierarchies=facts.get("hierarchies"), levels=facts.get("levels"))
            times[key].append(time.perf_counter() - t)
            if key == "singling_out":
                out.update({f"singling_out.{m}": v for m, v in r[key].items()})
            elif key == "inference":
                out[f"inference.{SECRET}"] = r[key][SECRET]
            else:
                out[key] = r[key]
    return {"results": out, "seconds": {k: statistics.median(v) for k, v in times.items()}}


def anonymeter_side(python: Path, folder: Path, path: str, runs: int, n_attacks: int) -> dict:
    job = {"original": str(folder / "original.csv"), "release": str(folder / path), "control": str(folder / "control.csv"),
           "n_attacks": n_attacks, "n_cols": 3, "aux": QI, "link_aux": [QI[:4], QI[4:]], "secret": SECRET, "runs": runs}
    done = subprocess.run([str(python), str(HERE / "anonymeter_side.py")], input=json.dumps(job), text=True,
                          capture_output=True)
    if done.returncode:
        raise SystemExit(f"Anonymeter's side failed:\n{done.stderr[-2000:]}")
    return json.loads(done.stdout.strip().splitlines()[-1])


def table(rows: list[tuple[str, dict, dict]], n_attacks: int, runs: int) -> str:
    lines = [START_MARK, "", "## veil evaluate side by side with Anonymeter (`benchmarks/vs_anonymeter/`)", "",
             f"Adult split 80/20 (seed {SEED}); {n_attacks} attacks each; risk [95% interval] of each tool's last "
             f"run; times are medians of {runs} runs on the same machine, in process, per attack family "
             "(singling out = univariate + multivariate). Inside: whether veil's risk lies in Anonymeter's interval.",
             "", "| release | attack | Anonymeter risk [interval] | veil risk [interval] | inside |",
             "|---|---|---|---|---|"]
    for release, veil, anon in rows:
        for attack, a in anon["results"].items():
            v = veil["results"].get(attack)
            if v is None:
                continue
            if "error" in a:
                lines.append(f"| {release} | {attack} | fails: {a['error']} | {v['risk']:.3f} "
                             f"[{v['ci'][0]:.3f}, {v['ci'][1]:.3f}] | — |")
                continue
            inside = a["ci"][0] - 1e-9 <= v["risk"] <= a["ci"][1] + 1e-9
            lines.append(f"| {release} | {attack} | {a['risk']:.3f} [{a['ci'][0]:.3f}, {a['ci'][1]:.3f}] | "
                         f"{v['risk']:.3f} [{v['ci'][0]:.3f}, {v['ci'][1]:.3f}] | {'yes' if inside else 'no'} |")
    lines += ["", "| release | attack family | Anonymeter s | veil s | veil / Anonymeter |", "|---|---|---|---|---|"]
    for release, veil, anon in rows:
        for family, seconds in anon["seconds"].items():
            mine = veil["seconds"][family]
            lines.append(f"| {release} | {family} | {seconds:.2f} | {mine:.2f} | **{mine / seconds:.2f}** |")
    lines += ["", "Rerun: `python benchmarks/vs_anonymeter/run.py --anonymeter-venv DIR --out docs/performance.md` "
              "(Anonymeter is installed into DIR from PyPI on first use).", "", END_MARK]
    return "\n".join(lines)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--anonymeter-venv", type=Path, required=True)
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--n-attacks", type=int, default=500)
    parser.add_argument("--out", type=Path, help="a Markdown file whose vs-anonymeter section is replaced")
    parser.add_argument("--json", type=Path)
    args = parser.parse_args()
    python = ensure_venv(args.anonymeter_venv)
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        facts = releases(folder)
        rows = []
        paths = {"copy": "copy.csv", "column shuffle": "shuffled.csv", "k=5": "k5.csv", "k=5, hierarchies given": "k5.csv"}
        for name, fact in facts.items():
            anon = anonymeter_side(python, folder, paths[name], args.runs, args.n_attacks)
            veil = veil_side(folder, name, fact, args.runs, args.n_attacks)
            rows.append((name, veil, anon))
            print(name, json.dumps({"veil": veil, "anonymeter": anon}), flush=True)
    text = table(rows, args.n_attacks, args.runs)
    print(text)
    if args.json:
        args.json.write_text(json.dumps([{"release": r, "veil": v, "anonymeter": a} for r, v, a in rows], indent=1))
    if args.out:
        doc = args.out.read_text()
        if START_MARK in doc:
            doc = doc[: doc.index(START_MARK)] + text + doc[doc.index(END_MARK) + len(END_MARK):]
        else:
            doc = doc.rstrip() + "\n\n" + text + "\n"
        args.out.write_text(doc)


if __name__ == "__main__":
    main()
