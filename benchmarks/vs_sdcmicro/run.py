"""veil side by side with sdcMicro: the same figures per record, and the time of each (CPU seconds).

Runs sdcMicro (built from its public source into a private R library, see README.md) through
``sdcmicro_bench.R`` and veil in process, on sdcMicro's ``francdat`` and ``testdata`` and on
Adult, compares the per-record figures (the largest absolute difference), and writes the table
into docs/performance.md (between the ``vs-sdcmicro`` markers) and benchmarks/results/vs_sdcmicro.json.

    R_LIBS=/scratch/sdcm/lib .venv/bin/python benchmarks/vs_sdcmicro/run.py \\
        --testdata /scratch/sdcm/testdata.csv [--localsupp-result FILE] [--out docs/performance.md]

Times are CPU seconds of the computation alone (``time.process_time`` in veil, ``proc.time`` in R),
reading the file excluded; they are noisy on a shared machine.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import time
from pathlib import Path

import numpy as np
import pandas as pd

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent.parent
ADULT = ROOT / "src" / "veil" / "datasets" / "data"
ADULT_KEYS = ["sex", "age", "race", "marital-status", "education", "native-country", "workclass", "occupation"]
TESTDATA_KEYS = ["urbrur", "roof", "walls", "water", "electcon", "relat", "sex"]
FRANCDAT = pd.DataFrame({
    "Key1": [1, 1, 1, 3, 4, 4, 6, 1], "Key2": [2, 2, 2, 3, 3, 3, 2, 2], "Key3": [5, 1, 1, 1, 1, 1, 1, 5],
    "Key4": [1, 1, 1, 5, 4, 1, 5, 1], "w": [18.0, 45.5, 39.0, 17.0, 541.0, 8.0, 5.0, 92.0],
})


def sdcmicro(task: str, path: Path, sep: str, keys: list[str], weight: str = "", household: str = "") -> dict:
    """One task of sdcmicro_bench.R: its outputs by name (numbers)."""
    out = subprocess.run(["Rscript", str(HERE / "sdcmicro_bench.R"), task, str(path), sep, ",".join(keys), weight,
                          household], capture_output=True, text=True, check=True, env=os.environ).stdout
    parsed = {}
    for line in out.splitlines():
        name, _, values = line.partition("\t")
        parsed[name] = np.array([float(v) for v in values.strip().strip("\t").split(",") if v.strip()])
    return parsed


def cpu(call):
    start = time.process_time()
    value = call()
    return value, time.process_time() - start


def _risk_case(name: str, frame: pd.DataFrame, path: Path, sep: str, keys: list[str], weight: str,
               household: str = "") -> dict:
    from veil.dataset import Dataset
    from veil.risk import individual_risk

    theirs = sdcmicro("risk", path, sep, keys, weight)
    dataset = Dataset.from_pandas(frame, quasi_identifiers=keys)
    ours, seconds = cpu(lambda: individual_risk(dataset, weight=weight or None, household=household or None))
    row = {"case": f"individual risk: {name}", "records": len(frame),
           "max_abs_diff": float(max(np.abs(ours.fk - theirs["fk"]).max(), np.abs(ours.Fk - theirs["Fk"]).max(),
                                     np.abs(ours.risk - theirs["rk"]).max())),
           "veil_s": seconds, "sdcmicro_s": float(theirs["seconds"][0])}
    if household:
        measured = sdcmicro("measure", path, sep, keys, weight, household)
        row["household_max_abs_diff"] = float(np.abs(ours.household_risk - measured["hier"]).max())
        row["household_er"] = [float(ours.household_risk.sum()), float(measured["hier_er"][0])]
    return row


def _suda_case(name: str, frame: pd.DataFrame, path: Path, sep: str, keys: list[str]) -> dict:
    from veil.classes import ClassTable
    from veil.dataset import Dataset
    from veil.risk import suda2

    theirs = sdcmicro("suda2", path, sep, keys)
    table = ClassTable.from_dataset(Dataset.from_pandas(frame, quasi_identifiers=keys))
    ours, seconds = cpu(lambda: suda2(table))
    _, seconds4 = cpu(lambda: suda2(table, max_size=4))
    rows = table.row_classes()
    contribution = np.array(list(ours.attribute_contribution().values()))
    return {"case": f"SUDA2: {name}", "records": len(frame),
            "max_abs_diff": float(max(np.abs(ours.score[rows] - theirs["score"]).max(),
                                      np.abs(ours.dis_score[rows] - theirs["dis"]).max(),
                                      np.abs(contribution - theirs["contribution"]).max())),
            "veil_s": seconds, "veil_max4_s": seconds4, "sdcmicro_s": float(theirs["seconds"][0])}


def _local_suppression(result_file: Path | None) -> dict:
    from veil.algorithms.local_suppression import local_suppression
    from veil.datasets import load_adult

    ours, seconds = cpu(lambda: local_suppression(load_adult(), k=5))
    row = {"case": "local suppression: Adult, 8 keys, k = 5", "records": 30162, "veil_s": seconds,
           "veil_cells": ours.details["cells_blanked_total"], "veil_k_achieved": ours.details["k_achieved"]}
    if result_file is not None and result_file.exists():
        lines = dict(line.split("\t")[:2] for line in result_file.read_text().splitlines() if "\t" in line)
        if "cells" in lines:
            row["sdcmicro_s"] = float(lines["seconds"])
            row["sdcmicro_cells"] = int(sum(float(v) for v in lines["cells"].split(",")))
    return row


def _render(rows: list[dict]) -> str:
    lines = ["| case | records | largest difference per record | veil CPU s | sdcMicro CPU s | notes |",
             "|---|---:|---:|---:|---:|---|"]
    for r in rows:
        diff = f"{r['max_abs_diff']:.1e}" if "max_abs_diff" in r else "—"
        notes = []
        if "veil_max4_s" in r:
            notes.append(f"veil max size 4: {r['veil_max4_s']:.3f} s")
        if "household_max_abs_diff" in r:
            notes.append(f"household risk differs by at most {r['household_max_abs_diff']:.1e}")
        if "veil_cells" in r:
            notes.append(f"cells blanked: veil {r['veil_cells']:,}"
                         + (f", sdcMicro {r['sdcmicro_cells']:,}" if "sdcmicro_cells" in r else "")
                         + f"; veil's smallest f_i {r['veil_k_achieved']}")
        theirs = f"{r['sdcmicro_s']:.3f}" if "sdcmicro_s" in r else "—"
        lines.append(f"| {r['case']} | {r['records']:,} | {diff} | {r['veil_s']:.3f} | {theirs} | {'; '.join(notes)} |")
    return "\n".join(lines) + "\n"


def _write_doc(out: Path, table: str) -> None:
    text = out.read_text()
    start, end = "<!-- vs-sdcmicro:start -->", "<!-- vs-sdcmicro:end -->"
    block = f"{start}\n{table}{end}"
    if start in text:
        text = text[:text.index(start)] + block + text[text.index(end) + len(end):]
    else:
        text = text.rstrip("\n") + "\n\n" + block + "\n"
    out.write_text(text)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--testdata", type=Path, required=True, help="sdcMicro's testdata as CSV (README.md).")
    parser.add_argument("--localsupp-result", type=Path, help="sdcmicro_bench.R localsupp's output on Adult.")
    parser.add_argument("--out", type=Path, help="docs/performance.md: the table goes between the markers.")
    args = parser.parse_args()
    from veil.datasets import load_adult

    scratch = Path(os.environ.get("TMPDIR", "/tmp")) / "veil_vs_sdcmicro"
    scratch.mkdir(exist_ok=True)
    francdat = scratch / "francdat.csv"
    FRANCDAT.to_csv(francdat, index=False)
    adult = load_adult().frame
    adult_csv = scratch / "adult.csv"
    adult.to_csv(adult_csv, index=False, sep=";")
    testdata = pd.read_csv(args.testdata)
    rows = [
        _risk_case("francdat", FRANCDAT, francdat, ",", ["Key1", "Key2", "Key3", "Key4"], "w"),
        _risk_case("testdata (7 keys, weights, households)", testdata, args.testdata, ",", TESTDATA_KEYS,
                   "sampling_weight", "ori_hid"),
        _risk_case("Adult (8 keys, no weights)", adult, adult_csv, ";", ADULT_KEYS, ""),
        _suda_case("francdat", FRANCDAT, francdat, ",", ["Key1", "Key2", "Key3", "Key4"]),
        _suda_case("testdata (7 keys)", testdata, args.testdata, ",", TESTDATA_KEYS),
        _suda_case("Adult (8 keys)", adult, adult_csv, ";", ADULT_KEYS),
        _local_suppression(args.localsupp_result),
    ]
    results = ROOT / "benchmarks" / "results" / "vs_sdcmicro.json"
    results.write_text(json.dumps(rows, indent=2) + "\n")
    table = _render(rows)
    print(table)
    if args.out is not None:
        _write_doc(args.out, table)


if __name__ == "__main__":
    main()
